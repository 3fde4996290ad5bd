"""The document encoders of the CDA paper (Zhou, Pappas & Smith, EMNLP 2020, §3.2, §5.1, Appendix A.4.2), each in
two steps so that DEEP cross-document attention can act between them:

- `sentences(side)`: word level → sentence vectors (GRU-HAN: word BiGRU + attention pooling; BERT: the frozen
  sentence vectors as given);
- `document(side, sentences)`: sentence level → (document vector, the sentence vectors CDA and alignment use).
  GRU-HAN: sentence BiGRU + attention pooling; CDA uses the sentence vectors *before* the sentence GRU (A.4.2).
  BERT-HAN: two BiGRU layers + attention pooling; CDA uses the first layer's outputs. BERT-AVG: the mean.

`Side` holds one document per row of a batch. The released code's two encoder bugs are options:
`mask_padding=False` lets attention and GRUs read padding; `word_state="document"` runs the word GRU over the
whole document as one sequence, so each sentence's word states carry over from the sentence before.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..attention_pooling import AttentionPooling, mean_pooling


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
        return Side(*(None if value is None else value.to(device) for value in
                      (self.sentence_mask, self.word_ids, self.word_mask, self.sentence_vectors, self.words)))


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
        unpacked, _ = nn.utils.rnn.pad_packed_sequence(gru(sequence)[0], batch_first=True,
                                                       total_length=inputs.shape[1])
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
        mask = _mask(side.word_mask.reshape(-1, n_words), self.mask_padding)
        vectors, _ = self.word_attention(words, mask)
        side.words = words.reshape(batch, n_sentences * n_words, -1)
        return vectors.view(batch, n_sentences, -1)

    def document(self, side: Side, sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask = side.sentence_mask
        context = run_gru(self.sentence_gru, sentences, mask, packed=self.mask_padding)
        document, _ = self.sentence_attention(context, _mask(mask, self.mask_padding))
        return document, sentences


class BertHAN(nn.Module):
    """BERT-HAN: frozen sentence vectors → two BiGRU layers → attention → document vector (Pappagari et al.'s
    hierarchy); CDA reads the first layer's outputs."""

    def __init__(self, input_dim: int, hidden: int = 128, mask_padding: bool = True):
        super().__init__()
        self.first = nn.GRU(input_dim, hidden, batch_first=True, bidirectional=True)
        self.second = nn.GRU(2 * hidden, hidden, batch_first=True, bidirectional=True)
        self.attention = AttentionPooling(2 * hidden)
        self.dim, self.mask_padding = 2 * hidden, mask_padding

    def sentences(self, side: Side) -> torch.Tensor:
        return side.sentence_vectors

    def document(self, side: Side, sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask = side.sentence_mask
        first = run_gru(self.first, sentences, mask, packed=self.mask_padding)
        second = run_gru(self.second, first, mask, packed=self.mask_padding)
        document, _ = self.attention(second, _mask(mask, self.mask_padding))
        return document, first


class BertAVG(nn.Module):
    """BERT-AVG: the document vector is the mean of its frozen sentence vectors (no parameters, no attention)."""

    def __init__(self, input_dim: int):
        super().__init__()
        self.dim = input_dim

    def sentences(self, side: Side) -> torch.Tensor:
        return side.sentence_vectors

    def document(self, side: Side, sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return mean_pooling(sentences, side.sentence_mask), sentences


class PooledSentences(nn.Module):
    """AoSE's document layer (Abdaoui & Dutta 2023) as a Siamese encoder: attention pooling over the frozen
    sentence vectors, no recurrence."""

    def __init__(self, input_dim: int, mask_padding: bool = True):
        super().__init__()
        self.attention = AttentionPooling(input_dim)
        self.dim, self.mask_padding = input_dim, mask_padding

    def sentences(self, side: Side) -> torch.Tensor:
        return side.sentence_vectors

    def document(self, side: Side, sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        document, _ = self.attention(sentences, _mask(side.sentence_mask, self.mask_padding))
        return document, sentences
