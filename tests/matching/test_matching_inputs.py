"""Pair inputs of the matching classifier: template, room sharing, cuts counted, the released protocol."""

from __future__ import annotations

import pytest

from cdlm_nb.matching.inputs import (
    RELEASED_SENTENCE_TOKENS,
    document_ids,
    encode_pair,
    encode_pairs,
    pair_template,
    render_pair,
)
from cdlm_nb.support.errors import ConfigError

ROW = {"doc_a": ["The prize went to Maria Gupta.", "The gala was held in Spokane."],
       "doc_b": ["Maria Gupta won the Mendes Prize."], "label": 1, "kind": "positive"}


def test_template_wraps_each_document_in_separators(tiny_tokenizer):
    template = pair_template(tiny_tokenizer)
    vocab = tiny_tokenizer.get_vocab()
    assert template.start == (tiny_tokenizer.bos_token_id, vocab["<doc-s>"])
    assert template.middle == (vocab["</doc-s>"], vocab["<doc-s>"])
    assert template.end == (vocab["</doc-s>"], tiny_tokenizer.eos_token_id)


def test_pair_fits_and_counts_cut_documents(tiny_tokenizer):
    template = pair_template(tiny_tokenizer)
    long, short = list(range(100, 160)), list(range(200, 210))
    item = encode_pair(long, short, template, max_length=40)
    assert len(item.input_ids) == 40 and item.truncated_documents == 1
    assert item.input_ids[2:2 + 24] == long[:24]  # the long one keeps its beginning, the short one all of it
    assert encode_pair(short, short, template, 40).truncated_documents == 0
    with pytest.raises(ConfigError, match="max_length"):
        encode_pair(long, short, template, max_length=6)


def test_encode_pairs_reports_cuts(tiny_tokenizer):
    inputs, stats = encode_pairs([ROW, ROW], tiny_tokenizer, max_length=16)
    assert stats.pairs == 2 and stats.truncated_documents >= 2 and stats.tokens_cut > 0
    assert all(len(item.input_ids) == 16 for item in inputs)
    assert render_pair(inputs[0], tiny_tokenizer).startswith("[<s>]")


def test_released_protocol_cuts_each_sentence(tiny_tokenizer):
    sentence = " ".join(["word"] * 80)
    ids = document_ids([sentence, "Short one."], tiny_tokenizer, "released")
    short = tiny_tokenizer("Short one.", add_special_tokens=False)["input_ids"]
    assert len(ids) == RELEASED_SENTENCE_TOKENS + len(short)
    with pytest.raises(ConfigError, match="protocol"):
        document_ids(["x"], tiny_tokenizer, "mine")
