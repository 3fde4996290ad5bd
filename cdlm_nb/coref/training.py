"""Fine-tuning the pair scorer (BCE over length-grouped batches: little padding) and scoring pairs, with throughput."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .. import finetuning as ft
from ..batching import length_grouped_batches
from ..collate import indicator, pad_batch
from .inputs import PairInput
from .model import PairScorer


def collate(inputs: Sequence[PairInput], pad_id: int) -> dict[str, torch.Tensor]:
    """Pad a batch: input_ids, attention_mask, global_attention_mask and the two (float) mention masks."""
    rows = [{"input_ids": item.input_ids,
             "global_attention_mask": indicator(item.global_positions, len(item.input_ids)),
             "first_mask": indicator(item.first_positions, len(item.input_ids), torch.float),
             "second_mask": indicator(item.second_positions, len(item.input_ids), torch.float)} for item in inputs]
    return pad_batch(rows, {"input_ids": pad_id}, dtypes={"first_mask": torch.float, "second_mask": torch.float})


def _logits(scorer: PairScorer, inputs: Sequence[PairInput], indices: list[int], pad_id: int,
            device: str) -> torch.Tensor:
    return scorer(**ft.to_device(collate([inputs[i] for i in indices], pad_id), device)).float()


def train_scorer(scorer: PairScorer, inputs: Sequence[PairInput], labels: Sequence[int], setup: ft.TrainSetup, *,
                 pad_id: int, device: str = "cpu", per_device_batch: int | None = None) -> list[float]:
    """Fine-tune encoder and MLP together with BCE on the pair labels; returns the loss of every batch."""
    targets = torch.tensor(labels, dtype=torch.float)

    def batch_loss(indices: list[int]) -> torch.Tensor:
        logits = _logits(scorer, inputs, indices, pad_id, device)
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, targets[indices].to(device))

    epochs = ft.train_epochs(scorer, ft.input_lengths(inputs), batch_loss, setup, device=device,
                             split=ft.per_device(per_device_batch), what="mention pairs")
    return [loss for epoch in epochs for loss in epoch.losses]


def score_pairs(scorer: PairScorer, inputs: Sequence[PairInput], *, pad_id: int, batch_size: int,
                device: str = "cpu") -> ft.ScoringResult:
    """P(coreferent) for every pair (batched by length), with the wall-clock time for the throughput."""
    scorer.to(device).eval()
    outputs, seconds = ft.predict_batches(
        lambda indices: torch.sigmoid(_logits(scorer, inputs, indices, pad_id, device)).cpu().numpy(),
        length_grouped_batches(ft.input_lengths(inputs), batch_size), device=device, desc="scoring pairs")
    return ft.ScoringResult(ft.scattered(outputs, len(inputs)), seconds)
