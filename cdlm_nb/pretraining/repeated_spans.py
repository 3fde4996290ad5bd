"""Inputs in which copying pays: a share of the copy stage's inputs end in `</s> span' </s>`, a span of one of their
documents, sentences reordered (readable by content, not at an offset). Longformer-base inherits RoBERTa's induction
heads (Olsson et al. 2022), which CD-MLM points at the other documents; a tiny model trained on short single documents
never grows them (docs/experiments.md). They form after about T * sqrt(B * C) tokens (B inputs of C tokens a step, T ~
10^5.7: Aoyama, Wilcox & Schneider, arXiv:2511.16893): hence small batches of short inputs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from ..collate import pad_batch
from .copy_task import sentences

if TYPE_CHECKING:
    from ..masking import CrossDocumentMLMCollator


def text_runs(maskable: torch.Tensor, minimum: int) -> list[tuple[int, int]]:
    """(start, stop) of every run of at least `minimum` consecutive maskable positions (a document's text)."""
    edges = np.flatnonzero(np.diff(np.r_[0, maskable.numpy().astype(int), 0])).tolist()  # starts and stops, alternating
    return [(start, stop) for start, stop in zip(edges[::2], edges[1::2]) if stop - start >= minimum]


def repeat_span(row: torch.Tensor, maskable: torch.Tensor, stops: set[int], span: int, max_length: int,
                separator: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """`row` cut to make room for `</s> span' </s>`, a document's first `span` tokens shuffled by sentence."""
    keep = min(len(row), max_length - span - 2)
    runs = text_runs(maskable[:keep], minimum=min(span, 8))
    if not runs:
        return row
    start, stop = runs[int(torch.randint(len(runs), (), generator=generator))]
    parts = sentences(row[start:min(stop, start + span)].tolist(), stops)
    again = [token for k in torch.randperm(len(parts), generator=generator).tolist() for token in parts[k]]
    return torch.cat([row[:keep], torch.tensor([separator, *again, separator], dtype=row.dtype)])


def spread_positions(lengths: list[int], positions: int, padding_idx: int,
                     generator: torch.Generator | None = None) -> torch.Tensor:
    """RoBERTa position ids of rows of `lengths`, each from a random offset within the first `positions`, so short
    inputs train every position (from 0 only, the start's long-input perplexity exploded: docs/experiments.md)."""
    rows = []
    for length in lengths:
        offset = int(torch.randint(max(1, positions - length + 1), (), generator=generator))
        rows.append({"position_ids": padding_idx + 1 + offset + torch.arange(length)})
    return pad_batch(rows, {"position_ids": padding_idx}, attention_mask=False)["position_ids"]


@dataclass
class RepeatedSpanCollator:
    """The masked-LM `collator` over inputs a `share` of which repeat a span; draws from torch's global generator."""

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
