"""Match-Ignition's word-level filter (Pang, Lan & Cheng 2021, §3.2) around Hugging Face's BERT layers.

After layer l (l = 1 … L−1): A = the layer's attention probabilities averaged over heads (rows: queries);
PageRank r ← d·Aᵀr + (1 − d)/n over the n real tokens, from r = 1/n, for T iterations (20, as the authors' code;
the paper leaves T unstated); token score = A r (the paper's "redistribution" to the next layer); keep the
⌊N·(1 − α)^l⌋ best tokens in their original order, N = the batch's padded input length (the authors' code pads
every input to 400). The paper prints the keep size as "(α)^{l−1}·N", a typo for (1 − α)^l·N. Protected tokens
([CLS], [SEP]) always stay; hidden states, attention mask and protection mask are gathered, so the sequence shrinks.
At α = 0 nothing is dropped and the model is the plain encoder (eager attention at every α, `fast_dropout`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn
from transformers.modeling_outputs import SequenceClassifierOutput

from .. import fast_dropout
from ..support.errors import ConfigError
from .sentence_filter import DAMPING

ITERATIONS = 20
_PROTECTED_BONUS = 1e4  # larger than any PageRank score (they sum to 1)


def keep_count(padded_length: int, alpha: float, layer: int) -> int:
    """Tokens kept after layer `layer` (1-based): ⌊N (1 − α)^l⌋."""
    return int(padded_length * (1.0 - alpha) ** layer)


@torch.no_grad()  # the scores only choose which tokens stay: no gradient flows through a choice
def pagerank_scores(attention: torch.Tensor, mask: torch.Tensor, damping: float = DAMPING,
                    iterations: int = ITERATIONS) -> torch.Tensor:
    """`[batch, n]` token scores A·r from head-averaged attention `[batch, n, n]` and the padding mask `[batch, n]`."""
    mask = mask.to(attention.dtype)
    graph = attention * mask[:, :, None] * mask[:, None, :]  # no walk through padding
    real = mask.sum(dim=1, keepdim=True).clamp(min=1.0)
    rank = mask / real
    for _ in range(iterations):
        rank = damping * torch.einsum("bij,bi->bj", graph, rank) + (1.0 - damping) * mask / real
    return torch.einsum("bij,bj->bi", graph, rank)


def select_tokens(scores: torch.Tensor, mask: torch.Tensor, protect: torch.Tensor, keep: int) -> torch.Tensor:
    """`[batch, keep]` indices of the kept tokens, ascending (original order): protected first, padding last."""
    ranked = (scores + protect.to(scores.dtype) * _PROTECTED_BONUS).masked_fill(~mask.bool(), float("-inf"))
    return ranked.topk(keep, dim=1).indices.sort(dim=1).values


def _gather(tensor: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return tensor.gather(1, index if tensor.dim() == 2 else index[:, :, None].expand(-1, -1, tensor.shape[-1]))


def _layer_forward(layer: nn.Module, hidden: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A `BertLayer`'s own forward, step by step, returning its attention probabilities too (eager attention)."""
    additive = (1.0 - mask[:, None, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
    attended, probabilities = layer.attention.self(hidden, additive)
    return layer.feed_forward_chunk(layer.attention.output(attended, hidden)), probabilities


class WordFilterClassifier(nn.Module):
    """A `BertForSequenceClassification` whose sequence shrinks by PageRank after every layer but the last, called
    like the classifier (notebook 05's loops run it unchanged); tokens with an id in `protected_ids` always stay. A
    list in `trace` records the original positions surviving each layer (`[batch, kept]`, for the heat strip)."""

    def __init__(self, classifier: nn.Module, alpha: float, protected_ids: Sequence[int]) -> None:
        super().__init__()
        if not 0.0 <= alpha < 1.0:
            raise ConfigError(f"WordFilterClassifier: alpha={alpha} is not a word reduction ratio; give one in [0, 1) "
                              "(the profile's match_ignition.alphas / ablation_alpha: 0.1 drops 10 % per layer)")
        self.classifier, self.alpha = classifier, alpha
        self.register_buffer("protected_ids", torch.tensor(list(protected_ids)), persistent=False)
        self.trace: list[torch.Tensor] | None = None
        # the filter needs the probabilities, and α = 0 runs the same eager attention so that speed-ups measure the
        # filter alone (on CPU, sdpa with dropout is slower than eager); with the CPU's faster dropout masks
        fast_dropout.apply(classifier)

    @property
    def config(self):
        return self.classifier.config

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **_) -> SequenceClassifierOutput:
        if self.alpha == 0:  # no token is ever dropped: the plain encoder (and its fastest attention)
            return self.classifier(input_ids=input_ids, attention_mask=attention_mask)
        bert = self.classifier.bert
        hidden = bert.embeddings(input_ids=input_ids)
        mask, padded = attention_mask, input_ids.shape[1]
        protect = torch.isin(input_ids, self.protected_ids)
        positions = torch.arange(padded, device=input_ids.device).expand_as(input_ids)
        layers = bert.encoder.layer
        for number, layer in enumerate(layers, start=1):
            hidden, probabilities = _layer_forward(layer, hidden, mask)
            keep = keep_count(padded, self.alpha, number)
            if number < len(layers) and keep < hidden.shape[1]:
                scores = pagerank_scores(probabilities.mean(dim=1), mask)
                index = select_tokens(scores, mask, protect, max(keep, 1))
                hidden, mask, protect, positions = (_gather(t, index) for t in (hidden, mask, protect, positions))
            if self.trace is not None:
                self.trace.append(positions.detach())
        logits = self.classifier.classifier(self.classifier.dropout(bert.pooler(hidden)))
        return SequenceClassifierOutput(logits=logits)
