"""PyTorch's dropout on the CPU with `attention_dropout.dropped`'s decisions (faster than `bernoulli_`). `apply(model)`
swaps each `nn.Dropout` and sets its attention to Hugging Face's eager one (returning the probabilities Match-Ignition's
word filter reads) with this dropout, registered by `apply`, not on import."""

from __future__ import annotations

import torch
from torch import nn

from .attention_dropout import dropped

ATTENTION = "eager_fast_dropout"  # the name registered with transformers' AttentionInterface


def dropout(x: torch.Tensor, p: float, training: bool = True) -> torch.Tensor:
    """`nn.functional.dropout(x, p, training)`, with the CPU's decisions from `dropped` (p to 2^-16)."""
    if not training or p == 0.0 or x.device.type != "cpu":
        return nn.functional.dropout(x, p, training)
    return x.masked_fill(dropped(tuple(x.shape), p), 0.0) * (1.0 / (1.0 - p))


class Dropout(nn.Dropout):
    """`nn.Dropout` through `dropout`."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return dropout(x, self.p, self.training)


def eager_attention(module: nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                    attention_mask: torch.Tensor | None, scaling: float | None = None, dropout_p: float = 0.0,
                    **_) -> tuple[torch.Tensor, torch.Tensor]:
    """Hugging Face's eager attention (`modeling_bert.eager_attention_forward`) with `dropout`: softmax(QKᵀ·s + mask)
    dropped, times V; returns the output [batch, tokens, heads, dim] and the (dropped) probabilities."""
    scores = torch.matmul(query, key.transpose(2, 3)) * (query.size(-1) ** -0.5 if scaling is None else scaling)
    if attention_mask is not None:
        scores = scores + attention_mask
    probabilities = dropout(nn.functional.softmax(scores, dim=-1), dropout_p, module.training)
    return torch.matmul(probabilities, value).transpose(1, 2).contiguous(), probabilities


def _registered(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    # transformers passes the rate as `dropout`, which would shadow the function of that name in `eager_attention`
    return eager_attention(module, query, key, value, attention_mask, scaling, dropout, **kwargs)


def register() -> None:
    """Register `ATTENTION` with transformers' (process-wide) attention and mask registries; idempotent."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(ATTENTION, _registered)
    AttentionMaskInterface.register(ATTENTION, eager_mask)  # the additive mask eager attention reads (not sdpa's)


def apply(model: nn.Module) -> nn.Module:
    """Every `nn.Dropout` of `model` swapped for `Dropout` (same p), and its attention set to `ATTENTION`."""
    register()
    for parent in list(model.modules()):
        for name, child in parent.named_children():
            if type(child) is nn.Dropout:
                setattr(parent, name, Dropout(child.p).train(child.training))
    model.set_attn_implementation(ATTENTION)
    return model
