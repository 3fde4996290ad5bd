"""Coreference metrics: MUC, B-cubed, CEAF-e, LEA and their CoNLL average, as the reference implementations define
them (CoNLL-2012 scorer v8.01, Pradhan et al. 2014; coval, Moosavi & Strube 2016): mentions match by exact identity,
a mention missing from one side earns nothing, counts are summed over the corpus (one "document" for cross-document
coreference) before dividing. A clustering is a list of clusters of hashable mentions, e.g. `(doc_id, start, end)`.

Clean-up of key and response, warned about with counts: a mention repeated in a cluster counts once (as the CoNLL
scorer; coval counts it twice in MUC, B3 and LEA), clusters sharing a mention are merged, and `remove_singletons=True`
then drops one-mention clusters (coval's `keep_singletons=False`; kept by default, as in CDLM's ECB+ evaluations)."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

MentionKey = Hashable  # a mention as the metrics see it: any hashable id (conll: (doc key, start, end))
Cluster = tuple[MentionKey, ...]

#: The metrics reported by `score_coreference`, in table order, with their display names.
METRIC_NAMES = {"muc": "MUC", "bcub": "B3", "ceafe": "CEAF-e", "lea": "LEA"}


class CorefInputWarning(UserWarning):
    """A key or response clustering needed cleaning (repeated mentions, mentions in several clusters)."""


@dataclass(frozen=True)
class PRF:
    """Recall, precision and F1 of one metric, as fractions in [0, 1]."""

    recall: float
    precision: float
    f1: float


@dataclass(frozen=True)
class CorefScores:
    """The four coreference metrics and the CoNLL F1 (mean F1 of MUC, B3 and CEAF-e)."""

    muc: PRF
    bcub: PRF
    ceafe: PRF
    lea: PRF

    @property
    def conll(self) -> float:
        return (self.muc.f1 + self.bcub.f1 + self.ceafe.f1) / 3

    def to_dict(self) -> dict:
        """`{"muc": {"recall", "precision", "f1"}, "bcub": ..., "ceafe": ..., "lea": ..., "conll": f1}`."""
        return {name: asdict(getattr(self, name)) for name in METRIC_NAMES} | {"conll": self.conll}


def _prf(r_num: float, r_den: float, p_num: float, p_den: float) -> PRF:
    """Divide the summed counts; an empty denominator gives 0, as in the reference scorers."""
    recall = r_num / r_den if r_den else 0.0
    precision = p_num / p_den if p_den else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return PRF(recall, precision, f1)


def _components(size: int, links: list[tuple[int, int]]) -> list[int]:
    """The connected component of each of `size` nodes once every linked pair is joined (scipy's csgraph)."""
    rows, cols = np.array(links, dtype=int).reshape(-1, 2).T
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(size, size))
    return connected_components(graph, directed=False)[1].tolist()


def canonical_clusters(clusters: Iterable[Iterable[MentionKey]], *, remove_singletons: bool = False,
                       name: str = "clustering") -> list[Cluster]:
    """Return `clusters` as a partition: repeated mentions kept once, clusters sharing a mention merged, and
    optionally no singletons. Warns (CorefInputWarning) with counts when the input was not a partition."""
    raw = [list(cluster) for cluster in clusters]
    owner: dict[MentionKey, int] = {}
    shared: list[tuple[int, int]] = []  # (cluster, earlier cluster holding the same mention)
    for index, cluster in enumerate(raw):
        for mention in cluster:
            if mention in owner:
                shared.append((index, owner[mention]))
            else:
                owner[mention] = index
    merged: dict[int, list[MentionKey]] = {}
    for cluster, component in zip(raw, _components(len(raw), shared)):
        if cluster:
            merged.setdefault(component, []).extend(cluster)
    result = [tuple(dict.fromkeys(cluster)) for cluster in merged.values()]
    if shared:
        merges = sum(1 for cluster in raw if cluster) - len(result)
        warnings.warn(f"{name}: {len(shared)} repeated mention occurrence(s) dropped and {merges} cluster(s) merged "
                      "into another because they share a mention.", CorefInputWarning, stacklevel=2)
    return [cluster for cluster in result if len(cluster) > 1] if remove_singletons else result


