"""AoSE's segmentation: 5-250 token segments, nothing lost, the read limit counted."""

import pytest

from cdlm_nb.aose.experiment import segment


@pytest.fixture(scope="module")
def tokenizer(sentence_encoder):
    return sentence_encoder.tokenizer


def _count(tokenizer, text):
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def test_segments_respect_the_bounds_and_keep_every_token(tokenizer):
    long_sentence = " ".join(f"word{i}" for i in range(300))
    text = f"Hi. Short one.\n{long_sentence}.\nThe storm hit the coast on Monday and closed every road."
    pieces = segment(text, tokenizer, min_tokens=5, max_tokens=250)
    assert all(5 <= n <= 250 + 4 for n in pieces.tokens)  # a short piece may join a full one
    assert pieces.tokens == [_count(tokenizer, s) for s in pieces.segments]
    assert pieces.total_tokens == pieces.read_tokens and pieces.cut_tokens == 0
    assert pieces.segments[0].startswith("Hi. Short one.")  # the two short sentences joined the next
    assert sum(pieces.tokens) == sum(_count(tokenizer, line) for line in text.split("\n"))


def test_a_short_last_piece_joins_the_previous_one(tokenizer):
    pieces = segment("The committee approved the new budget after a long debate.\nThanks.", tokenizer)
    assert len(pieces.segments) == 1 and pieces.segments[0].endswith("Thanks.")


def test_the_limit_cuts_and_counts(tokenizer):
    text = " ".join(f"Sentence number {i} says something about the weather today." for i in range(40))
    whole = segment(text, tokenizer)
    cut = segment(text, tokenizer, limit=100)
    assert cut.read_tokens <= 100 and cut.read_tokens >= 100 - 5
    assert cut.total_tokens == whole.total_tokens and cut.cut_tokens == whole.total_tokens - cut.read_tokens
    assert cut.segments[:-1] == whole.segments[:len(cut.segments) - 1]


def test_a_document_shorter_than_min_tokens_has_no_segment(tokenizer):
    assert segment("Too short.", tokenizer, min_tokens=5).segments == []
    assert segment("", tokenizer).segments == []
