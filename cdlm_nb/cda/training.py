"""Training the Siamese matcher (Adam, binary cross-entropy, early stopping on the dev loss with patience and a
minimum improvement, the best epoch's weights restored; the CDA paper, Appendix A.2) and reading its D2D and S2D
predictions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import torch

from ..finetuning import EarlyStopping, Epoch, TrainSetup, pieces, predict_batches, train_epochs
from .inputs import PairSet, side
from .model import Output, SiameseCDA


def forward(model: SiameseCDA, pairs: PairSet, indices: list[int]) -> Output:
    """The model on the pairs `indices`, batched on the model's device."""
    device = next(model.parameters()).device
    return model(side([pairs.docs_a[i] for i in indices]).to(device),
                 side([pairs.docs_b[i] for i in indices]).to(device))


def _loss(output: Output, pairs: PairSet, indices: list[int]) -> torch.Tensor:
    targets = torch.tensor([pairs.labels[i] for i in indices], dtype=torch.float, device=output.logits.device)
    return torch.nn.functional.binary_cross_entropy_with_logits(output.logits, targets)


def dev_loss(model: SiameseCDA, pairs: PairSet, batch_size: int) -> float:
    model.eval()
    with torch.inference_mode():
        losses = [(_loss(forward(model, pairs, idx), pairs, idx).item(), len(idx))
                  for idx in pieces(list(range(len(pairs))), batch_size)]
    return sum(loss * n for loss, n in losses) / len(pairs)


@dataclass
class Fit:
    """What training did: losses per epoch, the epoch kept, and the seconds it took."""

    train_losses: list[float]
    dev_losses: list[float]
    best_epoch: int
    seconds: float


def paper_setup(epochs: int, batch_size: int, learning_rate: float, seed: int) -> TrainSetup:
    """The CDA paper's training recipe (Appendix A.2): Adam at a constant rate on i.i.d. batches."""
    return TrainSetup(epochs, batch_size, learning_rate, seed, decay=False, optimizer="adam", random_batches=True)


def fit_epochs(model: SiameseCDA, train: PairSet, dev: PairSet, setup: TrainSetup, *, patience: int,
               min_improvement: float = 0.0) -> Iterator[tuple[Epoch, Fit]]:
    """`finetuning.train_epochs`, yielding each epoch with the fit so far, and stopped once the dev loss has not
    improved by `min_improvement` for `patience` epochs; once the loop ends the best epoch's weights are
    restored."""
    stopping = EarlyStopping(model, lambda: dev_loss(model, dev, setup.batch_size), patience, min_improvement)
    epoch_loss = [0.0]
    train_losses: list[float] = []

    def batch_loss(indices: list[int]) -> torch.Tensor:
        loss = _loss(forward(model, train, indices), train, indices)
        epoch_loss[0] += loss.item() * len(indices)
        return loss

    lengths = [len(a) + len(b) for a, b in zip(train.docs_a, train.docs_b)]
    for epoch in train_epochs(model, lengths, batch_loss, setup, device=str(next(model.parameters()).device),
                              what="document pairs"):
        train_losses.append(epoch_loss[0] / len(train))
        epoch_loss[0] = 0.0
        stop = stopping(epoch.number)
        yield epoch, Fit(list(train_losses), list(stopping.losses), stopping.best_epoch, epoch.seconds)
        if stop:
            break
    stopping.restore()


@dataclass
class Predictions:
    """P(aligned) per pair, doc_a's sentence scores per pair (attention and cosine), and the seconds taken."""

    probabilities: np.ndarray
    attention: list[np.ndarray]
    cosine: list[np.ndarray]
    seconds: float


def predict(model: SiameseCDA, pairs: PairSet, batch_size: int) -> Predictions:
    """P(aligned) per pair and doc_a's sentence scores (attention, cosine), in consecutive batches (with the
    released code's `softmax_over_batch` a pair's score depends on its batch), and the seconds taken."""
    model.eval()
    device = str(next(model.parameters()).device)

    def scores(indices: list[int]) -> tuple[list[float], list[np.ndarray], list[np.ndarray]]:
        output = forward(model, pairs, indices)
        sizes = [len(pairs.docs_a[i]) for i in indices]
        return (torch.sigmoid(output.logits).tolist(),
                [output.attention_alignment[row, :n].cpu().numpy() for row, n in enumerate(sizes)],
                [output.cosine_alignment[row, :n].cpu().numpy() for row, n in enumerate(sizes)])

    outputs, seconds = predict_batches(scores, pieces(list(range(len(pairs))), batch_size), device=device,
                                       desc="matching pairs")
    return Predictions(np.array([p for _, out in outputs for p in out[0]]), [a for _, out in outputs for a in out[1]],
                       [c for _, out in outputs for c in out[2]], seconds)
