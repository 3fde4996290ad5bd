"""S2D metrics: MRR and P@N on hand-made rankings, the joint rule, and a random scorer against its expectation."""

import numpy as np
import pytest

from cdlm_nb.cda.alignment import expected_random_mrr, joint_s2d, ranking_scores


def test_ranking_scores_by_hand():
    scores = [0.1, 0.9, 0.3, 0.8, 0.2, 0.0]  # ranking: 1, 3, 2, 4, 0, 5
    assert ranking_scores(scores, [2]) == {"mrr": 1 / 3, "p1": 0.0, "p5": 1.0, "p10": 1.0}
    two = ranking_scores(scores, [3, 0])
    assert two["mrr"] == 0.5 and two["p1"] == 0.0 and two["p5"] == 1.0  # both gold within the top 5
    assert ranking_scores(scores, [5, 0])["p5"] == 0.5  # one of two gold in the top 5: 1 / min(5, 2)


def test_joint_rule():
    labels, predictions = [1, 1, 0, 0, 1], [1, 0, 0, 1, 1]
    scores = [[0.2, 0.9], [0.9, 0.1], [0.5], [0.5], [0.3, 0.1]]
    gold = [[0], [0], [], [], []]
    result = joint_s2d(labels, predictions, scores, gold)
    assert result.pairs == 4 and result.skipped == 1  # the last related pair has no gold sentence
    assert result.metrics["mrr"] == pytest.approx((0.5 + 0 + 1 + 0) / 4)
    assert result.metrics["p1"] == pytest.approx((0 + 0 + 1 + 0) / 4)


def test_a_random_scorer_with_a_coin_flip_matches_the_expectation():
    rng = np.random.default_rng(0)
    labels = [1, 1, 0, 1, 0, 1]
    counts = [5, 8, 4, 3, 6, 10]
    gold = [[2], [0, 5], [], [1], [], [3, 4, 9]]
    draws = [joint_s2d(labels, rng.integers(0, 2, len(labels)).tolist(), [rng.random(n) for n in counts],
                       gold).metrics["mrr"] for _ in range(20000)]
    expected = expected_random_mrr(labels, counts, gold)
    # by hand for the first pair: 0.5 * (1 + 1/2 + 1/3 + 1/4 + 1/5) / 5
    assert expected_random_mrr([1], [5], [[2]]) == pytest.approx(0.5 * (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 5)
    assert np.mean(draws) == pytest.approx(expected, abs=0.005)
