"""Every notebook runs on its own (a fresh Colab runtime): one that needs notebook 02's models builds them itself.

Each notebook that loads them is run headlessly on the smoke profile in an empty run folder, through its own cells
up to the line that builds what is missing (`pretraining.on_demand.ensure_pretrained`); the full notebooks run
alone in `make test`'s smoke run only after notebook 02, so this is where running alone is checked.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from cdlm_nb.profiles import PAPER_MODELS, get_profile
from cdlm_nb.tooling.runner import discover_notebooks, run_notebooks, select_notebooks

SMOKE = get_profile("smoke")
#: The notebooks that load notebook 02's models, and the models each asks for on the smoke profile.
WANTS = {
    "03": (*PAPER_MODELS, "base"),
    "04": SMOKE.coref.models,
    "05": SMOKE.matching.models,
    "06": SMOKE.multihop.models,
    "07": SMOKE.attention.models,
    "11": SMOKE.comparison.systems,
}
CALL = "ensure_pretrained("


def test_every_notebook_that_loads_notebook_02s_models_builds_them_when_missing():
    for path in discover_notebooks():
        code = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
        loads = "PretrainedShelf" in code or "search_for(" in code
        assert (path.stem[:2] in WANTS) == loads, f"{path.name}: update WANTS"
        assert (CALL in code) == loads and ("BUILD_MISSING" in code) == loads, path.name


def through_the_build(path: Path, folder: Path) -> Path:
    """A copy of the notebook in `folder` that ends with the line calling `ensure_pretrained`."""
    nb = nbformat.read(path, as_version=4)
    at = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and CALL in cell.source)
    lines = nb.cells[at].source.splitlines()
    nb.cells[at].source = "\n".join(lines[: next(i for i, line in enumerate(lines) if CALL in line) + 1])
    nb.cells = nb.cells[: at + 1]
    folder.mkdir()
    nbformat.write(nb, folder / path.name)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("number", WANTS)
def test_a_notebook_run_alone_builds_the_models_it_needs_in_its_empty_run_folder(number, tmp_path):
    from cdlm_nb.tooling.on_demand import to_build

    (path,) = select_notebooks(discover_notebooks(), [number])
    out = tmp_path / "run"
    results = run_notebooks("smoke", output=str(out), folder=through_the_build(path, tmp_path / "notebooks"),
                            echo=lambda *_: None)
    assert results["notebooks"][0]["status"] == "ok", results["notebooks"][0]["error"]
    assert to_build(out, SMOKE, WANTS[number]) == []
    printed = "".join(output.get("text", "") for cell in nbformat.read(out / path.name, as_version=4).cells
                      if cell.cell_type == "code" for output in cell.outputs)
    assert "This notebook needs notebook 02's models" in printed and "measured on a 2-core CPU" in printed
    assert "\nbuilt " in printed
