"""The shared fine-tuning helpers."""

from __future__ import annotations

import pytest
import torch

from cdlm_nb.finetuning import autocast, to_device


def _all_losses(*args, **options) -> list[float]:
    """Every batch's loss of `train_epochs` run to its end."""
    from cdlm_nb.finetuning import train_epochs

    return [loss for epoch in train_epochs(*args, **options) for loss in epoch.losses]


def test_to_device_and_autocast_on_cpu_keep_full_precision():
    batch = to_device({"x": torch.ones(2)}, "cpu")
    with autocast("cpu"):
        assert (batch["x"] @ batch["x"]).dtype == torch.float32


def test_train_epochs_learns_and_refuses_an_empty_split():
    from types import SimpleNamespace

    import pytest
    import torch

    from cdlm_nb.finetuning import TrainSetup, input_lengths
    from cdlm_nb.support.errors import DataError

    torch.manual_seed(0)
    inputs = [SimpleNamespace(input_ids=[0] * (i % 3 + 1)) for i in range(8)]
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    model = torch.nn.Linear(4, 1)

    def batch_loss(indices):
        return torch.nn.functional.mse_loss(model(x[indices]), y[indices])

    losses = _all_losses(model, input_lengths(inputs), batch_loss, TrainSetup(30, 4, 0.05, warmup=0.5))
    assert len(losses) == 60 and sum(losses[-4:]) < sum(losses[:4])
    assert not model.training  # handed back ready to score
    with pytest.raises(DataError, match="no training questions"):
        _all_losses(model, [], batch_loss, TrainSetup(1, 4, 0.1), what="questions")


def test_train_epochs_hands_each_epoch_to_the_callers_loop_and_times_only_training(monkeypatch):
    """The caller's loop scores dev between epochs (the model in eval mode), may stop with `break`, and the
    epoch's seconds leave its time out."""
    import cdlm_nb.finetuning as finetuning

    clock = iter(range(1000))
    monkeypatch.setattr(finetuning.time, "perf_counter", lambda: float(next(clock)))
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5), torch.nn.Linear(4, 1))
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    seen = []
    for epoch in finetuning.train_epochs(model, [1] * 8, lambda i: torch.nn.functional.mse_loss(model(x[i]), y[i]),
                                         finetuning.TrainSetup(5, 4, 0.01)):
        assert not model.training  # ready to score
        finetuning.time.perf_counter()  # the caller's dev scoring reads the clock too
        seen.append((epoch.number, len(epoch.losses), epoch.seconds))
        if epoch.number == 3:
            break
    assert seen == [(1, 2, 1.0), (2, 2, 2.0), (3, 2, 3.0)]  # each epoch: two reads of its own, one tick


def test_gradients_are_clipped_to_the_setup_norm_before_each_step():
    from cdlm_nb.finetuning import TrainSetup

    x, y = torch.randn(8, 4), torch.randn(8, 1) * 1000

    def moved(max_grad_norm):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 1)
        before = model.weight.detach().clone()
        _all_losses(model, [1] * 8, lambda i: torch.nn.functional.mse_loss(model(x[i]), y[i]),
                    TrainSetup(1, 8, 0.1, decay=False, max_grad_norm=max_grad_norm))
        return (model.weight.detach() - before).abs().max().item()

    # Adam divides by the gradient's size, so a step only shrinks once the clipped gradient is below its epsilon
    assert moved(None) == pytest.approx(0.1, rel=0.05) and moved(1e-12) < 1e-3


def test_per_device_pieces_accumulate_to_the_whole_batch():
    """Training in forward passes of 2 with gradients accumulated to batches of 4 ends at the same weights as batches
    of 4 at once: what the plan relies on when a batch does not fit the card."""
    from types import SimpleNamespace

    from cdlm_nb.finetuning import TrainSetup, input_lengths, per_device, pieces

    assert pieces([5, 6, 7], 2) == [[5, 6], [7]] and pieces([5, 6, 7], None) == [[5, 6, 7]]
    inputs = [SimpleNamespace(input_ids=[0] * (i % 3 + 1)) for i in range(8)]
    x, y = torch.randn(8, 4, generator=torch.Generator().manual_seed(1)), torch.randn(8, 1)
    weights = []
    for size in (None, 2):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 1)

        def batch_loss(indices, model=model):
            return torch.nn.functional.mse_loss(model(x[indices]), y[indices])

        losses = _all_losses(model, input_lengths(inputs), batch_loss, TrainSetup(3, 4, 0.05),
                             split=per_device(size))
        weights.append((model.weight.detach().clone(), losses))
    assert torch.allclose(weights[0][0], weights[1][0], atol=1e-6)
    assert weights[0][1] == pytest.approx(weights[1][1], abs=1e-6)


