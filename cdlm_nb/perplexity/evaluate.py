"""Cross-document perplexity of one model (the CDLM paper, §3.1): the held-out clusters packed as in pretraining,
15 % of their tokens masked with fixed evaluation masks, and the NLL of the masked tokens.

The masks depend only on (seed, tokens), so every model sees the same masked positions. Each model keeps its
pretraining attention pattern: CDLM and Rand CDLM give the masked tokens global attention, Prefix CDLM the first
15 % of the input, Longformer and Local CDLM local attention only.
Perplexity = exp(total NLL of the masked tokens / number of masked tokens), i.e. exp of the token-level loss.
The scoring itself is notebook 02's (`pretraining.heldout`: the packed held-out examples, the masks, the NLL);
this module adds the per-cluster sums and the bootstrap interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DataError
from ..pretraining.heldout import EVAL_MASK_SEED, perplexity, row_nll  # notebook 02's held-out scoring
from ..verdicts import CONFIDENCE
from .bootstrap import PerplexityResult, bootstrap_interval

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def evaluate_perplexity(
    model: "PreTrainedModel",
    tokenizer: "PreTrainedTokenizerBase",
    dataset: "Dataset",
    variant: str,
    seed: int = EVAL_MASK_SEED,
    batch_size: int = 8,
    n_resamples: int = 1000,
    confidence: float = CONFIDENCE,
) -> PerplexityResult:
    """Cross-document perplexity of `model` on packed held-out examples (`input_ids`, `cluster_id`).

    `variant` is the model's pretraining variant and picks its attention pattern; `seed` fixes the masks.
    """
    if "input_ids" not in dataset.column_names:
        raise DataError("evaluate_perplexity needs packed examples with `input_ids` (cdlm_nb.inputs.pack_clusters)")
    if len(dataset) == 0:
        raise DataError("evaluate_perplexity got an empty held-out dataset")
    groups = dataset["cluster_id"] if "cluster_id" in dataset.column_names else [str(i) for i in range(len(dataset))]
    sums, counts = row_nll(model, tokenizer, dataset, variant, seed, batch_size, desc=f"perplexity {variant}")
    cluster_ids, nll_sums, token_counts = sum_by_cluster(groups, sums, counts)
    low, high = bootstrap_interval(np.array(nll_sums), np.array(token_counts), n_resamples, confidence, seed)
    return PerplexityResult(
        variant=variant,
        ppl=perplexity(np.array(nll_sums), np.array(token_counts)),
        ci_low=low,
        ci_high=high,
        n_tokens=int(sum(token_counts)),
        n_clusters=len(cluster_ids),
        cluster_ids=tuple(cluster_ids),
        nll_sums=tuple(nll_sums),
        token_counts=tuple(token_counts),
    )


def require_doc_ids(dataset: "Dataset", caller: str) -> None:
    """A DataError naming `caller` unless the examples carry `doc_ids` (which document each token comes from)."""
    if "doc_ids" not in dataset.column_names:
        raise DataError(f"{caller} needs packed examples with `doc_ids` (inputs.pack_clusters)")


def sum_by_cluster(groups: list[str], sums: list[float],
                    counts: list[int]) -> tuple[list[str], list[float], list[int]]:
    """Add up the rows of each cluster (a cluster may give several examples), in order of first appearance."""
    totals: dict[str, list[float]] = {}
    for group, nll, n in zip(groups, sums, counts):
        entry = totals.setdefault(group, [0.0, 0])
        entry[0] += nll
        entry[1] += n
    return list(totals), [entry[0] for entry in totals.values()], [int(entry[1]) for entry in totals.values()]


__all__ = ["evaluate_perplexity", "require_doc_ids", "sum_by_cluster"]
