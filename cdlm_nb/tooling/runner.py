"""`cdlm-nb run`: execute the notebooks in order with papermill and gather what they recorded.

Writes to `runs/<profile>/`: the executed notebooks, `figures/`, `results.json` and `summary.md`.
Parameters given with `-p NAME VALUE` go into every chosen notebook whose `parameters` cell declares NAME.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import platform
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..profiles import get_profile
from ..support.artefacts import write_text_atomic
from ..support.errors import ConfigError
from ..support.paths import notebooks_dir
from ..support.paths import run_dir as default_run_dir
from ..support.progress import HEADLESS_ENV
from .runtime import RECORDS, cpu_identity, library_versions, notebook_record, read_record

NOTEBOOK_NAME = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")
RUNNER_PARAMETERS = {"PROFILE": "--profile", "RUN_DIR": "--output"}  # set by the runner itself
PROGRESS_EVERY_S = 10.0  # at most one progress line per this many seconds: readable live, short in CI logs
HEARTBEAT_S = 60.0  # a cell still running says so this often (a pretraining cell runs for minutes)
#: what running notebooks needs beyond the core: the `lab` extra (ipykernel provides the `python3` kernel)
LAB_MODULES = ("papermill", "nbformat", "ipykernel")
LAB_INSTALL = 'pip install -e ".[lab]" in the clone (cdlm-nb is not on PyPI)'


@dataclass
class NotebookResult:
    name: str
    seconds: float
    status: str  # "ok" | "failed"
    error: str | None = None
    parameters: dict[str, Any] = field(default_factory=dict)  # the `-p` values injected into this notebook


def require_lab() -> None:
    """A ConfigError naming the missing packages and `pip install -e ".[lab]"` when the Jupyter stack that
    executes notebooks is absent (the core leaves it out, so that a Colab install keeps Colab's own kernel)."""
    missing = [name for name in LAB_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigError(f"running the notebooks (papermill) needs the `lab` extra, and {', '.join(missing)} "
                          f"{'is' if len(missing) == 1 else 'are'} not installed: {LAB_INSTALL} (`make install` "
                          "installs it)")


def discover_notebooks(folder: Path | None = None) -> list[Path]:
    """The tutorial notebooks (`NN_snake_name.ipynb`) in order."""
    folder = folder or notebooks_dir()
    return sorted(p for p in folder.glob("*.ipynb") if NOTEBOOK_NAME.match(p.name))


def select_notebooks(notebooks: list[Path], only: list[str] | None) -> list[Path]:
    """Keep the notebooks whose number (`01`) or name (`01_cross_document_masking`) is in `only`."""
    if not only:
        return notebooks
    by_key = {}
    for path in notebooks:
        by_key[path.stem[:2]] = path
        by_key[path.stem] = path
    unknown = [key for key in only if key not in by_key]
    if unknown:
        valid = ", ".join(p.stem for p in notebooks)
        raise ConfigError(f"unknown notebook(s) {unknown}; valid: {valid}")
    chosen = {by_key[key] for key in only}
    return [p for p in notebooks if p in chosen]


def parse_parameter_value(text: str) -> Any:
    """A `-p NAME VALUE` value as a literal: JSON first (`2`, `1e-4`, `["cdlm"]`, `true`), then YAML (`[a, b]`).

    A bare word stays a string (`ecbplus`); so does anything YAML reads as a non-JSON type (a date, say).
    """
    try:
        return json.loads(text)
    except ValueError:
        pass
    if not text.strip():
        return text
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return text
    return value


def parse_parameters(pairs: Sequence[Sequence[str]] | None) -> dict[str, Any]:
    """`[("EPOCHS", "2"), ("DATA", "ecbplus")]` -> `{"EPOCHS": 2, "DATA": "ecbplus"}`; a name given twice is an
    error."""
    parameters: dict[str, Any] = {}
    for name, text in pairs or []:
        if not name.isidentifier():
            raise ConfigError(f"-p {name!r}: a parameter name is a Python identifier, e.g. -p EPOCHS 2")
        if name in RUNNER_PARAMETERS:
            raise ConfigError(f"-p {name}: the runner sets {name} itself; use {RUNNER_PARAMETERS[name]} instead")
        if name in parameters:
            raise ConfigError(f"-p {name} is given twice ({parameters[name]!r} and {text!r}); give it once")
        parameters[name] = parse_parameter_value(text)
    return parameters


def declared_parameters(path: Path) -> dict[str, str]:
    """The names a notebook's `parameters` cell assigns, in order, with their defaults' source text (papermill's
    own reading of the cell)."""
    import papermill

    return {name: info["default"] for name, info in papermill.inspect_notebook(str(path)).items()}


def check_parameter_type(name: str, value: Any, default: str, notebook: str) -> None:
    """Refuse a value whose type cannot stand in for the notebook's default (a word where a number is declared).

    A default of None accepts anything, and null fits any default; an int is fine where a float is declared; a
    default that is not a literal is not checked.
    """
    try:
        declared = ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return
    if declared is None or value is None:
        return
    wanted = type(declared)
    ok = isinstance(value, wanted) and not (isinstance(value, bool) and wanted is not bool)
    ok = ok or (wanted is float and isinstance(value, int) and not isinstance(value, bool))
    if not ok:
        kind = wanted.__name__
        article = "an" if kind[0] in "aeiou" else "a"
        raise ConfigError(f"-p {name} {json.dumps(value)}: {notebook} declares {name} = {default} ({kind}); "
                          f"give {article} {kind} literal, e.g. -p {name} '{json.dumps(declared)}'")


def parameters_per_notebook(notebooks: Sequence[Path], parameters: Mapping[str, Any]) -> dict[Path, dict[str, Any]]:
    """The user's parameters each notebook declares, type-checked against its defaults. A name that no chosen
    notebook declares is an error."""
    declared = {path: declared_parameters(path) for path in notebooks} if parameters else {}
    unused = [name for name in parameters if not any(name in names for names in declared.values())]
    if unused:
        listing = "; ".join(f"{path.stem}: {', '.join(names) or '(none)'}" for path, names in declared.items())
        raise ConfigError(f"parameter(s) {', '.join(unused)} not declared by any chosen notebook "
                          f"({', '.join(p.stem for p in notebooks) or 'none chosen'}); they declare: {listing}")
    per_notebook = {}
    for path in notebooks:
        names = declared.get(path, {})
        per_notebook[path] = {k: v for k, v in parameters.items() if k in names}
        for name, value in per_notebook[path].items():
            check_parameter_type(name, value, names[name], path.stem)
    return per_notebook


def describe_failure(exc: Exception) -> str:
    """`cell N: ExceptionName: message` for a papermill failure, else the exception itself."""
    cell = getattr(exc, "cell_index", None)
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    if ename is not None:
        where = f"cell {cell}: " if cell is not None else ""
        return f"{where}{ename}: {evalue}"
    return f"{type(exc).__name__}: {exc}"


class CellProgress:
    """nbclient cell hooks that print `cell n/N` and the elapsed time, at most one line per `every` seconds.

    A line is printed when a code cell starts or ends and `every` seconds have passed since the last line, so a
    long cell is announced when it starts and timed when it ends, while a run of quick cells prints nothing; a cell
    still running after `heartbeat` seconds says so again every `heartbeat` seconds (from a background thread).
    """

    def __init__(self, total: int, echo: Callable[[str], Any] = print, every: float = PROGRESS_EVERY_S,
                 clock: Callable[[], float] = time.perf_counter, heartbeat: float = HEARTBEAT_S):
        self.total, self.echo, self.every, self.clock, self.heartbeat = total, echo, every, clock, heartbeat
        self.start = self.last_line = clock()
        self.count = 0
        self.cell_start = self.start
        self._running: tuple[threading.Event, threading.Thread] | None = None

    def _beat(self, number: int, stop: threading.Event) -> None:
        while not stop.wait(self.heartbeat):
            now = self.clock()
            self.echo(f"      cell {number}/{self.total} still running ({now - self.cell_start:.0f} s), "
                      f"{now - self.start:.0f} s elapsed")
            self.last_line = now

    def stop(self) -> None:
        """End the heartbeat of the running cell, if any (also called when a notebook fails); waits for its thread, so
        no heartbeat line can follow the cell's end."""
        if self._running is not None:
            stop, thread = self._running
            stop.set()
            thread.join()
            self._running = None

    def _maybe_echo(self, text: str) -> None:
        now = self.clock()
        if now - self.last_line >= self.every:
            self.echo(f"      cell {self.count}/{self.total} {text}, {now - self.start:.0f} s elapsed")
            self.last_line = now

    def on_cell_execute(self, cell=None, cell_index=None, **_) -> None:
        self.stop()
        self.count += 1
        self.cell_start = self.clock()
        self._maybe_echo("running")
        if self.heartbeat > 0:
            stop = threading.Event()
            self._running = (stop, threading.Thread(target=self._beat, args=(self.count, stop), daemon=True))
            self._running[1].start()

    def on_cell_executed(self, cell=None, cell_index=None, **_) -> None:
        self.stop()
        self._maybe_echo(f"done in {self.clock() - self.cell_start:.0f} s")

    def hooks(self) -> dict[str, Callable[..., None]]:
        return {"on_cell_execute": self.on_cell_execute, "on_cell_executed": self.on_cell_executed}


def count_code_cells(path: Path) -> int:
    """The code cells nbclient will execute (non-empty), counting the one papermill injects for parameters."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return 1 + sum(1 for cell in nb.cells if cell.cell_type == "code" and cell.source.strip())


def kernel_config(folder: str):
    """Kernel-manager settings for talking to the kernel over local sockets in `folder`, not unencrypted TCP.

    Over TCP, ipykernel warns on every start that traffic is unencrypted; IPC sockets are files only this user can
    reach, so the warning does not apply. Windows has no IPC transport: there it stays TCP (and warns).
    """
    from traitlets.config import Config

    if sys.platform == "win32":
        return Config()
    return Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(folder, "kernel")}})


def execute_notebook(path: Path, out_dir: Path, profile: str, log_output: bool = False,
                     parameters: Mapping[str, Any] | None = None, echo: Callable[[str], Any] = print,
                     progress_every: float = PROGRESS_EVERY_S) -> NotebookResult:
    """Run one notebook with papermill (kernel `python3`, cwd `notebooks/`), injecting PROFILE, RUN_DIR and
    `parameters`; report progress through `echo`."""
    import papermill

    for kind in RECORDS:  # only this run's numbers count
        notebook_record(out_dir, path.stem, kind).unlink(missing_ok=True)
    parameters = dict(parameters or {})
    progress = CellProgress(count_code_cells(path), echo, progress_every)
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="cdlm-nb-kernel-") as sockets:
            papermill.execute_notebook(
                str(path),
                str(out_dir / path.name),
                parameters={"PROFILE": profile, "RUN_DIR": str(out_dir), **parameters},
                kernel_name="python3",
                cwd=str(path.parent),
                progress_bar=False,
                log_output=log_output,
                config=kernel_config(sockets),
                **progress.hooks(),
            )
    except Exception as exc:  # papermill re-raises the cell's exception as PapermillExecutionError
        return NotebookResult(path.stem, time.perf_counter() - start, "failed", describe_failure(exc), parameters)
    finally:
        progress.stop()
    return NotebookResult(path.stem, time.perf_counter() - start, "ok", None, parameters)


def notebook_metrics(out_dir: Path, name: str) -> dict[str, float]:
    """The metrics notebook `name` recorded in this run (`metrics/<notebook>.json`; none if it recorded none)."""
    return read_record(notebook_record(out_dir, name, "metrics"))


def gather_metrics(out_dir: Path, names: list[str]) -> dict[str, float]:
    """Merge the metrics each notebook recorded, in notebook order."""
    metrics: dict[str, float] = {}
    for name in names:
        metrics.update(notebook_metrics(out_dir, name))
    return metrics


def gather_inputs(out_dir: Path, names: list[str]) -> dict[str, dict]:
    """The optional inputs each notebook declared (`record_input`), with the notebook that read them."""
    inputs: dict[str, dict] = {}
    for name in names:
        inputs.update({key: {**value, "notebook": name}
                       for key, value in read_record(notebook_record(out_dir, name, "inputs")).items()})
    return inputs


def summary_markdown(results: dict) -> str:
    """results.json as a readable table."""
    lines = [f"# Run summary — profile `{results['profile']}`", ""]
    if results.get("parameters"):
        lines += ["Parameters: " + ", ".join(f"`{k} = {json.dumps(v)}`" for k, v in results["parameters"].items()),
                  ""]
    lines += ["| notebook | status | seconds | error |", "|---|---|---:|---|"]
    for nb in results["notebooks"]:
        error = (nb["error"] or "").replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {nb['name']} | {nb['status']} | {nb['seconds']:.1f} | {error} |")
    total = sum(nb["seconds"] for nb in results["notebooks"])
    lines += ["", f"Total: {total:.1f} s", "", "| metric | value |", "|---|---:|"]
    lines += [f"| {name} | {value:.4g} |" for name, value in results["metrics"].items()]
    return "\n".join(lines) + "\n"


def run_notebooks(profile: str = "cpu", only: list[str] | None = None, output: str | None = None,
                  log_output: bool = False, echo=print, folder: Path | None = None,
                  parameters: Mapping[str, Any] | None = None, progress_every: float = PROGRESS_EVERY_S) -> dict:
    """Execute the chosen notebooks in order; write results.json and summary.md; return the results dict.

    `parameters` (`{"EPOCHS": 2}`) go into the notebooks that declare them; one no chosen notebook declares is a
    ConfigError before anything runs. Stops at nothing: every notebook runs even if an earlier one failed, so
    one report shows all failures.
    """
    get_profile(profile)  # fail fast on an unknown profile
    require_lab()  # and on a missing Jupyter stack, before any notebook starts
    notebooks = select_notebooks(discover_notebooks(folder), only)
    parameters = dict(parameters or {})
    per_notebook = parameters_per_notebook(notebooks, parameters)
    out_dir = default_run_dir(profile, output)
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ[HEADLESS_ENV] = "1"  # inherited by the kernels papermill starts
    os.environ.setdefault("TQDM_DISABLE", "1")
    results: list[NotebookResult] = []
    for i, path in enumerate(notebooks, 1):
        given = per_notebook[path]
        extra = "".join(f", {k}={json.dumps(v)}" for k, v in given.items())
        echo(f"[{i}/{len(notebooks)}] {path.stem} (profile {profile}{extra}) ...")
        result = execute_notebook(path, out_dir, profile, log_output, given, echo, progress_every)
        results.append(result)
        suffix = f" — {result.error}" if result.error else ""
        echo(f"      {result.status} in {result.seconds:.1f} s{suffix}")
    payload = {
        "profile": profile,
        "parameters": parameters,
        "versions": library_versions(),  # what the numbers depend on, for `cdlm-nb compare` across machines
        "machine": platform.platform(),
        "cpu": cpu_identity(),  # same identity: same machine, held to the tight tolerance by `cdlm-nb compare`
        "notebooks": [asdict(r) for r in results],
        "metrics": gather_metrics(out_dir, [r.name for r in results]),
        "inputs": gather_inputs(out_dir, [r.name for r in results]),  # optional inputs, present or absent
        "metric_notebooks": {r.name: sorted(notebook_metrics(out_dir, r.name)) for r in results},
    }
    write_text_atomic(out_dir / "results.json", json.dumps(payload, indent=2))
    write_text_atomic(out_dir / "summary.md", summary_markdown(payload))
    echo(f"wrote {out_dir / 'results.json'} and summary.md")
    return payload
