"""One pair input of the matching classifier (CDLM paper §3.3; CDLM preprint (v1) §5.3, Appendix B.2):

    <s> <doc-s> DOC1 </doc-s> <doc-s> DOC2 </doc-s> </s>        (a BERT-like tokenizer: [CLS] DOC1 [SEP] DOC2 [SEP])

The documents share `max_length` (`cdlm_nb.inputs.share_room`: 2,047 tokens each at 4,096 in the paper), each
keeping its beginning; cuts are counted, never silent. The classification head reads `<s>`, which is global.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ..inputs import share_room
from ..support.errors import ConfigError
from ..tokenization import DOC_END, DOC_START, sequence_markers

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

#: "paper": the papers' inputs and masks; "local": the same inputs, no token global (an exercise: <s> then sees only
#: its window of document A); "released": the authors' released code: every sentence cut to 33 tokens, padding
#: attended, no global mask (the Longformer classifier then makes token 0 global; `training.collate`).
PROTOCOLS = ("paper", "local", "released")
RELEASED_SENTENCE_TOKENS = 33  # the released code's cut per sentence


class PairTemplate(NamedTuple):
    """The special ids around the two documents: start + doc1 + middle + doc2 + end."""

    start: tuple[int, ...]
    middle: tuple[int, ...]
    end: tuple[int, ...]


def pair_template(tokenizer: "PreTrainedTokenizerBase") -> PairTemplate:
    """CDLM's `<s> <doc-s> … </doc-s> <doc-s> … </doc-s> </s>` when the tokenizer has the document separators,
    else the BERT cross-encoder's `[CLS] … [SEP] … [SEP]`."""
    cls, sep = sequence_markers(tokenizer)
    if tokenizer.pad_token_id is None:
        raise ConfigError(f"tokenizer {type(tokenizer).__name__} has no padding token")
    vocab = tokenizer.get_vocab()
    if DOC_START in vocab and DOC_END in vocab:
        start, end = vocab[DOC_START], vocab[DOC_END]
        return PairTemplate((cls, start), (end, start), (end, sep))
    return PairTemplate((cls,), (sep,), (sep,))


@dataclass(frozen=True)
class MatchInput:
    input_ids: list[int]
    truncated_documents: int  # documents cut to their share of max_length (0, 1 or 2)


@dataclass
class EncodingStats:
    """What encoding a list of pairs cut, for the notebook's cost table."""

    pairs: int
    truncated_documents: int
    tokens_cut: int
    longest_pair: int  # tokens of the longest pair before cutting


def document_ids(sentences: Sequence[str], tokenizer: "PreTrainedTokenizerBase", protocol: str) -> list[int]:
    """A document's token ids: its sentences joined, or each cut to 33 tokens first ("released")."""
    if protocol not in PROTOCOLS:
        raise ConfigError(f"protocol={protocol!r} is unknown; use one of {PROTOCOLS}")
    if protocol != "released":
        return tokenizer(" ".join(sentences), add_special_tokens=False)["input_ids"]
    pieces = tokenizer(list(sentences), add_special_tokens=False)["input_ids"] if sentences else []
    return [token for piece in pieces for token in piece[:RELEASED_SENTENCE_TOKENS]]


def encode_pair(first: list[int], second: list[int], template: PairTemplate, max_length: int) -> MatchInput:
    """The pair input within `max_length` tokens; each document keeps its beginning."""
    room = max_length - sum(map(len, template))
    if room < 2:
        raise ConfigError(f"max_length={max_length} leaves no room for two documents")
    keep_first, keep_second = share_room(len(first), len(second), room)
    ids = [*template.start, *first[:keep_first], *template.middle, *second[:keep_second], *template.end]
    return MatchInput(ids, int(keep_first < len(first)) + int(keep_second < len(second)))


def encode_pairs(rows: Sequence[Mapping], tokenizer: "PreTrainedTokenizerBase", max_length: int,
                 protocol: str = "paper") -> tuple[list[MatchInput], EncodingStats]:
    """Every `PAIR_FEATURES` row as a `MatchInput`, and what the cuts cost."""
    template = pair_template(tokenizer)
    documents = [[document_ids(row[side], tokenizer, protocol) for side in ("doc_a", "doc_b")] for row in rows]
    inputs = [encode_pair(first, second, template, max_length) for first, second in documents]
    full = [len(first) + len(second) + sum(map(len, template)) for first, second in documents]
    return inputs, EncodingStats(len(inputs), sum(item.truncated_documents for item in inputs),
                                 sum(full) - sum(len(item.input_ids) for item in inputs), max(full, default=0))


def render_pair(item: MatchInput, tokenizer: "PreTrainedTokenizerBase", chars: int = 1500) -> str:
    """The input as the model reads it (first `chars` characters), the global first token in [brackets]."""
    tokens = tokenizer.convert_ids_to_tokens(item.input_ids)
    text = f"[{tokens[0]}] " + tokenizer.convert_tokens_to_string(tokens[1:])
    return text.replace("</doc-s> ", "</doc-s>\n")[:chars]
