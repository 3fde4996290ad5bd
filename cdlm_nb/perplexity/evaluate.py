"""One model on the held-out clusters under the fixed evaluation masks (the same tokens for every model): its
cross-document perplexity (the CDLM paper, §3.1), the same tokens split by where their answer is visible (does it gain
on what related documents give away?), and where a global masked token's attention falls."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import torch

from ..masking import IGNORE_INDEX, MASKED_GLOBAL_PATTERNS
from ..pretraining import heldout  # notebook 02's held-out scoring
from ..pretraining.heldout import EVAL_MASK_SEED, masked_batches, masked_token_nll
from ..support.errors import ConfigError, DataError
from ..verdicts import CONFIDENCE
from .bootstrap import PerplexityResult, cluster_result

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..encoders import Encoder

#: Where the answer to a masked token is visible in its input, checked in this order (`answer_locations`).
ANSWER_LOCATIONS = ("local window", "own document, outside the window", "another document only", "nowhere")
#: Where a global masked token's attention falls, relative to the token (`global_attention_reach`).
REACH_BINS = ("within 2 tokens", "rest of the local window", "own document, beyond the window", "other documents",
              "outside any document")


def evaluate_perplexity(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset",
                        variant: str, seed: int = EVAL_MASK_SEED, batch_size: int = 8, n_resamples: int = 1000,
                        confidence: float = CONFIDENCE) -> PerplexityResult:
    """Cross-document perplexity of `model` on packed held-out examples, `variant`'s pattern; `seed` fixes the masks."""
    if "input_ids" not in dataset.column_names:
        raise DataError("evaluate_perplexity needs packed examples with `input_ids` (cdlm_nb.inputs.pack_clusters)")
    if len(dataset) == 0:
        raise DataError("evaluate_perplexity got an empty held-out dataset")
    groups = dataset["cluster_id"] if "cluster_id" in dataset.column_names else [str(i) for i in range(len(dataset))]
    sums, counts = heldout.row_nll(model, tokenizer, dataset, variant, seed, batch_size, desc=f"perplexity {variant}")
    return cluster_result(variant, groups, sums, counts, n_resamples, confidence, seed)


def require_doc_ids(dataset: "Dataset", caller: str) -> None:
    """A DataError naming `caller` unless the examples carry `doc_ids` (which document each token comes from)."""
    if "doc_ids" not in dataset.column_names:
        raise DataError(f"{caller} needs packed examples with `doc_ids` (inputs.pack_clusters)")


def scored_rows(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str,
                seed: int = EVAL_MASK_SEED, batch_size: int = 8
                ) -> Iterator[tuple[dict, np.ndarray, np.ndarray, np.ndarray]]:
    """Per example under `evaluate_perplexity`'s masks: (row, masked input ids, labels, NLL of each labelled token)."""
    for rows, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size):
        labels = batch["labels"].numpy()
        nll = np.split(masked_token_nll(model, batch), np.cumsum((labels != IGNORE_INDEX).sum(1))[:-1])
        for r, ids in enumerate(batch["input_ids"].numpy()):
            yield {key: values[r] for key, values in rows.items()}, ids, labels[r], nll[r]


def with_start(models: "Mapping[str, Encoder]", start: "Encoder | None") -> "list[tuple[str, Encoder, str]]":
    """(name, encoder, variant) of every model, first `("start", start, "cdlm")` when `start` is given."""
    return ([("start", start, "cdlm")] if start is not None else []) + [(v, e, v) for v, e in models.items()]


def answer_locations(input_ids: np.ndarray, labels: np.ndarray, doc_ids: np.ndarray, window: int) -> np.ndarray:
    """Per predicted position of a row, the index into ANSWER_LOCATIONS of the nearest place its answer is visible."""
    masked, positions = np.flatnonzero(labels != IGNORE_INDEX)[:, None], np.arange(len(input_ids))
    same = (input_ids == labels[masked]) & (positions != masked)  # per masked token: where its answer is visible
    own, near = doc_ids == doc_ids[masked], np.abs(positions - masked) <= window // 2
    return np.select([(same & near).any(1), (same & own).any(1), (same & ~own & (doc_ids >= 0)).any(1)], [0, 1, 2],
                     default=3)


