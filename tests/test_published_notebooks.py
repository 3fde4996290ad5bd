"""The published run (docs/notebooks/) is of the current notebooks: an edit without re-publishing fails here."""

from __future__ import annotations

import pytest

from cdlm_nb.tooling.publish import source_mismatch
from cdlm_nb.tooling.runner import discover_notebooks
from tests.conftest import REPO_ROOT

PUBLISHED = REPO_ROOT / "docs" / "notebooks"
FIX = "run `make publish` (the cpu and smoke runs, then `cdlm-nb publish`) and commit docs/notebooks/ and baselines/"



def test_every_notebook_is_published():
    current = {path.name for path in discover_notebooks()}
    published = {path.name for path in PUBLISHED.glob("*.ipynb")}
    assert published == current, (f"docs/notebooks/ lacks {sorted(current - published)} and has stale "
                                  f"{sorted(published - current)}; {FIX}")


@pytest.mark.parametrize("notebook", discover_notebooks(), ids=lambda path: path.stem)
def test_published_cells_match_the_notebook(notebook):
    published = PUBLISHED / notebook.name
    if not published.is_file():
        pytest.fail(f"{notebook.name} is not published in docs/notebooks/; {FIX}")
    mismatch = source_mismatch(published, notebook)
    assert mismatch is None, f"docs/notebooks/{mismatch}: the published copy is of an older notebook; {FIX}"
