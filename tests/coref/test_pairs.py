"""Candidate pairs (every pair inside a group, capped and counted) and training pairs (sampled negatives)."""

from __future__ import annotations

from cdlm_nb.coref.mentions import collect_mentions, group_mentions
from cdlm_nb.coref.pairs import candidate_pairs, training_pairs


def test_candidate_pairs_and_the_cap(events):
    groups = group_mentions(events.values(), "subtopic")
    pairs, stats = candidate_pairs(groups)
    assert stats.pairs == 10 and stats.positives == 3 and stats.dropped == 0 and stats.per_group == {"1_ecb": 10}
    capped, stats = candidate_pairs(groups, max_pairs_per_group=4)
    assert len(capped) == 4 and stats.dropped == 6
    assert {frozenset((p.first.mention_id, p.second.mention_id)) for p in capped} <= \
        {frozenset((p.first.mention_id, p.second.mention_id)) for p in pairs}


def test_training_pairs_sample_negatives(corpus):
    groups = group_mentions(collect_mentions(corpus, "event"), "topic")
    pairs, stats = training_pairs(groups, negative_ratio=1.0)
    assert stats.positives == 3 and len(pairs) == 6 and sum(p.label for p in pairs) == 3 and stats.dropped == 4
    everything, stats = training_pairs(groups, negative_ratio=None)
    assert len(everything) == 10 and stats.dropped == 0
    capped, stats = training_pairs(groups, negative_ratio=None, max_pairs=5)
    assert len(capped) == 5 and stats.dropped == 5
