"""The fine-tuning notebooks' training settings are parameters: what `cdlm-nb run -p` gives is what is trained, as
each notebook's training lines say (notebooks 05 and 10 are checked through their recorded recipes, in
tests/matching and tests/cda)."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.tooling.runner import run_notebooks


@pytest.mark.slow
@pytest.mark.parametrize("notebook", ["04", "06"])
def test_a_rate_and_batch_given_as_parameters_are_what_the_notebook_trains(tmp_path, notebook):
    output = tmp_path / "run"
    results = run_notebooks("smoke", only=[notebook], output=str(output), echo=lambda *_: None,
                            parameters={"LEARNING_RATE": 0.0123, "BATCH_SIZE": 3, "EPOCHS": 1})
    entry = results["notebooks"][0]
    assert entry["status"] == "ok", entry["error"]
    executed = json.loads(next(output.glob(f"{notebook}_*.ipynb")).read_text())
    printed = "".join(text for cell in executed["cells"] for out in cell.get("outputs", [])
                      for text in out.get("text", []))
    assert "lr 0.0123, batch 3" in printed, printed[-2000:]
