"""Perplexity as the exponentiated token loss, the cluster-bootstrap interval and the paired difference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cdlm_nb.errors import ConfigError, DataError
from cdlm_nb.perplexity.bootstrap import bootstrap_interval, paired_difference
from cdlm_nb.pretraining.heldout import perplexity


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
    with pytest.raises(ConfigError, match="n_resamples"):
        bootstrap_interval(sums, counts, n_resamples=0)
    with pytest.raises(DataError, match="no held-out clusters"):
        bootstrap_interval(sums[:0], counts[:0])


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
