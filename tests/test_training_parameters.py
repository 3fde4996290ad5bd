"""The fine-tuning notebooks' training settings are parameters: what `cdlm-nb run -p` gives is what is trained."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.tooling.runner import run_notebooks


def _run(tmp_path, notebook: str, parameters: dict) -> dict:
    results = run_notebooks("smoke", only=[notebook], output=str(tmp_path / "run"), echo=lambda *_: None,
                            parameters=parameters)
    entry = results["notebooks"][0]
    assert entry["status"] == "ok", entry["error"]
    return results


@pytest.mark.slow
@pytest.mark.parametrize("notebook, rate", [("05", 1e-4), ("10", 3e-2)])
def test_the_rates_and_epochs_given_are_what_the_search_trains(tmp_path, notebook, rate):
    """Notebooks 05 and 10 record the recipe their dev search chose: with one rate and one epoch given, that one
    (the smoke profile's own: 1e-3 for 2 epochs)."""
    metrics = _run(tmp_path, notebook, {"LEARNING_RATES": [rate], "EPOCHS": 1})["metrics"]
    recipes = {name: value for name, value in metrics.items() if "/recipe/" in name}
    rates = {value for name, value in recipes.items() if name.endswith("/learning_rate")}
    epochs = {value for name, value in recipes.items() if name.endswith("/epochs")}
    assert rates == {rate} and epochs == {1.0}, recipes


@pytest.mark.slow
@pytest.mark.parametrize("notebook", ["04", "06"])
def test_a_rate_and_batch_given_are_what_the_notebook_trains(tmp_path, notebook):
    """Notebooks 04 and 06 train one recipe: each trained line says it."""
    _run(tmp_path, notebook, {"LEARNING_RATE": 0.0123, "BATCH_SIZE": 3, "EPOCHS": 1})
    executed = json.loads(next((tmp_path / "run").glob(f"{notebook}_*.ipynb")).read_text())
    printed = "".join(text for cell in executed["cells"] for out in cell.get("outputs", [])
                      for text in out.get("text", []))
    assert "lr 0.0123, batch 3" in printed, printed[-2000:]
