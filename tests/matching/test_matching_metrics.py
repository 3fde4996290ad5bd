"""Matching metrics and the TF-IDF floor."""

from __future__ import annotations

import numpy as np
import pytest

from cdlm_nb.matching.experiment import tfidf_run
from cdlm_nb.matching.metrics import best_threshold, pair_scores


def test_pair_scores_follow_their_definitions():
    labels, predictions = [1, 1, 0, 0, 0], [1, 0, 1, 0, 0]
    kinds = ["positive", "positive", "hard_negative", "hard_negative", "easy_negative"]
    scores = pair_scores(labels, predictions, kinds)
    assert scores["accuracy"] == pytest.approx(3 / 5)
    assert scores["precision"] == pytest.approx(1 / 2) and scores["recall"] == pytest.approx(1 / 2)
    assert scores["f1"] == pytest.approx(1 / 2)
    assert scores["acc/positive"] == 0.5 and scores["acc/hard_negative"] == 0.5 and scores["acc/easy_negative"] == 1


def test_best_threshold_separates_when_it_can():
    labels, scores = [0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9]
    threshold = best_threshold(labels, scores)
    assert 0.3 < threshold < 0.6


def test_best_threshold_is_chosen_by_macro_f1_so_calling_every_pair_related_does_not_win():
    from sklearn.metrics import f1_score

    labels, scores = [0, 0, 0, 1, 0, 0, 0, 1], np.linspace(0.9, 0.1, 8)
    assert f1_score(labels, scores >= 0.0) > f1_score(labels, scores >= 0.5)  # positive F1 would call all related
    assert best_threshold(labels, scores) == pytest.approx(0.5)


def test_tfidf_cosine_is_one_for_identical_documents_and_zero_without_shared_words():
    from datasets import Dataset

    train = [{"doc_a": ["alpha beta"], "doc_b": ["gamma delta"], "label": 0, "kind": "positive"}]
    test = [{"doc_a": ["alpha beta"], "doc_b": ["alpha beta"], "label": 1, "kind": "positive"},
            {"doc_a": ["alpha"], "doc_b": ["delta"], "label": 0, "kind": "easy_negative"}]
    run = tfidf_run({name: Dataset.from_list(rows) for name, rows in (("train", train), ("dev", test), ("test", test))})
    assert np.allclose(run.test_scores, [1.0, 0.0])
