"""Training the Siamese matcher (Adam, binary cross-entropy, early stopping on the dev loss with patience and a
minimum improvement, the best epoch's weights restored; the CDA paper, Appendix A.2) and reading its D2D and S2D
predictions."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..runtime import progress
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


def _chunks(n: int, size: int, rng: np.random.Generator | None = None) -> list[list[int]]:
    order = rng.permutation(n) if rng is not None else np.arange(n)
    return [order[i:i + size].tolist() for i in range(0, n, size)]


def dev_loss(model: SiameseCDA, pairs: PairSet, batch_size: int) -> float:
    model.eval()
    with torch.inference_mode():
        losses = [(_loss(forward(model, pairs, idx), pairs, idx).item(), len(idx))
                  for idx in _chunks(len(pairs), batch_size)]
    return sum(loss * n for loss, n in losses) / len(pairs)


@dataclass
class Fit:
    """What training did: losses per epoch, the epoch kept, and the seconds it took."""

    train_losses: list[float]
    dev_losses: list[float]
    best_epoch: int
    seconds: float


def improved(loss: float, best: float, min_improvement: float) -> bool:
    """Whether a dev loss counts as better: lower than the best by at least `min_improvement` (a NaN never is).
    Any decrease would let a loss that creeps down by a hair keep training up to the epoch bound."""
    return loss < best - min_improvement


def fit(model: SiameseCDA, train: PairSet, dev: PairSet, *, epochs: int, batch_size: int, learning_rate: float,
        patience: int, min_improvement: float = 0.0, seed: int = 13,
        after_epoch: Callable[[int], bool | None] | None = None) -> Fit:
    """Adam on the training pairs for at most `epochs` epochs; stop when the dev loss has not improved by
    `min_improvement` for `patience` epochs (or when `after_epoch(epoch)`, run after each epoch, e.g. a recipe
    search's dev score, returns True); the best epoch's weights are restored."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    best, best_epoch, best_state, waited, train_losses, dev_losses = float("inf"), 0, None, 0, [], []
    start = time.perf_counter()
    for _ in progress(range(epochs), desc="epochs"):
        model.train()
        total = 0.0
        for indices in _chunks(len(train), batch_size, rng):
            loss = _loss(forward(model, train, indices), train, indices)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            total += loss.item() * len(indices)
        train_losses.append(total / len(train))
        dev_losses.append(dev_loss(model, dev, batch_size))
        if improved(dev_losses[-1], best, min_improvement):
            best, best_epoch, best_state, waited = dev_losses[-1], len(dev_losses), copy.deepcopy(model.state_dict()), 0
        else:
            waited += 1
        if after_epoch is not None and after_epoch(len(dev_losses)):
            break
        if waited >= patience:
            break
    if best_state is None:
        raise FloatingPointError(f"every dev loss was NaN ({len(dev_losses)} epochs at learning rate "
                                 f"{learning_rate:g}): training diverged; lower the learning rate")
    model.load_state_dict(best_state)
    return Fit(train_losses, dev_losses, best_epoch, time.perf_counter() - start)


@dataclass
class Predictions:
    """P(aligned) per pair, doc_a's sentence scores per pair (attention and cosine), and the seconds taken."""

    probabilities: np.ndarray
    attention: list[np.ndarray]
    cosine: list[np.ndarray]
    seconds: float


def predict(model: SiameseCDA, pairs: PairSet, batch_size: int) -> Predictions:
    model.eval()
    probabilities, attention, cosine = [], [], []
    start = time.perf_counter()
    with torch.inference_mode():
        for indices in _chunks(len(pairs), batch_size):
            output = forward(model, pairs, indices)
            probabilities += torch.sigmoid(output.logits).tolist()
            for row, i in enumerate(indices):
                n = len(pairs.docs_a[i])
                attention.append(output.attention_alignment[row, :n].cpu().numpy())
                cosine.append(output.cosine_alignment[row, :n].cpu().numpy())
    return Predictions(np.array(probabilities), attention, cosine, time.perf_counter() - start)
