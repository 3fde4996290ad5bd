"""What every fine-tuning loop of the tutorial shares (coreference, matching, ...): batches of similar length,
moving a batch to the device, mixed precision on a GPU, and scores with their throughput."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import torch


def length_sorted_batches(lengths: Sequence[int], batch_size: int, shuffle: bool = False,
                          seed: int = 13) -> list[list[int]]:
    """Indices of inputs with these `lengths` in batches of similar length (little padding); batch order shuffled
    when training."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if shuffle:
        random.Random(seed).shuffle(batches)
    return batches


def input_lengths(inputs: Sequence) -> list[int]:
    """Tokens of each encoded input (anything with `input_ids`): what `length_sorted_batches` sorts by."""
    return [len(item.input_ids) for item in inputs]


def adamw(parameters, learning_rate: float) -> "torch.optim.AdamW":
    """The optimizer of every fine-tuning loop, made in one place: PyTorch's AdamW with its fused kernel (one pass
    over all parameters instead of a loop over tensors; 7x faster per MiniLM update on 2 CPU cores, see
    docs/experiments.md)."""
    import torch

    return torch.optim.AdamW(parameters, lr=learning_rate, fused=True)


def train_steps(model: "torch.nn.Module", inputs: Sequence, batch_loss: Callable[[list[int]], "torch.Tensor"], *,
                epochs: int, batch_size: int, learning_rate: float, warmup: float = 0.0, device: str = "cpu",
                seed: int = 13, what: str = "inputs", per_device_batch: int | None = None,
                after_epoch: Callable[[int], bool | None] | None = None) -> list[float]:
    """The fine-tuning loop every task shares: AdamW with a linear warm-up over the first `warmup` share of the
    steps then decay to zero, length-sorted batches of `batch_size` in shuffled order, `batch_loss(indices)` (the
    task's forward pass and mean loss, under `autocast`) per piece of at most `per_device_batch` inputs, their
    gradients accumulated into the batch's (fp16: through a gradient scaler). `after_epoch(epoch)` (1-based), if
    given, runs after each epoch (e.g. a dev score, `recipe_search`); it returning True stops training there.
    Returns every batch's loss."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    from .errors import DataError
    from .runtime import progress

    if not inputs:
        raise DataError(f"no training {what}: the training split is empty")
    torch.manual_seed(seed)
    model.to(device).train()
    optimizer = adamw(model.parameters(), learning_rate)
    scaler = gradient_scaler(device)
    steps = epochs * -(-len(inputs) // batch_size)
    schedule = get_linear_schedule_with_warmup(optimizer, round(warmup * steps), steps)
    losses: list[float] = []
    for epoch in range(epochs):
        batches = length_sorted_batches(input_lengths(inputs), batch_size, shuffle=True, seed=seed + epoch)
        for indices in progress(batches, desc=f"epoch {epoch + 1}/{epochs}"):
            loss = 0.0
            for piece in pieces(indices, per_device_batch):
                with autocast(device):
                    piece_loss = batch_loss(piece) * (len(piece) / len(indices))
                scaler.scale(piece_loss).backward()
                loss += piece_loss.item()
            scaler.step(optimizer)
            scaler.update()
            schedule.step()
            optimizer.zero_grad()
            losses.append(loss)
        if after_epoch is not None:
            stop = after_epoch(epoch + 1)
            model.to(device).train()
            if stop:
                break
    return losses


def pieces(indices: list[int], per_device_batch: int | None) -> list[list[int]]:
    """A batch cut into forward passes of at most `per_device_batch` inputs (None: one pass)."""
    size = per_device_batch or len(indices)
    return [indices[i:i + size] for i in range(0, len(indices), size)]


def to_device(batch: dict[str, "torch.Tensor"], device: str) -> dict[str, "torch.Tensor"]:
    """Every tensor of `batch` on `device`."""
    return {name: tensor.to(device) for name, tensor in batch.items()}


def synchronize(device: "str | torch.device") -> None:
    """Wait for the work queued on a CUDA device (its kernels run asynchronously, so a clock read without this
    times only their launch); nothing elsewhere."""
    import torch

    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def precision(device: "str | torch.device") -> str:
    """The precision this device trains in (`plan.cards.precision_for`): bf16 on a CUDA card of compute capability
    8.0 and up, fp16 below it (bf16 is only emulated there), fp32 elsewhere."""
    import torch

    from .plan.cards import precision_for

    if torch.device(device).type != "cuda":
        return "fp32"
    return precision_for(torch.cuda.get_device_capability(device))


def autocast(device: str):
    """Mixed precision in the device's `precision` (about twice as fast for Longformer-base on a GPU); full
    precision on a CPU."""
    import torch

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision(device))
    return torch.autocast(device_type="cuda", dtype=dtype or torch.float32, enabled=dtype is not None)


def gradient_scaler(device: str) -> "torch.amp.GradScaler":
    """Loss scaling for fp16 (its gradients would underflow without it); a pass-through in bf16 and fp32."""
    import torch

    return torch.amp.GradScaler("cuda", enabled=precision(device) == "fp16")


@dataclass
class ScoringResult:
    """Probabilities of a list of pairs, and how fast they were computed."""

    probabilities: "np.ndarray"
    seconds: float

    @property
    def pairs_per_second(self) -> float:
        return len(self.probabilities) / self.seconds if self.seconds > 0 else float("nan")
