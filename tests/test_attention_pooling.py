"""The shared attention pooling (AoSE eq. 1-3, HAN) and the mean ablation."""

import torch

from cdlm_nb.attention_pooling import AttentionPooling, mean_pooling


def test_weights_follow_the_equations_and_ignore_padding():
    torch.manual_seed(0)
    layer = AttentionPooling(4, attention_dim=3)
    vectors = torch.randn(2, 5, 4)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    pooled, alpha = layer(vectors, mask)

    u = torch.tanh(vectors[0, :3] @ layer.project.weight.T + layer.project.bias)
    expected = torch.softmax(u @ layer.context, dim=0)
    assert torch.allclose(alpha[0, :3], expected, atol=1e-6)
    assert torch.all(alpha[0, 3:] == 0)
    assert torch.allclose(alpha.sum(dim=1), torch.ones(2))
    assert torch.allclose(pooled[0], (expected[:, None] * vectors[0, :3]).sum(dim=0), atol=1e-6)


def test_padding_values_do_not_change_the_result():
    torch.manual_seed(0)
    layer = AttentionPooling(4)
    vectors = torch.randn(1, 3, 4)
    mask = torch.tensor([[1, 1, 0]])
    changed = vectors.clone()
    changed[0, 2] = 100.0
    assert torch.allclose(layer(vectors, mask)[0], layer(changed, mask)[0])
    assert torch.allclose(mean_pooling(vectors, mask), mean_pooling(changed, mask))
    assert torch.allclose(mean_pooling(vectors, mask)[0], vectors[0, :2].mean(dim=0))


def test_the_context_vector_learns():
    layer = AttentionPooling(4)
    pooled, _ = layer(torch.randn(2, 3, 4), torch.ones(2, 3))
    pooled.sum().backward()
    assert layer.context.grad is not None and layer.context.grad.abs().sum() > 0
