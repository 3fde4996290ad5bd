"""Plain-text helpers shared by the loaders: a small, predictable, rule-based sentence splitter.

The rules, in order:
1. line breaks and tabs always end a sentence (corpora use them for paragraphs and sections);
2. inside a line, a sentence ends after `.`, `!` or `?` (plus any closing quotes or brackets) when whitespace and
   then a capital letter (optionally behind an opening quote or bracket) follow;
3. except after a common abbreviation (`Dr.`, `Fig.`, `et al.` ...), a single-letter initial (`J. Smith`) or a
   word with an inner period (`U.S.`, `e.g.`).
No model, no download: it errs on the side of longer sentences, which is harmless for every use here.
"""

from __future__ import annotations

import re

#: Words that usually end in a period without ending the sentence (compared lower-cased, without the period).
ABBREVIATIONS = frozenset("mr mrs ms dr prof st jr sr vs al fig figs eq eqs no nos vol pp ch sec approx inc ltd co "
                          "corp gen gov sen rep".split())

_LINE = re.compile(r"[^\r\n\t]+")
_BOUNDARY = re.compile(r"[.!?]+[\"')\]\u201d\u2019]*(?=\s+[\"'(\[\u201c\u2018]?[A-Z])")
_WORD_BEFORE = re.compile(r"(\S+)$")
_STRIPPED = re.compile(r"\S(?:.*\S)?", re.DOTALL)  # a span without its surrounding whitespace


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans `(start, end)` of the sentences of `text`, in order, without surrounding whitespace (spans,
    rather than strings, let a caller map a character position, such as a marker, to its sentence)."""
    spans = []
    for line in _LINE.finditer(text):  # rule 1
        begin = line.start()
        for match in _BOUNDARY.finditer(text, line.start(), line.end()):  # rule 2
            before = _WORD_BEFORE.search(text[begin : match.start()])
            word = before.group(1).lstrip("\"'([\u201c\u2018") if before else ""
            if not (len(word) == 1 or "." in word or word.lower() in ABBREVIATIONS):  # rule 3
                spans.append((begin, match.end()))
                begin = match.end()
        spans.append((begin, line.end()))
    return [found.span() for start, end in spans if (found := _STRIPPED.search(text, start, end))]


def split_sentences(text: str) -> list[str]:
    """The sentences of `text` as strings (see the module docstring for the rules)."""
    return [text[start:end] for start, end in sentence_spans(text)]
