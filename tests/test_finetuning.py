"""The shared fine-tuning helpers."""

from __future__ import annotations

import pytest
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


def test_per_device_pieces_accumulate_to_the_whole_batch():
    """Training in forward passes of 2 with gradients accumulated to batches of 4 ends at the same weights as batches
    of 4 at once: what the plan relies on when a batch does not fit the card."""
    from types import SimpleNamespace

    from cdlm_nb.finetuning import pieces, train_steps

    assert pieces([5, 6, 7], 2) == [[5, 6], [7]] and pieces([5, 6, 7], None) == [[5, 6, 7]]
    inputs = [SimpleNamespace(input_ids=[0] * (i % 3 + 1)) for i in range(8)]
    x, y = torch.randn(8, 4, generator=torch.Generator().manual_seed(1)), torch.randn(8, 1)
    weights = []
    for per_device in (None, 2):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 1)

        def batch_loss(indices, model=model):
            return torch.nn.functional.mse_loss(model(x[indices]), y[indices])

        losses = train_steps(model, inputs, batch_loss, epochs=3, batch_size=4, learning_rate=0.05,
                             per_device_batch=per_device)
        weights.append((model.weight.detach().clone(), losses))
    assert torch.allclose(weights[0][0], weights[1][0], atol=1e-6)
    assert weights[0][1] == pytest.approx(weights[1][1], abs=1e-6)


def test_precision_on_a_cpu_is_full_and_the_scaler_passes_through():
    from cdlm_nb.finetuning import gradient_scaler, precision

    assert precision("cpu") == "fp32"
    assert not gradient_scaler("cpu").is_enabled()
