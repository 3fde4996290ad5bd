"""The multi-task HotpotQA model of the CDLM paper (§3.4, after Beltagy et al. 2020): one encoder, four heads.

- relevant paragraph: a linear layer on each `<doc-s>`;
- supporting sentence: a linear layer on each `[/sent]`;
- answer type (span / yes / no): a linear layer on `<s>`;
- answer span: start and end logits on every token, other than the sentence tokens masked out.
The loss is the sum of the four with weight 1 each (span: the mean of the start and end cross-entropies;
paragraphs and sentences: binary cross-entropy over the real ones), as in Longformer's HotpotQA recipe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
from torch import nn

from ..collate import indicator, pad_batch
from .inputs import ANSWER_TYPES, QAInput, QALabels

if TYPE_CHECKING:
    from transformers import PreTrainedModel


class MultiHopQA(nn.Module):
    """An encoder (a masked-LM model is reduced to its base) with the four heads of the module docstring."""

    def __init__(self, encoder: "PreTrainedModel"):
        super().__init__()
        self.encoder = getattr(encoder, "base_model", encoder)
        width = self.encoder.config.hidden_size
        self.paragraph, self.sentence = nn.Linear(width, 1), nn.Linear(width, 1)
        self.answer_type, self.span = nn.Linear(width, len(ANSWER_TYPES)), nn.Linear(width, 2)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, paragraph_positions: torch.Tensor,
                sentence_positions: torch.Tensor, span_mask: torch.Tensor,
                global_attention_mask: torch.Tensor | None = None, **_: torch.Tensor) -> dict[str, torch.Tensor]:
        """Logits per head: paragraph (b, p), sentence (b, s), answer_type (b, 3), start and end (b, n)."""
        extra = {} if global_attention_mask is None else {"global_attention_mask": global_attention_mask}
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask, **extra).last_hidden_state

        def at(positions: torch.Tensor) -> torch.Tensor:
            return hidden.gather(1, positions.unsqueeze(-1).expand(-1, -1, hidden.shape[-1]))

        start, end = self.span(hidden).float().unbind(-1)
        blocked = torch.finfo(start.dtype).min
        return {"paragraph": self.paragraph(at(paragraph_positions)).squeeze(-1).float(),
                "sentence": self.sentence(at(sentence_positions)).squeeze(-1).float(),
                "answer_type": self.answer_type(hidden[:, 0]).float(),
                "start": start.masked_fill(~span_mask, blocked), "end": end.masked_fill(~span_mask, blocked)}


def collate(inputs: Sequence[QAInput], labels: Sequence[QALabels] | None, pad_id: int,
            global_attention: bool) -> dict[str, torch.Tensor]:
    """A padded batch; `*_mask` marks the real paragraphs, sentences and answerable tokens; labels when given."""
    rows = [{"input_ids": item.input_ids, "paragraph_positions": item.paragraph_positions,
             "paragraph_mask": [True] * len(item.paragraph_positions), "sentence_positions": item.sentence_positions,
             "sentence_mask": [True] * len(item.sentence_positions),
             "span_mask": [s >= 0 for s in item.token_sentence]} for item in inputs]
    if global_attention:
        for row, item in zip(rows, inputs):
            row["global_attention_mask"] = indicator(item.global_positions, len(item.input_ids))
    for row, label in zip(rows, labels or []):
        row |= {"paragraph_labels": label.paragraphs, "sentence_labels": label.sentences}
    dtypes = {**dict.fromkeys(("paragraph_mask", "sentence_mask", "span_mask"), torch.bool),
              **dict.fromkeys(("paragraph_labels", "sentence_labels"), torch.float)}
    batch = pad_batch(rows, {"input_ids": pad_id}, dtypes=dtypes)
    if labels is not None:
        batch |= {f"{name}_labels": torch.tensor([getattr(label, name) for label in labels])
                  for name in ("answer_type", "start", "end")}
    return batch


def multitask_loss(logits: dict[str, torch.Tensor], batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Paragraph + sentence (masked binary cross-entropy) + answer type + span (ignoring -1 spans)."""
    def binary(name: str) -> torch.Tensor:
        mask = batch[f"{name}_mask"]
        losses = nn.functional.binary_cross_entropy_with_logits(logits[name], batch[f"{name}_labels"], reduction="none")
        return losses[mask].mean() if mask.any() else losses.sum() * 0

    loss = binary("paragraph") + binary("sentence")
    loss = loss + nn.functional.cross_entropy(logits["answer_type"], batch["answer_type_labels"])
    has_span = batch["start_labels"] >= 0
    if has_span.any():
        span = [nn.functional.cross_entropy(logits[side][has_span], batch[f"{side}_labels"][has_span])
                for side in ("start", "end")]
        loss = loss + (span[0] + span[1]) / 2
    return loss

