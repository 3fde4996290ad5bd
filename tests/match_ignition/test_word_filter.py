"""The word-level filter: PageRank by hand, keep counts per layer, order and protected tokens kept, the gathered
mask matching the kept tokens, and the step-by-step layers equal to Hugging Face's."""

import pytest
import torch
from transformers import BertConfig, BertForSequenceClassification

from cdlm_nb.match_ignition import word_filter
from cdlm_nb.match_ignition.word_filter import (
    WordFilterClassifier,
    keep_count,
    pagerank_scores,
    select_tokens,
)
from cdlm_nb.support.errors import ConfigError

CLS, SEP, PAD = 1, 2, 0


@pytest.fixture(scope="module")
def tiny_bert():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=4, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, num_labels=2,
                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    return BertForSequenceClassification(config).eval()


def _batch():
    ids = torch.tensor([[CLS, 5, 6, 7, 8, SEP, 9, 10, 11, 12, 13, SEP, 14, 15, 16, SEP],
                        [CLS, 5, 6, SEP, 9, 10, SEP] + [PAD] * 9])
    return ids, (ids != PAD).long()


def test_pagerank_matches_the_iteration_by_hand():
    attention = torch.tensor([[[0.5, 0.5, 0.0], [0.2, 0.6, 0.2], [0.0, 1.0, 0.0]]])
    mask = torch.ones(1, 3)
    rank = torch.full((3,), 1 / 3)
    for _ in range(20):
        rank = 0.85 * attention[0].T @ rank + 0.15 / 3
    expected = attention[0] @ rank
    assert torch.allclose(pagerank_scores(attention, mask), expected[None], atol=1e-6)


def test_padding_gets_no_rank_and_is_never_kept():
    attention = torch.full((1, 4, 4), 0.25)
    mask = torch.tensor([[1, 1, 1, 0]])
    scores = pagerank_scores(attention, mask)
    assert scores[0, 3] == 0
    index = select_tokens(scores, mask, torch.tensor([[0, 0, 0, 0]]), keep=3)
    assert index.tolist() == [[0, 1, 2]]


def test_keep_counts_follow_one_minus_alpha_to_the_layer():
    assert [keep_count(400, 0.1, layer) for layer in range(1, 5)] == [360, 324, 291, 262]  # int(400 * 0.9^l)
    assert keep_count(400, 0.0, 3) == 400


def test_selection_keeps_protected_tokens_and_the_original_order():
    scores = torch.tensor([[0.0, 0.9, 0.1, 0.8, 0.0, 0.7]])
    protect = torch.tensor([[1, 0, 0, 0, 1, 0]])
    index = select_tokens(scores, torch.ones(1, 6), protect, keep=4)
    assert index.tolist() == [[0, 1, 3, 4]]


@pytest.mark.parametrize("alpha", [-0.1, 1.0])
def test_alpha_outside_zero_to_one_is_refused_with_the_profile_field(tiny_bert, alpha):
    with pytest.raises(ConfigError, match=f"alpha={alpha} .*match_ignition.alphas"):
        WordFilterClassifier(tiny_bert, alpha=alpha, protected_ids=[CLS, SEP])


def test_the_sequence_shrinks_layer_by_layer_and_the_mask_follows(tiny_bert):
    ids, mask = _batch()
    model = WordFilterClassifier(tiny_bert, alpha=0.3, protected_ids=[CLS, SEP])
    model.trace = []
    logits = model(input_ids=ids, attention_mask=mask).logits
    assert logits.shape == (2, 2)
    widths = [positions.shape[1] for positions in model.trace]
    assert widths == [keep_count(16, 0.3, layer) for layer in (1, 2, 3)] + [keep_count(16, 0.3, 3)]
    for positions in model.trace:
        assert torch.all(positions[:, 1:] > positions[:, :-1])  # original order
        kept_ids = ids.gather(1, positions)
        assert torch.isin(torch.tensor([CLS, SEP]), kept_ids[0]).all() and (kept_ids[0] == SEP).sum() == 3
        real = kept_ids[1][mask[1].gather(0, positions[1]).bool()]  # the gathered mask marks the kept real tokens
        assert len(real) == min(positions.shape[1], 7) and (real == SEP).sum() == 2 and real[0] == CLS


def test_alpha_zero_is_the_plain_classifier_and_the_step_by_step_layers_equal_hugging_face(tiny_bert, monkeypatch):
    ids, mask = _batch()
    plain = tiny_bert(input_ids=ids, attention_mask=mask).logits
    assert torch.equal(WordFilterClassifier(tiny_bert, 0.0, [CLS, SEP])(input_ids=ids, attention_mask=mask).logits,
                       plain)
    monkeypatch.setattr(word_filter, "keep_count", lambda padded, alpha, layer: padded)  # filter on, nothing dropped
    stepwise = WordFilterClassifier(tiny_bert, 0.2, [CLS, SEP])(input_ids=ids, attention_mask=mask).logits
    assert torch.allclose(stepwise, plain, atol=1e-5)
