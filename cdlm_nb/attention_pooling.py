"""Attention pooling with a trainable context vector, u_i = tanh(W x_i + b), α_i = softmax_i(u_iᵀ u_s), v = Σ_i α_i x_i:
AoSE's document layer (Abdaoui & Dutta 2023, eq. 1-3) and HAN's word and sentence layers (Yang et al. 2016)."""

from __future__ import annotations

import torch
from torch import nn


class AttentionPooling(nn.Module):
    """Pools `[batch, items, dim]` vectors into `[batch, dim]` with weights from a learned context vector."""

    def __init__(self, dim: int, attention_dim: int | None = None) -> None:
        super().__init__()
        self.project = nn.Linear(dim, attention_dim or dim)  # W_s, b_s
        self.context = nn.Parameter(torch.empty(attention_dim or dim))  # u_s
        nn.init.normal_(self.context, std=(attention_dim or dim) ** -0.5)

    def forward(self, vectors: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(v, α): the pooled vectors and the weights `[batch, items]`, 0 where `mask` is 0 (padding)."""
        scores = torch.tanh(self.project(vectors)) @ self.context
        alpha = scores.masked_fill(~mask.bool(), torch.finfo(scores.dtype).min).softmax(dim=-1)
        return torch.einsum("bi,bid->bd", alpha, vectors), alpha


def mean_pooling(vectors: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The mean of the unmasked vectors: the no-attention ablation (and sentence-transformers' token pooling)."""
    mask = mask.to(vectors.dtype).unsqueeze(-1)
    return (vectors * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
