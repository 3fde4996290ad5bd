"""Perplexity and its uncertainty: exp of the token-level loss, a percentile bootstrap over held-out clusters, and
the paired bootstrap of the difference between two models scored on the same masked tokens.

Held-out clusters are resampled with replacement (the unit that varies between test sets). Because all models
are scored on the same masked tokens, the difference between two models is judged with a *paired* bootstrap
(the same resampled clusters for both), which removes the difficulty the clusters share. `PerplexityResult`
(what `evaluate` returns) holds a model's per-cluster sums, the unit these resamples draw. `perplexity` itself is
notebook 02's held-out scoring (`pretraining.heldout`), re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError, DataError
from ..pretraining.heldout import EVAL_MASK_SEED, perplexity

#: The seed of the bootstrap resamples: the evaluation masks' (`pretraining.heldout.EVAL_MASK_SEED`).
BOOTSTRAP_SEED = EVAL_MASK_SEED


@dataclass(frozen=True)
class PerplexityResult:
    """A model's perplexity on held-out clusters, its bootstrap interval, and the per-cluster sums behind them."""

    variant: str
    ppl: float
    ci_low: float
    ci_high: float
    n_tokens: int  # masked (predicted) tokens scored
    n_clusters: int
    cluster_ids: tuple[str, ...] = field(repr=False, default=())
    nll_sums: tuple[float, ...] = field(repr=False, default=())  # per cluster: summed NLL of its masked tokens
    token_counts: tuple[int, ...] = field(repr=False, default=())  # per cluster: masked tokens


def bootstrap_interval(nll_sums: np.ndarray, token_counts: np.ndarray, n_resamples: int = 1000,
                       confidence: float = 0.95, seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of the perplexity, resampling clusters (one sum and count each) with
    replacement."""
    return _percentiles(np.exp(_resampled_ratios(nll_sums, token_counts, n_resamples, confidence, seed)), confidence)


def ratio_interval(sums: np.ndarray, counts: np.ndarray, n_resamples: int = 1000, confidence: float = 0.95,
                   seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of sum(sums) / sum(counts), resampling units (one sum and count each) with
    replacement: a per-token mean (e.g. the copy probe's gain) over units that hold different numbers of tokens."""
    return _percentiles(_resampled_ratios(sums, counts, n_resamples, confidence, seed), confidence)


def paired_difference(result: "PerplexityResult", reference: "PerplexityResult", n_resamples: int = 1000,
                      confidence: float = 0.95, seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """ppl(result) - ppl(reference) and its paired-bootstrap interval (same resampled clusters for both)."""
    if result.cluster_ids != reference.cluster_ids:
        raise ConfigError("paired_difference needs two results on the same held-out clusters, in the same order")
    if result.token_counts != reference.token_counts:
        raise ConfigError("paired_difference needs the same masked tokens: evaluate both with the same seed")
    counts = np.array(result.token_counts)
    a, b = np.array(result.nll_sums), np.array(reference.nll_sums)
    resampled = _resample_indices(len(counts), n_resamples, confidence, seed)
    total = counts[resampled].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a resample without a token (rare tokens): left out
        values = np.exp(a[resampled].sum(axis=1) / total) - np.exp(b[resampled].sum(axis=1) / total)
    low, high = _percentiles(values[total > 0], confidence)
    return result.ppl - reference.ppl, low, high


def _resample_indices(n: int, n_resamples: int, confidence: float, seed: int) -> np.ndarray:
    """`n_resamples` rows of `n` cluster indices drawn with replacement, after checking the parameters."""
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, got {n_resamples}")
    if n == 0:
        raise DataError("no held-out clusters to resample")
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def _resampled_ratios(sums: np.ndarray, counts: np.ndarray, n_resamples: int, confidence: float,
                      seed: int) -> np.ndarray:
    """sum(sums) / sum(counts) of each bootstrap resample of the units; a resample without a token is left out."""
    resampled = _resample_indices(len(sums), n_resamples, confidence, seed)
    total = counts[resampled].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = sums[resampled].sum(axis=1) / total
    return values[total > 0]


def _percentiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The central `confidence` interval of the resampled values."""
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


__all__ = ["BOOTSTRAP_SEED", "PerplexityResult", "bootstrap_interval", "paired_difference", "perplexity",
           "ratio_interval"]
