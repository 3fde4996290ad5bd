"""The Siamese matcher of the CDA paper (§3.1): one encoder reads A and B, optional cross-document attention
(none, SHALLOW or DEEP) rewrites their vectors, and [d̃_A ; d̃_B] → Linear → ReLU → Linear gives the logit of
"A and B are aligned" (sigmoid, binary cross-entropy).

Sentence-to-document alignment (eq. 3-4) is read off the same forward pass: the sentences of `doc_a` (the
document whose sentences are ranked: S2ORC's citing section, PAN's suspicious text; the paper calls it B in eq. 3)
are scored against the document vector of `doc_b` before CDA rewrites it: attention alignment is the softmax of
vᵀd_b over doc_a's sentences (exactly the SHALLOW weights of eq. 2, minus the document candidate), cosine alignment
is cos(v, d_b).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..errors import ConfigError
from .attention import CrossAttention, with_document
from .han import Side

CDA_KINDS = ("none", "shallow", "deep")


@dataclass
class Output:
    """Logits and the sentence alignment scores of doc_a's sentences (padding: -inf / 0 weight)."""

    logits: torch.Tensor  # [batch]
    attention_alignment: torch.Tensor  # [batch, sentences of doc_a]
    cosine_alignment: torch.Tensor  # [batch, sentences of doc_a]


class SiameseCDA(nn.Module):
    """Encoder + CDA + similarity network. `softmax_over_batch` is the released code's SHALLOW bug (B side)."""

    def __init__(self, encoder: nn.Module, cda: str = "none", combine: str = "concat", hidden: int = 128,
                 softmax_over_batch: bool = False):
        super().__init__()
        if cda not in CDA_KINDS:
            raise ConfigError(f"SiameseCDA: cda={cda!r} is not a CDA kind; use one of {CDA_KINDS} (a model name's "
                              "suffix in the profile's cda.models, e.g. gru_han_deep)")
        if cda == "deep" and not hasattr(encoder, "word_gru"):
            raise ConfigError("SiameseCDA: DEEP CDA needs word vectors: GRU-HAN only (BERT-HAN reads sentence "
                              "vectors); in the profile's cda.models use gru_han_deep, or *_shallow for BERT-HAN")
        self.encoder, self.cda, self.softmax_over_batch = encoder, cda, softmax_over_batch
        dim = encoder.dim
        self.document_cda = CrossAttention(dim, combine) if cda != "none" else None
        self.sentence_cda = CrossAttention(dim, combine) if cda == "deep" else None
        self.classifier = nn.Sequential(nn.Linear(2 * dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def _deep(self, sentences: torch.Tensor, own: Side, other: Side, other_sentences: torch.Tensor) -> torch.Tensor:
        """Each sentence vector attends over the other document's word and sentence vectors."""
        candidates = torch.cat([other.words, other_sentences], 1)
        mask = torch.cat([other.word_mask.flatten(1), other.sentence_mask], 1)
        updated, _ = self.sentence_cda(sentences, candidates, mask)
        return torch.where(own.sentence_mask.bool().unsqueeze(-1), updated, sentences)

    def forward(self, side_a: Side, side_b: Side) -> Output:
        sentences_a, sentences_b = self.encoder.sentences(side_a), self.encoder.sentences(side_b)
        if self.cda == "deep":
            sentences_a, sentences_b = (self._deep(sentences_a, side_a, side_b, sentences_b),
                                        self._deep(sentences_b, side_b, side_a, sentences_a))
        doc_a, units_a = self.encoder.document(side_a, sentences_a)
        doc_b, units_b = self.encoder.document(side_b, sentences_b)
        if self.document_cda is not None:
            candidates_b, mask_b = with_document(units_b, side_b.sentence_mask, doc_b)
            candidates_a, mask_a = with_document(units_a, side_a.sentence_mask, doc_a)
            new_a, _ = self.document_cda(doc_a.unsqueeze(1), candidates_b, mask_b)
            new_b, _ = self.document_cda(doc_b.unsqueeze(1), candidates_a, mask_a,
                                         softmax_dim=0 if self.softmax_over_batch else -1)
            features = torch.cat([new_a.squeeze(1), new_b.squeeze(1)], -1)
        else:
            features = torch.cat([doc_a, doc_b], -1)
        mask = side_a.sentence_mask.bool()
        scores = (units_a @ doc_b.unsqueeze(-1)).squeeze(-1).masked_fill(~mask, torch.finfo(doc_b.dtype).min)
        cosine = nn.functional.cosine_similarity(units_a, doc_b.unsqueeze(1), dim=-1).masked_fill(~mask, -2.0)
        return Output(self.classifier(features).squeeze(-1), scores.softmax(-1), cosine)
