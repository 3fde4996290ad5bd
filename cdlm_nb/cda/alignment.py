"""Sentence-to-document (S2D) metrics of the CDA paper (§4, §5.3): MRR and P@N, scored jointly with the
document-to-document (D2D) prediction.

Per pair: a wrong D2D decision scores 0; a correctly rejected unrelated pair scores 1; a related pair predicted
related scores its ranking of doc_a's sentences: MRR = 1 / rank of the first gold sentence, P@N = |gold ∩ top N| /
min(N, |gold|) (our normalisation: a single gold sentence in the top N is a hit). Related pairs without gold
sentences cannot be ranked: they are left out and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb

import numpy as np

CUTOFFS = (1, 5, 10)


def ranking_scores(scores: Sequence[float], gold: Sequence[int]) -> dict[str, float]:
    """MRR and P@N of one ranking (higher score = earlier; ties keep sentence order)."""
    relevant = set(gold)
    hits = [int(i) in relevant for i in np.argsort(-np.asarray(scores, dtype=float), kind="stable")]
    result = {"mrr": 1.0 / (hits.index(True) + 1) if any(hits) else 0.0}
    return result | {f"p{n}": sum(hits[:n]) / min(n, len(relevant)) if relevant else 0.0 for n in CUTOFFS}


@dataclass
class S2DScores:
    """Mean MRR and P@N over the scored pairs, the related pairs left out (no gold sentence), and each scored pair's
    reciprocal rank (for a paired bootstrap between two models on the same pairs)."""

    metrics: dict[str, float]
    pairs: int
    skipped: int
    reciprocal_ranks: list[float] = field(default_factory=list)


def joint_s2d(labels: Sequence[int], predictions: Sequence[int], scores: Sequence[Sequence[float]],
              gold: Sequence[Sequence[int]]) -> S2DScores:
    """The joint rule of the module docstring over all pairs."""
    keys = ["mrr", *(f"p{n}" for n in CUTOFFS)]
    rows, skipped = [], 0
    for label, predicted, ranking, relevant in zip(labels, predictions, scores, gold):
        if label == 1 and not relevant:
            skipped += 1
        elif label != predicted or label == 0:
            rows.append(dict.fromkeys(keys, float(label == predicted)))
        else:
            rows.append(ranking_scores(ranking, relevant))
    metrics = {key: float(np.mean([row[key] for row in rows])) if rows else float("nan") for key in keys}
    return S2DScores(metrics, len(rows), skipped, [row["mrr"] for row in rows])


def expected_random_mrr(labels: Sequence[int], sentence_counts: Sequence[int], gold: Sequence[Sequence[int]],
                        p_related: float = 0.5) -> float:
    """E[MRR] of random scores and a coin flip saying "related" with probability p: a negative scores 1 − p, a
    positive with g gold of n sentences p · E[1 / first gold rank], P(first gold at r) = C(n−r, g−1) / C(n, g)."""
    values = []
    for label, n, relevant in zip(labels, sentence_counts, gold):
        if label == 0:
            values.append(1 - p_related)
        elif relevant:
            g = len(set(relevant))
            values.append(p_related * sum(comb(n - r, g - 1) / comb(n, g) / r for r in range(1, n - g + 2)))
    return float(np.mean(values))
