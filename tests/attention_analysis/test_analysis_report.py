import math

import numpy as np
import pandas as pd
import pytest

from cdlm_nb.attention_analysis.report import (
    PAPER_TABLE6_MPR,
    label_gap,
    mpr_metrics,
    mpr_table,
    paired_gap,
    readings,
    skip_report,
    table6_with_paper,
)
from cdlm_nb.support.errors import DataError


def test_paper_table6_has_every_model_label_and_kind():
    assert set(PAPER_TABLE6_MPR) == {"longformer", "local", "rand", "prefix", "cdlm"}
    for values in PAPER_TABLE6_MPR.values():
        assert set(values) == {(label, kind) for label in ("pos", "neg") for kind in ("event", "entity")}
    assert PAPER_TABLE6_MPR["cdlm"][("pos", "event")] == 72.1


def test_mpr_table_and_paper_columns(toy_results):
    table = mpr_table(toy_results, models=["local", "cdlm", "prefix"])
    assert list(table.index) == ["local", "cdlm"]  # models without results are left out
    assert list(table.columns) == [("pos", "event"), ("pos", "entity"), ("neg", "event"), ("neg", "entity")]
    assert table.loc["cdlm", ("pos", "event")] == pytest.approx(70.0)
    assert table.loc["cdlm", ("neg", "entity")] == pytest.approx(50.0)  # the skipped pair does not count
    both = table6_with_paper(toy_results, models=["local", "cdlm"])
    assert both.loc["CDLM", ("pos", "event", "ours")] == pytest.approx(70.0)  # rows by display name
    assert both.loc["CDLM", ("pos", "event", "paper")] == pytest.approx(72.1)
    assert both.loc["Local CDLM", ("neg", "entity", "paper")] == pytest.approx(52.6)
    noted = table6_with_paper(toy_results, models=["local", "prefix", "cdlm"], missing={"Prefix CDLM": "pretrain it"})
    assert list(noted.index) == ["Local CDLM", "Prefix CDLM", "CDLM", "reference: chance"]  # a missing model: a row
    assert noted.loc["Prefix CDLM", ("", "", "not analysed")] == "pretrain it"
    assert pd.isna(noted.loc["Prefix CDLM", ("pos", "event", "ours")])
    assert noted.loc["Prefix CDLM", ("pos", "event", "paper")] > 0
    chance = noted.loc["reference: chance"]
    assert (chance[("pos", "event", "ours")], chance[("neg", "entity", "paper")]) == (50, 50)


def test_mpr_metrics_pool_events_and_entities_over_pairs(toy_results):
    keys = mpr_metrics(toy_results)
    assert keys["mpr/pos/cdlm"] == pytest.approx((80 + 60 + 90) / 3)  # the mean over pairs, not over kinds
    assert keys["mpr/neg/cdlm"] == pytest.approx(45.0)
    assert keys["mpr/pos/event/local"] == pytest.approx(55.0)
    assert len(keys) == 2 * 2 + 2 * 2 * 2 + 1 and keys["mpr/reference/chance"] == 50.0
    report = skip_report(toy_results)
    assert report.loc["CDLM", "mention has no tokens"] == 1 and report.loc["CDLM", "ok"] == 5
    assert report.loc["CDLM", "truncated pairs"] == 1 and report.loc["Local CDLM", "truncated pairs"] == 1


def test_paired_gap_matches_pairs_by_kind_and_index(toy_results):
    # pos pairs both models scored: (event, 0): 80 - 55 and (entity, 0): 90 - 45; cdlm's (event, 1) has no partner
    mean, sem, n = paired_gap(toy_results, "cdlm", "local", "pos")
    assert (mean, n) == (pytest.approx((25 + 45) / 2), 2)
    assert sem == pytest.approx(np.std([25, 45], ddof=1) / math.sqrt(2))
    # neg: (event, 2): 40 - 50; (entity, 1): 50 - 52; cdlm's (entity, 2) was skipped
    assert paired_gap(toy_results, "cdlm", "local", "neg")[::2] == (pytest.approx(-6.0), 2)
    with pytest.raises(DataError, match="no pos pairs"):
        paired_gap(toy_results, "cdlm", "prefix", "pos")


def test_label_gap_and_the_gap_readings(toy_results):
    gap, sem = label_gap(toy_results, "cdlm")
    assert gap == pytest.approx(230 / 3 - 45.0)
    standard_errors = np.std([80, 60, 90], ddof=1) / math.sqrt(3), np.std([40, 50], ddof=1) / math.sqrt(2)
    assert sem == pytest.approx(math.hypot(*standard_errors))
    lines = readings(toy_results)
    # Local's coreferring pairs rank at 55 and 45: at chance, so the gap the claim rests on is not read
    local, cdlm = (next(line for line in lines if line.startswith(f"{name}: ")) for name in ("Local CDLM", "CDLM"))
    assert local.startswith("Local CDLM: coreferring MPR minus the 50 of chance +0.0") and local.endswith(
        "at or below chance: learned nothing here")
    assert cdlm.startswith("CDLM: coreferring MPR minus the 50 of chance +26.7") and cdlm.endswith("above chance")
    assert lines[2] == "CDLM vs Local CDLM: cannot be checked here (learned nothing here: Local CDLM)"
    above = toy_results.copy()
    above.loc[(above["model"] == "local") & (above["label"] == "pos"), "percentile"] += 20
    lines = readings(above)
    assert lines[2].startswith("CDLM minus Local CDLM on the same 2 coreferring pairs: +15.0 points")
    assert lines[3].startswith(f"CDLM coreferring minus non-coreferring pairs: {gap:+.1f} points")
    assert len(readings(toy_results, baseline="prefix")) == 2  # no Prefix results: the chance lines only
