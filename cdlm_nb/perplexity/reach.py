"""Where a global masked token's attention falls: on its neighbours, the rest of its local window, the rest of its
own document, or the other documents. It shows whether CDLM's global masked tokens still read their neighbours,
or spend their attention on other documents."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..masking import IGNORE_INDEX, MASKED_GLOBAL_PATTERNS
from ..pretraining.heldout import EVAL_MASK_SEED, evaluation_batches, masked_batches, model_inputs
from .evaluate import require_doc_ids

if TYPE_CHECKING:
    import pandas as pd
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: Where a global masked token's attention falls, relative to the token (`global_attention_reach`).
REACH_BINS = ("within 2 tokens", "rest of the local window", "own document, beyond the window", "other documents",
              "outside any document")


def reach_bins(position: int, doc_ids: np.ndarray, window: int) -> np.ndarray:
    """For every position of one row, the index into REACH_BINS of where it lies as seen from `position`."""
    distance = np.abs(np.arange(len(doc_ids)) - position)
    own = doc_ids == doc_ids[position]
    return np.select([doc_ids < 0, distance <= 2, distance <= window // 2, own], [4, 0, 1, 2], default=3)


def masked_globals(batch: dict, row: int, n: int) -> list[tuple[int, int]]:
    """(slot among the row's global tokens, position) of every global token of `row` that is also predicted."""
    global_positions = np.flatnonzero(batch["global_attention_mask"][row, :n].numpy())
    predicted = batch["labels"][row, :n].numpy() != IGNORE_INDEX
    return [(k, int(i)) for k, i in enumerate(global_positions) if predicted[i]]


def _require_masked_globals(count: int, variant: str, function: str) -> None:
    """Refuse a variant whose masked tokens are not global: there is no global attention of theirs to measure."""
    if count == 0:
        raise ConfigError(f"variant {variant!r} gives no masked token global attention; {function} is for the "
                          f"variants that do ({', '.join(MASKED_GLOBAL_PATTERNS)})")


def global_attention_reach(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset",
                           variant: str, window: int, seed: int = EVAL_MASK_SEED,
                           batch_size: int = 8) -> "pd.DataFrame":
    """Per layer, the mean share of a masked token's global attention (averaged over heads) in each of REACH_BINS,
    on the same masks as `evaluate_perplexity`. Only for variants whose masked tokens are global (CDLM, Rand)."""
    import pandas as pd
    import torch

    require_doc_ids(dataset, "global_attention_reach")
    encoder = model.base_model
    totals, count = np.zeros((model.config.num_hidden_layers, len(REACH_BINS))), 0
    for rows, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size):
        with torch.no_grad():
            outputs = encoder(**model_inputs(model, batch), output_attentions=True)
        attentions = [probs.float().cpu() for probs in outputs.global_attentions or ()]  # (batch, heads, seq, global)
        for r, doc_ids in enumerate(rows["doc_ids"]):
            n, doc_ids = len(doc_ids), np.asarray(doc_ids)
            for k, i in masked_globals(batch, r, n):
                bins = reach_bins(i, doc_ids, window)
                for layer, probs in enumerate(attentions):
                    np.add.at(totals[layer], bins, probs[r, :, :n, k].mean(0).numpy())
                count += 1
    _require_masked_globals(count, variant, "global_attention_reach")
    return pd.DataFrame(totals / count, columns=list(REACH_BINS),
                        index=pd.Index([f"layer {layer + 1}" for layer in range(len(totals))], name="attention"))


def uniform_reach(tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str, window: int,
                  seed: int = EVAL_MASK_SEED) -> "pd.Series":
    """The shares of REACH_BINS that attention spread evenly over each input would give the same masked tokens as
    `global_attention_reach`: the scale its table is read against (e.g. 5 of 400 tokens lie within 2 tokens)."""
    import pandas as pd

    totals, count = np.zeros(len(REACH_BINS)), 0
    for rows, batch in evaluation_batches(tokenizer, dataset, variant, seed):
        for r, doc_ids in enumerate(rows["doc_ids"]):
            for _, i in masked_globals(batch, r, len(doc_ids)):
                bins = reach_bins(i, np.asarray(doc_ids), window)
                totals += np.bincount(bins, minlength=len(REACH_BINS)) / len(doc_ids)
                count += 1
    _require_masked_globals(count, variant, "uniform_reach")
    return pd.Series(totals / count, index=list(REACH_BINS), name="uniform")
