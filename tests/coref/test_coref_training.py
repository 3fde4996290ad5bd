"""Batching, fine-tuning and scoring of the pair scorer."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cdlm_nb.coref.inputs import encode_pairs
from cdlm_nb.coref.mentions import group_mentions
from cdlm_nb.coref.model import build_pair_scorer
from cdlm_nb.coref.pairs import candidate_pairs
from cdlm_nb.coref.training import collate, score_pairs, train_scorer
from cdlm_nb.finetuning import TrainSetup
from cdlm_nb.support.errors import DataError


@pytest.fixture(scope="module")
def pair_inputs(special, documents, events):
    pairs, _ = candidate_pairs(group_mentions(events.values(), "subtopic"))
    inputs, _ = encode_pairs(pairs, documents, special, max_length=256)
    return pairs, inputs


def test_collate_pads_and_marks(pair_inputs, special):
    import torch

    _, inputs = pair_inputs
    batch = collate(inputs[:2], special.pad)
    width = max(len(item.input_ids) for item in inputs[:2])
    assert batch["input_ids"].shape == (2, width)
    for row, item in enumerate(inputs[:2]):
        assert batch["attention_mask"][row].sum() == len(item.input_ids)
        assert batch["global_attention_mask"][row].sum() == len(item.global_positions)
        assert batch["first_mask"][row].sum() == len(item.first_positions)
        assert batch["second_mask"][row, item.second_positions].tolist() == [1.0] * len(item.second_positions)
        assert (batch["input_ids"][row, len(item.input_ids):] == special.pad).all()
        assert not batch["global_attention_mask"][row, len(item.input_ids):].any()
    assert batch["first_mask"].dtype == batch["second_mask"].dtype == torch.float
    assert batch["input_ids"].dtype == batch["global_attention_mask"].dtype == torch.long


def test_training_without_pairs_is_a_data_error(encoder, special):
    with pytest.raises(DataError, match="no training mention pairs"):
        train_scorer(build_pair_scorer(encoder), [], [], TrainSetup(1, 2, 1e-3), pad_id=special.pad)


@pytest.mark.slow
def test_scores_do_not_depend_on_batching(pair_inputs, special, encoder):
    _, inputs = pair_inputs
    scorer = build_pair_scorer(encoder, hidden_sizes=(16,))
    one = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=1)
    many = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=4)
    np.testing.assert_allclose(one.probabilities, many.probabilities, atol=1e-5)
    assert ((0 < many.probabilities) & (many.probabilities < 1)).all() and many.pairs_per_second > 0


@pytest.mark.slow
def test_fine_tuning_separates_positive_from_negative_pairs(pair_inputs, special, encoder):
    import torch

    torch.manual_seed(0)  # the scorer's head starts alike whichever tests ran before
    pairs, inputs = pair_inputs
    scorer = build_pair_scorer(copy.deepcopy(encoder), hidden_sizes=(16,), dropout=0.0)
    labels = [p.label for p in pairs]
    losses = train_scorer(scorer, inputs, labels, TrainSetup(8, 10, 1e-2, decay=False), pad_id=special.pad)
    assert np.mean(losses[-2:]) < np.mean(losses[:2])
    probabilities = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=5).probabilities
    positives = probabilities[np.array(labels) == 1]
    negatives = probabilities[np.array(labels) == 0]
    assert positives.min() > negatives.max()
