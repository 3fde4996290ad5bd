"""One mention pair as a model input, `<s> <doc-s> doc1 </doc-s> <doc-s> doc2 </doc-s> </s>`, with the source and
target mention positions tracked; long documents are cut to a window around their mention by the shared
two-document policy (`inputs.share_room`, `inputs.window_start`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..coref.mentions import Mention, MentionPair, WordIds, tokenize_documents
from ..inputs import share_room, window_start
from ..tokenization import document_separator_ids, sequence_markers

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

SPECIAL_TOKENS_PER_INPUT = 6  # <s>, </s> and the two pairs of document separators


@dataclass(frozen=True)
class AttentionInput:
    """One encoded pair: token ids, the source and target positions, and where the target document lies."""

    input_ids: list[int]
    source_positions: list[int]  # tokens of S (the only global tokens)
    target_positions: list[int]  # tokens of T
    target_document: range  # positions of doc 2's tokens, between its separators
    truncated_documents: int  # documents cut to a window around their mention (0, 1 or 2)


def _document_with_mention(words: WordIds, mention: Mention) -> tuple[list[int], list[int]]:
    """A document's subword ids and the positions of `mention`'s subwords in them."""
    ids: list[int] = []
    positions: list[int] = []
    for s, sentence in enumerate(words):
        for w, word_ids in enumerate(sentence):
            if s == mention.sentence and mention.start <= w < mention.end:
                positions.extend(range(len(ids), len(ids) + len(word_ids)))
            ids.extend(word_ids)
    return ids, positions


def build_attention_input(pair: MentionPair, documents: Mapping[str, WordIds], tokenizer: "PreTrainedTokenizerBase",
                          max_length: int) -> AttentionInput | str:
    """The model input of one pair, or the reason it was skipped (a mention with no tokens, or too long)."""
    cls, sep = sequence_markers(tokenizer)
    doc_start, doc_end = document_separator_ids(tokenizer)
    parts = [_document_with_mention(documents[m.doc_id], m) for m in (pair.first, pair.second)]
    if any(not positions for _, positions in parts):
        return "mention has no tokens"
    budgets = share_room(len(parts[0][0]), len(parts[1][0]), max_length - SPECIAL_TOKENS_PER_INPUT)
    ids, spans, truncated, target_document = [cls], [], 0, range(0)
    for (doc_ids, positions), budget in zip(parts, budgets):
        start = window_start(len(doc_ids), positions, budget)
        if start is None:
            return "mention longer than its document's share of max_length"
        truncated += budget < len(doc_ids)
        ids.append(doc_start)
        offset = len(ids) - start
        spans.append([offset + p for p in positions])
        target_document = range(len(ids), len(ids) + min(budget, len(doc_ids)))
        ids.extend(doc_ids[start:start + budget])
        ids.append(doc_end)
    ids.append(sep)
    return AttentionInput(ids, spans[0], spans[1], target_document, truncated)


def encode_mention_pairs(pairs: Sequence[MentionPair], coref_dataset: Iterable[Mapping[str, Any]],
                         tokenizer: "PreTrainedTokenizerBase", max_length: int) -> list[AttentionInput | str]:
    """The input of every pair (or its skip reason), tokenising only the documents the pairs use."""
    needed = {m.doc_id for pair in pairs for m in (pair.first, pair.second)}
    documents = tokenize_documents([row for row in coref_dataset if row["doc_id"] in needed], tokenizer)
    return [build_attention_input(pair, documents, tokenizer, max_length) for pair in pairs]
