"""`cdlm-nb publish`: a full cpu run's executed notebooks into docs/notebooks/ (so a reader sees every figure and
table without running anything) and its results.json into baselines/ (what `cdlm-nb compare` checks against)."""

from __future__ import annotations

import json
import os
import platform
import tempfile
from pathlib import Path
from typing import Any

from ..support.artefacts import write_text_atomic
from ..support.errors import ConfigError, DataError
from ..support.paths import notebooks_dir, repo_root
from .regression import load_results, results_path
from .runner import discover_notebooks, execute_notebook
from .runtime import library_versions

PUBLISHED_PROFILE = "cpu"  # the published notebooks are the offline default's outputs
INJECTED_TAG = "injected-parameters"  # the cell papermill adds after `parameters`: in a run, not in notebooks/
#: Notebook 00's chapter table reads the times from baselines/cpu.json, which its own run could only see from the
#: previous publish: publish re-runs it once the new baselines are written, and publishes that copy.
OVERVIEW = "00_overview"
REPUBLISH = "run `make publish` to re-run the cpu and smoke profiles and publish them"


def cell_sources(path: Path) -> list[tuple[str, str]]:
    """(cell type, source) of each cell of a notebook, without papermill's injected-parameters cell and with the
    generated `**Time:**` line blanked (`chapter_times.sync` rewrites it after a run, from that run's times)."""
    from .chapter_times import TIME_LINE

    cells = json.loads(path.read_text())["cells"]
    return [(cell["cell_type"], TIME_LINE.sub("**Time:**", "".join(cell["source"]))) for cell in cells
            if INJECTED_TAG not in cell.get("metadata", {}).get("tags", [])]


def source_mismatch(published: Path, current: Path) -> str | None:
    """Where an executed (published) notebook's cells stop matching the current notebook's; None if they match."""
    ran, now = cell_sources(published), cell_sources(current)
    for index, (a, b) in enumerate(zip(ran, now, strict=False)):
        if a != b:
            first = (b[1].strip().splitlines() or [""])[0][:60]
            return f"{published.name}: cell {index} differs from {current} (the current cell starts {first!r})"
    if len(ran) != len(now):
        return f"{published.name}: {len(ran)} cells, but {current} has {len(now)}"
    return None


def check_full_run(run: str | os.PathLike, profile: str, notebooks: list[Path]) -> dict[str, Any]:
    """A run's results.json, after checking it is `profile`, ran every notebook of `notebooks` ok and holds each
    one's executed copy."""
    file = results_path(run)
    results = load_results(file)
    if results.get("profile") != profile:
        raise ConfigError(f"{file}: profile {results.get('profile')!r}, expected {profile!r}; {REPUBLISH}")
    status = {nb["name"]: nb for nb in results.get("notebooks", [])}
    problems = []
    for path in notebooks:
        entry = status.get(path.stem)
        if entry is None:
            problems.append(f"{path.stem} did not run")
        elif entry["status"] != "ok":
            problems.append(f"{path.stem} {entry['status']}: {entry.get('error')}")
        elif not (file.parent / path.name).is_file():
            problems.append(f"{path.stem}: no executed copy {file.parent / path.name}")
    if problems:
        raise DataError(f"{file}: not a full {profile} run of the {len(notebooks)} notebooks ("
                        + "; ".join(problems) + f"); {REPUBLISH}")
    return results


def machine_paths(run_dir: Path, root: Path) -> list[tuple[str, str]]:
    """(absolute path on this machine, what a reader's clone calls it), longest first: the run folder, the checkout
    and the sample corpora beside it (`../shared`)."""
    pairs = [(str(run_dir.resolve()), f"runs/{PUBLISHED_PROFILE}"), (str(root.resolve()) + os.sep, ""),
             (str(root.resolve()), "."), (str(root.resolve().parent / "shared"), "../shared")]
    return sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)


def without_machine_paths(text: str, paths: list[tuple[str, str]]) -> str:
    """An executed notebook's JSON with every absolute path of `machine_paths` made relative: the injected
    parameters (`RUN_DIR`), the run's printouts, warnings' file names and papermill's metadata then read the same on
    any machine, and name no scratch folder."""
    for absolute, relative in paths:
        text = text.replace(absolute, relative)
    return text


