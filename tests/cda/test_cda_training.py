"""The CDA matcher's early stopping: a minimum improvement, a bound on epochs, and no silent NaN restore."""

import itertools
from dataclasses import replace

import pytest

from cdlm_nb.cda import experiment
from cdlm_nb.finetuning import improved
from cdlm_nb.profiles import get_profile
from tests.cda.test_cda_experiment import ROWS


def test_only_a_drop_of_at_least_the_minimum_counts_as_better():
    assert improved(0.5, 0.6, 1e-3)
    assert not improved(0.5995, 0.6, 1e-3)  # a hair lower is not better
    assert not improved(float("nan"), 0.6, 0.0)
    assert improved(0.59999, 0.6, 0.0)  # without a minimum any decrease counts


def _fit(monkeypatch, dev_losses, epochs, patience, min_improvement=0.0):
    losses = iter(dev_losses)
    monkeypatch.setattr(experiment, "dev_loss", lambda *args: next(losses))
    config = replace(get_profile("smoke").cda, epochs=epochs, batch_size=4, learning_rates=(1e-3,), patience=patience,
                     min_improvement=min_improvement, select_on_dev=False)
    search = experiment.ModelSearch("gru_han_shallow", experiment.prepare(
        {name: ROWS for name in experiment.SPLITS}, config), config)
    for _ in search.fine_tune(search.reset(), 1e-3):
        pass
    return search.fits[1e-3]


def test_a_loss_creeping_down_by_hairs_stops_after_patience(monkeypatch):
    creeping = (0.7 - 1e-5 * i for i in itertools.count())
    fit = _fit(monkeypatch, creeping, epochs=100, patience=2, min_improvement=1e-3)
    assert len(fit.dev_losses) == 3 and fit.best_epoch == 1  # epoch 1, then two epochs without a real drop
    fit = _fit(monkeypatch, (0.7 - 1e-5 * i for i in itertools.count()), epochs=6, patience=2)
    assert len(fit.dev_losses) == 6 and fit.best_epoch == 6  # any decrease: only the epoch bound stops it


def test_every_dev_loss_nan_is_an_error_not_a_restore_of_nothing(monkeypatch):
    with pytest.raises(FloatingPointError, match="every dev loss was NaN"):
        _fit(monkeypatch, itertools.repeat(float("nan")), epochs=3, patience=1, min_improvement=1e-3)


def test_the_notebook_states_the_epoch_bound():
    from cdlm_nb.cda.report import stopping_rule

    assert "at most 100 epochs" in stopping_rule(get_profile("gpu").cda)
    assert "at most 2 epochs" in stopping_rule(get_profile("gpu-rehearsal").cda)
    assert "by at least 0.001 for 5 epoch(s)" in stopping_rule(get_profile("gpu").cda)
