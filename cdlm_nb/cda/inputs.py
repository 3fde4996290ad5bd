"""What the CDA encoders read: word ids per sentence (GRU-HAN, a vocabulary of the training text) or frozen
sentence vectors (BERT-HAN, BERT-AVG), batched into `Side`s. Documents longer than `max_sentences` sentences,
or sentences longer than `max_words` words, are cut, and the cuts are counted; gold sentences past the cut are
dropped from the S2D gold (counted too)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from ..sentence_encoders import embed
from .model import Side

PAD, UNK = 0, 1
_WORD = re.compile(r"\w+|[^\w\s]")


def words(sentence: str) -> list[str]:
    """Lower-cased word and punctuation tokens."""
    return _WORD.findall(sentence.lower())


@dataclass(frozen=True)
class Vocabulary:
    """Word → id for GRU-HAN (0 padding, 1 unknown), from the training documents."""

    ids: dict[str, int]

    @classmethod
    def build(cls, rows: Sequence[Mapping], max_size: int) -> "Vocabulary":
        counts = Counter(w for row in rows for side in ("doc_a", "doc_b") for s in row[side] for w in words(s))
        return cls({word: i + 2 for i, (word, _) in enumerate(counts.most_common(max_size - 2))})

    def __len__(self) -> int:
        return len(self.ids) + 2

    def encode(self, sentence: str, max_words: int) -> list[int]:
        return [self.ids.get(w, UNK) for w in words(sentence)[:max_words]] or [UNK]


@dataclass
class Cuts:
    """What the length limits removed."""

    sentences: int = 0
    words: int = 0
    gold: int = 0

    def summary(self) -> str:
        return f"cut: {self.sentences} sentences, {self.words} words, {self.gold} gold sentences"


@dataclass
class PairSet:
    """A split's pairs as the encoders read them: per pair the two documents and the S2D gold of doc_a."""

    docs_a: list = field(default_factory=list)  # per pair: list of word-id lists, or [sentences, dim] array
    docs_b: list = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    gold: list[list[int]] = field(default_factory=list)
    cuts: Cuts = field(default_factory=Cuts)

    def __len__(self) -> int:
        return len(self.labels)

    def with_gold(self) -> list[int]:
        """The pairs with gold sentences left after the cut (those S2D can rank)."""
        return [i for i, gold in enumerate(self.gold) if gold]


def _pairs(rows: Sequence[Mapping], max_sentences: int, encode: Callable[[list[str], Cuts], object]) -> PairSet:
    """Each document's first `max_sentences` sentences through `encode`, and doc_a's gold within them."""
    pairs = PairSet()
    for row in rows:
        for side, target in (("doc_a", pairs.docs_a), ("doc_b", pairs.docs_b)):
            pairs.cuts.sentences += max(len(row[side]) - max_sentences, 0)
            target.append(encode(row[side][:max_sentences], pairs.cuts))
        gold = [i for i in row["positive_sentences"] if i < max_sentences]
        pairs.cuts.gold += len(row["positive_sentences"]) - len(gold)
        pairs.labels.append(int(row["label"]))
        pairs.gold.append(gold)
    return pairs


def word_pairs(rows: Sequence[Mapping], vocabulary: Vocabulary, max_sentences: int, max_words: int) -> PairSet:
    """GRU-HAN inputs: each document as word ids per sentence, cut at the limits."""
    def encode(sentences: list[str], cuts: Cuts) -> list[list[int]]:
        cuts.words += sum(max(len(words(s)) - max_words, 0) for s in sentences)
        return [vocabulary.encode(s, max_words) for s in sentences]

    return _pairs(rows, max_sentences, encode)


def vector_pairs(rows: Sequence[Mapping], vectors: Mapping[str, np.ndarray], max_sentences: int) -> PairSet:
    """BERT inputs: each document as its sentences' frozen vectors (looked up by sentence text), cut at the limit."""
    return _pairs(rows, max_sentences, lambda sentences, _: np.stack([vectors[s] for s in sentences]))


def side(documents: Sequence) -> Side:
    """A batch side from word-id documents (lists of lists) or vector documents (arrays), zero-padded."""
    lengths = torch.tensor([len(doc) for doc in documents])
    sentence_mask = (torch.arange(int(lengths.max()))[None] < lengths[:, None]).long()
    if isinstance(documents[0], np.ndarray):
        vectors = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(doc) for doc in documents], batch_first=True)
        return Side(sentence_mask, sentence_vectors=vectors.float())
    ids = torch.zeros(*sentence_mask.shape, max(len(s) for doc in documents for s in doc), dtype=torch.long)
    for i, doc in enumerate(documents):
        for j, sentence in enumerate(doc):
            ids[i, j, :len(sentence)] = torch.tensor(sentence)
    return Side(sentence_mask, word_ids=ids, word_mask=(ids != PAD).long())


def sentence_vectors(encoder, rows: Sequence[Mapping], max_length: int, cache_dir=None,
                     include_padding: bool = False) -> dict[str, np.ndarray]:
    """Frozen vectors of every distinct sentence of `rows`: the sentence transformer's own (mean of the token
    vectors without padding, normalised; cached, shared with notebooks 08 and 11), or with `include_padding`
    the released code's bug: the mean over every position of inputs padded to `max_length`, normalised."""
    texts = sorted({s for row in rows for part in ("doc_a", "doc_b") for s in row[part]})
    if not include_padding:
        return dict(zip(texts, embed(encoder, texts, max_length, cache_dir=cache_dir, name="minilm-sentences").numpy()))
    model, means = encoder[0].auto_model, []
    for start in range(0, len(texts), 64):
        batch = encoder.tokenizer(texts[start:start + 64], padding="max_length", truncation=True, max_length=max_length,
                                  return_tensors="pt").to(model.device)  # the encoder may sit on the GPU
        with torch.inference_mode():
            means.append(torch.nn.functional.normalize(model(**batch).last_hidden_state.mean(1), dim=-1).cpu())
    return dict(zip(texts, torch.cat(means).numpy()))
