"""The clustering step of `coref.experiment`, from pair probabilities to clusters: average-linkage clustering,
unscored pairs, threshold tuning, predicted topics."""

from __future__ import annotations

import pytest

from cdlm_nb.coref.experiment import (
    build_dendrograms,
    cut_dendrograms,
    pair_probabilities,
    predict_topics,
    tune_threshold,
)
from cdlm_nb.coref.metrics import score_coreference


def test_average_linkage_clustering_at_a_threshold():
    groups = {"g1": ["a", "b", "c", "d"], "g2": ["e"]}
    probabilities = pair_probabilities(
        [("a", "b"), ("a", "c"), ("b", "c"), ("a", "d"), ("b", "d"), ("c", "d")],
        [0.9, 0.7, 0.5, 0.1, 0.2, 0.6],
    )
    trees = build_dendrograms(groups, probabilities)
    clusters = sorted(map(sorted, cut_dendrograms(trees, threshold=0.4)))
    # a-b merge at distance 0.1; {a,b}-c at mean(0.3, 0.5) = 0.4; then d at mean(0.9, 0.8, 0.4) = 0.7 > 0.4
    assert clusters == [["a", "b", "c"], ["d"], ["e"]]
    assert sorted(map(sorted, cut_dendrograms(trees, threshold=0.39))) == [["a", "b"], ["c"], ["d"], ["e"]]
    assert sorted(map(sorted, cut_dendrograms(trees, threshold=0.75))) == [["a", "b", "c", "d"], ["e"]]


def test_unscored_pairs_count_as_not_coreferent():
    trees = build_dendrograms({"g": ["a", "b", "c"]}, pair_probabilities([("a", "b")], [0.95]))
    assert sorted(map(sorted, cut_dendrograms(trees, 0.5))) == [["a", "b"], ["c"]]


def test_tune_threshold_picks_the_best_dev_score():
    trees = build_dendrograms({"g": ["a", "b", "c"]}, pair_probabilities([("a", "b"), ("a", "c"), ("b", "c")],
                                                                          [0.8, 0.45, 0.35]))
    key = [["a", "b"], ["c"]]
    best, curve = tune_threshold(trees, key, [0.1, 0.3, 0.5, 0.7], lambda k, r: score_coreference(k, r).conll)
    assert best == 0.3 and len(curve) == 4
    assert dict(curve)[0.3] == pytest.approx(1.0)


def test_predict_topics_groups_documents_by_words():
    topics = predict_topics({
        "q1": "earthquake struck the coastal town, quake damage",
        "q2": "a strong earthquake hit the town; quake victims",
        "m1": "the company announced a merger with its rival firm",
        "m2": "merger talks: the firm and its rival company agree",
    }, threshold=0.9)
    assert topics["q1"] == topics["q2"] != topics["m1"] == topics["m2"]
