"""Notebook 10's training settings are parameters: a rate given with `cdlm-nb run -p` is the one trained."""

from __future__ import annotations

import pytest

from cdlm_nb.tooling.runner import run_notebooks


@pytest.mark.slow
def test_learning_rates_and_epochs_set_as_parameters_are_what_notebook_10_trains(tmp_path):
    results = run_notebooks("smoke", only=["10"], output=str(tmp_path / "run"), echo=lambda *_: None,
                            parameters={"LEARNING_RATES": [3e-2], "EPOCHS": 1})
    assert results["notebooks"][0]["status"] == "ok", results["notebooks"][0]["error"]
    recipes = {name: value for name, value in results["metrics"].items() if "/recipe/" in name}
    rates = {value for name, value in recipes.items() if name.endswith("/learning_rate")}
    epochs = {value for name, value in recipes.items() if name.endswith("/epochs")}
    assert rates == {3e-2} and epochs == {1.0}, recipes  # the smoke profile's own: 1e-3, 2 epochs
