"""fast_dropout: PyTorch's dropout (rate p, survivors scaled by 1 / (1 - p)) from faster draws, and Hugging Face's
eager attention with it."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from transformers import BertConfig, BertForSequenceClassification
from transformers.models.bert.modeling_bert import eager_attention_forward

from cdlm_nb import fast_dropout


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_zeroes_at_the_rate_and_scales_the_rest(p):
    torch.manual_seed(0)
    x = torch.rand(2_000, 500) + 0.5  # no zeros of its own
    out = fast_dropout.dropout(x, p)
    zeroed = out == 0
    assert abs(zeroed.float().mean().item() - p) < 0.005  # 1 M decisions: the standard error is below 0.0005
    torch.testing.assert_close(out[~zeroed], x[~zeroed] / (1 - p))


def test_gradients_flow_through_the_kept_entries_only_with_the_same_scale():
    torch.manual_seed(0)
    x = torch.rand(300, 300, requires_grad=True)
    out = fast_dropout.dropout(x, 0.2)
    out.sum().backward()
    torch.testing.assert_close(x.grad, (out != 0).float() / 0.8)


def test_without_training_or_rate_it_is_the_identity():
    x = torch.rand(10, 10)
    assert torch.equal(fast_dropout.dropout(x, 0.3, training=False), x)
    assert torch.equal(fast_dropout.dropout(x, 0.0), x)
    assert torch.equal(fast_dropout.Dropout(0.3).eval()(x), x)


def test_eager_attention_equals_hugging_faces_without_dropout():
    torch.manual_seed(0)
    query, key, value = (torch.randn(2, 3, 7, 4) for _ in range(3))
    mask = torch.zeros(2, 1, 1, 7)
    mask[1, ..., 5:] = torch.finfo(torch.float32).min
    module = nn.Module().eval()
    ours = fast_dropout.eager_attention(module, query, key, value, mask, None, 0.1)
    theirs = eager_attention_forward(module, query, key, value, mask, None, 0.1)
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b)


def test_apply_swaps_every_dropout_and_keeps_the_models_function():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32, num_labels=2)
    model = BertForSequenceClassification(config).eval()
    model.set_attn_implementation("eager")
    ids = torch.randint(0, 50, (2, 9))
    before = model(input_ids=ids, output_attentions=True)
    fast_dropout.apply(model)
    assert model.config._attn_implementation == fast_dropout.ATTENTION
    dropouts = [m for m in model.modules() if isinstance(m, nn.Dropout)]
    assert dropouts and all(type(m) is fast_dropout.Dropout for m in dropouts)
    after = model(input_ids=ids, output_attentions=True)
    torch.testing.assert_close(after.logits, before.logits)
    torch.testing.assert_close(after.attentions[0], before.attentions[0])
    model.train()  # with dropout the attention probabilities are dropped at the configured rate
    probabilities = model(input_ids=torch.randint(0, 50, (64, 32)), output_attentions=True).attentions[0]
    assert abs((probabilities == 0).float().mean().item() - config.attention_probs_dropout_prob) < 0.01
