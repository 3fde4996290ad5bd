"""`cdlm-nb run`: execute the notebooks in order with papermill and gather what they recorded.

Writes to `runs/<profile>/`: the executed notebooks, `figures/`, `results.json` and `summary.md`.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import ConfigError
from .paths import notebooks_dir, run_dir as default_run_dir
from .profiles import get_profile
from .runtime import HEADLESS_ENV

NOTEBOOK_NAME = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")


@dataclass
class NotebookResult:
    name: str
    seconds: float
    status: str  # "ok" | "failed"
    error: str | None = None


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


def describe_failure(exc: Exception) -> str:
    """`cell N: ExceptionName: message` for a papermill failure, else the exception itself."""
    cell = getattr(exc, "cell_index", None)
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    if ename is not None:
        where = f"cell {cell}: " if cell is not None else ""
        return f"{where}{ename}: {evalue}"
    return f"{type(exc).__name__}: {exc}"


def execute_notebook(path: Path, out_dir: Path, profile: str, log_output: bool = False) -> NotebookResult:
    """Run one notebook with papermill (kernel `python3`, cwd `notebooks/`), injecting PROFILE and RUN_DIR."""
    import papermill

    (out_dir / "metrics" / f"{path.stem}.json").unlink(missing_ok=True)  # only this run's numbers count
    start = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(path),
            str(out_dir / path.name),
            parameters={"PROFILE": profile, "RUN_DIR": str(out_dir)},
            kernel_name="python3",
            cwd=str(path.parent),
            progress_bar=False,
            log_output=log_output,
        )
    except Exception as exc:  # papermill re-raises the cell's exception as PapermillExecutionError
        return NotebookResult(path.stem, time.perf_counter() - start, "failed", describe_failure(exc))
    return NotebookResult(path.stem, time.perf_counter() - start, "ok")


def gather_metrics(out_dir: Path, names: list[str]) -> dict[str, float]:
    """Merge the metrics each notebook recorded (`metrics/<notebook>.json`), in notebook order."""
    metrics: dict[str, float] = {}
    for name in names:
        path = out_dir / "metrics" / f"{name}.json"
        if path.exists():
            metrics.update(json.loads(path.read_text()))
    return metrics


def summary_markdown(results: dict) -> str:
    """results.json as a readable table."""
    lines = [f"# Run summary — profile `{results['profile']}`", "", "| notebook | status | seconds | error |",
             "|---|---|---:|---|"]
    for nb in results["notebooks"]:
        error = (nb["error"] or "").replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {nb['name']} | {nb['status']} | {nb['seconds']:.1f} | {error} |")
    total = sum(nb["seconds"] for nb in results["notebooks"])
    lines += ["", f"Total: {total:.1f} s", "", "| metric | value |", "|---|---:|"]
    lines += [f"| {name} | {value:.4g} |" for name, value in results["metrics"].items()]
    return "\n".join(lines) + "\n"


def run_notebooks(profile: str = "cpu", only: list[str] | None = None, output: str | None = None,
                  log_output: bool = False, echo=print, folder: Path | None = None) -> dict:
    """Execute the chosen notebooks in order; write results.json and summary.md; return the results dict.

    Stops at nothing: every notebook runs even if an earlier one failed, so one report shows all failures.
    """
    get_profile(profile)  # fail fast on an unknown profile
    notebooks = select_notebooks(discover_notebooks(folder), only)
    out_dir = default_run_dir(profile, output)
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ[HEADLESS_ENV] = "1"  # inherited by the kernels papermill starts
    os.environ.setdefault("TQDM_DISABLE", "1")
    results: list[NotebookResult] = []
    for i, path in enumerate(notebooks, 1):
        echo(f"[{i}/{len(notebooks)}] {path.stem} (profile {profile}) ...")
        result = execute_notebook(path, out_dir, profile, log_output)
        results.append(result)
        suffix = f" — {result.error}" if result.error else ""
        echo(f"      {result.status} in {result.seconds:.1f} s{suffix}")
    payload = {
        "profile": profile,
        "notebooks": [asdict(r) for r in results],
        "metrics": gather_metrics(out_dir, [r.name for r in results]),
    }
    (out_dir / "results.json").write_text(json.dumps(payload, indent=2))
    (out_dir / "summary.md").write_text(summary_markdown(payload))
    echo(f"wrote {out_dir / 'results.json'} and summary.md")
    return payload
