"""The notebook session: seeds, device, versions, quiet progress bars, and where results go.

Every notebook calls `setup(...)` once, right after its `parameters` cell, then `record(name, value)` for its
key figures and `save_figure(fig, name)` for its plots. `cdlm-nb run` gathers both from the run folder.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import math
import os
import platform
import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING

from transformers import set_seed

from ..profiles import SEED, Profile, get_profile
from ..support.artefacts import write_text_atomic
from ..support.errors import ConfigError
from ..support.paths import run_dir as default_run_dir
from ..support.progress import is_headless

if TYPE_CHECKING:
    from .plan import NotebookPlan

LIBRARIES = ("torch", "transformers", "datasets", "tokenizers", "numpy", "papermill")


@dataclass(frozen=True)
class Session:
    """What one notebook run knows about itself."""

    profile: Profile
    notebook: str
    run_dir: Path
    device: str
    headless: bool
    plan: "NotebookPlan | None" = None  # on a GPU profile: the batches, precision, memory and time for this device
    seed: int = SEED  # training seed (initialisation, batch order); the profile's unless `setup(seed=...)` says

    @property
    def metrics_path(self) -> Path:
        return notebook_record(self.run_dir, self.notebook, "metrics")

    @property
    def inputs_path(self) -> Path:
        return notebook_record(self.run_dir, self.notebook, "inputs")

    @property
    def figures_dir(self) -> Path:
        return self.run_dir / "figures"


_SESSION: Session | None = None
RECORDS = {"metrics": "", "inputs": ".inputs"}  # what a notebook records, and the suffix of its file
#: This CPU's fp32 matrix-multiply rate, measured and recorded by notebook 00's probe (`matmul_gflops`).
PROBE_NOTEBOOK, PROBE_METRIC = "00_overview", "env/matmul_gflops"


def notebook_record(run_dir: Path, notebook: str, kind: str) -> Path:
    """Where a notebook's records of `kind` (RECORDS) live: `<run_dir>/metrics/<notebook><suffix>.json`, read by
    `cdlm-nb run` into results.json."""
    return Path(run_dir) / "metrics" / f"{notebook}{RECORDS[kind]}.json"


def read_record(path: Path) -> dict:
    """A record file's entries (none when the notebook recorded none)."""
    return json.loads(path.read_text()) if path.exists() else {}


#: Each record file's entries as this process last wrote them, so that adding one needs no read of the file.
_RECORDED: dict[Path, dict] = {}


def _record_entries(path: Path, entries: Mapping[str, object]) -> None:
    """Add entries to a record file in one write, atomic: never half-written, even if a run is cut short. The file
    is read once per process (its entries then kept in `_RECORDED`), not once per entry."""
    path = Path(path).resolve()
    if path not in _RECORDED:
        _RECORDED[path] = read_record(path)
    _RECORDED[path].update(entries)
    write_text_atomic(path, json.dumps(_RECORDED[path], indent=2, sort_keys=True))


def _clear_record(path: Path) -> None:
    """Delete a record file, and this process's copy of its entries."""
    path = Path(path).resolve()
    _RECORDED.pop(path, None)
    path.unlink(missing_ok=True)


def quiet_progress_bars() -> None:
    """Silence the progress bars of tqdm, transformers and datasets (headless runs log, they don't animate)."""
    import datasets
    import transformers

    os.environ.setdefault("TQDM_DISABLE", "1")
    transformers.utils.logging.disable_progress_bar()
    datasets.disable_progress_bars()


#: Longformer pads every input up to a multiple of its attention window and says so once per window size: expected
#: here (the collators pad to the longest input, not to the window), so it is not shown as a warning in the notebooks.
LONGFORMER_PADDING_NOTE = "Input ids are automatically padded to be a multiple of `config.attention_window`"


