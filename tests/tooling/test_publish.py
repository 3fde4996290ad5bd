"""`cdlm-nb publish` on a tiny fake run folder: executed notebooks into docs/notebooks/, results into baselines/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cdlm_nb.support.errors import ConfigError, DataError
from cdlm_nb.tooling.publish import publish, source_mismatch

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def notebook(sources: list[str], outputs: bool = False, run_dir: str = "") -> dict:
    """A minimal nbformat-4 notebook; executed (`outputs`) it has papermill's injected cell and a PNG output."""
    cells = [{"cell_type": "code", "metadata": {"tags": []}, "source": source, "outputs": [],
              "execution_count": None} for source in sources]
    if outputs:
        cells.insert(1, {"cell_type": "code", "metadata": {"tags": ["injected-parameters"]},
                         "source": f'PROFILE = "cpu"\nRUN_DIR = "{run_dir}"\n', "outputs": [], "execution_count": 1})
        cells[-1]["outputs"] = [{"output_type": "display_data", "metadata": {}, "data": {"image/png": PNG}}]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def write(path: Path, payload: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload))
    return path


SOURCES = {"00_overview": ['PROFILE = "cpu"', "print(1)"], "01_masking": ['PROFILE = "cpu"', "plot()"]}


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A fake checkout: two current notebooks, an empty repository root for docs/ and baselines/."""
    for name, sources in SOURCES.items():
        write(tmp_path / "repo" / "notebooks" / f"{name}.ipynb", notebook(sources))
    return tmp_path / "repo"


def fake_run(folder: Path, profile: str, status: dict[str, str] | None = None) -> Path:
    """A run folder as `cdlm-nb run` leaves it: executed notebooks and results.json."""
    status = status or dict.fromkeys(SOURCES, "ok")
    for name in SOURCES:
        write(folder / f"{name}.ipynb", notebook(SOURCES[name], outputs=True, run_dir=str(folder.resolve())))
    notebooks = [{"name": name, "seconds": 1.0, "status": s, "error": None if s == "ok" else "cell 3: ValueError: x",
                  "parameters": {}} for name, s in status.items()]
    write(folder / "results.json", {"profile": profile, "parameters": {}, "notebooks": notebooks,
                                    "metrics": {"perplexity/cdlm": 3.2 if profile == "cpu" else 9.1}})
    return folder


def current(checkout: Path) -> list[Path]:
    return sorted((checkout / "notebooks").glob("*.ipynb"))


def test_publish_copies_the_executed_notebooks_and_writes_both_baselines(tmp_path, checkout):
    cpu, smoke = fake_run(tmp_path / "cpu", "cpu"), fake_run(tmp_path / "smoke", "smoke")
    (checkout / "docs" / "notebooks").mkdir(parents=True)
    (checkout / "docs" / "notebooks" / "99_gone.ipynb").write_text("{}")
    lines = publish(cpu, smoke, root=checkout, notebooks=current(checkout))
    docs = checkout / "docs" / "notebooks"
    assert sorted(p.name for p in docs.iterdir()) == ["00_overview.ipynb", "01_masking.ipynb"]
    for name in SOURCES:  # the same JSON (embedded PNGs not re-encoded), the run folder named as a clone names it
        published = (docs / f"{name}.ipynb").read_text()
        assert published == (cpu / f"{name}.ipynb").read_text().replace(str(cpu.resolve()), "runs/cpu")
        assert 'RUN_DIR = \\"runs/cpu\\"' in published and str(tmp_path) not in published
    assert lines[0].startswith("docs/notebooks: 2 notebooks, 0.0 MB (largest ")
    assert lines[1:] == ["wrote baselines/cpu.json", "wrote baselines/smoke.json"]
    cpu_baseline = json.loads((checkout / "baselines" / "cpu.json").read_text())
    assert cpu_baseline["metrics"] == {"perplexity/cdlm": 3.2} and cpu_baseline["profile"] == "cpu"
    assert "torch" in cpu_baseline["versions"]  # added where the run did not record them
    assert json.loads((checkout / "baselines" / "smoke.json").read_text())["metrics"] == {"perplexity/cdlm": 9.1}


def test_publish_without_smoke_writes_only_the_cpu_baseline(tmp_path, checkout):
    publish(fake_run(tmp_path / "cpu", "cpu"), root=checkout, notebooks=current(checkout))
    assert sorted(p.name for p in (checkout / "baselines").iterdir()) == ["cpu.json"]


def test_publish_refuses_a_failed_or_missing_notebook(tmp_path, checkout):
    failed = fake_run(tmp_path / "failed", "cpu", {"00_overview": "ok", "01_masking": "failed"})
    with pytest.raises(DataError, match=r"01_masking failed: cell 3: ValueError: x.*make publish"):
        publish(failed, root=checkout, notebooks=current(checkout))
    partial = fake_run(tmp_path / "partial", "cpu", {"00_overview": "ok"})
    with pytest.raises(DataError, match="01_masking did not run"):
        publish(partial, root=checkout, notebooks=current(checkout))
    (fake_run(tmp_path / "lost", "cpu") / "00_overview.ipynb").unlink()
    with pytest.raises(DataError, match="00_overview: no executed copy"):
        publish(tmp_path / "lost", root=checkout, notebooks=current(checkout))
    assert not (checkout / "docs").exists() and not (checkout / "baselines").exists()


def test_publish_refuses_the_wrong_profile_and_a_run_of_older_notebooks(tmp_path, checkout):
    with pytest.raises(ConfigError, match="profile 'smoke', expected 'cpu'"):
        publish(fake_run(tmp_path / "smoke", "smoke"), root=checkout, notebooks=current(checkout))
    cpu = fake_run(tmp_path / "cpu", "cpu")
    write(checkout / "notebooks" / "01_masking.ipynb", notebook(['PROFILE = "cpu"', "plot(dpi=100)"]))
    with pytest.raises(DataError, match=r"01_masking.ipynb: cell 1 differs .*'plot\(dpi=100\)'"):
        publish(cpu, root=checkout, notebooks=current(checkout))


def test_source_mismatch_ignores_the_injected_parameters_and_counts_cells(tmp_path):
    ran = write(tmp_path / "ran.ipynb", notebook(["a", "b"], outputs=True))
    assert source_mismatch(ran, write(tmp_path / "same.ipynb", notebook(["a", "b"]))) is None
    longer = write(tmp_path / "longer.ipynb", notebook(["a", "b", "c"]))
    assert source_mismatch(ran, longer) == f"ran.ipynb: 2 cells, but {longer} has 3"


def test_source_mismatch_ignores_the_generated_time_line_only(tmp_path):
    ran = write(tmp_path / "ran.ipynb", notebook(["# 05 x\n\n**Time:** `cpu` 3 min", "b"]))
    synced = write(tmp_path / "synced.ipynb", notebook(["# 05 x\n\n**Time:** `cpu` 4 min", "b"]))
    assert source_mismatch(ran, synced) is None
    edited = write(tmp_path / "edited.ipynb", notebook(["# 05 y\n\n**Time:** `cpu` 3 min", "b"]))
    assert source_mismatch(ran, edited).startswith("ran.ipynb: cell 0 differs")


def test_without_machine_paths_makes_the_run_the_checkout_and_the_samples_relative(tmp_path):
    from cdlm_nb.tooling.publish import machine_paths, without_machine_paths

    root = tmp_path / "clone"
    paths = machine_paths(root / "runs" / "cpu", root)
    text = (f'"{root}/runs/cpu/figures/a.png", "{root}/cdlm_nb/report.py", "{root}", '
            f'"{tmp_path}/shared/data/multinews"')
    assert without_machine_paths(text, paths) == ('"runs/cpu/figures/a.png", "cdlm_nb/report.py", ".", '
                                                  '"../shared/data/multinews"')


def test_publish_reruns_the_overview_on_the_new_baselines(tmp_path, checkout, monkeypatch):
    """Notebook 00's chapter table reads baselines/cpu.json: the published copy is a run made after it is written."""
    from cdlm_nb.tooling import publish as module
    from cdlm_nb.tooling.runner import NotebookResult

    seen = []

    def execute(path, out_dir, profile, **_):
        seen.append(json.loads((checkout / "baselines" / "cpu.json").read_text())["metrics"])
        write(out_dir / path.name, notebook(SOURCES[path.stem] + ["rerun"], outputs=True, run_dir=str(out_dir)))
        return NotebookResult(path.stem, 1.0, "ok")

    monkeypatch.setattr(module, "execute_notebook", execute)
    monkeypatch.setattr("cdlm_nb.tooling.chapter_times.sync", lambda root: [])
    (checkout / "README.md").write_text("# x\n")
    lines = publish(fake_run(tmp_path / "cpu", "cpu"), fake_run(tmp_path / "smoke", "smoke"), root=checkout,
                    notebooks=current(checkout))
    assert seen == [{"perplexity/cdlm": 3.2}]  # it ran once, on the baseline this publish wrote
    overview = (checkout / "docs" / "notebooks" / "00_overview.ipynb").read_text()
    assert "rerun" in overview and str(tmp_path) not in overview and 'RUN_DIR = \\"runs/cpu\\"' in overview
    assert "rerun" not in (checkout / "docs" / "notebooks" / "01_masking.ipynb").read_text()
    assert lines[-1] == "wrote docs/notebooks/00_overview.ipynb"
