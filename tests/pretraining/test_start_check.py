"""The start check of notebook 02: the starting model's perplexity by packed length and attention pattern."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.profiles import get_profile

SCORES = {("local", 128): 1.8, ("cdlm", 128): 1.8, ("prefix", 128): 1.8, ("full", 128): 1.8,
          ("local", 1024): 4.5, ("cdlm", 1024): 585.0, ("prefix", 1024): 48.8, ("full", 1024): 690.0}


def test_the_lengths_are_an_eighth_a_quarter_and_all_of_the_pretraining_length():
    from cdlm_nb.pretraining.start_check import start_lengths

    assert start_lengths(get_profile("cpu")) == (128, 256, 1024)
    assert start_lengths(get_profile("gpu")) == (512, 1024, 4096)


def test_metrics_table_and_reading_come_from_the_scores():
    from cdlm_nb.pretraining.start_check import START, plot_start_perplexity, start_metrics, start_reading, start_table

    assert start_metrics(SCORES)["start/cdlm/1024"] == 585.0 and len(start_metrics(SCORES)) == 8
    table = start_table({"before": SCORES, START: {key: value / 2 for key, value in SCORES.items()}})
    assert table.loc[("before", "cdlm"), 1024] == 585.0 and table.loc[(START, "full"), 128] == 0.9
    assert list(table.columns) == [128, 1024]
    reading = start_reading({"before": SCORES})
    assert reading == ("before, 1,024 tokens: local 4.50; with global masked tokens (cdlm) 585.00 (130.0x local); "
                       "full attention 690.00 (153.3x local)")
    fig = plot_start_perplexity({"before": SCORES, START: SCORES})
    assert len(fig.axes) == 2 and [line.get_label() for line in fig.axes[0].lines] == [
        "local", "cdlm", "prefix", "full"]


def test_start_perplexity_scores_every_pattern_with_the_evaluation_of_notebook_03(tiny_encoder, word_clusters):
    from cdlm_nb.perplexity.evaluate import evaluate_perplexity
    from cdlm_nb.pretraining.heldout import heldout_examples
    from cdlm_nb.pretraining.start_check import START_PATTERNS, start_perplexity

    smoke = get_profile("smoke")
    profile = smoke.override(pretrain=replace(smoke.pretrain, max_length=128))
    scores = start_perplexity(tiny_encoder, word_clusters.train, profile, lengths=[64, 128], n_clusters=4)
    assert set(scores) == {(pattern, length) for pattern in START_PATTERNS for length in (64, 128)}
    subset = word_clusters.train.select(range(4))
    reference = evaluate_perplexity(tiny_encoder.model, tiny_encoder.tokenizer,
                                    heldout_examples(subset, tiny_encoder.tokenizer, profile), "cdlm", n_resamples=1)
    assert scores["cdlm", 128] == pytest.approx(reference.ppl)  # the same packing and masks as notebook 03
    assert scores["full", 128] != pytest.approx(scores["local", 128])  # a window of 256 is not the tiny window of 8
