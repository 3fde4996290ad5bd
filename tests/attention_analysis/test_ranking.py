import math

import numpy as np
import pytest

from cdlm_nb.attention_analysis.ranking import (
    candidate_positions,
    is_punctuation,
    mean_percentile_rank,
    mention_pair_score,
    percentile_rank,
    token_scores,
)
from cdlm_nb.support.errors import ConfigError, DataError

# A hand-built last layer: 2 heads, 7 positions, source span S = {1, 2} (two global tokens, so |S| = 2 columns).
# Position 0 and 6 stand for special tokens, positions 3-5 for the target document.
SOURCE = [1, 2]
# ATTN_TO[h, i, j] = α_{i, S_j}: token i's attention to source token S_j.
ATTN_TO = np.array([
    [[0.1, 0.0], [0.0, 0.0], [0.0, 0.0], [0.2, 0.1], [0.0, 0.1], [0.3, 0.0], [0.0, 0.0]],
    [[0.0, 0.1], [0.0, 0.0], [0.0, 0.0], [0.1, 0.0], [0.0, 0.0], [0.1, 0.1], [0.2, 0.0]],
])
# ATTN_FROM[h, i, j] = α_{S_j, i}: source token S_j's (global) attention to token i.
ATTN_FROM = np.array([
    [[0.2, 0.1], [0.3, 0.2], [0.1, 0.3], [0.2, 0.1], [0.1, 0.0], [0.0, 0.2], [0.1, 0.1]],
    [[0.1, 0.0], [0.2, 0.4], [0.2, 0.1], [0.3, 0.2], [0.0, 0.1], [0.1, 0.0], [0.1, 0.2]],
])
# Σ_heads Σ_{j∈S} (α_ij + α_ji), added up by hand for the positions outside S:
#   0: (0.1+0.0+0.0+0.1) + (0.2+0.1+0.1+0.0) = 0.6
#   3: (0.2+0.1+0.1+0.0) + (0.2+0.1+0.3+0.2) = 1.2
#   4: (0.0+0.1+0.0+0.0) + (0.1+0.0+0.0+0.1) = 0.3
#   5: (0.3+0.0+0.1+0.1) + (0.0+0.2+0.1+0.0) = 0.8
#   6: (0.0+0.0+0.2+0.0) + (0.1+0.1+0.1+0.2) = 0.7
LOGITS = {0: 0.6, 3: 1.2, 4: 0.3, 5: 0.8, 6: 0.7}
Z = sum(math.exp(v) for v in LOGITS.values())


def test_token_scores_match_the_hand_computed_softmax():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    for position, logit in LOGITS.items():
        assert scores[position] == pytest.approx(math.exp(logit) / Z)
    assert np.isnan(scores[SOURCE]).all()  # s(i|S) is defined for i outside S only
    assert np.nansum(scores) == pytest.approx(1.0)


def test_token_scores_use_both_directions():
    only_to = token_scores(ATTN_TO, np.zeros_like(ATTN_FROM), SOURCE)
    only_from = token_scores(np.zeros_like(ATTN_TO), ATTN_FROM, SOURCE)
    both = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    # position 5 beats position 3 on incoming attention alone, but loses once both directions count
    assert only_to[5] > only_to[3]
    assert both[5] < both[3]
    assert not np.allclose(only_from[[0, 3, 4, 5, 6]], both[[0, 3, 4, 5, 6]])


def test_token_scores_reject_mismatched_shapes():
    with pytest.raises(ConfigError, match="attn_to"):
        token_scores(ATTN_TO[:, :, :1], ATTN_FROM, SOURCE)
    with pytest.raises(ConfigError, match="source_positions"):
        token_scores(ATTN_TO, ATTN_FROM, [1, 9])
    with pytest.raises(ConfigError, match="empty"):
        token_scores(ATTN_TO[:, :, :0], ATTN_FROM[:, :, :0], [])


