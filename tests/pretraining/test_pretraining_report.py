"""Notebook 02's report: settings line, input summary, Rand reading, throughput, metrics, loss curves, folders."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from cdlm_nb.profiles import get_profile
from cdlm_nb.variants import PretrainResult


def _result(variant: str, steps: int = 4, seconds: float = 2.0, tokens: int = 100, losses=(5.0, 4.0)):
    history = [(step + 1, loss) for step, loss in enumerate(losses)]
    return PretrainResult(variant, 13, Path("models") / variant, steps, history, [], seconds, tokens)


def test_metrics_keep_the_recorded_names():
    from cdlm_nb.pretraining.report import pretraining_metrics

    results = [_result("cdlm"), _result("local", seconds=0.0), _result("longformer", steps=0, losses=())]
    metrics = pretraining_metrics(results, [_result("base", losses=(6.0, 4.5)), _result("base-long", losses=(3.5,))])
    assert metrics == {"pretrain/base_final_loss": 4.5, "pretrain/base-long_final_loss": 3.5,
                       "pretrain/tokens_per_s/cdlm": 50.0, "pretrain/final_loss/cdlm": 4.0,
                       "pretrain/final_loss/local": 4.0}
    assert "pretrain/base_final_loss" not in pretraining_metrics(results)


def test_throughput_and_settings_use_the_display_names():
    from cdlm_nb.pretraining.report import settings_summary, throughput_table

    table = throughput_table([_result("rand"), replace(_result("cdlm"), attention="ours")])
    assert list(table.index) == ["Rand CDLM", "CDLM"] and table.loc["CDLM", "tokens_per_s"] == 50.0
    assert table["attention"].tolist() == ["-", "ours"]  # "-": a run saved before the implementation was recorded
    line = settings_summary(get_profile("smoke"), device="cpu")
    assert "Longformer" in line and "CDLM" in line and line.endswith("decay; fp32")
    assert "(2 per device x 1 accumulation)" in line


def test_rand_reading_is_computed_from_the_input_summary():
    from cdlm_nb.pretraining.report import rand_reading

    inputs = pd.DataFrame({"mean tokens": [100.0, 104.0]}, index=["CDLM", "Rand CDLM"])
    assert rand_reading(inputs) == "Per input (and so per step), Rand CDLM reads about as many tokens as CDLM."
    inputs.loc["Rand CDLM", "mean tokens"] = 50.0
    assert "0.5 x the tokens of CDLM" in rand_reading(inputs)
    assert rand_reading(inputs.drop("CDLM")) == ""


def test_input_summary_and_model_folders(tmp_path, tiny_encoder, word_clusters):
    from cdlm_nb.pretraining.report import input_summary, model_folders, plot_loss_curves, starting_model_summary
    from cdlm_nb.pretraining.stages import save_unchanged

    smoke = get_profile("smoke")
    profile = smoke.override(pretrain=replace(smoke.pretrain, variants=("longformer", "cdlm"), max_length=128))
    inputs = input_summary(profile, word_clusters, tiny_encoder.tokenizer)
    base, long = "Base (single-document MLM)", "Base, long inputs (unrelated documents packed)"
    copy = "Base, repeated spans (single documents, some with a span written twice)"
    assert list(inputs.index) == [base, long, copy, "CDLM"]  # Longformer is the start: not trained further
    assert inputs.loc[copy, "max tokens"] <= 2 * profile.pretrain.copy_span + 4  # before a span is repeated
    assert inputs.loc[base, "mean documents"] == 1 and inputs.loc["CDLM", "mean documents"] > 1
    assert inputs.loc[base, "max tokens"] <= profile.pretrain.base_max_length < inputs.loc[long, "max tokens"] <= 128
    assert "M parameters" in starting_model_summary(profile, tiny_encoder)

    saved = save_unchanged("cdlm", tiny_encoder, tmp_path, source="test", seed=13)
    folders = model_folders(tmp_path, [saved])
    assert folders.loc["CDLM", "folder"] == "models/cdlm" and folders.loc["CDLM", "MB"] > 0
    fig = plot_loss_curves([_result("cdlm")], [_result("base"), _result("base-long")])
    assert [line.get_label() for line in fig.axes[0].lines] == [base, long, "CDLM"]
    assert fig.axes[0].lines[2].get_xdata()[0] == 9  # after both stages' 4 steps


def test_the_copy_probe_curve_counts_tokens_across_the_stages_that_traced_it():
    from cdlm_nb.pretraining.report import copy_probe_curve, plot_copy_probe, pretraining_metrics

    base = _result("base")
    copy = replace(_result("base-copy", tokens=1000), copy_probe_history=[(0, 0, 0.0, 0.1), (4, 1000, 0.8, 0.7)])
    long = replace(_result("base-long", tokens=500), copy_probe_history=[(0, 0, 0.7, 0.6), (4, 500, 1.1, 1.0)])
    curve = copy_probe_curve([base, copy, long])
    assert curve["tokens"].tolist() == [0, 1000, 1000, 1500]
    assert curve["as repeated"].tolist() == [0.0, 0.8, 0.7, 1.1] and curve["stage"].nunique() == 2
    metrics = pretraining_metrics([], [base, copy, long])
    assert metrics["pretrain/copy_probe/base-long/same"] == 1.1
    assert metrics["pretrain/copy_probe/base-copy/swapped"] == 0.7
    assert "pretrain/copy_probe/base/same" not in metrics
    assert copy_probe_curve([base]).empty
    assert len(plot_copy_probe(curve).axes[0].lines) == 5  # two forms per stage, and the floor
