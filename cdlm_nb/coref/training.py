"""Fine-tuning the pair scorer and scoring pairs with it: length-sorted batches (little padding), padding into
tensors, the BCE training loop, and batched scoring with its throughput."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import DataError
from ..finetuning import (
    ScoringResult,
    adamw,
    autocast,
    gradient_scaler,
    input_lengths,
    length_sorted_batches,
    synchronize,
    to_device,
)
from ..runtime import progress
from .inputs import PairInput

if TYPE_CHECKING:
    import torch

    from .model import PairScorer


def collate(inputs: Sequence[PairInput], pad_id: int) -> dict[str, "torch.Tensor"]:
    """Pad a batch: input_ids, attention_mask, global_attention_mask and the two mention masks."""
    import torch

    width = max(len(item.input_ids) for item in inputs)
    batch = {
        "input_ids": torch.full((len(inputs), width), pad_id, dtype=torch.long),
        "attention_mask": torch.zeros((len(inputs), width), dtype=torch.long),
        "global_attention_mask": torch.zeros((len(inputs), width), dtype=torch.long),
        "first_mask": torch.zeros((len(inputs), width)),
        "second_mask": torch.zeros((len(inputs), width)),
    }
    for row, item in enumerate(inputs):
        batch["input_ids"][row, :len(item.input_ids)] = torch.tensor(item.input_ids)
        batch["attention_mask"][row, :len(item.input_ids)] = 1
        batch["global_attention_mask"][row, item.global_positions] = 1
        batch["first_mask"][row, item.first_positions] = 1.0
        batch["second_mask"][row, item.second_positions] = 1.0
    return batch



def train_scorer(scorer: "PairScorer", inputs: Sequence[PairInput], labels: Sequence[int], *, pad_id: int,
                 epochs: int, batch_size: int, learning_rate: float, grad_accumulation: int = 1, device: str = "cpu",
                 seed: int = 13) -> list[float]:
    """Fine-tune encoder and MLP together with BCE on the pair labels (AdamW); returns the loss of every batch."""
    import torch

    if not inputs:
        raise DataError("no training pairs: the training split holds no mention pairs of this kind")
    torch.manual_seed(seed)
    scorer.to(device).train()
    optimizer = adamw(scorer.parameters(), learning_rate)
    scaler = gradient_scaler(device)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    targets = torch.tensor(labels, dtype=torch.float)
    losses: list[float] = []
    for epoch in range(epochs):
        batches = length_sorted_batches(input_lengths(inputs), batch_size, shuffle=True, seed=seed + epoch)
        for step, indices in enumerate(progress(batches, desc=f"epoch {epoch + 1}/{epochs}")):
            batch = to_device(collate([inputs[i] for i in indices], pad_id), device)
            with autocast(device):
                logits = scorer(**batch)
            loss = loss_fn(logits.float(), targets[indices].to(device))
            scaler.scale(loss / grad_accumulation).backward()
            if (step + 1) % grad_accumulation == 0 or step + 1 == len(batches):
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
            losses.append(loss.item())
    return losses


def score_pairs(scorer: "PairScorer", inputs: Sequence[PairInput], *, pad_id: int, batch_size: int,
                device: str = "cpu") -> ScoringResult:
    """P(coreferent) for every pair (batched by length), with the wall-clock time for the throughput."""
    import numpy as np
    import torch

    scorer.to(device).eval()
    probabilities = np.zeros(len(inputs), dtype=np.float32)
    start = time.perf_counter()
    with torch.inference_mode():
        for indices in progress(length_sorted_batches(input_lengths(inputs), batch_size), desc="scoring pairs"):
            batch = to_device(collate([inputs[i] for i in indices], pad_id), device)
            with autocast(device):
                logits = scorer(**batch)
            probabilities[indices] = torch.sigmoid(logits.float()).cpu().numpy()
    synchronize(device)
    return ScoringResult(probabilities, time.perf_counter() - start)
