"""AoSE (Abdaoui & Dutta 2023, §3.1): attention over sentence embeddings, then a dense layer; and its ablations,
the plain mean and the encoder alone (the paper's "S-Roberta": the same classifier over one vector, the first 512
tokens'). `DocumentClassifier` is all that trains in the frozen setting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
from torch import nn

from ..attention_pooling import AttentionPooling, mean_pooling
from ..support.errors import ConfigError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

POOLINGS = ("attention", "mean")


def pad_groups(groups: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """`[n_i, dim]` tensors -> `[batch, max n_i, dim]` (zero-padded) and the mask of real rows."""
    vectors = nn.utils.rnn.pad_sequence(list(groups), batch_first=True)
    lengths = torch.tensor([len(group) for group in groups], device=vectors.device)
    return vectors, torch.arange(vectors.shape[1], device=vectors.device)[None, :] < lengths[:, None]


class DocumentClassifier(nn.Module):
    """Sentence vectors `[batch, sentences, dim]` -> document vector v -> a dense layer to the labels."""

    def __init__(self, dim: int, n_labels: int, pooling: str = "attention", dropout: float = 0.1) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise ConfigError(f"DocumentClassifier: pooling={pooling!r} is not a pooling; use one of {POOLINGS} "
                              "(AoSE's attention, or the mean ablation)")
        self.pooling = AttentionPooling(dim) if pooling == "attention" else None
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(dim, n_labels)

    def forward(self, vectors: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(logits, α): α is None for mean pooling."""
        if self.pooling is None:
            document, alpha = mean_pooling(vectors, mask), None
        else:
            document, alpha = self.pooling(vectors, mask)
        return self.output(self.dropout(document)), alpha


class FineTunedClassifier(nn.Module):
    """A sentence transformer (trained too) embedding each document's segments, then a `DocumentClassifier`."""

    def __init__(self, encoder: "SentenceTransformer", head: DocumentClassifier, max_length: int) -> None:
        super().__init__()
        self.encoder, self.head, self.max_length = encoder, head, max_length

    def forward(self, documents: Sequence[Sequence[str]]) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(logits, α) for documents given as lists of segments."""
        flat = [segment for document in documents for segment in document]
        self.encoder.max_seq_length = self.max_length
        device = self.head.output.weight.device
        preprocess = getattr(self.encoder, "preprocess", None) or self.encoder.tokenize  # renamed in v6
        features = {key: value.to(device) if torch.is_tensor(value) else value
                    for key, value in preprocess(flat).items()}
        vectors = self.encoder(features)["sentence_embedding"]
        return self.head(*pad_groups(torch.split(vectors, [len(document) for document in documents])))
