"""Perplexity as the exponentiated token loss, the cluster-bootstrap interval and the paired difference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cdlm_nb.perplexity.bootstrap import cluster_result, lower_reading, paired_difference, ratio_interval
from cdlm_nb.pretraining.heldout import perplexity
from cdlm_nb.support.errors import ConfigError, DataError
from cdlm_nb.verdicts import Difference


def test_perplexity_is_the_exponentiated_token_loss():
    assert perplexity(np.array([2 * math.log(4), 3 * math.log(4)]), np.array([2, 3])) == pytest.approx(4.0)
    with pytest.raises(DataError, match="no masked tokens"):
        perplexity(np.array([0.0]), np.array([0]))


def test_the_cluster_interval_brackets_the_estimate_and_narrows_with_more_clusters():
    rng = np.random.default_rng(0)
    counts = rng.integers(20, 40, size=200)
    sums = counts * rng.normal(1.5, 0.3, size=200)
    ids = [f"c{i}" for i in range(200)]
    few, many = cluster_result("x", ids[:10], sums[:10], counts[:10]), cluster_result("x", ids, sums, counts)
    assert few.ci_low < few.ppl == perplexity(sums[:10], counts[:10]) < few.ci_high
    assert many.ci_low < many.ppl == perplexity(sums, counts) < many.ci_high
    assert many.ci_high - many.ci_low < few.ci_high - few.ci_low
    assert cluster_result("x", ids, sums, counts) == many  # a fixed seed: the same interval every time
    with pytest.raises(ConfigError, match="confidence"):
        cluster_result("x", ids, sums, counts, confidence=95)
    with pytest.raises(ConfigError, match="n_resamples"):
        cluster_result("x", ids, sums, counts, n_resamples=0)
    with pytest.raises(DataError, match="no held-out clusters"):
        ratio_interval(sums[:0], counts[:0])


def test_rows_of_one_cluster_are_added_up_in_order_of_first_appearance():
    result = cluster_result("x", ["b", "a", "b"], [1.0, 2.0, 3.0], [1, 2, 3], n_resamples=10)
    assert (result.cluster_ids, result.nll_sums, result.token_counts) == (("b", "a"), (4.0, 2.0), (4, 2))
    assert (result.n_clusters, result.n_tokens) == (2, 6) and result.ppl == pytest.approx(math.exp(1.0))


def test_paired_difference_sees_a_small_consistent_gain_that_separate_intervals_miss(make_result):
    rng = np.random.default_rng(1)
    counts = rng.integers(20, 40, size=20)
    base = counts * rng.normal(1.5, 0.4, size=20)  # clusters differ a lot in difficulty...
    better = base - counts * 0.02  # ...and one model is a little better on every one of them
    a, b = make_result("cdlm", better, counts), make_result("local", base, counts)
    assert a.ci_high > b.ci_low  # the separate intervals overlap
    diff, low, high = paired_difference(a, b)
    assert diff < 0 and high < 0  # the paired interval excludes zero
    assert paired_difference(a, a)[1:] == (0.0, 0.0)
    with pytest.raises(ConfigError, match="same held-out clusters"):
        paired_difference(a, make_result("x", better, counts, ids=[f"d{i}" for i in range(20)]))
    with pytest.raises(ConfigError, match="same masked tokens"):
        paired_difference(a, make_result("x", better, counts + 1))


@pytest.mark.parametrize("lead, reading", [
    # another model's perplexity minus the reference's (0.5): read as the reference minus it, verdict on "lower"
    (Difference(0.5, 0.2, 0.8, 0.49), "-0.50 (95 % paired bootstrap -0.80 to -0.20; seed band ±0.49) -> holds here"),
    (Difference(0.5, 0.2, 0.8, 0.51), "-0.50 (95 % paired bootstrap -0.80 to -0.20; seed band ±0.51) -> not resolved "
                                      "at this scale"),  # inside the seed band
    (Difference(0.5, -0.01, 0.8, 0.1), "-0.50 (95 % paired bootstrap -0.80 to +0.01; seed band ±0.10) -> not "
                                       "resolved at this scale"),  # the interval reaches 0
    (Difference(0.5, 0.01, 0.8, 0.1), "-0.50 (95 % paired bootstrap -0.80 to -0.01; seed band ±0.10) -> holds here"),
    (Difference(-0.5, -0.8, -0.2, 0.1), "+0.50 (95 % paired bootstrap +0.20 to +0.80; seed band ±0.10) -> reversed "
                                        "here"),  # the reference is higher
    (Difference(0.5, 0.2, 0.8, None), "-0.50 (95 % paired bootstrap -0.80 to -0.20; seed spread not measured) -> "
                                      "not resolved at this scale"),
])
def test_a_lower_reading_holds_only_beyond_the_interval_and_the_seed_band(lead, reading):
    assert lower_reading(lead, digits=2) == reading
