"""Notebook 08's training and prediction loops: mixed precision on the session's device, and batches cut to the
segment budget both when training and when scoring."""

from contextlib import nullcontext

import torch

from cdlm_nb import finetuning
from cdlm_nb.aose.training import predict, train
from cdlm_nb.finetuning import TrainSetup


def _recording_autocast(monkeypatch) -> list[str]:
    devices: list[str] = []
    monkeypatch.setattr(finetuning, "autocast", lambda device: devices.append(device) or nullcontext())
    monkeypatch.setattr(finetuning, "synchronize", lambda device: None)  # no CUDA here
    return devices


def test_training_and_prediction_run_under_the_devices_autocast_and_scaler(monkeypatch):
    devices = _recording_autocast(monkeypatch)
    scaled = []
    monkeypatch.setattr(finetuning, "gradient_scaler",
                        lambda device: scaled.append(device) or torch.amp.GradScaler("cuda", enabled=False))
    head, vectors = torch.nn.Linear(3, 2), torch.randn(4, 3)
    forward = lambda batch: (head(vectors[batch]), None)  # noqa: E731
    monkeypatch.setattr(head, "to", lambda device: head)  # no CUDA here: only the device's choices are recorded
    train(forward, head, [0, 1, 0, 1], [1, 1, 1, 1], TrainSetup(epochs=1, batch_size=2, learning_rate=0.1, seed=0),
          device="cuda")
    assert devices == ["cuda", "cuda"] and scaled == ["cuda"]  # autocast per step, one scaler (fp16 cards)
    predict(forward, [1, 1, 1, 1], batch_size=4, device="cuda")
    assert devices[2:] == ["cuda"]


def test_prediction_honours_the_split_and_keeps_the_examples_order():
    seen: list[list[int]] = []

    def forward(batch):
        seen.append(list(batch))
        logits = torch.tensor([[0.0, 1.0] if i % 2 else [1.0, 0.0] for i in batch])
        return logits, torch.full((len(batch), 3), 1 / 3)

    def halves(batch):
        return [batch[:1], batch[1:]]

    labels, alphas = predict(forward, [3, 1, 2], batch_size=3, items=[3, 1, 2], split=halves)
    assert labels == [0, 1, 0] and [len(alpha) for alpha in alphas] == [3, 1, 2]
    assert sorted(len(piece) for piece in seen) == [1, 2]  # the whole batch of 3 never ran at once
