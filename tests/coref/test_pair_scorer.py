"""The pair scorer: its pair vector is [s; m_i; m_j; m_i ∘ m_j] with summed mention tokens, one logit per pair."""

from __future__ import annotations

import pytest

from cdlm_nb.coref.inputs import build_pair_input
from cdlm_nb.coref.mentions import MentionPair
from cdlm_nb.coref.model import PairScorer, build_pair_scorer
from cdlm_nb.coref.training import collate
from cdlm_nb.support.errors import ConfigError


def test_pair_vector_is_cls_and_summed_mentions(special, documents, events, encoder):
    import torch

    scorer = build_pair_scorer(encoder, hidden_sizes=(16,)).eval()
    assert isinstance(scorer, PairScorer) and scorer.encoder is encoder.base_model
    item = build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=256)
    batch = collate([item], special.pad)
    with torch.no_grad():
        vector = scorer.pair_vectors(**batch)[0]
        hidden = encoder.base_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                    global_attention_mask=batch["global_attention_mask"]).last_hidden_state[0]
    d = encoder.config.hidden_size
    first, second = hidden[item.first_positions].sum(0), hidden[item.second_positions].sum(0)
    torch.testing.assert_close(vector, torch.cat([hidden[0], first, second, first * second]))
    assert vector.shape == (4 * d,)
    assert scorer(**batch).shape == (1,)


def test_mlp_layers_follow_the_hidden_sizes(encoder):
    from torch import nn

    scorer = build_pair_scorer(encoder, hidden_sizes=(16, 8), activation="relu", dropout=0.0)
    linears = [layer for layer in scorer.mlp if isinstance(layer, nn.Linear)]
    shapes = [(linear.in_features, linear.out_features) for linear in linears]
    assert shapes == [(4 * encoder.config.hidden_size, 16), (16, 8), (8, 1)]
    assert any(isinstance(layer, nn.ReLU) for layer in scorer.mlp)


def test_unknown_activation_is_a_config_error(encoder):
    with pytest.raises(ConfigError, match="activation"):
        build_pair_scorer(encoder, activation="sigmoid")