def _assignment(clusters: Sequence[Cluster]) -> dict[MentionKey, int]:
    """Map each mention to the index of its cluster (clusters must be a partition)."""
    return {mention: index for index, cluster in enumerate(clusters) for mention in cluster}


def _muc_side(clusters: Sequence[Cluster], other: Sequence[Cluster]) -> tuple[int, int]:
    """MUC (Vilain et al. 1995), link-based: sum of |C| - |partitions of C by the other side| (an unmatched mention
    is its own partition), over sum of |C| - 1; singletons carry no links and so never count."""
    where = _assignment(other)
    num = den = 0
    for cluster in clusters:
        linked = {where[m] for m in cluster if m in where}
        num += len(cluster) - len(linked) - sum(1 for m in cluster if m not in where)  # unmatched: a part each
        den += len(cluster) - 1
    return num, den


def _bcub_side(clusters: Sequence[Cluster], other: Sequence[Cluster]) -> tuple[float, int]:
    """B-cubed (Bagga & Baldwin 1998): per mention, |own cluster ∩ its cluster on the other side| / |own cluster|."""
    where = _assignment(other)
    num, den = 0.0, 0
    for cluster in clusters:
        overlaps = Counter(where[m] for m in cluster if m in where)
        num += sum(count * count for count in overlaps.values()) / len(cluster)
        den += len(cluster)
    return num, den


def _lea_side(clusters: Sequence[Cluster], other: Sequence[Cluster]) -> tuple[float, int]:
    """LEA (Moosavi & Strube 2016): importance |C| times the fraction of C's links kept on the other side; a
    singleton has one self-link, kept when its mention is a singleton there too (coval's convention)."""
    where = _assignment(other)
    num, den = 0.0, 0
    for cluster in clusters:
        if len(cluster) == 1:
            resolved = 1.0 if cluster[0] in where and len(other[where[cluster[0]]]) == 1 else 0.0
        else:
            overlaps = Counter(where[m] for m in cluster if m in where)
            resolved = sum(n * (n - 1) / 2 for n in overlaps.values()) / (len(cluster) * (len(cluster) - 1) / 2)
        num += len(cluster) * resolved
        den += len(cluster)
    return num, den


def ceaf_e(key: Sequence[Cluster], response: Sequence[Cluster]) -> PRF:
    """Entity-based CEAF (Luo 2005): the best one-to-one alignment of key and response clusters under phi4 =
    2 |K ∩ R| / (|K| + |R|) (Kuhn-Munkres), over the number of key (recall) or response (precision) clusters. Aligned
    per connected group of overlapping clusters: the optimum of one assignment over all, at a fraction of its cost."""
    where, n = _assignment(response), len(key)  # nodes: key clusters 0..n-1, then the response clusters
    links = [(i, n + where[m]) for i, cluster in enumerate(key) for m in cluster if m in where]
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for node, component in enumerate(_components(n + len(response), links)):
        groups.setdefault(component, ([], []))[node >= n].append(node if node < n else node - n)
    similarity = 0.0
    for key_ids, response_ids in groups.values():
        if key_ids and response_ids:
            scores = np.array([[2 * len(set(key[i]) & set(response[j])) / (len(key[i]) + len(response[j]))
                                for j in response_ids] for i in key_ids])
            rows, cols = linear_sum_assignment(scores, maximize=True)
            similarity += float(scores[rows, cols].sum())
    return _prf(similarity, len(key), similarity, len(response))


def score_coreference(key: Iterable[Iterable[MentionKey]], response: Iterable[Iterable[MentionKey]], *,
                      remove_singletons: bool = False) -> CorefScores:
    """Score a response clustering against the key with MUC, B3, CEAF-e and LEA (CoNLL F1 as a property)."""
    key = canonical_clusters(key, remove_singletons=remove_singletons, name="key")
    response = canonical_clusters(response, remove_singletons=remove_singletons, name="response")

    def both(side) -> PRF:  # recall: the key's clusters against the response; precision: the other way round
        return _prf(*side(key, response), *side(response, key))

    return CorefScores(both(_muc_side), both(_bcub_side), ceaf_e(key, response), both(_lea_side))
