"""One training loop and one prediction loop for every classifier of notebook 08 (frozen or fine-tuned).

A model is given as `forward(indices) -> (logits, α)` over the examples it was built for, so the loop does not
care whether a batch is cached sentence vectors or segments run through the sentence transformer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from ..finetuning import adamw, autocast, gradient_scaler, length_sorted_batches
from ..runtime import progress

Forward = Callable[[list[int]], "tuple[torch.Tensor, torch.Tensor | None]"]
Split = Callable[[list[int]], list[list[int]]]  # a batch cut into pieces that fit in memory


@dataclass(frozen=True)
class TrainSetup:
    """AdamW with a linear decay to zero; cross-entropy; documents batched by similar length."""

    epochs: int
    learning_rate: float
    batch_size: int
    seed: int


def train(forward: Forward, parameters: Sequence, modules: Sequence[nn.Module], labels: Sequence[int],
          lengths: Sequence[int], setup: TrainSetup, description: str = "training", split: Split | None = None,
          device: str = "cpu") -> float:
    """Train in place (`parameters`: tensors, or AdamW parameter groups with their own lr); returns the seconds.

    `split` cuts a batch into pieces that fit in memory; their gradients add up to the whole batch's (the paper's
    gradient accumulation when a batch of 16 does not fit). Forward passes run under `finetuning.autocast(device)`
    (mixed precision on a CUDA GPU; fp16 through `finetuning.gradient_scaler`)."""
    started = time.perf_counter()
    optimizer = adamw(parameters, setup.learning_rate)
    scaler = gradient_scaler(device)
    batches_per_epoch = len(length_sorted_batches(lengths, setup.batch_size))
    schedule = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.0, total_iters=setup.epochs * batches_per_epoch)
    targets = torch.tensor(list(labels))
    for module in modules:
        module.train()
    for epoch in progress(range(setup.epochs), desc=description, leave=False):
        for batch in length_sorted_batches(lengths, setup.batch_size, shuffle=True, seed=setup.seed + epoch):
            optimizer.zero_grad()
            for piece in (split or _whole)(batch):
                with autocast(device):
                    logits, _ = forward(piece)
                    loss = nn.functional.cross_entropy(logits, targets[piece].to(logits.device), reduction="sum")
                scaler.scale(loss / len(batch)).backward()
            scaler.step(optimizer)
            scaler.update()
            schedule.step()
    for module in modules:
        module.eval()
    if torch.cuda.is_initialized():  # no loss is read back per step: wait for the queued GPU work before the clock
        torch.cuda.synchronize()
    return time.perf_counter() - started


@torch.no_grad()
def predict(forward: Forward, lengths: Sequence[int], batch_size: int, items: Sequence[int] | None = None,
            split: Split | None = None, device: str = "cpu") -> tuple[list[int], list[list[float]]]:
    """(predicted labels, α per document over its `items` sentences (default: `lengths`); [] when the model has no
    attention), in the examples' order; batches cut by `split` and run under `autocast(device)` as in `train`."""
    items = lengths if items is None else items
    predictions, alphas = [0] * len(lengths), [[] for _ in lengths]
    pieces = [piece for batch in length_sorted_batches(lengths, batch_size) for piece in (split or _whole)(batch)]
    for piece in pieces:
        with autocast(device):
            logits, alpha = forward(piece)
        for row, index in enumerate(piece):
            predictions[index] = int(logits[row].argmax())
            if alpha is not None:
                alphas[index] = alpha[row, :items[index]].tolist()
    return predictions, alphas


def _whole(batch: list[int]) -> list[list[int]]:
    """The batch as one piece (no `split`)."""
    return [batch]
