"""Perplexity's uncertainty: a percentile bootstrap over held-out clusters (`verdicts.paired_bootstrap`), paired for
two models scored on the same masked tokens (the same clusters drawn for both removes the difficulty they share)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..pretraining.heldout import EVAL_MASK_SEED, perplexity
from ..support.errors import ConfigError, DataError
from ..verdicts import CONFIDENCE, Difference, paired_bootstrap

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


def cluster_result(variant: str, cluster_ids: Sequence[str], sums: Sequence[float], counts: Sequence[int],
                   n_resamples: int = 1000, confidence: float = CONFIDENCE,
                   seed: int = BOOTSTRAP_SEED) -> PerplexityResult:
    """Per-example NLL sums and token counts added up per cluster (first-appearance order), with the interval."""
    index = {cluster: k for k, cluster in enumerate(dict.fromkeys(cluster_ids))}
    codes = [index[cluster] for cluster in cluster_ids]
    nll_sums = np.bincount(codes, sums, len(index))
    token_counts = np.bincount(codes, counts, len(index)).astype(int)
    low, high = (float(np.exp(x)) for x in ratio_interval(nll_sums, token_counts, n_resamples, confidence, seed))
    return PerplexityResult(variant, perplexity(nll_sums, token_counts), low, high, int(token_counts.sum()),
                            len(index), tuple(index), tuple(nll_sums.tolist()), tuple(token_counts.tolist()))


def ratio_interval(sums: np.ndarray, counts: np.ndarray, n_resamples: int = 1000, confidence: float = CONFIDENCE,
                   seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of sum(sums) / sum(counts), resampling units (one sum and count each)."""
    sums, counts = np.asarray(sums, dtype=float), np.asarray(counts, dtype=float)
    if len(sums) == 0:
        raise DataError("no held-out clusters to resample")
    return paired_bootstrap(lambda rows: _ratio(sums[rows].sum(-1), counts[rows].sum(-1)), len(sums), n_resamples,
                            seed, confidence)


def paired_difference(result: PerplexityResult, reference: PerplexityResult, n_resamples: int = 1000,
                      confidence: float = CONFIDENCE, seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """ppl(result) - ppl(reference) and its paired-bootstrap interval (same resampled clusters for both)."""
    if result.cluster_ids != reference.cluster_ids:
        raise ConfigError("paired_difference needs two results on the same held-out clusters, in the same order")
    if result.token_counts != reference.token_counts:
        raise ConfigError("paired_difference needs the same masked tokens: evaluate both with the same seed")
    counts = np.array(result.token_counts, dtype=float)
    a, b = np.array(result.nll_sums), np.array(reference.nll_sums)

    def difference(rows: np.ndarray) -> np.ndarray:
        total = counts[rows].sum(-1)
        return np.exp(_ratio(a[rows].sum(-1), total)) - np.exp(_ratio(b[rows].sum(-1), total))

    return result.ppl - reference.ppl, *paired_bootstrap(difference, len(counts), n_resamples, seed, confidence)


def lower_reading(lead: Difference, digits: int) -> str:
    """`lead` (another model minus the reference) from the reference's side, with the verdict on its being lower:
    `-2.371 (95 % paired bootstrap -3.263 to -1.658; seed band ±0.048) -> holds here`."""
    return f"{Difference(-lead.value, -lead.high, -lead.low, lead.band).describe(digits=digits)} -> {lead.verdict}"


def _ratio(sums: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """sums / totals per resample; NaN for a resample without a token (rare tokens), which the interval leaves out."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, sums / np.where(totals > 0, totals, 1), np.nan)