def test_percentile_rank_counts_strictly_lower_and_half_ties():
    assert percentile_rank(0.5, [0.1, 0.2, 0.7, 0.9]) == pytest.approx(50.0)
    assert percentile_rank(1.0, [0.1, 0.2]) == pytest.approx(100.0)
    assert percentile_rank(0.0, [0.1, 0.2]) == pytest.approx(0.0)
    assert percentile_rank(0.2, [0.1, 0.2, 0.3, 0.4]) == pytest.approx(100 * 1.5 / 4)
    with pytest.raises(DataError, match="at least one"):
        percentile_rank(0.5, [])
    with pytest.raises(DataError, match="non-finite"):
        percentile_rank(0.5, [float("nan")])


def test_mention_pair_score_aggregates_the_target_and_ranks_it_against_the_rest():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    target, candidates = [4, 5], [3, 4, 5, 6]
    score, pr = mention_pair_score(scores, target, candidates)
    expected_score = (math.exp(0.3) + math.exp(0.8)) / 2 / Z
    assert score == pytest.approx(expected_score)
    # the other candidates, 3 (e^1.2) and 6 (e^0.7 = 2.01), both beat the target's (e^0.3 + e^0.8) / 2 = 1.79
    assert pr == pytest.approx(0.0)
    score, pr = mention_pair_score(scores, [3], candidates)  # e^1.2 beats 4, 5 and 6
    assert pr == pytest.approx(100.0)
    score, pr = mention_pair_score(scores, [6], candidates)  # e^0.7 beats 4 (e^0.3), loses to 3 and 5
    assert pr == pytest.approx(100 / 3)


def test_mention_pair_score_rejects_empty_or_overlapping_spans():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    with pytest.raises(DataError, match="empty"):
        mention_pair_score(scores, [], [3, 4])
    with pytest.raises(DataError, match="no candidate"):
        mention_pair_score(scores, [3, 4], [3, 4])
    with pytest.raises(DataError, match="overlap the source"):
        mention_pair_score(scores, [2, 3], [3, 4, 5])


def _authors_shifted_reading(scores, source, target):
    """The released notebook's lookup: aggregate T into its first token, delete T's other tokens and S, then read
    the *old* index of T's first token in the shortened array."""
    cut = scores.copy()
    cut[target[0]] = np.mean(scores[target])
    cut = np.delete(cut, target[1:] + source)
    return cut[target[0]]


def test_the_authors_shifted_index_reads_another_token():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    target, candidates = [3, 4], [3, 4, 5, 6]
    ours, our_pr = mention_pair_score(scores, target, candidates)
    shifted = _authors_shifted_reading(scores, SOURCE, target)
    # After deleting 3 positions before index 3, index 3 holds the score of original position 6, not of T.
    assert shifted == pytest.approx(scores[6])
    assert shifted != pytest.approx(ours)
    # T = mean(e^1.2, e^0.3) = 2.34 beats 5 (e^0.8 = 2.23) and 6 (e^0.7 = 2.01): PR 100 %; the shifted reading
    # ranks position 6 against T and position 5 instead, and gets 0 %.
    assert our_pr == pytest.approx(100.0)
    assert percentile_rank(shifted, [ours, scores[5]]) == pytest.approx(0.0)


def test_mean_percentile_rank():
    assert mean_percentile_rank([100.0, 50.0, 0.0]) == pytest.approx(50.0)
    with pytest.raises(DataError, match="skipped"):
        mean_percentile_rank([])


def test_punctuation_and_candidates():
    assert is_punctuation(" .") and is_punctuation('"') and is_punctuation(" ") and is_punctuation("...")
    assert not is_punctuation(" Obama") and not is_punctuation("'s") and not is_punctuation("9")
    ids = [0, 5, 10, 11, 12, 13, 6, 2]  # <s> <doc-s> Obama named , her </doc-s> </s>
    assert candidate_positions(ids, range(1, 7), {0, 2, 5, 6, 12}) == [2, 3, 5]
    assert candidate_positions(ids, range(1, 7), {0, 2, 5, 6}) == [2, 3, 4, 5]
