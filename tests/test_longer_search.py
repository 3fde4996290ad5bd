"""tools/longer_search.py: notebook 10's search for one matcher, stretched to more epochs, dev only."""

from __future__ import annotations

import json

import pytest

TOOL = "tools/longer_search.py"


def test_a_cda_matcher_is_searched_over_the_longer_schedule_and_written(tmp_path, capsys, load_script):
    from cdlm_nb.profiles import get_profile

    epochs = get_profile("smoke").cda.epochs + 2
    assert load_script(TOOL).main([str(tmp_path), "cda", "gru_han", "--epochs", str(epochs), "--patience", str(epochs),
                         "--profile", "smoke"]) == 0
    written = json.loads((tmp_path / "longer_search" / f"auto_cda_gru_han_{epochs}.json").read_text())
    assert written["space"]["epochs"] == epochs
    rates = get_profile("smoke").cda.search.learning_rates
    assert sorted({p["learning_rate"] for p in written["points"]}) == sorted(rates)
    assert len(written["points"]) == epochs * len(rates)  # patience = epochs: no early stop, every epoch scored
    assert "epoch " + str(epochs) in capsys.readouterr().out


@pytest.mark.slow
def test_a_cross_encoder_gets_a_dev_point_per_epoch_at_notebook_09s_rate(tmp_path, load_script):
    from cdlm_nb.profiles import get_profile

    result = load_script(TOOL).longer_search(str(tmp_path), "cross", "minilm_cross", 1, profile_name="smoke")
    assert [p.epoch for p in result.points] == [1] and result.space.epochs == 1
    assert {p.learning_rate for p in result.points} == {get_profile("smoke").match_ignition.training.learning_rate}