def copy_notebooks(run_dir: Path, notebooks: list[Path], docs: Path, root: Path) -> list[Path]:
    """Copy the executed notebooks (PNG outputs as embedded, absolute paths made relative: `without_machine_paths`)
    into `docs`, checking their cells match the current notebooks; drop published notebooks that no longer exist."""
    mismatches = [m for path in notebooks if (m := source_mismatch(run_dir / path.name, path))]
    if mismatches:
        raise DataError(f"{run_dir}: the run is of older notebooks ({'; '.join(mismatches)}); {REPUBLISH}")
    docs.mkdir(parents=True, exist_ok=True)
    names = {path.name for path in notebooks}
    for stale in docs.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink()
    return [copy_executed(run_dir, path.name, docs, root) for path in notebooks]


def copy_executed(run_dir: Path, name: str, docs: Path, root: Path) -> Path:
    """One executed notebook of `run_dir` into `docs`, its machine's paths made relative (`without_machine_paths`)."""
    target = docs / name
    write_text_atomic(target, without_machine_paths((run_dir / name).read_text(), machine_paths(run_dir, root)))
    return target


def rerun_overview(notebooks: list[Path], docs: Path, root: Path) -> list[Path]:
    """Re-run notebook 00 (`OVERVIEW`) on the new baselines and publish that executed copy in place of the run's."""
    path = next((p for p in notebooks if p.stem == OVERVIEW), None)
    if path is None:
        return []
    with tempfile.TemporaryDirectory(prefix="cdlm-nb-overview-") as scratch:
        result = execute_notebook(path, Path(scratch), PUBLISHED_PROFILE, echo=lambda _: None)
        if result.status != "ok":
            raise DataError(f"re-running {path.name} on the new baselines failed ({result.error}); the baselines "
                            f"are written, fix the notebook and run `cdlm-nb publish` again")
        return [copy_executed(Path(scratch), path.name, docs, root)]


def write_baseline(results: dict[str, Any], path: Path) -> Path:
    """results.json as a baseline (same layout), with the library versions the numbers came from."""
    if "versions" not in results:  # a run from before the runner recorded them: this environment is the best guess
        results = {**results, "versions": library_versions(), "machine": platform.platform()}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(results, indent=2) + "\n")
    return path


def size_line(files: list[Path], folder: Path) -> str:
    """`docs/notebooks/: 12 notebooks, 3.1 MB (largest 04_coreference.ipynb, 0.8 MB)`."""
    sizes = {path.name: path.stat().st_size for path in files}
    largest = max(sizes, key=sizes.__getitem__)
    return (f"{folder}: {len(files)} notebooks, {sum(sizes.values()) / 1e6:.1f} MB "
            f"(largest {largest}, {sizes[largest] / 1e6:.1f} MB)")


def publish(run: str | os.PathLike, smoke: str | os.PathLike | None = None, root: Path | None = None,
            notebooks: list[Path] | None = None) -> list[str]:
    """Publish a full cpu run (and a smoke run's baseline, then the times and figures generated from both:
    `chapter_times.sync`, and notebook 00 re-run on them: `rerun_overview`); return what was written, one line each."""
    root = root or repo_root()
    if root is None:
        raise ConfigError("publish writes into a checkout (docs/notebooks/, baselines/); run it from a clone")
    notebooks = notebooks if notebooks is not None else discover_notebooks(notebooks_dir())
    results = check_full_run(run, PUBLISHED_PROFILE, notebooks)
    smoke_results = check_full_run(smoke, "smoke", notebooks) if smoke is not None else None
    docs = root / "docs" / "notebooks"
    copied = copy_notebooks(results_path(run).parent, notebooks, docs, root)
    written = [write_baseline(results, root / "baselines" / "cpu.json")]
    if smoke_results is not None:
        written.append(write_baseline(smoke_results, root / "baselines" / "smoke.json"))
        if (root / "README.md").is_file():  # the times and the README's figure, from the new baselines
            from .chapter_times import sync

            written += sync(root)
            written += rerun_overview(notebooks, docs, root)
    return [size_line(copied, docs.relative_to(root)), *(f"wrote {path.relative_to(root)}" for path in written)]