def notebook_display() -> None:
    """What a notebook shows, set once per session: pandas tables whole (no column or row elided: they are small by
    construction), and transformers' note that Longformer padded an input to its window left out."""
    import pandas as pd

    pd.set_option("display.max_columns", None)
    pd.set_option("display.max_rows", 200)
    pd.set_option("display.width", 200)
    longformer = logging.getLogger("transformers.models.longformer.modeling_longformer")
    longformer.addFilter(_not_padding_note)  # a filter already there is not added twice


def _not_padding_note(record: logging.LogRecord) -> bool:
    return LONGFORMER_PADDING_NOTE not in record.getMessage()


@contextmanager
def random_state_kept() -> Iterator[None]:
    """Run a block without moving the random state of Python, NumPy and torch (CPU and CUDA), so work done on the
    side (a model built on demand) leaves the notebook's own numbers as they would have been without it."""
    import numpy as np
    import torch

    states = random.getstate(), np.random.get_state(), torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


def detect_device() -> str:
    """'cuda', 'mps' or 'cpu' — the best accelerator torch can see."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def library_versions() -> dict[str, str]:
    """Installed versions of the libraries the numbers depend on."""
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def cpu_identity() -> dict[str, str]:
    """The CPU the numbers were computed on: its model, the vector instructions torch's kernels use (AVX2,
    AVX-512: they order float sums differently) and torch's thread count. Two runs with the same identity are
    the same machine for `cdlm-nb compare`."""
    import torch

    cpuinfo = Path("/proc/cpuinfo")
    names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
             if line.startswith("model name")] if cpuinfo.is_file() else []
    return {"model": names[0] if names else platform.processor() or platform.machine(),
            "capability": torch.backends.cpu.get_cpu_capability(), "threads": str(torch.get_num_threads())}


def setup(profile: str, notebook: str, run_dir: str | os.PathLike | None = None, verbose: bool = True,
          seed: int | None = None) -> Session:
    """Start a notebook session: resolve the profile, seed, pick the device, make the run folder.

    `seed` (`session.seed`) replaces the profile's seed for training (initialisation, batch order); the data samples
    keep the profile's, so rerunning with other seeds measures fine-tuning seed noise alone.
    The previous metrics of this notebook are cleared so `results.json` only ever holds numbers from the run
    that just happened.
    """
    global _SESSION
    resolved = get_profile(profile)
    headless = is_headless()
    if headless:
        quiet_progress_bars()
    notebook_display()
    training_seed = resolved.seed if seed is None else int(seed)
    set_seed(training_seed)
    device = detect_device()
    folder = default_run_dir(resolved.name, run_dir)
    rate = recorded_cpu_gflops(folder) if resolved.wants_gpu and device != "cuda" else None  # measures nothing
    plan = device_plan(resolved, notebook, device, cpu_gflops=rate)
    if plan is not None:
        resolved = plan.apply(resolved)
    session = Session(resolved, notebook, folder, device, headless, plan, training_seed)
    session.metrics_path.parent.mkdir(parents=True, exist_ok=True)
    for kind in RECORDS:
        _clear_record(notebook_record(session.run_dir, notebook, kind))
    _SESSION = session
    if verbose:
        print(f"profile {resolved.name!r}: {resolved.description}")
        print(f"device: {device}   run folder: {session.run_dir}")
        print("versions: " + ", ".join(f"{k} {v}" for k, v in library_versions().items()))
        if resolved.wants_gpu and device == "cpu":
            print(
                f"hint: the {resolved.name} profile is sized for a GPU. On Colab: Runtime > Change runtime type > "
                "GPU, then run again; or set PROFILE = 'cpu'."
            )
        if plan is not None:
            print(plan.summary())
    return session


def device_plan(profile: Profile, notebook: str, device: str,
                cpu_gflops: float | None = None) -> "NotebookPlan | None":
    """The plan of `notebook` on this session's device (`plan`) for a profile sized for a GPU; None for the
    offline profiles and for notebooks that run no model. Nothing is measured here: off a CUDA card, the plan's
    minutes need the CPU's rate (`cpu_gflops`, e.g. `recorded_cpu_gflops` or an explicit `matmul_gflops()`), and
    without one the plan gives no minutes."""
    if not profile.wants_gpu:
        return None
    from .plan import plan_notebook, this_card

    return plan_notebook(profile, notebook, this_card(device, cpu_gflops=cpu_gflops or 0.0))


def recorded_cpu_gflops(run_dir: str | os.PathLike) -> float | None:
    """This CPU's matrix-multiply rate as notebook 00 measured and recorded it in `run_dir` (`PROBE_METRIC`); None
    where notebook 00 has not run there."""
    value = read_record(notebook_record(Path(run_dir), PROBE_NOTEBOOK, "metrics")).get(PROBE_METRIC)
    return float(value) if value else None


def current_session() -> Session:
    """The session `setup()` started; a clear error if a notebook forgot to call it."""
    if _SESSION is None:
        raise ConfigError("no session: call cdlm_nb.setup(PROFILE, notebook=...) at the top of the notebook")
    return _SESSION


def record(name: str, value: float) -> float:
    """Keep a key figure of this notebook; `cdlm-nb run` gathers them into results.json `metrics`.

    Names are slash-separated paths such as `perplexity/cdlm`; values must be finite numbers.
    """
    value = _checked(name, value)
    _record_entries(current_session().metrics_path, {name: value})
    return value


def _checked(name: str, value: float) -> float:
    """`value` as a float, after checking it is a finite number (a TypeError or ValueError naming `name`)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"record({name!r}, ...) needs a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"record({name!r}, {value}) is not finite; fix the computation rather than record it")
    return value


