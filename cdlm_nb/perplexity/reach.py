"""Where a global masked token's attention falls: on its neighbours, the rest of its local window, the rest of its
own document, or the other documents. It shows whether CDLM's global masked tokens still read their neighbours,
or spend their attention on other documents."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..masking import IGNORE_INDEX, MASKED_GLOBAL_PATTERNS
from .evaluate import EVAL_MASK_SEED, masked_batches, model_inputs, require_doc_ids

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


def global_attention_reach(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset",
                           variant: str, window: int, seed: int = EVAL_MASK_SEED, batch_size: int = 8) -> "pd.DataFrame":
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
            global_positions = np.flatnonzero(batch["global_attention_mask"][r, :n].numpy())
            predicted = set(np.flatnonzero(batch["labels"][r, :n].numpy() != IGNORE_INDEX).tolist())
            for k, i in enumerate(global_positions):
                if i not in predicted:
                    continue
                bins = reach_bins(i, doc_ids, window)
                for layer, probs in enumerate(attentions):
                    np.add.at(totals[layer], bins, probs[r, :, :n, k].mean(0).numpy())
                count += 1
    if count == 0:
        raise ConfigError(f"variant {variant!r} gives no masked token global attention; global_attention_reach is "
                          f"for the variants that do ({', '.join(MASKED_GLOBAL_PATTERNS)})")
    return pd.DataFrame(totals / count, columns=list(REACH_BINS),
                        index=pd.Index([f"layer {layer + 1}" for layer in range(len(totals))], name="attention"))
