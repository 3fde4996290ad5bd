"""Cross-document perplexity of one model (the CDLM paper, §3.1): the held-out clusters packed as in pretraining,
15 % of their tokens masked with fixed evaluation masks, and the NLL of the masked tokens.

The masks depend only on (seed, tokens), so every model sees the same masked positions. Each model keeps its
pretraining attention pattern: CDLM and Rand CDLM give the masked tokens global attention, Prefix CDLM the first
15 % of the input, Longformer and Local CDLM local attention only.
Perplexity = exp(total NLL of the masked tokens / number of masked tokens), i.e. exp of the token-level loss.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DataError
from ..masking import IGNORE_INDEX, CrossDocumentMLMCollator
from ..variants import attention_pattern_of
from .bootstrap import BOOTSTRAP_SEED, PerplexityResult, bootstrap_interval, perplexity

if TYPE_CHECKING:
    from collections.abc import Iterator

    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..profiles import Profile

EVAL_MASK_SEED = BOOTSTRAP_SEED  # the evaluation masks (the same for every model) and the bootstrap resamples
HELDOUT_MIN_DOCUMENTS = 2  # a held-out cluster needs a second document for cross-document context


def heldout_examples(clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", profile: "Profile",
                     max_length: int | None = None) -> "Dataset":
    """Held-out clusters packed as in pretraining (one example per cluster, fixed seed), from 2 documents up:
    the CDLM paper's 5,622 Multi-News validation and test clusters include the 2-document ones. `max_length`:
    another packed length than the profile's (the start check)."""
    from ..inputs import pack_clusters

    return pack_clusters(clusters, tokenizer, max_length or profile.pretrain.max_length, seed=profile.seed,
                         sentence_markers=profile.encoder.sentence_markers, min_documents=HELDOUT_MIN_DOCUMENTS)


def model_inputs(model: "PreTrainedModel", batch: dict) -> dict:
    """A collated batch without its labels, on the model's device (the eval batches are built on the CPU)."""
    return {key: value.to(model.device) for key, value in batch.items() if key != "labels"}


def evaluation_batches(tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str,
                       seed: int = EVAL_MASK_SEED, batch_size: int = 8,
                       desc: str | None = None) -> "Iterator[tuple[dict, dict]]":
    """The held-out examples in batches, each as (its rows, the collated batch with the evaluation masks and
    `variant`'s attention pattern). The masks depend only on (seed, tokens), so every model sees the same ones.
    `desc` shows a progress bar."""
    from ..runtime import progress

    collate = CrossDocumentMLMCollator(tokenizer, pattern=attention_pattern_of(variant), seed=seed)
    starts = range(0, len(dataset), batch_size)
    for start in progress(starts, desc=desc) if desc else starts:
        rows = dataset[start:start + batch_size]
        yield rows, collate([{"input_ids": ids} for ids in rows["input_ids"]])


def masked_batches(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str,
                   seed: int = EVAL_MASK_SEED, batch_size: int = 8,
                   desc: str | None = None) -> "Iterator[tuple[dict, dict]]":
    """`evaluation_batches`, with `model` in eval mode meanwhile (it goes back to its mode after)."""
    was_training = model.training
    model.eval()
    try:
        yield from evaluation_batches(tokenizer, dataset, variant, seed, batch_size, desc)
    finally:
        model.train(was_training)


def masked_token_nll(model: "PreTrainedModel", batch: dict) -> np.ndarray:
    """Negative log-likelihood of every labelled (masked) token of a collated batch, row by row, left to right."""
    import torch
    import torch.nn.functional as F

    labels = batch["labels"].to(model.device)
    scored = labels != IGNORE_INDEX
    with torch.no_grad():
        # only the masked positions: (n_masked, vocabulary)
        logits = model(**model_inputs(model, batch)).logits[scored].float()
    return F.cross_entropy(logits, labels[scored], reduction="none").cpu().numpy()


def token_nll(model: "PreTrainedModel", batch: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per-row summed negative log-likelihood of the labelled (masked) tokens, and how many there are."""
    scored = (batch["labels"] != IGNORE_INDEX).numpy()
    sums = np.zeros(len(scored))
    np.add.at(sums, scored.nonzero()[0], masked_token_nll(model, batch))
    return sums, scored.sum(axis=1)


def row_nll(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str,
            seed: int = EVAL_MASK_SEED, batch_size: int = 8, desc: str | None = None) -> tuple[list[float], list[int]]:
    """Per example: the summed NLL of its masked tokens and how many there are, under the evaluation masks."""
    sums, counts = [], []
    for _, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size, desc=desc):
        nll, n = token_nll(model, batch)
        sums.extend(nll.tolist())
        counts.extend(n.tolist())
    return sums, counts


def evaluate_perplexity(
    model: "PreTrainedModel",
    tokenizer: "PreTrainedTokenizerBase",
    dataset: "Dataset",
    variant: str,
    seed: int = EVAL_MASK_SEED,
    batch_size: int = 8,
    n_resamples: int = 1000,
    confidence: float = 0.95,
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
