"""Matching metrics. The papers report accuracy and F1 without defining F1; we use the F1 of the positive class
(related pairs), the usual reading for a binary task, from scikit-learn. By pair kind: the share of pairs of that
kind classified correctly (recall of the positives, true-negative rate of each negative kind)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pair_scores(labels: Sequence[int], predictions: Sequence[int], kinds: Sequence[str] = ()) -> dict[str, float]:
    """accuracy, f1 (positive class), precision, recall, and `acc/<kind>` for every kind present."""
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support

    labels, predictions = np.asarray(labels), np.asarray(predictions)
    precision, recall, f1, _ = precision_recall_fscore_support(labels, predictions, average="binary",
                                                               pos_label=1, zero_division=0)
    scores = {"accuracy": float(accuracy_score(labels, predictions)), "f1": float(f1),
              "precision": float(precision), "recall": float(recall)}
    kinds = np.asarray(kinds)
    return scores | {f"acc/{kind}": float((labels[kinds == kind] == predictions[kinds == kind]).mean())
                     for kind in sorted(set(kinds.tolist()) - {""})}


def best_threshold(labels: Sequence[int], scores: Sequence[float]) -> float:
    """The threshold of the best macro-F1 on these pairs (ties: the lowest): the metric recipes are chosen by, so
    calling (almost) every pair related cannot pass for a rule. Candidates: the midpoints of the sorted distinct
    scores, one below and one above them all."""
    from sklearn.metrics import f1_score

    values = np.unique(np.asarray(scores, dtype=float))
    candidates = np.concatenate([[values[0] - 1e-6], (values[:-1] + values[1:]) / 2, [values[-1] + 1e-6]])
    macro = [f1_score(labels, np.asarray(scores) >= t, average="macro", zero_division=0) for t in candidates]
    return float(candidates[int(np.argmax(macro))])