def test_precision_on_a_cpu_is_full_and_the_scaler_passes_through():
    from cdlm_nb.finetuning import gradient_scaler
    from cdlm_nb.support.precision import precision

    assert precision("cpu") == "fp32"
    assert not gradient_scaler("cpu").is_enabled()


def test_the_schedule_warms_up_then_decays_or_stays_constant():
    """Read through `train_epochs`: with Adam and a constant gradient every step moves the weight by the step's rate
    (its normalized update is 1), so the weight's positions give the rate of each of the 10 steps."""
    from cdlm_nb.finetuning import TrainSetup

    rates = {}
    for decay in (True, False):
        model = torch.nn.Linear(1, 1, bias=False)
        with torch.no_grad():
            model.weight.zero_()
        positions = []

        def batch_loss(indices, model=model, positions=positions):
            positions.append(model.weight.item())
            return model.weight.sum()  # gradient 1 at every step

        _all_losses(model, [1], batch_loss, TrainSetup(10, 1, 0.1, warmup=0.2, decay=decay, optimizer="adam",
                                                       max_grad_norm=None))
        positions.append(model.weight.item())
        rates[decay] = [before - after for before, after in zip(positions, positions[1:])]
    assert rates[True][:3] == pytest.approx([0.0, 0.05, 0.1]) and rates[True][-1] == pytest.approx(0.0125)
    assert rates[False] == pytest.approx([0.0, 0.05] + [0.1] * 8)


def test_an_unknown_optimizer_is_refused_with_the_choices():
    from cdlm_nb.finetuning import TrainSetup

    with pytest.raises(ValueError, match="optimizer='sgd'.*'adam', 'adamw'"):
        _all_losses(torch.nn.Linear(1, 1), [1], lambda indices: None, TrainSetup(1, 1, 0.1, optimizer="sgd"))


def test_batches_cover_every_input_once_per_epoch_in_both_batchings():
    from cdlm_nb.finetuning import TrainSetup, epoch_batches

    lengths = [5, 1, 4, 2, 3, 9, 7]
    for random_batches in (False, True):
        epochs = list(epoch_batches(lengths, TrainSetup(3, 3, 0.1, random_batches=random_batches)))
        assert len(epochs) == 3
        for batches in epochs:
            assert sorted(i for batch in batches for i in batch) == list(range(7))
            assert [len(batch) for batch in batches].count(3) == 2
    from cdlm_nb.batching import length_grouped_batches

    grouped = list(epoch_batches(lengths, TrainSetup(2, 3, 0.1, seed=5)))
    assert grouped == [length_grouped_batches(lengths, 3, seed=5), length_grouped_batches(lengths, 3, seed=6)]


def test_a_kept_checkpoint_is_a_copy_in_cpu_memory():
    from cdlm_nb.finetuning import cpu_state

    model = torch.nn.Linear(2, 1)
    state = cpu_state(model)
    with torch.no_grad():
        model.weight.add_(1.0)
    assert all(t.device.type == "cpu" for t in state.values())
    assert not torch.equal(state["weight"], model.weight)  # not a view of the live weights


def test_early_stopping_keeps_the_best_epoch_and_refuses_an_all_nan_run():
    from cdlm_nb.finetuning import EarlyStopping

    model = torch.nn.Linear(1, 1, bias=False)
    losses = iter([0.5, 0.3, 0.31, 0.4])
    stopping = EarlyStopping(model, lambda: next(losses), patience=2)
    stops = []
    for epoch in range(1, 5):
        with torch.no_grad():
            model.weight.fill_(epoch)
        stops.append(stopping(epoch))
    assert stops == [False, False, False, True] and stopping.best_epoch == 2
    stopping.restore()
    assert float(model.weight.detach()) == 2.0
    nan = EarlyStopping(model, lambda: float("nan"), patience=1)
    nan(1)
    with pytest.raises(FloatingPointError, match="every dev loss was NaN"):
        nan.restore()
