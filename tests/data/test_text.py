"""The rule-based sentence splitter shared by the loaders."""

from __future__ import annotations

import pytest

from cdlm_nb.data.text import sentence_spans, split_sentences


@pytest.mark.parametrize(
    "text, sentences",
    [
        ("One. Two! Three? four.", ["One.", "Two!", "Three? four."]),
        ('He said "Stop." Then left.', ['He said "Stop."', "Then left."]),
        ("Dr. Who met J. Smith of the U.S. Army. See Fig. 2 and Smith et al. Both agree.",
         ["Dr. Who met J. Smith of the U.S. Army.", "See Fig. 2 and Smith et al. Both agree."]),
        ("Line one\nline two\tcell three", ["Line one", "line two", "cell three"]),
        ("  \n\t ", []),
        ("", []),
    ],
)
def test_split_sentences(text, sentences):
    assert split_sentences(text) == sentences


def test_spans_point_into_the_text_without_whitespace():
    text = "  First one.   Second one.\n"
    spans = sentence_spans(text)
    assert spans == [(2, 12), (15, 26)]
    assert [text[start:end] for start, end in spans] == ["First one.", "Second one."]
