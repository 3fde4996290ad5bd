"""Training and prediction for every classifier of notebook 08, given as `forward(indices) -> (logits, α)` over its
examples: the loop does not care whether a batch is cached sentence vectors or segments run through the encoder."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import torch
from torch import nn

from ..batching import length_grouped_batches
from ..finetuning import Split, TrainSetup, predict_batches, train_epochs

Forward = Callable[[list[int]], "tuple[torch.Tensor, torch.Tensor | None]"]


def train(forward: Forward, model: nn.Module, labels: Sequence[int], lengths: Sequence[int], setup: TrainSetup, *,
          parameters: Sequence | None = None, split: Split | None = None, device: str = "cpu") -> float:
    """Train in place with cross-entropy (`finetuning.train_epochs`: AdamW decaying linearly to zero, documents
    batched by similar length, `split` cutting a batch that does not fit); returns the seconds."""
    started = time.perf_counter()
    targets = torch.tensor(list(labels))

    def batch_loss(piece: list[int]) -> torch.Tensor:
        logits, _ = forward(piece)
        return nn.functional.cross_entropy(logits, targets[piece].to(logits.device))

    for _ in train_epochs(model, lengths, batch_loss, setup, device=device, parameters=parameters, split=split,
                          what="documents"):
        pass  # every epoch runs; nothing is scored between them
    return time.perf_counter() - started


def predict(forward: Forward, lengths: Sequence[int], batch_size: int, items: Sequence[int] | None = None,
            split: Split | None = None, device: str = "cpu") -> tuple[list[int], list[list[float]]]:
    """(predicted labels, α per document over its `items` sentences (default: `lengths`; [] without attention)), in
    the examples' order (`finetuning.predict_batches`: batches of similar length cut by `split`, under autocast)."""
    items = lengths if items is None else items

    def labels_and_alphas(piece: list[int]) -> tuple[list[int], list[list[float]]]:
        logits, alpha = forward(piece)
        return (logits.argmax(-1).tolist(),
                [[] if alpha is None else alpha[row, :items[index]].tolist() for row, index in enumerate(piece)])

    outputs, _ = predict_batches(labels_and_alphas, length_grouped_batches(lengths, batch_size), device=device,
                                 split=split, desc="classifying")
    by_index = {index: (label, alpha) for piece, (labels, alphas) in outputs
                for index, label, alpha in zip(piece, labels, alphas)}
    return [by_index[i][0] for i in range(len(lengths))], [by_index[i][1] for i in range(len(lengths))]
