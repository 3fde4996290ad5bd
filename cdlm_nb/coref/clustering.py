"""From pair probabilities to coreference clusters: average-linkage agglomerative clustering (CDLM §3.2). Inside
each group of documents (gold subtopics; the released code's test set uses topics predicted by a document clustering,
see `predict_topics`), mentions merge bottom-up on the distance 1 - P(coreferent), smallest *average* pairwise
distance first, until it exceeds a threshold tuned on dev (the released code searches 0.5-0.7)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import DataError

if TYPE_CHECKING:
    import numpy as np

Clusters = list[list[str]]
#: One group's mentions and its average-linkage merge tree (None for a group of one mention).
Dendrogram = tuple[tuple[str, ...], "np.ndarray | None"]


def pair_probabilities(pairs: Iterable[tuple[str, str]], probabilities: Iterable[float]) -> dict[frozenset, float]:
    """{frozenset({mention a, mention b}): P(coreferent)}, order-free, from parallel pair ids and scores."""
    return {frozenset(pair): float(p) for pair, p in zip(pairs, probabilities, strict=True)}


def build_dendrograms(groups: Mapping[str, Sequence[str]],
                      probabilities: Mapping[frozenset, float]) -> dict[str, Dendrogram]:
    """Average-linkage trees per group on distance 1 - P; a pair without a probability (capped away) counts as 1."""
    import numpy as np
    from scipy.cluster.hierarchy import linkage

    trees = {}
    for name, members in groups.items():
        members = tuple(members)
        if len(set(members)) != len(members):
            raise DataError(f"group {name!r} lists a mention id twice; mention ids must be unique")
        distances = [1.0 - probabilities.get(frozenset(pair), 0.0) for pair in itertools.combinations(members, 2)]
        trees[name] = members, linkage(np.array(distances), method="average") if distances else None
    return trees


def cut_dendrograms(trees: Mapping[str, Dendrogram], threshold: float) -> Clusters:
    """Flat clusters from every group: merges whose average distance is <= `threshold` are kept."""
    from scipy.cluster.hierarchy import fcluster

    clusters: Clusters = []
    for members, tree in trees.values():
        labels = range(len(members)) if tree is None else fcluster(tree, t=threshold, criterion="distance")
        by_label: dict[int, list[str]] = {}
        for mention, label in zip(members, labels):
            by_label.setdefault(label, []).append(mention)
        clusters.extend(by_label.values())
    return clusters


def tune_threshold(trees: Mapping[str, Dendrogram], key: Clusters, thresholds: Sequence[float],
                   evaluate: Callable[[Clusters, Clusters], float]) -> tuple[float, list[tuple[float, float]]]:
    """The threshold with the best `evaluate(key, response)` (e.g. CoNLL F1 on dev), and every (threshold, score)."""
    curve = [(float(t), float(evaluate(key, cut_dendrograms(trees, t)))) for t in thresholds]
    return max(curve, key=lambda item: item[1])[0], curve


def predict_topics(documents: Mapping[str, str], threshold: float = 0.8) -> dict[str, str]:
    """Predicted document topics (a simple stand-in for the released code's document clustering, for the setting
    without gold topics): TF-IDF vectors, average-linkage clustering on cosine distance, cut at `threshold`."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from sklearn.feature_extraction.text import TfidfVectorizer

    if len(documents) < 2:
        return dict.fromkeys(documents, "0")
    vectors = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(list(documents.values()))
    labels = fcluster(linkage(vectors.toarray(), method="average", metric="cosine"), t=threshold, criterion="distance")
    return {doc_id: str(int(label)) for doc_id, label in zip(documents, labels)}
