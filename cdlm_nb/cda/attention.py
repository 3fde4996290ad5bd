"""Cross-document attention (the CDA paper, eq. 2): a vector of one document attends over candidate vectors of the
other and is replaced by an affine map of [itself ; the attended mix] (or of their sum: the Table 10 ablation).

    x̃ = affine([x ; Σ_{v∈C} softmax_v(vᵀx) v])

SHALLOW: x = d_A, C = B's sentence vectors ∪ {d_B} (and the other way round). DEEP (GRU-HAN only) adds, before the
sentence GRU, the same layer (own parameters) for every sentence vector of A with C = B's word and sentence vectors.
"""

from __future__ import annotations

import torch
from torch import nn

from ..support.errors import ConfigError


class CrossAttention(nn.Module):
    """One CDA layer: x̃ = affine([x ; Σ softmax(vᵀx) v]) (or affine(x + Σ ...) with `combine="add"`)."""

    def __init__(self, dim: int, combine: str = "concat"):
        super().__init__()
        if combine not in ("concat", "add"):
            raise ConfigError(f"CrossAttention: combine={combine!r} is not a combination; use 'concat' or 'add' "
                              "(a model name ending in _add in the profile's cda.models)")
        self.affine = nn.Linear(2 * dim if combine == "concat" else dim, dim)
        self.combine = combine

    def forward(self, queries: torch.Tensor, candidates: torch.Tensor, mask: torch.Tensor,
                softmax_dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
        """(x̃ `[batch, q, dim]`, weights `[batch, q, c]`) for queries `[batch, q, dim]` over candidates `[batch, c,
        dim]`; masked candidates get no weight (unless the softmax runs over the batch: the bug)."""
        scores = queries @ candidates.transpose(1, 2)
        if softmax_dim == -1:
            scores = scores.masked_fill(~mask.bool().unsqueeze(1), torch.finfo(scores.dtype).min)
        weights = scores.softmax(dim=softmax_dim)
        attended = weights @ candidates
        joined = torch.cat([queries, attended], -1) if self.combine == "concat" else queries + attended
        return self.affine(joined), weights


def with_document(sentences: torch.Tensor, mask: torch.Tensor, document: torch.Tensor
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """The SHALLOW candidate set: a document's sentence vectors and its document vector, with their mask."""
    return (torch.cat([sentences, document.unsqueeze(1)], 1), torch.cat([mask, mask.new_ones(mask.shape[0], 1)], 1))
