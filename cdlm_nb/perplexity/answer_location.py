"""Perplexity split by where a masked token's answer is visible in its input: in the local window, elsewhere in
its own document, only in another document, or nowhere. Only the third kind needs attention across documents, so
it tells whether a model gains on what related documents give away or on what its window already shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..masking import IGNORE_INDEX
from ..pretraining.heldout import EVAL_MASK_SEED, masked_batches, masked_token_nll
from .evaluate import require_doc_ids

if TYPE_CHECKING:
    import pandas as pd
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: Where the answer to a masked token is visible in its input, checked in this order (`answer_locations`).
ANSWER_LOCATIONS = ("local window", "own document, outside the window", "another document only", "nowhere")


def answer_locations(input_ids: np.ndarray, labels: np.ndarray, doc_ids: np.ndarray, window: int) -> np.ndarray:
    """For each predicted position of one row, the index into ANSWER_LOCATIONS of the nearest place where its
    original token is visible in the (masked) input: within `window // 2` tokens, elsewhere in its own document,
    only in another document, or nowhere. Only "another document only" needs attention across documents."""
    positions = np.flatnonzero(labels != IGNORE_INDEX)
    locations = np.empty(len(positions), dtype=int)
    half = window // 2
    for k, i in enumerate(positions):
        same = input_ids == labels[i]
        same[i] = False
        near = same[max(0, i - half):i + half + 1].any()
        own = same & (doc_ids == doc_ids[i])
        other = same & (doc_ids != doc_ids[i]) & (doc_ids >= 0)
        locations[k] = 0 if near else 1 if own.any() else 2 if other.any() else 3
    return locations


def perplexity_by_answer_location(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                                  dataset: "Dataset", variant: str, window: int, seed: int = EVAL_MASK_SEED,
                                  batch_size: int = 8) -> "pd.DataFrame":
    """`evaluate_perplexity`'s masked tokens split by where their answer is visible (`answer_locations`):
    perplexity and token count per location. Needs `doc_ids` (packed examples)."""
    import pandas as pd

    require_doc_ids(dataset, "perplexity_by_answer_location")
    nll_sums, counts = np.zeros(len(ANSWER_LOCATIONS)), np.zeros(len(ANSWER_LOCATIONS), dtype=int)
    for rows, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size):
        nll = masked_token_nll(model, batch)
        offset = 0
        for r, doc_ids in enumerate(rows["doc_ids"]):
            n = len(doc_ids)
            labels = batch["labels"][r, :n].numpy()
            where = answer_locations(batch["input_ids"][r, :n].numpy(), labels, np.asarray(doc_ids), window)
            np.add.at(nll_sums, where, nll[offset:offset + len(where)])
            np.add.at(counts, where, 1)
            offset += len(where)
    ppl = [float(np.exp(total / n)) if n else float("nan") for total, n in zip(nll_sums, counts)]
    return pd.DataFrame({"perplexity": ppl, "masked_tokens": counts}, index=pd.Index(ANSWER_LOCATIONS, name="answer"))
