"""The published run (docs/notebooks/) is of the current notebooks: an edit without re-publishing fails here."""

from __future__ import annotations

import re

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


MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:work|tmp|home|root|Users|mnt|content)/[^\"\s\\]*")


@pytest.mark.parametrize("notebook", discover_notebooks(), ids=lambda path: path.stem)
def test_published_copies_name_no_folder_of_the_machine_they_ran_on(notebook):
    """What the run wrote (outputs, papermill's injected parameters and metadata) names no absolute folder:
    `cdlm-nb publish` makes the run folder, the checkout and ../shared relative (`without_machine_paths`)."""
    import json

    from cdlm_nb.tooling.publish import INJECTED_TAG

    published = PUBLISHED / notebook.name
    if not published.is_file():
        pytest.fail(f"{notebook.name} is not published in docs/notebooks/; {FIX}")
    executed = json.loads(published.read_text())
    written = [json.dumps(executed["metadata"])]
    for cell in executed["cells"]:
        written.append(json.dumps(cell.get("outputs", [])))
        if INJECTED_TAG in cell["metadata"].get("tags", []):
            written.append("".join(cell["source"]))
    found = sorted({path for text in written for path in MACHINE_PATH.findall(text)})[:3]
    assert not found, f"docs/notebooks/{notebook.name} names folders of the machine it ran on: {found}; {FIX}"


#: An output a reader scans in a glance (longer readings are condensed where they are made): 24 lines wrapped at
#: 120 columns (`cdlm_nb.say`), about the text of 12 unwrapped lines of 200 characters.
MAX_OUTPUT_LINES = 24
MAX_LINE = 200  # characters: longer printed lines are wrapped (`cdlm_nb.say`) or tabulated


@pytest.mark.parametrize("notebook", discover_notebooks(), ids=lambda path: path.stem)
def test_published_outputs_are_short_and_free_of_library_warnings(notebook):
    """Every printed block of the published run fits in a glance (few lines, none too wide, no bare return value),
    and nothing landed on stderr as a warning."""
    import json

    published = PUBLISHED / notebook.name
    if not published.is_file():
        pytest.fail(f"{notebook.name} is not published in docs/notebooks/; {FIX}")
    long_blocks, warnings, wide, bare = [], [], [], []
    for index, cell in enumerate(json.loads(published.read_text())["cells"]):
        for output in cell.get("outputs", []):
            plain = "".join(output.get("data", {}).get("text/plain", ""))
            if output.get("output_type") == "execute_result" and re.match(r"(Posix|Windows)?Path\(", plain):
                bare.append(index)
            if output.get("output_type") != "stream":
                continue
            text = "".join(output["text"])
            wide += [(index, len(line)) for line in text.splitlines() if len(line) > MAX_LINE]
            if output["name"] == "stdout" and len(text.splitlines()) > MAX_OUTPUT_LINES:
                long_blocks.append((index, len(text.splitlines())))
            if output["name"] == "stderr" and re.search(r"Warning|\[transformers\]|WARNING", text):
                warnings.append((index, text.strip().splitlines()[0][:100]))
    assert not long_blocks, f"{notebook.name}: blocks over {MAX_OUTPUT_LINES} lines (cell, lines): {long_blocks}"
    assert not warnings, f"{notebook.name}: library warnings on stderr (cell, first line): {warnings}"
    assert not wide, f"{notebook.name}: printed lines over {MAX_LINE} characters (cell, length): {wide}"
    assert not bare, f"{notebook.name}: cells showing a bare path as their value (end them with `;`): {bare}"


def chapter_minutes(notebook_json: str) -> dict[str, str]:
    """Notebook stem -> the `cpu (measured)` column of the chapter table an executed notebook 00 printed."""
    import json

    for cell in json.loads(notebook_json)["cells"]:
        if "".join(cell.get("source", "")).strip() == "chapter_table()":
            text = "".join(next(o for o in cell["outputs"] if "data" in o)["data"]["text/plain"])
            return {m.group(1): m.group(2).strip() for m in re.finditer(r"^(\d\d_\w+)\s.*?\s{2}(< 1 min|\d+ min)$",
                                                                           text, re.M)}
    raise AssertionError("no `chapter_table()` cell with a printed table")


def test_the_published_chapter_table_shows_the_published_times():
    """Notebook 00's chapter table is re-run after the baselines are written (`cdlm-nb publish`): its minutes are
    the published run's, not the previous publish's."""
    from cdlm_nb.overview import measured_seconds, minutes

    seconds = measured_seconds(REPO_ROOT / "baselines" / "cpu.json")
    shown = chapter_minutes((PUBLISHED / "00_overview.ipynb").read_text())
    assert shown == {stem: minutes(value) for stem, value in seconds.items()}, f"{shown} != the baselines; {FIX}"
