"""AoSE's segmentation (Abdaoui & Dutta 2023, §3.1 and §4.2): a document becomes sentences of 5-250 tokens.

Our rules, in order (the paper names only the separators and the bounds):
1. sentences by `data.text.split_sentences` (line breaks, then full stops / ! / ? before a capital);
2. a sentence longer than `max_tokens` is cut into pieces of at most `max_tokens` tokens, between words;
3. a piece shorter than `min_tokens` joins the next one (the last one joins the previous), so nothing is lost;
   a document of fewer than `min_tokens` tokens has no segment (callers skip it and count it);
4. the document is read up to `limit` tokens (AoSE-N, or the 8,192 of the paper): later tokens are cut, counted.
Tokens are the sentence transformer's own, without its special tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..data.text import split_sentences


@dataclass(frozen=True)
class Segmented:
    """A document's segments and how many of its tokens they hold, and how many were cut at the limit."""

    segments: list[str]
    tokens: list[int]  # tokens per segment
    total_tokens: int  # tokens of the whole document (before the limit)
    cut_tokens: int  # tokens past the limit, not read

    @property
    def read_tokens(self) -> int:
        return sum(self.tokens)


def _pieces(text: str, tokenizer, max_tokens: int) -> list[tuple[str, int]]:
    """(text, tokens) of each sentence, a long one cut into `max_tokens`-token pieces at character offsets."""
    sentences = split_sentences(text)
    if not sentences:
        return []
    encoded = tokenizer(sentences, add_special_tokens=False, return_offsets_mapping=True)
    pieces = []
    for sentence, offsets in zip(sentences, encoded["offset_mapping"]):
        starts = _cut_points(sentence, offsets, max_tokens)
        for start, end in zip(starts, starts[1:] + [len(offsets)]):
            pieces.append((sentence[offsets[start][0]:offsets[end - 1][1]], end - start))
    return pieces


def _cut_points(text: str, offsets: list[tuple[int, int]], max_tokens: int) -> list[int]:
    """First token of each piece: at most `max_tokens` apart, moved back to a word's first token when one is in
    reach (a cut inside a word would tokenize differently on its own)."""
    starts = [0]
    while len(offsets) - starts[-1] > max_tokens:
        end = starts[-1] + max_tokens
        word_start = next((i for i in range(end, starts[-1], -1)
                           if offsets[i][0] > 0 and text[offsets[i][0] - 1].isspace()), end)
        starts.append(word_start)
    return starts


def _merge_short(pieces: list[tuple[str, int]], min_tokens: int) -> list[tuple[str, int]]:
    """Pieces shorter than `min_tokens` joined to the next one (a short last piece joins the previous one)."""
    merged: list[tuple[str, int]] = []
    pending = None
    for text, tokens in pieces:
        if pending:
            text, tokens = f"{pending[0]} {text}", pending[1] + tokens
        pending = (text, tokens) if tokens < min_tokens else None
        if pending is None:
            merged.append((text, tokens))
    if pending and merged:  # with nothing to join, the whole document is too short: no segment
        merged[-1] = (f"{merged[-1][0]} {pending[0]}", merged[-1][1] + pending[1])
    return merged


def segment(text: str, tokenizer, min_tokens: int = 5, max_tokens: int = 250, limit: int | None = None) -> Segmented:
    """The document's segments (rules in the module docstring); `limit` = tokens read, None for all."""
    pieces = _merge_short(_pieces(text, tokenizer, max_tokens), min_tokens)
    total = sum(tokens for _, tokens in pieces)
    kept, read = [], 0
    for piece, tokens in pieces:
        if limit is not None and read + tokens > limit:
            if limit - read >= min_tokens:  # the cut segment keeps its first `limit - read` tokens
                offsets = tokenizer(piece, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
                kept.append((piece[:offsets[limit - read - 1][1]], limit - read))
            break
        kept.append((piece, tokens))
        read += tokens
    counts = [n for _, n in kept]
    return Segmented([t for t, _ in kept], counts, total, total - sum(counts))
