"""Fine-tuning the pair scorer and scoring pairs with it: length-sorted batches (little padding), padding into
tensors, the BCE loss for `finetuning.train_epochs`, and batched scoring with its throughput."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..batching import length_grouped_batches
from ..collate import indicator, pad_batch
from ..finetuning import (
    ScoringResult,
    TrainSetup,
    autocast,
    input_lengths,
    per_device,
    synchronize,
    to_device,
    train_epochs,
)
from ..progress import progress
from .inputs import PairInput

if TYPE_CHECKING:
    import torch

    from .model import PairScorer


def collate(inputs: Sequence[PairInput], pad_id: int) -> dict[str, "torch.Tensor"]:
    """Pad a batch: input_ids, attention_mask, global_attention_mask and the two (float) mention masks."""
    import torch

    rows = [{"input_ids": item.input_ids,
             "global_attention_mask": indicator(item.global_positions, len(item.input_ids)),
             "first_mask": indicator(item.first_positions, len(item.input_ids), torch.float),
             "second_mask": indicator(item.second_positions, len(item.input_ids), torch.float)} for item in inputs]
    return pad_batch(rows, {"input_ids": pad_id}, dtypes={"first_mask": torch.float, "second_mask": torch.float})



def train_scorer(scorer: "PairScorer", inputs: Sequence[PairInput], labels: Sequence[int], setup: TrainSetup, *,
                 pad_id: int, device: str = "cpu", per_device_batch: int | None = None) -> list[float]:
    """Fine-tune encoder and MLP together with BCE on the pair labels; returns the loss of every batch."""
    import torch

    targets = torch.tensor(labels, dtype=torch.float)

    def batch_loss(indices: list[int]) -> "torch.Tensor":
        logits = scorer(**to_device(collate([inputs[i] for i in indices], pad_id), device))
        return torch.nn.functional.binary_cross_entropy_with_logits(logits.float(), targets[indices].to(device))

    epochs = train_epochs(scorer, input_lengths(inputs), batch_loss, setup, device=device,
                          split=per_device(per_device_batch), what="mention pairs")
    return [loss for epoch in epochs for loss in epoch.losses]


def score_pairs(scorer: "PairScorer", inputs: Sequence[PairInput], *, pad_id: int, batch_size: int,
                device: str = "cpu") -> ScoringResult:
    """P(coreferent) for every pair (batched by length), with the wall-clock time for the throughput."""
    import numpy as np
    import torch

    scorer.to(device).eval()
    probabilities = np.zeros(len(inputs), dtype=np.float32)
    start = time.perf_counter()
    with torch.inference_mode():
        for indices in progress(length_grouped_batches(input_lengths(inputs), batch_size), desc="scoring pairs"):
            batch = to_device(collate([inputs[i] for i in indices], pad_id), device)
            with autocast(device):
                logits = scorer(**batch)
            probabilities[indices] = torch.sigmoid(logits.float()).cpu().numpy()
    synchronize(device)
    return ScoringResult(probabilities, time.perf_counter() - start)
