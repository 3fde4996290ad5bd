"""Mention pairs for the probe: coreferring pairs across documents of one gold cluster, non-coreferring pairs
across clusters of one topic, each with a coin flip for which mention is the source."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..coref.mentions import MentionPair, collect_mentions, group_mentions
from ..errors import ConfigError

#: The two pair labels of the results and of Table 6: coreferring (`pos`) and non-coreferring (`neg`) pairs.
PAIR_LABELS = ("pos", "neg")


def pair_label(pair: MentionPair) -> str:
    """`pos` for a coreferring pair, `neg` otherwise (the label column of the results)."""
    return "pos" if pair.label else "neg"


def sample_mention_pairs(coref_dataset: Iterable[Mapping[str, Any]], n_pos: int, n_neg: int, kind: str,
                         seed: int) -> list[MentionPair]:
    """`n_pos` coreferring and `n_neg` non-coreferring mention pairs of one kind, each across two documents.

    Positives: two mentions of one gold cluster in different documents (all such pairs, then a seeded sample).
    Negatives: two mentions of different clusters in different documents of the same topic (so both documents
    are about the same kind of event, as in ECB+'s within-topic candidate pairs), sampled at random without
    repeats. In every pair a coin flip decides which mention is the source (`first`) and which the target
    (`second`), as in the paper. Fewer pairs than asked come back when the data has fewer (`sampled_counts`).
    """
    if n_pos < 0 or n_neg < 0:
        raise ConfigError(f"n_pos={n_pos} and n_neg={n_neg} must be >= 0")
    rng = random.Random(seed)
    mentions = collect_mentions(coref_dataset, kind)
    positives = [(a, b) for members in group_mentions(mentions, "cluster_id").values()
                 for a, b in itertools.combinations(members, 2) if a.doc_id != b.doc_id]
    chosen = rng.sample(positives, min(n_pos, len(positives)))
    by_topic = {topic: members for topic, members in group_mentions(mentions, "topic").items()
                if len({m.doc_id for m in members}) > 1 and len({m.cluster_id for m in members}) > 1}
    pool = [m for members in by_topic.values() for m in members]
    negatives: set[tuple[str, str]] = set()
    for _ in range(50 * n_neg if pool else 0):  # rejection sampling; most draws succeed on real data
        if len(negatives) == n_neg:
            break
        a = rng.choice(pool)
        b = rng.choice(by_topic[a.topic])
        key = tuple(sorted((a.mention_id, b.mention_id)))
        if a.doc_id != b.doc_id and a.cluster_id != b.cluster_id and key not in negatives:
            negatives.add(key)
            chosen.append((a, b))
    return [MentionPair(*((a, b) if rng.random() < 0.5 else (b, a))) for a, b in chosen]


def sample_pairs_by_kind(coref_dataset: Sequence[Mapping[str, Any]], kinds: Sequence[str], n_pairs: int,
                         seed: int) -> dict[str, list[MentionPair]]:
    """`{kind: sample_mention_pairs(coref_dataset, n_pairs, n_pairs, kind, seed)}` for every mention kind."""
    return {kind: sample_mention_pairs(coref_dataset, n_pairs, n_pairs, kind, seed=seed) for kind in kinds}


def shown_pairs(pairs: Mapping[str, Sequence[MentionPair]], per_group: int) -> list[MentionPair]:
    """The first `per_group` pairs of every (kind, label), coreferring first: the examples kept whole for the
    figures and the browser."""
    return [p for kind_pairs in pairs.values() for label in (1, 0)
            for p in [q for q in kind_pairs if q.label == label][:per_group]]
