"""Coreference evaluation metrics: MUC, B-cubed, CEAF-e, LEA and their CoNLL average.

The definitions follow the reference implementations (the CoNLL-2012 scorer v8.01, Pradhan et al. 2014, and
coval, Moosavi & Strube 2016): mentions are matched by exact identity (no boundary alignment), a mention missing
from the response (or from the key) simply earns nothing, and the counts are summed over the whole corpus
before dividing (coval sums per-document counts, which is the same thing when no cluster crosses documents;
for cross-document coreference the corpus is one "document").

A *clustering* is a list of clusters, each a sequence of hashable mentions, e.g. `(doc_id, start, end)` tuples,
so the same scorer serves CoNLL files (`cdlm_nb.conll`) and in-memory predictions.

Input clean-up, applied to key and response alike before scoring (warned about with counts, never silent):
- a mention repeated inside one cluster is kept once (the CoNLL scorer drops repeated response mentions with a
  warning; coval keeps them, so they count twice in its MUC, B3 and LEA but once in CEAF, which uses sets);
- clusters that share a mention become one cluster (coval merges the chains of a one-token mention annotated
  with several chain ids; we do it for any mention, so that the clustering is a partition);
- with `remove_singletons=True`, clusters of one mention are then dropped from both sides (coval's
  `keep_singletons=False`; singletons are kept by default, as in the ECB+ evaluations of CDLM).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

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
        out = {name: asdict(getattr(self, name)) for name in METRIC_NAMES}
        out["conll"] = self.conll
        return out


def _prf(r_num: float, r_den: float, p_num: float, p_den: float) -> PRF:
    """Divide the summed counts; an empty denominator gives 0, as in the reference scorers."""
    recall = r_num / r_den if r_den else 0.0
    precision = p_num / p_den if p_den else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return PRF(recall, precision, f1)


def _union_find(size: int, links: Iterable[tuple[int, int]]) -> list[int]:
    """The representative of each of `size` items once every linked pair is joined (connected components)."""
    parent = list(range(size))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in links:
        parent[find(a)] = find(b)
    return [find(i) for i in range(size)]


def canonical_clusters(
    clusters: Iterable[Iterable[MentionKey]], *, remove_singletons: bool = False, name: str = "clustering"
) -> list[Cluster]:
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
    roots = _union_find(len(raw), shared)
    merged: dict[int, list[MentionKey]] = {}
    for index, cluster in enumerate(raw):
        if cluster:
            merged.setdefault(roots[index], []).extend(cluster)
    result = [tuple(dict.fromkeys(cluster)) for cluster in merged.values()]
    if shared:
        merges = sum(1 for cluster in raw if cluster) - len(result)
        warnings.warn(
            f"{name}: {len(shared)} repeated mention occurrence(s) dropped and {merges} cluster(s) merged into "
            "another because they share a mention.",
            CorefInputWarning,
            stacklevel=2,
        )
    if remove_singletons:
        result = [cluster for cluster in result if len(cluster) > 1]
    return result


def _assignment(clusters: Sequence[Cluster]) -> dict[MentionKey, int]:
    """Map each mention to the index of its cluster (clusters must be a partition)."""
    return {mention: index for index, cluster in enumerate(clusters) for mention in cluster}


def _muc_side(clusters: Sequence[Cluster], other: dict[MentionKey, int]) -> tuple[int, int]:
    """Vilain et al.: sum of |C| - |partitions of C by the other side| (an unmatched mention is its own
    partition), over sum of |C| - 1."""
    num = den = 0
    for cluster in clusters:
        linked = {other[m] for m in cluster if m in other}
        unmatched = sum(1 for m in cluster if m not in other)
        num += len(cluster) - len(linked) - unmatched
        den += len(cluster) - 1
    return num, den


def muc(key: Sequence[Cluster], response: Sequence[Cluster]) -> PRF:
    """MUC (Vilain et al. 1995): link-based; singletons carry no links and so never count."""
    r_num, r_den = _muc_side(key, _assignment(response))
    p_num, p_den = _muc_side(response, _assignment(key))
    return _prf(r_num, r_den, p_num, p_den)


def _bcub_side(clusters: Sequence[Cluster], other: dict[MentionKey, int]) -> tuple[float, int]:
    """Bagga & Baldwin: per mention, |own cluster ∩ its cluster on the other side| / |own cluster|, summed."""
    num, den = 0.0, 0
    for cluster in clusters:
        overlaps = Counter(other[m] for m in cluster if m in other)
        num += sum(count * count for count in overlaps.values()) / len(cluster)
        den += len(cluster)
    return num, den


def b_cubed(key: Sequence[Cluster], response: Sequence[Cluster]) -> PRF:
    """B-cubed (Bagga & Baldwin 1998): mention-based average of per-mention cluster overlap."""
    r_num, r_den = _bcub_side(key, _assignment(response))
    p_num, p_den = _bcub_side(response, _assignment(key))
    return _prf(r_num, r_den, p_num, p_den)


def _overlap_components(key: Sequence[Cluster], response: Sequence[Cluster]) -> list[tuple[list[int], list[int]]]:
    """Split key/response clusters into connected groups of overlapping clusters (others score 0 in CEAF)."""
    where = _assignment(response)
    offset = len(key)  # node ids: key clusters 0..len(key)-1, then the response clusters
    links = [(i, offset + where[m]) for i, cluster in enumerate(key) for m in cluster if m in where]
    roots = _union_find(offset + len(response), links)
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for node, root in enumerate(roots):
        keys, responses = groups.setdefault(root, ([], []))
        (keys if node < offset else responses).append(node if node < offset else node - offset)
    return [(k, r) for k, r in groups.values() if k and r]


def _phi4(a: Cluster, b: Cluster) -> float:
    """Luo's entity similarity phi4: 2 |A ∩ B| / (|A| + |B|)."""
    return 2 * len(set(a) & set(b)) / (len(a) + len(b))


