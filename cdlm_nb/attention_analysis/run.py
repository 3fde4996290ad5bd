"""Running one model on mention pairs: one forward pass per batch with global attention on each row's source
span, both attention directions read out of Hugging Face's Longformer output, every pair ranked.

Where the two directions live (transformers 5.x, `output_attentions=True`; row b of a padded batch, x = |S| =
that row's global tokens, columns in increasing position order):

* α_ij — `outputs.attentions[-1][b, :, :, :x]`: each token's attention row starts with its probabilities for
  the global keys (the window part after them has the global positions masked out, so nothing is counted
  twice). Shape (heads, seq, x).
* α_ji — `outputs.global_attentions[-1][b, :, :, :x]`: the probabilities each global token computed over every
  position (with the separate query_global/key_global projections), transposed by HF to (heads, seq, x). It is
  *not* trimmed of Longformer's internal padding to a multiple of the window, so it is cut to the input length.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..batching import length_grouped_batches
from ..collate import indicator, pad_batch
from ..coref.mentions import MentionPair, tokenize_documents
from ..encoders import max_input_length
from ..support.errors import ConfigError
from ..support.progress import progress
from .pairs import AttentionInput, build_attention_input, pair_label
from .ranking import PairAttention, excluded_token_ids, rank_target, token_scores

if TYPE_CHECKING:
    import pandas as pd
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def last_layer_source_attention(outputs: Any, row: int, n_source: int, seq_len: int) -> tuple[np.ndarray, np.ndarray]:
    """(attn_to, attn_from), each (heads, seq_len, |S|), for batch row `row` (see the module docstring); columns
    beyond |S| belong to longer rows of the batch, rows beyond `seq_len` to padding."""
    global_attentions = getattr(outputs, "global_attentions", None)
    if global_attentions is None or outputs.attentions is None:
        raise ConfigError("the model returned no global_attentions: the analysis needs a Longformer called with "
                          "output_attentions=True and a non-empty global_attention_mask")
    return tuple(attentions[-1][row, :, :seq_len, :n_source].detach().float().cpu().numpy()
                 for attentions in (outputs.attentions, global_attentions))


def source_token_scores(model: "PreTrainedModel", items: Sequence[AttentionInput]) -> list[np.ndarray]:
    """s(i|S) for every position of each of `items`: one padded forward pass, global attention on each row's
    source span only (padding is masked, so a row's scores do not depend on its batch)."""
    import torch

    device = next(model.parameters()).device
    batch = pad_batch([{"input_ids": item.input_ids,
                        "global_attention_mask": indicator(item.source_positions, len(item.input_ids))}
                       for item in items], {"input_ids": model.config.pad_token_id})
    with torch.inference_mode():
        outputs = model.base_model(**{name: values.to(device) for name, values in batch.items()},
                                   output_attentions=True)
    return [token_scores(*last_layer_source_attention(outputs, row, len(item.source_positions), len(item.input_ids)),
                         item.source_positions) for row, item in enumerate(items)]


def explain_pairs(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", pairs: Sequence[MentionPair],
                  coref_dataset: Iterable[Mapping[str, Any]], max_length: int, exclude_punctuation: bool = True,
                  batch_size: int = 8) -> Iterator[tuple[int, PairAttention | str]]:
    """(index into `pairs`, its analysis or why it was skipped), lazily: the skipped pairs first, then the others
    in batches of similar length; only the documents the pairs use are tokenised."""
    model.eval()
    excluded = excluded_token_ids(tokenizer, exclude_punctuation)
    needed = {m.doc_id for pair in pairs for m in (pair.first, pair.second)}
    documents = tokenize_documents([row for row in coref_dataset if row["doc_id"] in needed], tokenizer)
    length = max_input_length(model, max_length)
    items = [build_attention_input(pair, documents, tokenizer, length) for pair in pairs]
    yield from ((i, item) for i, item in enumerate(items) if isinstance(item, str))
    encoded = [i for i, item in enumerate(items) if not isinstance(item, str)]
    for positions in length_grouped_batches([len(items[i].input_ids) for i in encoded], batch_size):
        batch = [encoded[p] for p in positions]
        for i, scores in zip(batch, source_token_scores(model, [items[i] for i in batch])):
            yield i, rank_target(pairs[i], items[i], scores, excluded)


def analyse_pairs(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", pairs: Sequence[MentionPair],
                  coref_dataset: Iterable[Mapping[str, Any]], model_name: str, max_length: int,
                  exclude_punctuation: bool = True, batch_size: int = 8) -> "pd.DataFrame":
    """One row per pair, in order: model, pair, kind, label, s(T|S) and its percentile rank, the input's length and
    cut documents, and a status ("ok" or why the pair was skipped: skips are kept, never dropped)."""
    import pandas as pd

    analyses = dict(progress(explain_pairs(model, tokenizer, pairs, coref_dataset, max_length, exclude_punctuation,
                                           batch_size), total=len(pairs), desc=f"attention {model_name}"))
    rows = []
    for i, pair in enumerate(pairs):
        result = analyses[i]
        rows.append({"model": model_name, "pair": i, "kind": pair.first.kind, "label": pair_label(pair),
                     "source": pair.first.text, "target": pair.second.text, "source_doc": pair.first.doc_id,
                     "target_doc": pair.second.doc_id, "score": np.nan, "percentile": np.nan, "candidates": 0,
                     "length": 0, "truncated_documents": 0, "status": result if isinstance(result, str) else "ok"})
        if not isinstance(result, str):
            rows[-1].update(score=result.target_score, percentile=result.percentile, candidates=len(result.candidates),
                            length=len(result.item.input_ids), truncated_documents=result.item.truncated_documents)
    return pd.DataFrame(rows)
