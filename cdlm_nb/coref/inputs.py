"""One pair input of the cross-encoder (CDLM paper §3.2; CDLM preprint (v1) §5.2, Appendix B.1):

    <s> <doc-s> DOC1 (… <m> mention i </m> …) </doc-s> <doc-s> DOC2 (… <m> mention j </m> …) </doc-s> </s>

Both whole documents (a within-document pair: its one document) share the length (`cdlm_nb.inputs.share_room`); a
longer one is cut, counted, to a window centred on its mention. Global attention: `<s>`, the markers and the mention
tokens. The "sentences only" ablation (Table 3) keeps the mentions' sentences, as sentence-based prior work did."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..encoders import max_input_length
from ..inputs import share_room, window_start
from ..support.errors import ConfigError, DataError
from ..tokenization import add_marker_tokens, document_separator_ids, sequence_markers
from .mentions import Mention, MentionPair, WordIds, collect_mentions, group_mentions, tokenize_documents
from .pairs import candidate_pairs

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

MENTION_MARKERS = ("<m>", "</m>")
CONTEXTS = ("document", "sentences")  # full documents (CDLM) or only the mentions' sentences (the ablation)
SPECIAL_TOKENS_PER_PAIR = 6  # <s>, </s> and <doc-s>/</doc-s> around each of two documents


@dataclass(frozen=True)
class SpecialIds:
    """The ids a pair input is built from."""

    cls: int
    sep: int
    pad: int
    doc_start: int
    doc_end: int
    mention_start: int
    mention_end: int


def add_mention_markers(tokenizer: "PreTrainedTokenizerBase", model: "PreTrainedModel | None" = None) -> SpecialIds:
    """Add `<m>`/`</m>` (if missing; new embeddings at random) and return the ids; `<doc-s>`/`</doc-s>` must exist."""
    mention_start, mention_end = add_marker_tokens(tokenizer, MENTION_MARKERS, model)
    doc_start, doc_end = document_separator_ids(tokenizer)
    cls, sep = sequence_markers(tokenizer)
    if tokenizer.pad_token_id is None:
        raise ConfigError(f"tokenizer {type(tokenizer).__name__} has no padding token")
    return SpecialIds(cls, sep, tokenizer.pad_token_id, doc_start, doc_end, mention_start, mention_end)


@dataclass(frozen=True)
class PairInput:
    """One encoded pair: token ids plus the positions the model reads."""

    input_ids: list[int]
    global_positions: list[int]  # <s>, <m>, </m> and the mention tokens
    first_positions: list[int]  # tokens of mention i (summed into m_i)
    second_positions: list[int]  # tokens of mention j
    truncated_documents: int  # documents cut to a window around their mention(s)
    split_document: bool  # a within-document pair whose mentions do not fit one window: two windows instead


@dataclass
class _Segment:
    """One `<doc-s> … </doc-s>` segment body: ids, and positions within it."""

    ids: list[int]
    mentions: dict[str, list[int]]  # mention_id -> token positions
    markers: list[int]  # positions of <m> and </m>
    truncated: bool = False


def _marked_document(documents: Mapping[str, WordIds], mentions: Sequence[Mention], special: SpecialIds,
                     context: str) -> _Segment:
    """The document of `mentions` (whole, or their sentences only), `<m>` before and `</m>` after each mention."""
    if mentions[0].doc_id not in documents:
        raise DataError(f"mention {mentions[0].mention_id!r} refers to document {mentions[0].doc_id!r}, which was "
                        "not tokenised")
    words = documents[mentions[0].doc_id]
    part = _Segment(ids=[], mentions={m.mention_id: [] for m in mentions}, markers=[])

    def close(sentence: int, word: int) -> None:
        for m in sorted(mentions, key=lambda m: -m.start):  # inner mentions close first
            if m.sentence == sentence and m.end == word:
                part.markers.append(len(part.ids))
                part.ids.append(special.mention_end)

    for sentence in range(len(words)) if context == "document" else sorted({m.sentence for m in mentions}):
        for word, word_ids in enumerate(words[sentence]):
            close(sentence, word)
            for m in sorted(mentions, key=lambda m: -m.end):  # outer mentions open first
                if m.sentence == sentence and m.start == word:
                    part.markers.append(len(part.ids))
                    part.ids.append(special.mention_start)
            for m in mentions:
                if m.sentence == sentence and m.start <= word < m.end:
                    part.mentions[m.mention_id].extend(range(len(part.ids), len(part.ids) + len(word_ids)))
            part.ids.extend(word_ids)
        close(sentence, len(words[sentence]))
    return part


def _cut_to_window(part: _Segment, budget: int) -> _Segment | None:
    """`part` cut to `budget` tokens centred on its marked mentions; None if the mentions alone do not fit."""
    start = window_start(len(part.ids), part.markers, budget)
    if start is None:
        return None
    if len(part.ids) <= budget:
        return part
    return _Segment(part.ids[start:start + budget], {k: [p - start for p in v] for k, v in part.mentions.items()},
                    [p - start for p in part.markers], truncated=True)


def build_pair_input(pair: MentionPair, documents: Mapping[str, WordIds], special: SpecialIds, max_length: int,
                     context: str = "document") -> PairInput:
    """`<s> <doc-s> DOC1 </doc-s> [<doc-s> DOC2 </doc-s>] </s>` for one pair, cut to fit `max_length`: one segment
    for a within-document pair whose mentions fit one window, else a segment per mention, sharing the length."""
    if context not in CONTEXTS:
        raise ConfigError(f"context={context!r} is unknown; use one of {CONTEXTS}")
    first, second = pair.first, pair.second
    same = first.doc_id == second.doc_id
    parts = [_cut_to_window(_marked_document(documents, [first, second], special, context), max_length - 4)
             if same else None]
    if parts[0] is None:
        whole = [_marked_document(documents, [m], special, context) for m in (first, second)]
        budgets = share_room(len(whole[0].ids), len(whole[1].ids), max_length - SPECIAL_TOKENS_PER_PAIR)
        parts = [_cut_to_window(part, budget) for part, budget in zip(whole, budgets)]
        if any(part is None for part in parts):
            raise ConfigError(f"max_length={max_length} is too short to hold mention {first.mention_id!r} or "
                              f"{second.mention_id!r} with its markers; raise CorefConfig.max_length")
    ids, global_positions = [special.cls], [0]
    positions: dict[str, list[int]] = {}
    for part in parts:
        offset = len(ids) + 1
        ids += [special.doc_start, *part.ids, special.doc_end]
        global_positions += [offset + p for p in part.markers]
        for mention_id, mention_positions in part.mentions.items():
            positions.setdefault(mention_id, [offset + p for p in mention_positions])
            global_positions += [offset + p for p in mention_positions]
    ids.append(special.sep)
    return PairInput(ids, sorted(set(global_positions)), positions[first.mention_id], positions[second.mention_id],
                     sum(part.truncated for part in parts), same and len(parts) == 2)


@dataclass
class EncodingStats:
    """How pair inputs were shaped: lengths, truncations and split within-document pairs."""

    pairs: int
    truncated_pairs: int  # pairs with at least one document cut to a window
    split_documents: int
    mean_length: float


def encode_pairs(pairs: Sequence[MentionPair], documents: Mapping[str, WordIds], special: SpecialIds, max_length: int,
                 context: str = "document") -> tuple[list[PairInput], EncodingStats]:
    """Build every pair's input and count the truncations (reported, never silent)."""
    inputs = [build_pair_input(pair, documents, special, max_length, context) for pair in pairs]
    lengths = [len(item.input_ids) for item in inputs] or [0]
    return inputs, EncodingStats(len(inputs), sum(item.truncated_documents > 0 for item in inputs),
                                 sum(item.split_document for item in inputs), sum(lengths) / len(lengths))


