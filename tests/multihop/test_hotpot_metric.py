"""The official HotpotQA metric, rule by rule, on hand-computed cases."""

import pytest

from cdlm_nb.multihop.metric import (
    OFFICIAL_KEYS,
    answer_scores,
    evaluate,
    joint_scores,
    mean_scores,
    normalize_answer,
    supporting_fact_scores,
)


def test_normalisation_drops_case_punctuation_articles_and_extra_space():
    assert normalize_answer("  The  Eiffel-Tower, in A city! ") == "eiffeltower in city"
    assert normalize_answer("Theatre an Anthem") == "theatre anthem"  # only whole-word articles go


def test_answer_f1_by_hand():
    em, f1, precision, recall = answer_scores("the big red barn", "a red barn")
    assert (em, precision, recall) == (0.0, 2 / 3, 1.0) and f1 == pytest.approx(0.8)
    assert answer_scores("Red Barn.", "the red barn") == (1.0, 1.0, 1.0, 1.0)
    assert answer_scores("blue", "red") == (0.0, 0.0, 0.0, 0.0)


def test_yes_no_answers_that_differ_score_zero_even_with_shared_tokens():
    assert answer_scores("yes", "no") == (0.0, 0.0, 0.0, 0.0)
    assert answer_scores("no", "no way") == (0.0, 0.0, 0.0, 0.0)  # would be F1 2/3 without the rule
    assert answer_scores("yes", "Yes.") == (1.0, 1.0, 1.0, 1.0)


def test_supporting_facts_are_sets_of_title_and_sentence():
    em, f1, precision, recall = supporting_fact_scores([["A", 0], ["A", 0], ["B", 2], ["C", 1]], [("A", 0), ("B", 1)])
    assert (em, precision, recall) == (0.0, 1 / 3, 0.5) and f1 == pytest.approx(0.4)
    assert supporting_fact_scores([["B", 1], ["A", 0]], [["A", 0], ["B", 1]]) == (1.0, 1.0, 1.0, 1.0)
    assert supporting_fact_scores([], [["A", 0]]) == (0.0, 0.0, 0.0, 0.0)


def test_joint_multiplies_precisions_and_recalls():
    em, f1, precision, recall = joint_scores((1.0, 1.0, 1.0, 1.0), (0.0, 0.4, 1 / 3, 0.5))
    assert (em, precision, recall) == (0.0, 1 / 3, 0.5) and f1 == pytest.approx(0.4)


def test_evaluate_averages_over_gold_and_scores_missing_predictions_zero():
    gold = [{"_id": "q1", "answer": "red barn", "supporting_facts": [["A", 0], ["B", 1]]},
            {"id": "q2", "answer": "yes", "supporting_facts": {"title": ["C"], "sent_id": [0]}}]
    prediction = {"answer": {"q1": "the red barn", "q9": "x"}, "sp": {"q1": [["A", 0]], "q2": [["C", 0]]}}
    scores = evaluate(prediction, gold)
    assert list(scores.metrics) == list(OFFICIAL_KEYS)
    assert scores.metrics["em"] == 0.5 and scores.metrics["f1"] == 0.5  # q2 has no answer: 0
    assert scores.metrics["sp_em"] == 0.5 and scores.metrics["sp_f1"] == pytest.approx((2 / 3 + 1) / 2)
    assert scores.metrics["joint_f1"] == pytest.approx((2 * 0.5 / 1.5) / 2)  # q1: P 1, R 0.5; q2 not joint
    assert scores.missing_answer == ["q2"] and scores.missing_sp == [] and scores.unknown_ids == ["q9"]
    assert mean_scores(scores, ["q2"])["sp_em"] == 1.0
