"""Learning curves: read back from notebook 02's saved results, crossings, readings and metrics."""

from __future__ import annotations

import json

import pandas as pd

from cdlm_nb.perplexity.learning_curve import (
    DESCRIBED,
    below_from,
    curve_metrics,
    curve_readings,
    learning_curves,
)


def _curves() -> pd.DataFrame:
    return pd.DataFrame({"cdlm": [100.0, 40.0, 12.0, 8.0, 5.0], "local": [60.0, 20.0, 13.0, 9.0, 6.0],
                         "rand": [100.0, 30.0, 9.0, 6.0, 4.0]},
                        index=pd.Index([0, 25, 50, 75, 100], name="step"))


def test_below_from_is_the_step_after_the_last_crossing():
    curves = _curves()
    assert below_from(curves, "cdlm", "local") == 50
    assert below_from(curves, "cdlm", "rand") is None
    always = curves.assign(local=curves["cdlm"] + 1)
    assert below_from(always, "cdlm", "local") == 0


def test_readings_describe_the_curves_and_rank_nothing():
    local, rand, described = curve_readings(_curves())
    assert local.startswith("CDLM's curve is under Local CDLM's from step 50 on (5 vs 6)")
    assert "from 0.92 at step 50 to 0.83 at step 100 (falling)" in local
    assert rand.startswith("CDLM's curve is over Rand CDLM's at step 100 (5 vs 4)")
    assert "from 1.33 at step 50 to 1.25 at step 100 (falling)" in rand
    assert described == DESCRIBED and "no interval" not in local  # one run: said once, under every set of curves
    rising, _ = curve_readings(_curves()[["cdlm", "local"]].assign(local=[60.0, 20.0, 13.0, 9.0, 4.0]))
    assert rising.endswith("from 0.92 at step 50 to 1.25 at step 100 (rising).")
    same, _ = curve_readings(_curves()[["cdlm", "local"]].assign(local=[60.0, 20.0, 12.0 / 0.921, 9.0, 5.0 / 0.919]))
    assert same.endswith("from 0.92 at step 50 to 0.92 at step 100 (level).")  # the printed ratios decide
    (missing,) = curve_readings(_curves().iloc[:1])
    assert missing.startswith("No learning curve of CDLM") and "curve_steps > 0" in missing


def test_the_last_points_are_read_as_printed_level_when_they_print_the_same():
    curves = _curves()[["cdlm", "local"]]
    tie, _ = curve_readings(curves.assign(local=[60.0, 20.0, 13.0, 9.0, 5.004]))  # 5 vs 5.004: both print 5
    assert tie.startswith("CDLM's curve is level with Local CDLM's at step 100 (5 vs 5);")
    apart, _ = curve_readings(curves.assign(local=[60.0, 20.0, 13.0, 9.0, 5.01]))  # prints 5.01
    assert apart.startswith("CDLM's curve is under Local CDLM's from step 50 on (5 vs 5.01);")
    over, _ = curve_readings(curves.assign(local=[60.0, 20.0, 13.0, 9.0, 4.99]))
    assert over.startswith("CDLM's curve is over Local CDLM's at step 100 (5 vs 4.99);")
    equal, _ = curve_readings(curves.assign(local=curves["cdlm"]))  # the same curve is level, never "over"
    assert equal.startswith("CDLM's curve is level with Local CDLM's at step 100 (5 vs 5);") and "(level)" in equal


def test_curves_are_read_from_the_saved_results_and_recorded_point_by_point(tmp_path):
    from cdlm_nb.variants import PretrainResult, model_dir

    for variant, points in (("cdlm", [(0, 50.0), (10, 20.0)]), ("local", [(0, 40.0), (10, 30.0)]), ("rand", [])):
        folder = model_dir(tmp_path, variant)
        folder.mkdir(parents=True)
        result = PretrainResult(variant, 13, folder, steps=10, perplexity_history=points)
        (folder / "pretraining.json").write_text(json.dumps(result.to_json()))
    curves = learning_curves(tmp_path, ("cdlm", "local", "rand"))
    assert list(curves) == ["cdlm", "local"] and curves.loc[10, "local"] == 30.0  # rand has no curve
    assert curve_metrics(curves) == {"learning_curve/cdlm/0": 50.0, "learning_curve/cdlm/10": 20.0,
                                     "learning_curve/local/0": 40.0, "learning_curve/local/10": 30.0}
