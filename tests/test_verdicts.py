import math

import numpy as np
import pytest

from cdlm_nb import verdicts
from cdlm_nb.verdicts import HOLDS, REVERSED, UNRESOLVED, Difference


def test_pair_references_score_constant_answers():
    refs = verdicts.pair_references([1, 0, 0])
    assert refs["all related"] == pytest.approx({"acc": 1 / 3, "f1": 0.5})
    assert refs["none related"] == {"acc": pytest.approx(2 / 3), "f1": 0.0}


def test_class_references_use_the_training_shares():
    refs = verdicts.class_references(["a", "a", "b", "c"], ["b", "b", "a", "c"])
    assert refs["majority class"] == pytest.approx(0.25)  # "a" is right on one test input of four
    assert refs["label prior"] == pytest.approx((0.25 + 0.25 + 0.5 + 0.25) / 4)


def test_rows_not_above_the_floor_are_never_ranked():
    table = {"cdlm": 0.38, "longformer": 0.55, "local": 0.50, "tfidf": 0.61}
    floor = verdicts.floor(verdicts.pair_references([1, 0, 0])["all related"] | {"other": 0.2})
    assert floor == 0.5
    assert verdicts.ranked(table, floor) == ["tfidf", "longformer"]  # level with the floor is no result
    assert not verdicts.learned(0.5, floor)
    assert verdicts.LEARNED_NOTHING in verdicts.nothing_note("CDLM", 38.0, 50.0, "F1")


@pytest.mark.parametrize("difference, verdict", [
    (Difference(0.10, 0.02, 0.18, 0.05), HOLDS),
    (Difference(-0.10, -0.18, -0.02, 0.05), REVERSED),
    (Difference(0.10, -0.01, 0.20, 0.05), UNRESOLVED),  # inside its bootstrap interval
    (Difference(0.10, 0.02, 0.18, 0.12), UNRESOLVED),  # inside the seed band
    (Difference(0.10, 0.02, 0.18, None), UNRESOLVED),  # the seed spread was not measured
])
def test_a_claim_holds_only_beyond_both_noise_sources(difference, verdict):
    assert difference.verdict == verdict
    assert verdict in verdicts.claim_line("CDLM over Longformer", difference, "F1")


def test_decision_difference_matches_the_direct_scores():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 200)
    good = np.where(rng.random(200) < 0.9, labels, 1 - labels)
    coin = rng.integers(0, 2, 200)
    diff = verdicts.decision_difference(labels, good, coin, "acc", band=0.05)
    assert diff.value == pytest.approx((good == labels).mean() - (coin == labels).mean())
    assert diff.low < diff.value < diff.high and diff.verdict == HOLDS
    same = verdicts.decision_difference(labels, coin, coin, "f1", band=0.05)
    assert (same.value, same.low, same.high) == (0.0, 0.0, 0.0) and same.verdict == UNRESOLVED
    with pytest.raises(ValueError, match="'acc' or 'f1'"):
        verdicts.decision_difference(labels, good, coin, "auc", band=None)


def test_decision_interval_brackets_the_estimate_and_is_seeded():
    labels = [1, 0] * 50
    low, high = verdicts.decision_interval(labels, [1] * 100, "acc", 500)
    assert low < 0.5 < high
    assert verdicts.decision_interval(labels, [1] * 100, "acc", 500) == (low, high)
    f1_low, f1_high = verdicts.decision_interval(labels, [1] * 100, "f1", 500)
    assert f1_low < 2 / 3 < f1_high


def test_f1_per_row_is_scikit_learns_f1():
    from sklearn.metrics import f1_score

    truth, guess = np.array([[1, 0, 1, 1], [0, 0, 0, 0]], bool), np.array([[1, 1, 0, 1], [0, 0, 0, 0]], bool)
    assert verdicts.decision_rows("f1")(truth, guess).tolist() == [f1_score(truth[0], guess[0]), 0.0]


def test_mean_difference_of_a_tiny_edge_is_unresolved():
    first, second = np.r_[np.ones(5), np.zeros(95)], np.zeros(100)
    diff = verdicts.mean_difference(first, second, band=0.01)
    assert diff.value == pytest.approx(0.05) and diff.low >= 0 and diff.verdict in (HOLDS, UNRESOLVED)
    assert verdicts.mean_difference(second, first, band=0.2).verdict == UNRESOLVED


