"""Held-out scoring of a masked language model (the CDLM paper, §3.1): held-out clusters packed as in pretraining,
fixed evaluation masks for every model, perplexity = exp(mean NLL of the masked tokens). Here for notebook 02's curve
and start check; notebook 03 imports it, so chapter 02 never depends on chapter 03."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch
import torch.nn.functional as F

from ..masking import IGNORE_INDEX, CrossDocumentMLMCollator
from ..support.errors import DataError
from ..variants import attention_pattern_of

if TYPE_CHECKING:
    from collections.abc import Iterator

    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..profiles import Profile

EVAL_MASK_SEED = 2021  # the evaluation masks (the same for every model); also the perplexity bootstrap's resamples
HELDOUT_MIN_DOCUMENTS = 2  # a held-out cluster needs a second document for cross-document context


def heldout_examples(clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", profile: "Profile",
                     max_length: int | None = None) -> "Dataset":
    """Held-out clusters of 2 documents or more (as the paper's) packed as in pretraining, one example each."""
    from ..inputs import pack_clusters

    return pack_clusters(clusters, tokenizer, max_length or profile.pretrain.max_length, seed=profile.seed,
                         sentence_markers=profile.encoder.sentence_markers, min_documents=HELDOUT_MIN_DOCUMENTS)


def model_inputs(model: "PreTrainedModel", batch: dict) -> dict:
    """A collated batch without its labels, on the model's device (the eval batches are built on the CPU)."""
    return {key: value.to(model.device) for key, value in batch.items() if key != "labels"}


def evaluation_batches(tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str,
                       seed: int = EVAL_MASK_SEED, batch_size: int = 8,
                       desc: str | None = None) -> "Iterator[tuple[dict, dict]]":
    """(rows, batch collated with the evaluation masks and `variant`'s pattern) of `dataset`; `desc`: progress bar."""
    from ..support.progress import progress

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
    labels = batch["labels"].to(model.device)
    scored = labels != IGNORE_INDEX
    with torch.no_grad():
        logits = model(**model_inputs(model, batch)).logits[scored].float()  # (n_masked, vocabulary)
    return F.cross_entropy(logits, labels[scored], reduction="none").cpu().numpy()


def row_nll(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str,
            seed: int = EVAL_MASK_SEED, batch_size: int = 8, desc: str | None = None) -> tuple[list[float], list[int]]:
    """Per example: the summed NLL of its masked tokens and how many there are, under the evaluation masks."""
    sums, counts = [], []
    for _, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size, desc=desc):
        scored = (batch["labels"] != IGNORE_INDEX).numpy()
        nll = np.bincount(scored.nonzero()[0], masked_token_nll(model, batch), len(scored))
        sums.extend(nll.tolist())
        counts.extend(scored.sum(axis=1).tolist())
    return sums, counts


def perplexity(nll_sums: np.ndarray, token_counts: np.ndarray) -> float:
    """exp(total NLL / total tokens): the exponentiated token-level cross-entropy."""
    total = token_counts.sum()
    if total == 0:
        raise DataError("no masked tokens to score: the held-out examples have no maskable tokens")
    return float(np.exp(nll_sums.sum() / total))


def heldout_perplexity(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                       variant: str, batch_size: int = 8, desc: str | None = None) -> float:
    """Perplexity of `model` on packed held-out `examples` with `variant`'s attention pattern (no interval)."""
    sums, counts = row_nll(model, tokenizer, examples, variant, batch_size=batch_size, desc=desc)
    return perplexity(np.array(sums), np.array(counts))
