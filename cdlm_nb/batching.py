"""Batches of inputs of similar length (a batch is padded to its longest input): the one order that pretraining and
fine-tuning read."""

from __future__ import annotations

from collections.abc import Sequence


def length_grouped_batches(lengths: Sequence[int], batch_size: int, seed: int | None = None) -> list[list[int]]:
    """Indices of inputs with these `lengths` in batches of similar length: the Trainer's `group_by_length` order
    drawn from `seed` (training: random megabatches, each sorted by length), or sorted by length when `seed` is None."""
    if seed is None:
        order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    else:
        import torch
        from transformers.trainer_pt_utils import get_length_grouped_indices

        order = get_length_grouped_indices(list(lengths), batch_size, generator=torch.Generator().manual_seed(seed))
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


def length_grouped_order(lengths: Sequence[int], batch_size: int, steps: int, seed: int) -> list[int]:
    """Example indices for `steps` batches of `batch_size`: passes over the examples, pass n in the length-grouped
    order drawn from seed + n. A fixed order, read sequentially, resumes exactly where it stopped (pretraining)."""
    order: list[int] = []
    while len(order) < steps * batch_size:
        batches = length_grouped_batches(lengths, batch_size, seed + len(order) // len(lengths))
        order += [i for batch in batches for i in batch]
    return order[:steps * batch_size]