def test_seed_band_combines_both_systems_spreads():
    spread = {"m/cdlm": {"sd": 3.0, "pooled_sd": 4.0}, "m/local": {"sd": 0.0, "pooled_sd": 0.0}}
    assert verdicts.seed_band(spread, "m/cdlm", "m/local", scale=100) == pytest.approx(1.96 * 4.0 / 100)
    assert verdicts.seed_band(spread, "m/cdlm", "m/rand") is None and verdicts.seed_band(None, "a", "b") is None
    assert math.isclose(verdicts.seed_band(spread, "m/cdlm", "m/cdlm"), 1.96 * math.sqrt(32))
    assert verdicts.seed_band(spread, "m/cdlm", None) == pytest.approx(1.96 * 4.0)  # against a rule: one side


def test_a_row_must_clear_every_metrics_floor():
    floors = verdicts.floors(verdicts.pair_references([1, 0, 0]))
    assert floors == pytest.approx({"acc": 2 / 3, "f1": 0.5})
    learned, notes = verdicts.split_learned({"a": {"acc": 0.7, "f1": 0.6}, "b": {"acc": 0.6, "f1": 0.6}}, floors,
                                            {"a": "A", "b": "B"})
    assert learned == ["a"] and "(accuracy 60.0, not above the 66.7" in notes[0]  # F1 above, accuracy below


def test_one_class_describes_a_row_that_gives_almost_every_input_one_class():
    from cdlm_nb.verdicts import PAIR_CLASSES, one_class

    assert one_class(np.zeros(50), PAIR_CLASSES) == "it gives 100 % of the test inputs unrelated"
    assert one_class([1] * 19 + [0]) == "it gives 95 % of the test inputs class 1"  # one in twenty may differ
    assert one_class([1] * 18 + [0, 0]) is None
    assert one_class(["Lima"] * 20) == "it gives 100 % of the test inputs 'Lima'"  # answers, not class ids
    assert one_class([]) is None


def test_a_note_for_a_row_at_its_floor_says_what_it_gives_and_the_rule_is_the_floor_alone():
    from cdlm_nb.verdicts import split_learned

    scores = {"cdlm": {"f1": 0.0, "accuracy": 0.5}, "local": {"f1": 0.8, "accuracy": 0.9}}
    learned, notes = split_learned(scores, {"f1": 0.5, "accuracy": 0.6}, {"cdlm": "CDLM", "local": "Local"},
                                   predictions={"cdlm": [0, 0, 0, 0], "local": [1, 0, 1, 0]})
    assert learned == ["local"]
    assert notes == ["- CDLM: learned nothing here (F1 0.0, not above the 50.0 a constant answer scores on the same "
                     "test items; it gives 100 % of the test inputs unrelated); it is left out of every ranking and "
                     "claim."]


def test_flat_joins_nested_keys_into_metric_names_at_any_depth():
    nested = {"all related": {"f1": 0.5, "acc": 0.3}, "model": {"dev": {"best lr": 1e-4}}}
    assert verdicts.flat("matching/world", nested) == {
        "matching/world/all_related/f1": 0.5, "matching/world/all_related/acc": 0.3,
        "matching/world/model/dev/best_lr": 1e-4}
    assert verdicts.reference_metrics("x", {"none related": {"f1": 0.0}}) == {"x/reference/none_related/f1": 0.0}


def test_an_ordering_is_read_only_between_rows_that_learned_something():
    labels = {"a": "A", "b": "B"}
    difference = Difference(0.2, 0.1, 0.3, 0.05)  # beyond its interval and its band
    assert verdicts.ordering_line("x over y", ("a", "b"), {"a"}, labels, lambda: difference) == (
        "- x over y: cannot be checked here (learned nothing here: B).")
    line = verdicts.ordering_line("x over y", ("a", "b"), {"a", "b"}, labels, lambda: difference)
    assert line.startswith("- x over y: F1 difference +20.0") and line.endswith(f"-> {HOLDS}.")