def render_pair_input(item: PairInput, tokenizer: "PreTrainedTokenizerBase") -> str:
    """The pair input as text: subwords glued into words, runs of tokens with global attention in [brackets]."""
    specials, global_positions = set(tokenizer.all_special_tokens), set(item.global_positions)
    text, previous_special = "", True
    for position, token in enumerate(tokenizer.convert_ids_to_tokens(item.input_ids)):
        special = token in specials
        if special or previous_special or token.startswith("\u0120"):  # "Ġ": a byte-level BPE word start
            text += " "
        piece = token if special else token.lstrip("\u0120")
        text += f"[{piece}]" if position in global_positions else piece
        previous_special = special
    return text[1:].replace("][", "")  # a bracketed run within a word: one bracket


def preview_pair(rows: Sequence[Mapping[str, Any]], model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                 kind: str, max_length: int) -> str:
    """One candidate pair as the cross-encoder sees it (a cross-document coreferent pair where there is one),
    headed by its two mentions; adds the `<m>`/`</m>` markers to `tokenizer` and `model`."""
    special = add_mention_markers(tokenizer, model)
    documents = tokenize_documents(rows, tokenizer)
    pairs, _ = candidate_pairs(group_mentions(collect_mentions(rows, kind), "subtopic"))
    pair = next((p for p in pairs if p.label and p.first.doc_id != p.second.doc_id), pairs[0])
    item = build_pair_input(pair, documents, special, max_input_length(model, max_length))
    header = (f"mentions: {pair.first.text!r} ({pair.first.doc_id}) and {pair.second.text!r} ({pair.second.doc_id}), "
              f"coreferent: {bool(pair.label)}; {len(item.input_ids)} tokens, {len(item.global_positions)} global")
    return f"{header}\n\n{render_pair_input(item, tokenizer)}"
