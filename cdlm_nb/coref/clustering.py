"""From pair probabilities to coreference clusters: average-linkage agglomerative clustering (CDLM §3.2).

Inside each group of documents (the gold subtopic here; the released code's test set uses *predicted* topics
from a document clustering, see `predict_topics`), mentions are clustered bottom-up on the distance
1 - P(coreferent), merging the two clusters with the smallest *average* pairwise distance until it exceeds a
threshold tuned on dev (the released code searches 0.5-0.7). Mentions never merged stay singletons."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError, DataError

if TYPE_CHECKING:
    import numpy as np

Clusters = list[list[str]]


def pair_probabilities(pairs: Iterable[tuple[str, str]], probabilities: Iterable[float]) -> dict[frozenset, float]:
    """{frozenset({mention a, mention b}): P(coreferent)}, order-free, from parallel pair ids and scores."""
    return {frozenset(pair): float(p) for pair, p in zip(pairs, probabilities, strict=True)}


@dataclass(frozen=True)
class Dendrogram:
    """One group's mentions and its average-linkage merge tree (None when the group has a single mention)."""

    mention_ids: tuple[str, ...]
    linkage: "np.ndarray | None"
    unscored_pairs: int  # pairs with no probability (dropped by a cap), taken as distance 1


def build_dendrograms(groups: Mapping[str, Sequence[str]],
                      probabilities: Mapping[frozenset, float]) -> dict[str, Dendrogram]:
    """Average-linkage trees per group on distance 1 - P; a pair without a probability counts as distance 1."""
    import numpy as np
    from scipy.cluster.hierarchy import linkage

    trees = {}
    for name, members in groups.items():
        members = tuple(members)
        if len(set(members)) != len(members):
            raise DataError(f"group {name!r} lists a mention id twice; mention ids must be unique")
        pairs = [frozenset(pair) for pair in itertools.combinations(members, 2)]  # a condensed distance matrix
        distances = np.array([1.0 - probabilities.get(pair, 0.0) for pair in pairs])
        trees[name] = Dendrogram(members, linkage(distances, method="average") if pairs else None,
                                 sum(pair not in probabilities for pair in pairs))
    return trees


def cut_dendrograms(trees: Mapping[str, Dendrogram], threshold: float) -> Clusters:
    """Flat clusters from every group: merges whose average distance is <= `threshold` are kept."""
    from scipy.cluster.hierarchy import fcluster

    clusters: Clusters = []
    for tree in trees.values():
        labels = (range(len(tree.mention_ids)) if tree.linkage is None  # a group of one mention
                  else fcluster(tree.linkage, t=threshold, criterion="distance"))
        by_label: dict[int, list[str]] = {}
        for mention, label in zip(tree.mention_ids, labels):
            by_label.setdefault(label, []).append(mention)
        clusters.extend(by_label.values())
    return clusters


def tune_threshold(trees: Mapping[str, Dendrogram], key: Clusters, thresholds: Sequence[float],
                   evaluate: Callable[[Clusters, Clusters], float]) -> tuple[float, list[tuple[float, float]]]:
    """The threshold with the best `evaluate(key, response)` (e.g. CoNLL F1 on dev), and every (threshold, score)."""
    if not thresholds:
        raise ConfigError("tune_threshold needs at least one threshold")
    curve = [(float(t), float(evaluate(key, cut_dendrograms(trees, t)))) for t in thresholds]
    return max(curve, key=lambda item: item[1])[0], curve


def predict_topics(documents: Mapping[str, str], threshold: float = 0.8) -> dict[str, str]:
    """Predicted document topics: TF-IDF vectors, average-linkage clustering on cosine distance, cut at `threshold`.

    A simple stand-in for the released code's document clustering, for the setting without gold topics."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from sklearn.feature_extraction.text import TfidfVectorizer

    if len(documents) < 2:
        return dict.fromkeys(documents, "0")
    vectors = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(list(documents.values()))
    labels = fcluster(linkage(vectors.toarray(), method="average", metric="cosine"), t=threshold, criterion="distance")
    return {doc_id: str(int(label)) for doc_id, label in zip(documents, labels)}
