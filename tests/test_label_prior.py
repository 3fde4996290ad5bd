"""Recognising a classifier at the label prior, and the readings that name it instead of comparing it."""

from __future__ import annotations

import numpy as np

from cdlm_nb.label_prior import PAIR_CLASSES, at_label_prior, majority_share, not_comparable, prior_note, stuck


def test_one_class_for_almost_every_input_is_the_prior():
    assert majority_share([0, 0, 1, 0]) == (0, 0.75)
    assert at_label_prior(np.zeros(50)) and at_label_prior([1] * 19 + [0])  # one in twenty may differ
    assert at_label_prior([0] * 116 + [1] * 4) and not at_label_prior([1] * 18 + [0, 0])
    assert stuck({"a": [0, 0, 0], "b": [0, 1, 0]}) == ["a"]


def test_the_note_says_which_class_and_how_often():
    note = prior_note("CDLM", [0, 0, 0, 0], PAIR_CLASSES)
    assert note.startswith("- CDLM stayed at the label prior: it calls 100 % of the test inputs unrelated")
    assert "class 1" in prior_note("AoSE", [1, 1])


def test_two_models_compare_only_when_neither_is_at_the_prior():
    labels = {"cdlm": "CDLM", "local": "Local CDLM"}
    assert not_comparable("cdlm", "local", labels, []) is None
    assert not_comparable("cdlm", "local", labels, ["local"]) == (
        "- CDLM vs Local CDLM: no comparison possible (Local CDLM stayed at the label prior).")


def test_the_prior_entropy_is_what_predicting_the_class_shares_scores():
    from sklearn.metrics import log_loss

    from cdlm_nb.label_prior import loss_at_prior, loss_note, prior_entropy

    labels = [0, 0, 1, 0, 1, 0]
    assert abs(prior_entropy(labels) - log_loss(labels, [1 / 3] * len(labels))) < 1e-12
    assert prior_entropy([1, 1, 1]) == 0.0
    assert loss_at_prior([0.70, 0.66, 0.64], labels) and not loss_at_prior([0.70, 0.60], labels)
    assert loss_note("BERT-AVG", [0.70, 0.65], labels).startswith("- BERT-AVG stayed at the label prior: its dev loss")
