"""Inputs in which copying pays: a share of the copy stage's inputs gets a span of its own text written again.

The paper's start, Longformer-base, inherits from RoBERTa heads that find an earlier occurrence of a token's
context and copy what follows it (induction heads, Olsson et al. 2022); CD-MLM then points them at the other
documents through the global attention. A tiny model trained on short single documents never grows them: too
little repeats inside its input (docs/experiments.md, "A start that copies"). So in the copy stage, a share of the
inputs is cut to make room and one span of its text (`span` tokens of one document) is written again at its end,
`... </s> span' </s>`, the span's sentences in another order: the masked tokens of either occurrence can then be
read off the other, but only by content, not at a fixed offset, as a fact stated in another document is found.

When such heads form is a phase change: after about N = T * sqrt(B * C) training tokens, T ~ 10^5.7, for B inputs of
C tokens a step (Aoyama, Wilcox & Schneider, "Predicting the Emergence of Induction Heads in Language Model
Pretraining", arXiv:2511.16893), and sooner the more reliably tokens repeat in the context. Hence a stage of small
batches of short inputs (`PretrainConfig.copy_batch_size`), trained past the jump of the within-reach copy probe
(`copy_task.WITHIN_REACH`), as the last base stage: trained before the long stage, its copying did not survive it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ..collate import pad_batch
from .copy_task import sentences

if TYPE_CHECKING:
    from ..masking import CrossDocumentMLMCollator


def text_runs(maskable: torch.Tensor, minimum: int) -> list[tuple[int, int]]:
    """(start, stop) of every run of consecutive maskable positions (a document's text between its separators) of at
    least `minimum` tokens."""
    runs, start = [], None
    for position, flag in enumerate([*maskable.tolist(), False]):
        if flag and start is None:
            start = position
        elif not flag and start is not None:
            if position - start >= minimum:
                runs.append((start, position))
            start = None
    return runs


def repeat_span(row: torch.Tensor, maskable: torch.Tensor, stops: set[int], span: int, max_length: int,
                separator: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """`row` cut to make room, then `</s> span' </s>`: `span'` is up to `span` tokens from the start of one of its
    documents (drawn at random among those the cut keeps), its sentences shuffled (cut after each token of `stops`).
    A row with no such document is returned unchanged."""
    keep = min(len(row), max_length - span - 2)
    runs = text_runs(maskable[:keep], minimum=min(span, 8))
    if not runs:
        return row
    start, stop = runs[int(torch.randint(len(runs), (), generator=generator))]
    parts = sentences(row[start:min(stop, start + span)].tolist(), stops)
    order = torch.randperm(len(parts), generator=generator).tolist()
    again = [token for k in order for token in parts[k]]
    return torch.cat([row[:keep], torch.tensor([separator, *again, separator], dtype=row.dtype)])


def spread_positions(lengths: list[int], positions: int, padding_idx: int,
                     generator: torch.Generator | None = None) -> torch.Tensor:
    """Position ids (RoBERTa's: the first is `padding_idx + 1`, padding gets `padding_idx`) of a batch of rows of
    `lengths` padded to the longest, each row starting at a random offset within the first `positions` positions: a
    stage of short inputs then trains every position, and the layers keep reading the far ones as the long stage
    left them (from position 0 only, 24,000 steps of 68-token inputs took the start's 1,024-token perplexity from
    3.2 to about 1,000: docs/experiments.md)."""
    rows = []
    for length in lengths:
        offset = int(torch.randint(max(1, positions - length + 1), (), generator=generator))
        rows.append({"position_ids": padding_idx + 1 + offset + torch.arange(length)})
    return pad_batch(rows, {"position_ids": padding_idx}, attention_mask=False)["position_ids"]


@dataclass
class RepeatedSpanCollator:
    """`collator` (the masked-LM collator) over inputs of which a `share` get a repeated span (`repeat_span`), each
    placed at a random offset within the first `positions` positions (`spread_positions`; 0: from the first).
    Draws from torch's global generator, as the masked-LM collator does in training (seeded by the Trainer)."""

    collator: "CrossDocumentMLMCollator"
    share: float
    span: int
    max_length: int
    positions: int = 0

    def __post_init__(self) -> None:
        tokenizer = self.collator.tokenizer
        self.stops = set(tokenizer(".", add_special_tokens=False)["input_ids"])
        self.separator = tokenizer.eos_token_id

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        rows = []
        for feature in features:
            row = torch.as_tensor(feature["input_ids"], dtype=torch.long)
            if float(torch.rand(())) < self.share:
                row = repeat_span(row, self.collator.maskable(row), self.stops, self.span, self.max_length,
                                  self.separator)
            rows.append({"input_ids": row})
        batch = self.collator(rows)
        if self.positions:
            batch["position_ids"] = spread_positions([len(r["input_ids"]) for r in rows], self.positions,
                                                     self.collator.tokenizer.pad_token_id)
        return batch