def record_all(metrics: Mapping[str, float], prefix: str = "") -> dict[str, float]:
    """`record` every figure of a mapping, e.g. the one a report function returns: `{"perplexity/cdlm": 3.4}`.

    With `prefix`, names are `prefix/name`. Every figure is checked before any is kept, and the file is written
    once. Returns what was recorded, so a notebook can show it.
    """
    recorded = {}
    for name, value in metrics.items():
        full = f"{prefix.rstrip('/')}/{name}" if prefix else name
        recorded[full] = _checked(full, value)
    if recorded:
        _record_entries(current_session().metrics_path, recorded)
    return recorded


def record_input(name: str, metrics: str, source: str | None) -> str | None:
    """Note an optional input (a file outside the repository, a download) and the prefix of the metric names
    computed from it; `source` None: absent here. `cdlm-nb compare` then reads a baseline's metrics under that
    prefix as "not applicable here (input absent)" instead of missing, so a clone without them still passes."""
    if not metrics:
        raise ValueError(f"record_input({name!r}, ...) needs the metric prefix computed from that input")
    _record_entries(current_session().inputs_path, {name: {"metrics": metrics, "source": source}})
    return source


def save_figure(fig, name: str, dpi: int = 120) -> Path:
    """Save a matplotlib figure as `runs/<profile>/figures/<notebook>__<name>.png` and return the path."""
    session = current_session()
    session.figures_dir.mkdir(parents=True, exist_ok=True)
    path = session.figures_dir / f"{session.notebook}__{name}.png"
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return path


def matmul_gflops(size: int = 512, repeats: int = 5, device: str = "cpu", dtype: str = "float32") -> float:
    """Matrix-multiply throughput in GFLOP/s of `size` x `size` products in `dtype` on `device`. The defaults are a
    one-second sanity check of this CPU; `benchmarks/attention_speed.py` bounds attention with a large product on
    its device (a CUDA clock waits for the kernels, which run asynchronously)."""
    import time

    import torch

    a, b = (torch.randn(size, size, device=device, dtype=getattr(torch, dtype)) for _ in range(2))
    a @ b  # warm-up
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    if device == "cuda":
        torch.cuda.synchronize()
    return 2 * size**3 * repeats / (time.perf_counter() - start) / 1e9
