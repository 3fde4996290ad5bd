"""The notebook session: seeds, device, versions, quiet progress bars, and where results go.

Every notebook calls `setup(...)` once, right after its `parameters` cell, then `record(name, value)` for its
key figures and `save_figure(fig, name)` for its plots. `cdlm-nb run` gathers both from the run folder.
"""

from __future__ import annotations

import importlib.metadata
import json
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

from .artefacts import write_text_atomic
from .errors import ConfigError
from .paths import run_dir as default_run_dir
from .profiles import Profile, get_profile

if TYPE_CHECKING:
    from .plan import NotebookPlan

HEADLESS_ENV = "CDLM_NB_HEADLESS"  # set by `cdlm-nb run`: no widgets, no progress bars
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
    seed: int = 13  # training seed (initialisation, batch order); the profile's unless `setup(seed=...)` says

    @property
    def metrics_path(self) -> Path:
        return notebook_record(self.run_dir, self.notebook, "metrics")

    @property
    def inputs_path(self) -> Path:
        return notebook_record(self.run_dir, self.notebook, "inputs")

    @property
    def figures_dir(self) -> Path:
        return self.run_dir / "figures"

    @property
    def models_dir(self) -> Path:
        return self.run_dir / "models"


_SESSION: Session | None = None
RECORDS = {"metrics": "", "inputs": ".inputs"}  # what a notebook records, and the suffix of its file


def notebook_record(run_dir: Path, notebook: str, kind: str) -> Path:
    """Where a notebook's records of `kind` (RECORDS) live: `<run_dir>/metrics/<notebook><suffix>.json`, read by
    `cdlm-nb run` into results.json."""
    return Path(run_dir) / "metrics" / f"{notebook}{RECORDS[kind]}.json"


def read_record(path: Path) -> dict:
    """A record file's entries (none when the notebook recorded none)."""
    return json.loads(path.read_text()) if path.exists() else {}


def _record_entry(path: Path, key: str, value) -> None:
    """Add one entry to a record file, written atomically: never half-written, even if a run is cut short."""
    entries = read_record(path)
    entries[key] = value
    write_text_atomic(path, json.dumps(entries, indent=2, sort_keys=True))


def is_headless() -> bool:
    """True under `cdlm-nb run`/papermill/CI, where widgets cannot be shown and progress bars only add noise."""
    return os.environ.get(HEADLESS_ENV, "") not in ("", "0") or os.environ.get("CI", "") not in ("", "0", "false")


def quiet_progress_bars() -> None:
    """Silence the progress bars of tqdm, transformers and datasets (headless runs log, they don't animate)."""
    import datasets
    import transformers

    os.environ.setdefault("TQDM_DISABLE", "1")
    transformers.utils.logging.disable_progress_bar()
    datasets.disable_progress_bars()


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch so a re-run gives the same numbers."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


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
    training_seed = resolved.seed if seed is None else int(seed)
    seed_everything(training_seed)
    device = detect_device()
    plan = device_plan(resolved, notebook, device)
    if plan is not None:
        resolved = plan.apply(resolved)
    session = Session(resolved, notebook, default_run_dir(resolved.name, run_dir), device, headless, plan,
                      training_seed)
    session.metrics_path.parent.mkdir(parents=True, exist_ok=True)
    for kind in RECORDS:
        notebook_record(session.run_dir, notebook, kind).unlink(missing_ok=True)
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


def device_plan(profile: Profile, notebook: str, device: str) -> "NotebookPlan | None":
    """The plan of `notebook` on this session's device (`cdlm_nb.plan`) for a profile sized for a GPU; None for the
    offline profiles and for notebooks that run no model."""
    if not profile.wants_gpu:
        return None
    from .plan import plan_notebook, this_card

    return plan_notebook(profile, notebook, this_card(device, cpu_gflops=matmul_gflops(1024)))


def current_session() -> Session:
    """The session `setup()` started; a clear error if a notebook forgot to call it."""
    if _SESSION is None:
        raise ConfigError("no session: call cdlm_nb.setup(PROFILE, notebook=...) at the top of the notebook")
    return _SESSION


def record(name: str, value: float) -> float:
    """Keep a key figure of this notebook; `cdlm-nb run` gathers them into results.json `metrics`.

    Names are slash-separated paths such as `perplexity/cdlm`; values must be finite numbers.
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"record({name!r}, ...) needs a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"record({name!r}, {value}) is not finite; fix the computation rather than record it")
    _record_entry(current_session().metrics_path, name, value)
    return value


def record_all(metrics: Mapping[str, float], prefix: str = "") -> dict[str, float]:
    """`record` every figure of a mapping, e.g. the one a report function returns: `{"perplexity/cdlm": 3.4}`.

    With `prefix`, names are `prefix/name`. Returns what was recorded, so a notebook can show it.
    """
    recorded = {}
    for name, value in metrics.items():
        full = f"{prefix.rstrip('/')}/{name}" if prefix else name
        recorded[full] = record(full, value)
    return recorded


def record_input(name: str, metrics: str, source: str | None) -> str | None:
    """Note an optional input (a file outside the repository, a download) and the prefix of the metric names
    computed from it; `source` None: absent here. `cdlm-nb compare` then reads a baseline's metrics under that
    prefix as "not applicable here (input absent)" instead of missing, so a clone without them still passes."""
    if not metrics:
        raise ValueError(f"record_input({name!r}, ...) needs the metric prefix computed from that input")
    _record_entry(current_session().inputs_path, name, {"metrics": metrics, "source": source})
    return source


def save_figure(fig, name: str, dpi: int = 120) -> Path:
    """Save a matplotlib figure as `runs/<profile>/figures/<notebook>__<name>.png` and return the path."""
    session = current_session()
    session.figures_dir.mkdir(parents=True, exist_ok=True)
    path = session.figures_dir / f"{session.notebook}__{name}.png"
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return path


def progress(iterable=None, **kwargs):
    """A tqdm.auto progress bar (widget in Jupyter, text in a terminal) that stays silent when headless."""
    from tqdm.auto import tqdm

    kwargs.setdefault("disable", is_headless())
    return tqdm(iterable, **kwargs)


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
