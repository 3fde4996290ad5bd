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


def test_train_steps_learns_and_refuses_an_empty_split():
    from types import SimpleNamespace

    import pytest
    import torch

    from cdlm_nb.errors import DataError
    from cdlm_nb.finetuning import train_steps

    torch.manual_seed(0)
    inputs = [SimpleNamespace(input_ids=[0] * (i % 3 + 1)) for i in range(8)]
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    model = torch.nn.Linear(4, 1)

    def batch_loss(indices):
        return torch.nn.functional.mse_loss(model(x[indices]), y[indices])

    losses = train_steps(model, inputs, batch_loss, epochs=30, batch_size=4, learning_rate=0.05, warmup=0.5)
    assert len(losses) == 60 and sum(losses[-4:]) < sum(losses[:4])
    with pytest.raises(DataError, match="no training questions"):
        train_steps(model, [], batch_loss, epochs=1, batch_size=4, learning_rate=0.1, what="questions")