def perplexity_by_answer_location(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset",
                                  variant: str, window: int, seed: int = EVAL_MASK_SEED,
                                  batch_size: int = 8) -> pd.DataFrame:
    """`evaluate_perplexity`'s masked tokens split by `answer_locations` (needs `doc_ids`): perplexity, count."""
    require_doc_ids(dataset, "perplexity_by_answer_location")
    where, nll = [], []
    for row, ids, labels, token_nll in scored_rows(model, tokenizer, dataset, variant, seed, batch_size):
        n = len(row["doc_ids"])
        where.append(answer_locations(ids[:n], labels[:n], np.asarray(row["doc_ids"]), window))
        nll.append(token_nll)
    where, size = np.concatenate(where), len(ANSWER_LOCATIONS)
    nll_sums, counts = np.bincount(where, np.concatenate(nll), size), np.bincount(where, minlength=size)
    ppl = [float(np.exp(total / n)) if n else float("nan") for total, n in zip(nll_sums, counts)]
    return pd.DataFrame({"perplexity": ppl, "masked_tokens": counts}, index=pd.Index(ANSWER_LOCATIONS, name="answer"))


def reach_bins(position: int, doc_ids: np.ndarray, window: int) -> np.ndarray:
    """For every position of one row, the index into REACH_BINS of where it lies as seen from `position`."""
    distance = np.abs(np.arange(len(doc_ids)) - position)
    own = doc_ids == doc_ids[position]
    return np.select([doc_ids < 0, distance <= 2, distance <= window // 2, own], [4, 0, 1, 2], default=3)


def masked_global_bins(rows: dict, batch: dict, window: int) -> Iterator[tuple[int, int, np.ndarray]]:
    """(row, slot among the row's global tokens, `reach_bins`) of every global token of the batch that is predicted."""
    for r, doc_ids in enumerate(rows["doc_ids"]):
        n = len(doc_ids)
        predicted = batch["labels"][r, :n].numpy() != IGNORE_INDEX
        for k, i in enumerate(np.flatnonzero(batch["global_attention_mask"][r, :n].numpy())):
            if predicted[i]:
                yield r, k, reach_bins(int(i), np.asarray(doc_ids), window)


def _require_masked_globals(count: int, variant: str, function: str) -> None:
    """Refuse a variant whose masked tokens are not global: there is no global attention of theirs to measure."""
    if count == 0:
        raise ConfigError(f"variant {variant!r} gives no masked token global attention; {function} is for the "
                          f"variants that do ({', '.join(MASKED_GLOBAL_PATTERNS)})")


def global_attention_reach(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset",
                           variant: str, window: int, seed: int = EVAL_MASK_SEED, batch_size: int = 8) -> pd.DataFrame:
    """Per layer, the mean share of a global masked token's attention in each of REACH_BINS (CDLM, Rand only)."""
    require_doc_ids(dataset, "global_attention_reach")
    totals, count = np.zeros((model.config.num_hidden_layers, len(REACH_BINS))), 0
    for rows, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size):
        with torch.no_grad():
            outputs = model.base_model(**heldout.model_inputs(model, batch), output_attentions=True)
        attentions = [probs.float().cpu() for probs in outputs.global_attentions or ()]  # (batch, heads, seq, global)
        for r, k, bins in masked_global_bins(rows, batch, window):
            for layer, probs in enumerate(attentions):
                np.add.at(totals[layer], bins, probs[r, :, :len(bins), k].mean(0).numpy())
            count += 1
    _require_masked_globals(count, variant, "global_attention_reach")
    return pd.DataFrame(totals / count, columns=list(REACH_BINS),
                        index=pd.Index([f"layer {layer + 1}" for layer in range(len(totals))], name="attention"))


def uniform_reach(tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str, window: int,
                  seed: int = EVAL_MASK_SEED) -> pd.Series:
    """The shares of REACH_BINS that attention spread evenly would give `global_attention_reach`'s tokens: its scale."""
    totals, count = np.zeros(len(REACH_BINS)), 0
    for rows, batch in heldout.evaluation_batches(tokenizer, dataset, variant, seed):
        for _, _, bins in masked_global_bins(rows, batch, window):
            totals += np.bincount(bins, minlength=len(REACH_BINS)) / len(bins)
            count += 1
    _require_masked_globals(count, variant, "uniform_reach")
    return pd.Series(totals / count, index=list(REACH_BINS), name="uniform")
