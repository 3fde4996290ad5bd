"""The CDA paper's models (Zhou, Pappas & Smith, EMNLP 2020): a Siamese matcher (§3.1) whose one encoder reads A and
B, optional cross-document attention (`attention`: none, SHALLOW or DEEP) rewrites their vectors, and
[d̃_A ; d̃_B] → Linear → ReLU → Linear is the logit of "aligned".

Encoders (§3.2, §5.1, A.4.2: GRU-HAN, BERT-HAN, `PooledSentences`) work in two steps so that DEEP CDA can act
between them: `sentences(side)`, then `document(side, sentences)` → (document vector, the vectors CDA and alignment
use). Alignment (eq. 3-4) scores doc_a's sentences against d_b before CDA: softmax of vᵀd_b, and cos(v, d_b).

The released code's bugs are options: `mask_padding=False` (attention and GRUs read padding), `word_state=
"document"` (the word GRU runs over the whole document, carrying state across sentences) and `softmax_over_batch`
(SHALLOW's B-side weights normalised over the batch instead of the candidates).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..attention_pooling import AttentionPooling, mean_pooling
from ..support.errors import ConfigError
from .attention import CrossAttention, with_document

CDA_KINDS = ("none", "shallow", "deep")


@dataclass
class Side:
    """One side (all A documents or all B documents) of a batch."""

    sentence_mask: torch.Tensor  # [batch, sentences], 1 = real
    word_ids: torch.Tensor | None = None  # [batch, sentences, words] (GRU-HAN)
    word_mask: torch.Tensor | None = None  # [batch, sentences, words]
    sentence_vectors: torch.Tensor | None = None  # [batch, sentences, dim] (BERT: frozen inputs)
    words: torch.Tensor | None = None  # set by `sentences`: word vectors [batch, sentences * words, dim]

    def to(self, device: torch.device | str) -> "Side":
        """The same side with every tensor on `device` (the model's)."""
        return Side(*(None if value is None else value.to(device) for value in vars(self).values()))


def run_gru(gru: nn.GRU, inputs: torch.Tensor, mask: torch.Tensor, packed: bool = True) -> torch.Tensor:
    """A batch-first GRU over padded rows; `packed` skips the padding (the paper), else it reads it (the bug)."""
    lengths = mask.sum(-1)
    if not packed or bool((lengths == inputs.shape[1]).all()):
        return gru(inputs)[0]
    real = lengths > 0
    outputs = inputs.new_zeros(*inputs.shape[:2], gru.hidden_size * (2 if gru.bidirectional else 1))
    if real.any():
        sequence = nn.utils.rnn.pack_padded_sequence(inputs[real], lengths[real].cpu(), batch_first=True,
                                                     enforce_sorted=False)
        unpacked, _ = nn.utils.rnn.pad_packed_sequence(gru(sequence)[0], batch_first=True, total_length=inputs.shape[1])
        outputs[real] = unpacked
    return outputs


def _mask(mask: torch.Tensor, use: bool) -> torch.Tensor:
    return mask if use else torch.ones_like(mask)


class GRUHAN(nn.Module):
    """GRU-HAN: word embeddings (trained, random initial values) → word BiGRU → attention → sentence vectors →
    sentence BiGRU → attention → document vector. Hidden `hidden` per direction (paper: 50-d words, 50 hidden)."""

    def __init__(self, vocab_size: int, embedding_dim: int = 50, hidden: int = 50, mask_padding: bool = True,
                 word_state: str = "sentence"):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.word_gru = nn.GRU(embedding_dim, hidden, batch_first=True, bidirectional=True)
        self.word_attention = AttentionPooling(2 * hidden)
        self.sentence_gru = nn.GRU(2 * hidden, hidden, batch_first=True, bidirectional=True)
        self.sentence_attention = AttentionPooling(2 * hidden)
        self.dim, self.mask_padding, self.word_state = 2 * hidden, mask_padding, word_state

    def sentences(self, side: Side) -> torch.Tensor:
        batch, n_sentences, n_words = side.word_ids.shape
        embedded = self.embed(side.word_ids)
        if self.word_state == "document":  # the released code: one sequence per document
            flat = embedded.reshape(batch, n_sentences * n_words, -1)
            words = self.word_gru(flat)[0].reshape(batch * n_sentences, n_words, -1)
        else:
            words = run_gru(self.word_gru, embedded.reshape(batch * n_sentences, n_words, -1),
                            side.word_mask.reshape(-1, n_words), packed=self.mask_padding)
        vectors, _ = self.word_attention(words, _mask(side.word_mask.reshape(-1, n_words), self.mask_padding))
        side.words = words.reshape(batch, n_sentences * n_words, -1)
        return vectors.view(batch, n_sentences, -1)

    def document(self, side: Side, sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask = side.sentence_mask
        context = run_gru(self.sentence_gru, sentences, mask, packed=self.mask_padding)
        document, _ = self.sentence_attention(context, _mask(mask, self.mask_padding))
        return document, sentences


class FrozenSentences(nn.Module):
    """An encoder over given (frozen) sentence vectors of `dim` dimensions."""

    def __init__(self, dim: int, mask_padding: bool = True):
        super().__init__()
        self.dim, self.mask_padding = dim, mask_padding

    def sentences(self, side: Side) -> torch.Tensor:
        return side.sentence_vectors


class BertHAN(FrozenSentences):
    """BERT-HAN: frozen sentence vectors → two BiGRU layers → attention → document vector (Pappagari et al.'s
    hierarchy); CDA reads the first layer's outputs."""

    def __init__(self, input_dim: int, hidden: int = 128, mask_padding: bool = True):
        super().__init__(2 * hidden, mask_padding)
        self.first = nn.GRU(input_dim, hidden, batch_first=True, bidirectional=True)
        self.second = nn.GRU(2 * hidden, hidden, batch_first=True, bidirectional=True)
        self.attention = AttentionPooling(2 * hidden)

    def document(self, side: Side, sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask = side.sentence_mask
        first = run_gru(self.first, sentences, mask, packed=self.mask_padding)
        second = run_gru(self.second, first, mask, packed=self.mask_padding)
        document, _ = self.attention(second, _mask(mask, self.mask_padding))
        return document, first


class PooledSentences(FrozenSentences):
    """The frozen sentence vectors pooled into the document vector, no recurrence: AoSE's attention pooling
    (Abdaoui & Dutta 2023), or with `pooling="mean"` BERT-AVG's mean (no parameters)."""

    def __init__(self, input_dim: int, mask_padding: bool = True, pooling: str = "attention"):
        super().__init__(input_dim, mask_padding)
        self.attention = AttentionPooling(input_dim) if pooling == "attention" else None

    def document(self, side: Side, sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.attention is None:
            return mean_pooling(sentences, side.sentence_mask), sentences
        return self.attention(sentences, _mask(side.sentence_mask, self.mask_padding))[0], sentences


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
            new_a, _ = self.document_cda(doc_a.unsqueeze(1), *with_document(units_b, side_b.sentence_mask, doc_b))
            new_b, _ = self.document_cda(doc_b.unsqueeze(1), *with_document(units_a, side_a.sentence_mask, doc_a),
                                         softmax_dim=0 if self.softmax_over_batch else -1)
            features = torch.cat([new_a.squeeze(1), new_b.squeeze(1)], -1)
        else:
            features = torch.cat([doc_a, doc_b], -1)
        mask = side_a.sentence_mask.bool()
        scores = (units_a @ doc_b.unsqueeze(-1)).squeeze(-1).masked_fill(~mask, torch.finfo(doc_b.dtype).min)
        cosine = nn.functional.cosine_similarity(units_a, doc_b.unsqueeze(1), dim=-1).masked_fill(~mask, -2.0)
        return Output(self.classifier(features).squeeze(-1), scores.softmax(-1), cosine)
