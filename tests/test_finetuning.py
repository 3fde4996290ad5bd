"""The shared fine-tuning helpers."""

from __future__ import annotations

import torch

from cdlm_nb.finetuning import autocast, length_sorted_batches, to_device


def test_length_sorted_batches_cover_every_input_once_in_length_order():
    lengths = [7, 3, 9, 1, 4, 4, 8]
    batches = length_sorted_batches(lengths, batch_size=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    widths = [max(lengths[i] for i in b) for b in batches]
    assert widths == sorted(widths)
    shuffled = length_sorted_batches(lengths, batch_size=3, shuffle=True, seed=1)
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, batches))


def test_to_device_and_autocast_on_cpu_keep_full_precision():
    batch = to_device({"x": torch.ones(2)}, "cpu")
    with autocast("cpu"):
        assert (batch["x"] @ batch["x"]).dtype == torch.float32
