"""Notebook 04's reference rows and noise: what a clustering that learned nothing scores (every mention alone, one
cluster per subtopic), and the paired bootstrap of a CoNLL F1 difference over the test subtopics."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from .. import verdicts
from ..profiles import SEED
from .mentions import Mention, gold_clusters, group_mentions
from .metrics import CorefScores, score_coreference

Clusters = Sequence[Sequence[str]]  # lists of mention ids
RESAMPLES = 500  # each draw scores two clusterings with all four metrics; 500 keep the 95 % ends within a point


def reference_scores(mentions: Sequence[Mention]) -> dict[str, CorefScores]:
    """The two classic trivial responses, every mention a singleton and one cluster per subtopic, scored against
    the gold clusters of `mentions`."""
    key = gold_clusters(mentions)
    subtopics = [[m.mention_id for m in subtopic] for subtopic in group_mentions(mentions, "subtopic").values()]
    return {"all singletons": score_coreference(key, [[m.mention_id] for m in mentions]),
            "one cluster per subtopic": score_coreference(key, subtopics)}


def resampling_units(mentions: Sequence[Mention]) -> list[list[str]]:
    """The test subtopics as bootstrap units (mention ids), subtopics joined where a gold cluster spans them, so
    that no resample cuts a gold cluster."""
    import networkx as nx

    graph = nx.Graph()
    first_of_cluster: dict[str, str] = {}
    for mention in mentions:  # each subtopic joined to the first subtopic of every cluster it shares
        graph.add_edge(mention.subtopic, first_of_cluster.setdefault(mention.cluster_id, mention.subtopic))
    unit_of = {subtopic: i for i, part in enumerate(nx.connected_components(graph)) for subtopic in part}
    units: dict[int, list[str]] = defaultdict(list)  # in the order of the units' first mentions
    for mention in mentions:
        units[unit_of[mention.subtopic]].append(mention.mention_id)
    return list(units.values())


def _restricted(clusters: Clusters, unit_of: Mapping[str, int], draw: Sequence[int]) -> list[list[str]]:
    """`clusters` over the drawn units, a unit drawn twice copied under new ids (`<copy>:<mention id>`)."""
    by_unit: dict[int, list[list[str]]] = defaultdict(list)
    for cluster in clusters:
        parts: dict[int, list[str]] = defaultdict(list)
        for mention in cluster:
            parts[unit_of[mention]].append(mention)
        for unit, part in parts.items():
            by_unit[unit].append(part)
    return [[f"{copy}:{m}" for m in part] for copy, unit in enumerate(draw) for part in by_unit[unit]]


def conll_difference(mentions: Sequence[Mention], first: Clusters, second: Clusters, band: float | None,
                     resamples: int = RESAMPLES, seed: int = SEED) -> verdicts.Difference:
    """CoNLL F1 (%) of `first` minus `second` on the test mentions, with its 95 % paired bootstrap interval over
    `resampling_units` (both responses scored on the same drawn units)."""
    units = resampling_units(mentions)
    unit_of = {m: i for i, unit in enumerate(units) for m in unit}
    key = gold_clusters(mentions)

    def difference(draw: Sequence[int]) -> float:
        gold = _restricted(key, unit_of, draw)
        return 100 * (score_coreference(gold, _restricted(first, unit_of, draw)).conll
                      - score_coreference(gold, _restricted(second, unit_of, draw)).conll)

    low, high = verdicts.paired_bootstrap(lambda draws: np.array([difference(draw) for draw in draws]), len(units),
                                          resamples, seed)
    return verdicts.Difference(difference(range(len(units))), low, high, band)
