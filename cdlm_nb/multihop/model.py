"""The multi-task HotpotQA model of the CDLM paper (§3.4, after Beltagy et al. 2020), its fine-tuning and predictions.
One encoder, four heads: relevant paragraph (linear on each `<doc-s>`), supporting sentence (on each `[/sent]`), answer
type (span / yes / no, on `<s>`) and span (start and end logits, tokens outside sentences masked). The loss sums the
four with weight 1 (span: mean of start and end cross-entropies; paragraphs, sentences: BCE over the real ones)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import torch
from torch import nn

from ..batching import length_grouped_batches
from ..collate import indicator, pad_batch
from ..encoders import takes_global_attention
from ..finetuning import Epoch, TrainSetup, input_lengths, per_device, predict_batches, to_device, train_epochs
from .inputs import ANSWER_TYPES, Decoded, QAInput, QALabels, decode


class MultiHopQA(nn.Module):
    """An encoder (a masked-LM model is reduced to its base) with the four heads of the module docstring."""

    def __init__(self, encoder: nn.Module):
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


def fine_tune(model: MultiHopQA, inputs: Sequence[QAInput], labels: Sequence[QALabels], setup: TrainSetup, *,
              pad_id: int, device: str = "cpu", per_device_batch: int | None = None) -> Iterator[Epoch]:
    """Train encoder and heads on the summed loss (AdamW, linear warm-up then decay; `per_device_batch`: questions
    per forward pass), yielding after each epoch (`finetuning.train_epochs`)."""
    def batch_loss(indices: list[int]) -> torch.Tensor:
        batch = to_device(collate([inputs[i] for i in indices], [labels[i] for i in indices], pad_id,
                                  takes_global_attention(model.encoder)), device)
        return multitask_loss(model(**batch), batch)

    return train_epochs(model, input_lengths(inputs), batch_loss, setup, device=device,
                        split=per_device(per_device_batch), what="questions")


def predict(model: MultiHopQA, inputs: Sequence[QAInput], *, pad_id: int, batch_size: int, max_answer_tokens: int,
            device: str = "cpu") -> tuple[dict[str, Decoded], float]:
    """Each question's decoded prediction, and the seconds it took."""
    model.to(device).eval()
    global_first = takes_global_attention(model.encoder)

    def heads(indices: list[int]) -> dict[str, np.ndarray]:
        batch = to_device(collate([inputs[i] for i in indices], None, pad_id, global_first), device)
        return {name: value.float().cpu().numpy() for name, value in model(**batch).items()}

    outputs, seconds = predict_batches(heads, length_grouped_batches(input_lengths(inputs), batch_size),
                                       device=device, desc="answering")
    return {inputs[i].qid: decode(inputs[i], {name: value[row] for name, value in logits.items()}, max_answer_tokens)
            for indices, logits in outputs for row, i in enumerate(indices)}, seconds
