"""The pairwise scorer (CDLM paper §3.2): a Longformer encoder and an MLP over [s; m_i; m_j; m_i ∘ m_j] giving one
coreference logit (s = the `<s>` vector, a mention = the SUM of its token vectors), trained with BCE."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..support.errors import ConfigError

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


class PairScorer(nn.Module):
    """Longformer encoder + MLP over [s; m_i; m_j; m_i ∘ m_j] -> one coreference logit."""

    def __init__(self, encoder: nn.Module, hidden_sizes: Sequence[int] = (1024,), activation: str = "tanh",
                 dropout: float = 0.1):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ConfigError(f"activation={activation!r} is unknown; use one of {sorted(ACTIVATIONS)}")
        self.encoder = encoder
        layers: list[nn.Module] = []
        width = 4 * encoder.config.hidden_size
        for size in hidden_sizes:
            layers += [nn.Dropout(dropout), nn.Linear(width, size), ACTIVATIONS[activation]()]
            width = size
        self.mlp = nn.Sequential(*layers, nn.Dropout(dropout), nn.Linear(width, 1))

    def pair_vectors(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, global_attention_mask: torch.Tensor,
                     first_mask: torch.Tensor, second_mask: torch.Tensor) -> torch.Tensor:
        """[s; m_i; m_j; m_i ∘ m_j]: the <s> vector and the summed token vectors of each mention."""
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              global_attention_mask=global_attention_mask).last_hidden_state
        first = torch.einsum("bl,bld->bd", first_mask.to(hidden.dtype), hidden)
        second = torch.einsum("bl,bld->bd", second_mask.to(hidden.dtype), hidden)
        return torch.cat([hidden[:, 0], first, second, first * second], dim=-1)

    def forward(self, **batch: torch.Tensor) -> torch.Tensor:
        """One logit per pair of the batch (the keys of `training.collate`)."""
        return self.mlp(self.pair_vectors(**batch)).squeeze(-1)


def build_pair_scorer(encoder: nn.Module, hidden_sizes: Sequence[int] = (1024,), activation: str = "tanh",
                      dropout: float = 0.1) -> PairScorer:
    """The scorer on a Longformer encoder (a masked-LM model reduced to its base): the CDLM paper's one hidden layer
    of 1024 with tanh, or the released code's 3072 -> 768 -> 128 -> 1 with `hidden_sizes=(768, 128), "relu"`."""
    return PairScorer(getattr(encoder, "base_model", encoder), hidden_sizes, activation, dropout)
