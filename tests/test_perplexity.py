"""Cross-document perplexity: the definition, the shared masks, the bootstrap intervals and the paired test."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from cdlm_nb.errors import ConfigError, DataError
from cdlm_nb.perplexity import (
    ANSWER_LOCATIONS, REACH_BINS, PerplexityResult, answer_locations, bootstrap_interval, evaluate_perplexity, paired_difference, perplexity, perplexity_by_answer_location,
    perplexity_table, plot_perplexity, global_attention_reach, reach_bins,
)

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def heldout():
    """Stand-in packed held-out examples: 6 clusters of 3 short documents sharing a made-up name, 2 packings each."""
    from datasets import Dataset

    from cdlm_nb.data.schemas import CLUSTER_FEATURES
    from cdlm_nb.inputs import pack_clusters
    from cdlm_nb.tokenization import train_tokenizer

    rng = random.Random(1)
    words = [f"w{i}" for i in range(40)]
    rows = [{"cluster_id": f"c{c}", "summary": "",
             "documents": [" ".join(f"Nm{c}" if rng.random() < 0.2 else rng.choice(words) for _ in range(12))
                           for _ in range(3)]} for c in range(6)]
    clusters = Dataset.from_list(rows, features=CLUSTER_FEATURES)
    tokenizer = train_tokenizer([doc for row in rows for doc in row["documents"]], vocab_size=320)
    return tokenizer, pack_clusters(clusters, tokenizer, 128, examples_per_cluster=2)


@pytest.fixture(scope="module")
def model(heldout):
    from transformers import set_seed

    from cdlm_nb.encoders import tiny_longformer
    from cdlm_nb.profiles import EncoderConfig

    set_seed(0)
    config = EncoderConfig(kind="tiny", max_length=128, attention_window=8, hidden_size=32, num_layers=1,
                           num_heads=2, intermediate_size=64, vocab_size=320, sentence_markers=False)
    return tiny_longformer(config, heldout[0]).eval()


def result(variant, sums, counts, ids=None):
    sums, counts = np.array(sums, dtype=float), np.array(counts)
    low, high = bootstrap_interval(sums, counts, n_resamples=200)
    return PerplexityResult(variant, perplexity(sums, counts), low, high, int(counts.sum()), len(counts),
                            tuple(ids or (f"c{i}" for i in range(len(counts)))), tuple(sums), tuple(counts))


# ---------------------------------------------------------------------------------------------------------------
def test_perplexity_is_the_exponentiated_token_loss():
    assert perplexity(np.array([2 * math.log(4), 3 * math.log(4)]), np.array([2, 3])) == pytest.approx(4.0)
    with pytest.raises(DataError, match="no masked tokens"):
        perplexity(np.array([0.0]), np.array([0]))


def test_bootstrap_interval_brackets_the_estimate_and_narrows_with_more_clusters():
    rng = np.random.default_rng(0)
    counts = rng.integers(20, 40, size=200)
    sums = counts * rng.normal(1.5, 0.3, size=200)
    few = bootstrap_interval(sums[:10], counts[:10])
    many = bootstrap_interval(sums, counts)
    assert few[0] < perplexity(sums[:10], counts[:10]) < few[1]
    assert many[0] < perplexity(sums, counts) < many[1]
    assert many[1] - many[0] < few[1] - few[0]
    assert bootstrap_interval(sums, counts) == many  # a fixed seed: the same interval every time
    with pytest.raises(ConfigError, match="confidence"):
        bootstrap_interval(sums, counts, confidence=95)


def test_paired_difference_sees_a_small_consistent_gain_that_separate_intervals_miss():
    rng = np.random.default_rng(1)
    counts = rng.integers(20, 40, size=20)
    base = counts * rng.normal(1.5, 0.4, size=20)  # clusters differ a lot in difficulty...
    better = base - counts * 0.02  # ...and one model is a little better on every one of them
    a, b = result("cdlm", better, counts), result("local", base, counts)
    assert a.ci_high > b.ci_low  # the separate intervals overlap
    diff, low, high = paired_difference(a, b)
    assert diff < 0 and high < 0  # the paired interval excludes zero
    assert paired_difference(a, a)[1:] == (0.0, 0.0)
    with pytest.raises(ConfigError, match="same held-out clusters"):
        paired_difference(a, result("x", better, counts, ids=[f"d{i}" for i in range(20)]))


def test_table_and_plot():
    counts = [30, 25, 40]
    results = [result("longformer", [90, 80, 120], counts), result("cdlm", [60, 50, 80], counts)]
    table = perplexity_table(results, n_resamples=200)
    assert list(table.index) == ["Longformer", "CDLM"]
    assert table.loc["Longformer", "minus_cdlm"] == pytest.approx(results[0].ppl - results[1].ppl)
    assert math.isnan(table.loc["CDLM", "minus_cdlm"])
    fig = plot_perplexity(results)
    assert len(fig.axes[0].patches) == 2


def test_every_model_is_scored_on_the_same_masked_tokens(heldout, model):
    tokenizer, examples = heldout
    by_variant = {v: evaluate_perplexity(model, tokenizer, examples, v, batch_size=4, n_resamples=50)
                  for v in ("longformer", "cdlm", "prefix")}
    counts = {r.token_counts for r in by_variant.values()}
    assert len(counts) == 1 and by_variant["cdlm"].n_clusters == 6
    # the same weights with another attention pattern give another perplexity
    assert by_variant["cdlm"].ppl != pytest.approx(by_variant["longformer"].ppl, rel=1e-6)
    for r in by_variant.values():
        assert r.ci_low <= r.ppl <= r.ci_high


def test_perplexity_matches_the_model_loss(heldout, model):
    """exp of the Trainer's loss (mean over the batch's masked tokens) on one batch is our perplexity."""
    import torch

    from cdlm_nb.masking import CrossDocumentMLMCollator
    from cdlm_nb.perplexity import EVAL_MASK_SEED

    tokenizer, examples = heldout
    batch = CrossDocumentMLMCollator(tokenizer, "cdlm", seed=EVAL_MASK_SEED)(
        [{"input_ids": ids} for ids in examples["input_ids"]])
    with torch.no_grad():
        loss = model(**batch).loss.item()
    ours = evaluate_perplexity(model, tokenizer, examples, "cdlm", batch_size=len(examples), n_resamples=10)
    assert ours.ppl == pytest.approx(math.exp(loss), rel=1e-4)


def test_answer_locations_finds_the_nearest_visible_copy():
    mask = 99
    #            doc 0 ---------------------------  doc 1 -------
    inputs = np.array([5, 6, mask, 7, 8, 9, 10, mask, 6, 11, 12, mask])
    originals = np.array([5, 6, 6, 7, 8, 9, 10, 5, 6, 11, 12, 13])
    doc_ids = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    labels = np.full(12, -100)
    labels[[2, 7, 11]] = originals[[2, 7, 11]]
    where = answer_locations(inputs, labels, doc_ids, window=4)
    # position 2 (token 6): 6 is visible 1 step away; position 7 (token 5): only at position 0, same document,
    # outside +-2; position 11 (token 13): nowhere
    assert [ANSWER_LOCATIONS[k] for k in where] == ["local window", "own document, outside the window", "nowhere"]
    labels[7], inputs[0] = 5, 4  # now 5 is visible only in document 1
    inputs[10] = 5  # 3 tokens away: outside the window of +-2
    assert ANSWER_LOCATIONS[answer_locations(inputs, labels, doc_ids, window=4)[1]] == "another document only"


def test_perplexity_by_answer_location_splits_the_same_masked_tokens(heldout, model):
    tokenizer, examples = heldout
    table = perplexity_by_answer_location(model, tokenizer, examples, "cdlm", window=8, batch_size=4)
    overall = evaluate_perplexity(model, tokenizer, examples, "cdlm", batch_size=4, n_resamples=10)
    assert list(table.index) == list(ANSWER_LOCATIONS)
    assert table["masked_tokens"].sum() == overall.n_tokens
    seen = table[table["masked_tokens"] > 0]
    total_nll = (np.log(seen["perplexity"]) * seen["masked_tokens"]).sum()
    assert math.exp(total_nll / overall.n_tokens) == pytest.approx(overall.ppl, rel=1e-4)
    with pytest.raises(DataError, match="doc_ids"):
        perplexity_by_answer_location(model, tokenizer, examples.remove_columns("doc_ids"), "cdlm", window=8)


def test_reach_bins_places_every_position_relative_to_the_token():
    doc_ids = np.array([-1, 0, 0, 0, 0, 0, 0, 0, 1, 1, -1])
    bins = [REACH_BINS[k] for k in reach_bins(4, doc_ids, window=6)]
    assert bins[0] == bins[-1] == "outside any document"
    assert bins[2:7] == ["within 2 tokens"] * 5
    assert bins[1] == bins[7] == "rest of the local window"  # 3 tokens away, window +-3
    assert bins[8] == bins[9] == "other documents"  # 4-5 tokens away, in document 1
    assert REACH_BINS[reach_bins(1, doc_ids, window=6)[7]] == "own document, beyond the window"


def test_global_attention_reach_of_uniform_attention_is_the_share_of_positions(heldout, model):
    """With the global query zeroed, every masked token attends uniformly: its shares are the bins' sizes."""
    import copy

    import torch

    from cdlm_nb.masking import CrossDocumentMLMCollator
    from cdlm_nb.perplexity import EVAL_MASK_SEED

    tokenizer, examples = heldout
    uniform = copy.deepcopy(model)
    for layer in uniform.longformer.encoder.layer:
        torch.nn.init.zeros_(layer.attention.self.query_global.weight)
        torch.nn.init.zeros_(layer.attention.self.query_global.bias)
    reach = global_attention_reach(uniform, tokenizer, examples, "cdlm", window=8, batch_size=4)
    batch = CrossDocumentMLMCollator(tokenizer, pattern="cdlm", seed=EVAL_MASK_SEED)(
        [{"input_ids": ids} for ids in examples["input_ids"]])  # masks depend on (seed, tokens) only
    expected, count = np.zeros(len(REACH_BINS)), 0
    for r, doc_ids in enumerate(examples["doc_ids"]):
        for i in np.flatnonzero(batch["labels"][r, :len(doc_ids)].numpy() != -100):
            expected += np.bincount(reach_bins(i, np.asarray(doc_ids), 8), minlength=len(REACH_BINS)) / len(doc_ids)
            count += 1
    assert list(reach.columns) == list(REACH_BINS) and len(reach) == model.config.num_hidden_layers
    np.testing.assert_allclose(reach.iloc[0].to_numpy(), expected / count, atol=1e-5)
    trained = global_attention_reach(model, tokenizer, examples, "cdlm", window=8, batch_size=4)
    np.testing.assert_allclose(trained.sum(axis=1), 1.0, atol=1e-5)
    with pytest.raises(ConfigError, match="no masked token global attention"):
        global_attention_reach(model, tokenizer, examples, "local", window=8)
