"""What notebook 11 computes from the systems' test decisions: scores with bootstrap intervals, a paired bootstrap
for an ordering, F1 on hard negatives only, F1 by pair length, and which pairs only one system gets right."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .systems import System


def _f1(labels: np.ndarray, decisions: np.ndarray) -> float:
    true_positive = int(((decisions == 1) & (labels == 1)).sum())
    predicted, actual = int(decisions.sum()), int(labels.sum())
    return 2 * true_positive / (predicted + actual) if predicted + actual else 0.0


def scores(labels: Sequence[int], decisions: Sequence[int], kinds: Sequence[str]) -> dict[str, float]:
    """Accuracy, F1 (related class), and F1 on the positives and hard negatives only (`f1_hard`: can it tell the
    same event from its sibling?)."""
    labels, decisions, kinds = np.asarray(labels), np.asarray(decisions), np.asarray(kinds)
    hard = np.isin(kinds, ("positive", "hard_negative"))
    return {"acc": float((labels == decisions).mean()), "f1": _f1(labels, decisions),
            "f1_hard": _f1(labels[hard], decisions[hard]) if hard.any() and (kinds == "hard_negative").any()
            else float("nan")}


def bootstrap_interval(labels: Sequence[int], decisions: Sequence[int], metric: str, resamples: int,
                       seed: int = 13) -> tuple[float, float]:
    """The 95 % percentile interval of `acc` or `f1` over pairs resampled with replacement."""
    labels, decisions = np.asarray(labels), np.asarray(decisions)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        index = rng.integers(0, len(labels), len(labels))
        values.append((labels[index] == decisions[index]).mean() if metric == "acc"
                      else _f1(labels[index], decisions[index]))
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def paired_difference(labels: Sequence[int], first: Sequence[int], second: Sequence[int], resamples: int,
                      seed: int = 13) -> tuple[float, float, float]:
    """Accuracy of `first` minus `second` on the same resampled pairs: (difference, 2.5 %, 97.5 %)."""
    labels = np.asarray(labels)
    right = (np.asarray(first) == labels).astype(float) - (np.asarray(second) == labels).astype(float)
    rng = np.random.default_rng(seed)
    draws = [right[rng.integers(0, len(right), len(right))].mean() for _ in range(resamples)]
    low, high = np.percentile(draws, [2.5, 97.5])
    return float(right.mean()), float(low), float(high)


def length_buckets(rows, buckets: int) -> tuple[np.ndarray, list[str]]:
    """Each test pair's bucket by total words (quantiles), and the buckets' labels."""
    words = np.array([sum(len(s.split()) for s in a) + sum(len(s.split()) for s in b)
                      for a, b in zip(rows["doc_a"], rows["doc_b"])])
    edges = np.unique(np.quantile(words, np.linspace(0, 1, buckets + 1)))
    index = np.clip(np.searchsorted(edges, words, side="right") - 1, 0, len(edges) - 2)
    labels = [f"{int(edges[i])}-{int(edges[i + 1])} words" for i in range(len(edges) - 1)]
    return index, labels


def only_right(systems: Mapping[str, System], labels: Sequence[int]) -> dict[int, str]:
    """Test pairs that exactly one system classifies correctly, and which system."""
    labels = np.asarray(labels)
    right = {name: system.decisions == labels for name, system in systems.items()}
    matrix = np.array(list(right.values()))
    names = list(right)
    return {int(i): names[int(np.argmax(matrix[:, i]))] for i in np.flatnonzero(matrix.sum(0) == 1)}