def ceaf_e(key: Sequence[Cluster], response: Sequence[Cluster]) -> PRF:
    """Entity-based CEAF (Luo 2005): best one-to-one alignment of key and response clusters under phi4
    (Kuhn-Munkres); recall divides by the number of key clusters, precision by the number of response ones."""
    similarity = 0.0
    for key_ids, response_ids in _overlap_components(key, response):
        scores = np.array([[_phi4(key[i], response[j]) for j in response_ids] for i in key_ids])
        rows, cols = linear_sum_assignment(scores, maximize=True)
        similarity += float(scores[rows, cols].sum())
    return _prf(similarity, len(key), similarity, len(response))


def _lea_side(clusters: Sequence[Cluster], other: dict[MentionKey, int], other_sizes: list[int]) -> tuple[float, int]:
    """Moosavi & Strube 2016: importance |C| times the fraction of C's links kept on the other side; a
    singleton has one self-link, kept when its mention is a singleton there too (coval's convention)."""
    num, den = 0.0, 0
    for cluster in clusters:
        if len(cluster) == 1:
            mention = cluster[0]
            resolved = 1.0 if mention in other and other_sizes[other[mention]] == 1 else 0.0
        else:
            links = len(cluster) * (len(cluster) - 1) / 2
            overlaps = Counter(other[m] for m in cluster if m in other)
            resolved = sum(n * (n - 1) / 2 for n in overlaps.values()) / links
        num += len(cluster) * resolved
        den += len(cluster)
    return num, den


def lea(key: Sequence[Cluster], response: Sequence[Cluster]) -> PRF:
    """LEA, the link-based entity-aware metric (Moosavi & Strube 2016), with coval's singleton self-links."""
    r_num, r_den = _lea_side(key, _assignment(response), [len(c) for c in response])
    p_num, p_den = _lea_side(response, _assignment(key), [len(c) for c in key])
    return _prf(r_num, r_den, p_num, p_den)


def score_coreference(
    key: Iterable[Iterable[MentionKey]], response: Iterable[Iterable[MentionKey]], *, remove_singletons: bool = False
) -> CorefScores:
    """Score a response clustering against the key with MUC, B3, CEAF-e and LEA (CoNLL F1 as a property)."""
    key = canonical_clusters(key, remove_singletons=remove_singletons, name="key")
    response = canonical_clusters(response, remove_singletons=remove_singletons, name="response")
    return CorefScores(
        muc=muc(key, response), bcub=b_cubed(key, response), ceafe=ceaf_e(key, response), lea=lea(key, response)
    )


def format_scores(scores: CorefScores, title: str = "") -> str:
    """A plain-text table: one row per metric with R, P and F1 in percent, then the CoNLL F1."""
    lines = [title] if title else []
    lines.append(f"{'metric':<8}{'R':>8}{'P':>8}{'F1':>8}")
    for name, label in METRIC_NAMES.items():
        prf = getattr(scores, name)
        lines.append(f"{label:<8}{100 * prf.recall:>8.2f}{100 * prf.precision:>8.2f}{100 * prf.f1:>8.2f}")
    lines.append(f"{'CoNLL':<8}{'':>8}{'':>8}{100 * scores.conll:>8.2f}")
    return "\n".join(lines)
