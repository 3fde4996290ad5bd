"""Which mention pairs the cross-encoder sees: every candidate pair inside a group (what clustering needs scores
for), and the training pairs (all coreferent pairs of a topic plus sampled negatives). Caps are counted."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..profiles import SEED
from .mentions import Mention, MentionPair


@dataclass
class PairStats:
    """What pair construction kept and dropped, for the notebook to report."""

    groups: int = 0
    pairs: int = 0
    positives: int = 0
    dropped: int = 0  # pairs removed by a cap or by negative sampling
    per_group: dict[str, int] = field(default_factory=dict)  # pairs kept per group


def candidate_pairs(groups: Mapping[str, Sequence[Mention]], max_pairs_per_group: int | None = None,
                    seed: int = SEED) -> tuple[list[MentionPair], PairStats]:
    """Every unordered pair of mentions inside each group; `max_pairs_per_group` (a CPU budget) keeps a random sample
    of that many in larger groups, the dropped ones counted and taken as non-coreferent by clustering."""
    rng = random.Random(seed)
    pairs: list[MentionPair] = []
    stats = PairStats(groups=len(groups))
    for name, members in groups.items():
        group_pairs = [MentionPair(a, b) for a, b in itertools.combinations(members, 2)]
        if max_pairs_per_group is not None and len(group_pairs) > max_pairs_per_group:
            stats.dropped += len(group_pairs) - max_pairs_per_group
            group_pairs = rng.sample(group_pairs, max_pairs_per_group)
        stats.per_group[name] = len(group_pairs)
        pairs.extend(group_pairs)
    stats.pairs, stats.positives = len(pairs), sum(pair.label for pair in pairs)
    return pairs, stats


def training_pairs(groups: Mapping[str, Sequence[Mention]], negative_ratio: float | None, max_pairs: int | None = None,
                   seed: int = SEED) -> tuple[list[MentionPair], PairStats]:
    """All coreferent pairs in each group plus `negative_ratio` random negatives per positive (None: every negative,
    as the released code), capped at `max_pairs` by a sample keeping the positive share; removals are counted."""
    rng = random.Random(seed)
    labelled = [(name, MentionPair(a, b)) for name, members in groups.items()
                for a, b in itertools.combinations(members, 2)]
    positives = [item for item in labelled if item[1].label]
    negatives = [item for item in labelled if not item[1].label]
    if negative_ratio is not None:
        negatives = rng.sample(negatives, min(len(negatives), round(negative_ratio * len(positives))))
    if max_pairs is not None and len(positives) + len(negatives) > max_pairs:
        n_pos = min(len(positives), round(max_pairs * len(positives) / (len(positives) + len(negatives))))
        positives, negatives = rng.sample(positives, n_pos), rng.sample(negatives, max_pairs - n_pos)
    kept = positives + negatives
    rng.shuffle(kept)
    return [pair for _, pair in kept], PairStats(
        groups=len(groups), pairs=len(kept), positives=len(positives), dropped=len(labelled) - len(kept),
        per_group=dict(Counter(name for name, _ in kept)))
