"""What notebook 11 computes from the systems' test decisions: scores (their bootstrap intervals are
`verdicts.decision_interval`, the paired one of an ordering `verdicts.decision_difference`), F1 on hard negatives
only, F1 by pair length, and which pairs only one system gets right."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .systems import System


def scores(labels: Sequence[int], decisions: Sequence[int], kinds: Sequence[str]) -> dict[str, float]:
    """Accuracy, F1 (related class; notebook 05's `pair_scores`), and F1 on the positives and hard negatives only
    (`f1_hard`: can it tell the same event from its sibling?)."""
    from ..matching.metrics import pair_scores

    labels, decisions, kinds = np.asarray(labels), np.asarray(decisions), np.asarray(kinds)
    hard = np.isin(kinds, ("positive", "hard_negative"))
    overall = pair_scores(labels, decisions)
    f1_hard = (pair_scores(labels[hard], decisions[hard])["f1"] if (kinds == "hard_negative").any()
               else float("nan"))
    return {"acc": overall["accuracy"], "f1": overall["f1"], "f1_hard": f1_hard}


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
