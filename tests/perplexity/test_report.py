"""Notebook 03's report: the CDLM paper's Table 1 beside ours, the paired table and plot, the computed findings
and verdict, the answer-location and attention-reach tables, and the metric names the notebook records."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cdlm_nb.perplexity import report
from cdlm_nb.perplexity.bootstrap import paired_difference
from cdlm_nb.support.errors import DataError


@pytest.fixture(scope="module")
def mean_result(make_result):
    """`mean_result(variant, mean_nll)`: a result whose clusters have these mean NLLs over 50 masked tokens each."""
    return lambda variant, mean_nll: make_result(variant, np.array(mean_nll) * 50, np.full(len(mean_nll), 50))


def test_paper_table1_holds_both_versions_with_gaps_where_v1_had_no_row():
    table = report.paper_table1()
    assert list(table.index) == ["Longformer", "Local CDLM", "Rand CDLM", "Prefix CDLM", "CDLM"]
    assert table.loc["CDLM", "paper final test"] == 3.39
    assert table.loc["Prefix CDLM", "paper final validation"] == 3.20
    assert table.loc["Rand CDLM", "paper v1 validation"] == 1.88
    assert math.isnan(table.loc["Local CDLM", "paper v1 test"])
    # the paper's own reading: CDLM below Longformer, Local and Rand in both versions
    for version, rows in report.PAPER_TABLE1.items():
        for baseline in ("longformer", "local", "rand"):
            if baseline in rows:
                assert all(c < b for c, b in zip(rows["cdlm"], rows[baseline])), (version, baseline)


def test_our_table1_puts_intervals_beside_the_paper(mean_result):
    results = [mean_result(v, [1.0, 1.2, 1.1]) for v in ("longformer", "cdlm")]
    table = report.our_table1({"validation": results, "test": results})
    assert table.loc["CDLM", "ours test"] == pytest.approx(results[1].ppl)
    assert table.loc["CDLM", "ours test 95% CI"].startswith("[")
    assert table.loc["CDLM", "paper final test"] == 3.39
    assert "Local CDLM" in table.index  # the paper's rows stay even when we did not train that model
    noted = report.our_table1({"test": results}, missing={"Local CDLM": "pretrain it"})
    assert noted.loc["Local CDLM", "not evaluated"] == "pretrain it" and noted.loc["CDLM", "not evaluated"] == ""


def test_table_and_plot(make_result):
    counts = [30, 25, 40]
    results = [make_result("longformer", [90, 80, 120], counts), make_result("cdlm", [60, 50, 80], counts)]
    table = report.perplexity_table(results, n_resamples=200)
    assert list(table.index) == ["Longformer", "CDLM"]
    assert table.loc["Longformer", "minus_cdlm"] == pytest.approx(results[0].ppl - results[1].ppl)
    assert math.isnan(table.loc["CDLM", "minus_cdlm"])
    fig = report.plot_perplexity(results)
    assert len(fig.axes[0].patches) == 2


SPREAD = {f"perplexity/paired/{v}": {"sd": 0.01} for v in ("longformer", "local", "rand", "prefix")}


def test_findings_say_cdlm_wins_only_when_the_paired_interval_excludes_zero(mean_result, monkeypatch):
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: SPREAD)
    rng = np.random.default_rng(0)
    base = rng.uniform(1.0, 3.0, size=30)  # clusters differ a lot in difficulty ...
    cdlm = mean_result("cdlm", base.tolist())
    worse = mean_result("local", (base + 0.2).tolist())  # ... but Local is worse on every one of them
    same = mean_result("rand", (base + rng.normal(0, 0.01, size=30)).tolist())
    sentences = report.perplexity_findings([worse, same, cdlm], n_resamples=300, profile="cpu")
    assert len(sentences) == 2
    diff, low, high = paired_difference(cdlm, worse, 300)  # CDLM minus Local: negative, CDLM lower
    assert high < 0 and sentences[0] == (
        f"CDLM {cdlm.ppl:.3f} vs Local CDLM {worse.ppl:.3f}: CDLM minus Local CDLM {diff:+.3f} (95 % paired "
        f"bootstrap {low:+.3f} to {high:+.3f}; seed band ±{1.96 * 0.01:.3f}) -> holds here.")
    _, low, high = paired_difference(cdlm, same, 300)
    assert low < 0 < high and sentences[1].endswith("-> not resolved at this scale.")
    no_spread = report.perplexity_findings([worse, cdlm], n_resamples=300)[0]
    assert "seed spread not measured) -> not resolved at this scale." in no_spread
    verdict = report.perplexity_verdict([worse, same, cdlm], n_resamples=300, profile="cpu")
    assert verdict.startswith("CDLM has a lower perplexity than 1 of the 2 models")
    assert "holds here for Local CDLM; not resolved at this scale for Rand CDLM." in verdict
    assert "only partly reproduced" in verdict and "reversed" not in verdict
    reversed_ = report.perplexity_verdict([mean_result("rand", (base - 0.2).tolist()), cdlm], n_resamples=300,
                                          profile="cpu")
    assert "reversed here for Rand CDLM" in reversed_ and "is not reproduced here" in reversed_


def test_verdict_agrees_with_the_paper_when_cdlm_is_clearly_best(mean_result, monkeypatch):
    base = np.linspace(1.0, 2.0, 20)
    results = [mean_result(v, (base + shift).tolist()) for v, shift in
               (("longformer", 0.5), ("local", 0.3), ("rand", 0.2), ("cdlm", 0.0))]
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: SPREAD)
    verdict = report.perplexity_verdict(results, n_resamples=200, profile="cpu")
    assert "than 3 of the 3 models" in verdict and "The paper's ordering is reproduced here." in verdict
    wide = {name: {"sd": 0.6} for name in SPREAD}  # a seed band (±1.18) wider than Rand CDLM's lead (0.99)
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: wide)
    assert "than 2 of the 3 models" in report.perplexity_verdict(results, n_resamples=200, profile="cpu")
    nothing = report.perplexity_verdict([mean_result(v, base.tolist()) for v in ("local", "cdlm")], n_resamples=200)
    assert "than 0 of the 1 models" in nothing and "nothing can hold" in nothing and "is not reproduced" in nothing
    with pytest.raises(DataError, match="no 'cdlm' result"):
        report.perplexity_verdict(results[:3])
    with pytest.raises(DataError, match="no 'cdlm' result"):
        report.perplexity_findings(results[:3])


def test_verdict_reads_only_the_models_evaluated_and_names_the_rest(mean_result, monkeypatch):
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: SPREAD)
    base = np.linspace(1.0, 2.0, 20)
    released = [mean_result("longformer", (base + 0.5).tolist()), mean_result("cdlm", base.tolist())]  # gpu's two
    verdict = report.perplexity_verdict(released, n_resamples=200, profile="cpu")
    assert verdict.startswith("CDLM has a lower perplexity than 1 of the 1 models") and verdict.endswith(
        "holds here for Longformer. The paper's ordering is reproduced here among the models evaluated (not "
        "evaluated: Local CDLM, Rand CDLM).")
    alone = report.perplexity_verdict(released[1:], n_resamples=200, profile="cpu")
    assert alone == ("The paper's ordering (CDLM lower than Longformer, Local CDLM, Rand CDLM) cannot be checked "
                     "here: none of them was evaluated.")


def test_attention_reach_table_puts_the_start_first_and_skips_local_models(heldout, tiny_encoder):
    from cdlm_nb.profiles import get_profile

    tokenizer, examples = heldout
    profile = get_profile("smoke")
    models = {"local": tiny_encoder, "cdlm": tiny_encoder}
    reach = report.attention_reach_table(models, tokenizer, examples, profile, start=tiny_encoder)
    assert list(reach.index.get_level_values("model").unique()) == ["Start (before CD-MLM)", "CDLM",
                                                                     report.UNIFORM]
    # the same weights and the same masks give the same shares; each row sums to 100 %
    np.testing.assert_allclose(reach.loc["Start (before CD-MLM)"].to_numpy(), reach.loc["CDLM"].to_numpy())
    np.testing.assert_allclose(reach.sum(axis=1), 100.0, atol=1e-4)
    assert report.attention_reach_table({"local": tiny_encoder}, tokenizer, examples, profile).empty
    metrics = report.attention_reach_metrics(reach)
    last, uniform = reach.loc["CDLM"].iloc[-1], reach.loc[report.UNIFORM].iloc[0]
    expected = {}
    for name, row in (("start", last), ("cdlm", last), ("uniform", uniform)):
        expected |= {f"attention_reach/{name}/other_documents": pytest.approx(row["other documents"]),
                     f"attention_reach/{name}/local_window": pytest.approx(row["within 2 tokens"]
                                                                           + row["rest of the local window"]),
                     f"attention_reach/{name}/within_2_tokens": pytest.approx(row["within 2 tokens"])}
    assert metrics == expected
    assert report.attention_reach_metrics(pd.DataFrame()) == {}
    start_reading, cdlm_reading = report.reach_readings(reach)
    times = last["within 2 tokens"] / uniform["within 2 tokens"]
    assert cdlm_reading.startswith(f"CDLM: {last['within 2 tokens']:.1f} % of the last layer's attention within 2 "
                                   f"tokens ({times:.1f}× uniform attention's {uniform['within 2 tokens']:.1f} %)")
    assert start_reading.startswith("Start (before CD-MLM): ")
    assert report.reach_readings(pd.DataFrame()) == ["No model here gives its masked tokens global attention."]


def test_plot_attention_reach_stacks_each_row_to_its_total():
    columns = ["within 2 tokens", "rest of the local window", "other documents"]
    index = pd.MultiIndex.from_tuples([("CDLM", "layer 1"), ("CDLM", "layer 2"), (report.UNIFORM, "any layer")],
                                      names=["model", "attention"])
    reach = pd.DataFrame([[10.0, 30.0, 60.0], [20.0, 20.0, 60.0], [1.0, 9.0, 90.0]], index=index, columns=columns)
    ax = report.plot_attention_reach(reach).axes[0]
    assert len(ax.patches) == 9  # one segment per row and column
    assert [t.get_text() for t in ax.get_yticklabels()] == ["CDLM, layer 1", "CDLM, layer 2",
                                                            f"{report.UNIFORM}, any layer"]
    ends = sorted({round(p.get_x() + p.get_width(), 6) for p in ax.patches})
    assert ends[-1] == 100.0  # each row's segments add up to its 100 %
    assert [t.get_text() for t in ax.get_legend().get_texts()] == columns
    empty = report.plot_attention_reach(pd.DataFrame()).axes[0]
    assert "No model here" in empty.texts[0].get_text() and not empty.patches


def test_answer_location_table_has_a_row_per_model_and_a_count_row(heldout, tiny_encoder):
    from cdlm_nb.perplexity.evaluate import ANSWER_LOCATIONS
    from cdlm_nb.profiles import get_profile

    tokenizer, examples = heldout
    table = report.answer_location_table({"local": tiny_encoder, "cdlm": tiny_encoder}, tokenizer, examples,
                                         get_profile("smoke"))
    assert list(table.index) == ["Local CDLM", "CDLM", "masked tokens"]
    assert list(table.columns) == list(ANSWER_LOCATIONS)
    metrics = report.answer_location_metrics(table)
    assert table.loc["masked tokens", "another document only"] > 0  # the clusters share a made-up name
    assert metrics == {f"perplexity/another_document_only/{v}": table.loc[name, "another document only"]
                       for v, name in (("local", "Local CDLM"), ("cdlm", "CDLM"))}
    empty = table.assign(**{"another document only": 0.0})
    assert report.answer_location_metrics(empty) == {}  # nothing to record without such tokens


def test_plot_answer_location_has_a_bar_per_model_and_location_and_counts_in_the_labels():
    columns = ["local window", "another document only", "nowhere"]
    table = pd.DataFrame([[2.0, 9.0, 40.0], [2.5, 6.0, float("nan")], [120, 15, 0]],
                         index=["Local CDLM", "CDLM", "masked tokens"], columns=columns)
    ax = report.plot_answer_location(table).axes[0]
    assert len(ax.patches) == 6  # two models x three locations (a NaN bar is drawn empty)
    heights = [p.get_height() for p in ax.patches]
    assert heights[:3] == [2.0, 9.0, 40.0] and heights[3:5] == [2.5, 6.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["local window\n(120 tokens)",
                                                            "another document\nonly\n(15 tokens)",
                                                            "nowhere\n(0 tokens)"]
    assert ax.patches[3].get_facecolor() == ax.patches[4].get_facecolor()  # CDLM's bars share its colour ...
    assert ax.patches[0].get_facecolor() != ax.patches[3].get_facecolor()  # ... which no other model has
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Local CDLM", "CDLM"]


def test_metric_names_are_the_ones_notebook_03_has_always_recorded(make_result):
    results = [make_result(v, [3.0, 4.0], [2, 3]) for v in ("longformer", "cdlm")]
    metrics = report.perplexity_metrics({"validation": results, "test": results})
    assert set(metrics) == {"perplexity/longformer", "perplexity/longformer/ci_low", "perplexity/longformer/ci_high",
                            "perplexity/cdlm", "perplexity/cdlm/ci_low", "perplexity/cdlm/ci_high",
                            "perplexity/validation/longformer", "perplexity/validation/cdlm"}
    assert metrics["perplexity/cdlm"] == results[1].ppl


def test_training_tokens_table_reads_notebook_02s_results(tmp_path, make_result):
    import json

    from cdlm_nb.variants import RESULT_FILE, PretrainResult, model_dir

    folder = model_dir(tmp_path, "cdlm")
    folder.mkdir(parents=True)
    saved = PretrainResult(variant="cdlm", seed=0, model_dir=folder, steps=3, tokens=1234)
    (folder / RESULT_FILE).write_text(json.dumps(saved.to_json()))
    table = report.training_tokens_table([make_result("cdlm", [3.0], [2])], tmp_path)
    assert table.loc["CDLM", "pretraining tokens"] == 1234
    assert table.loc["CDLM", "trained on (after the start)"] == "related documents, global masked tokens"
    with pytest.raises(DataError, match="notebook 02"):
        report.training_tokens_table([make_result("rand", [3.0], [2])], tmp_path)
