"""Pair inputs: layout, markers, global attention, windows shared between two documents, the sentences ablation,
and the readable rendering of a pair."""

from __future__ import annotations

import pytest

from cdlm_nb.coref.inputs import build_pair_input, encode_pairs, preview_pair, render_pair_input
from cdlm_nb.coref.mentions import MentionPair
from cdlm_nb.support.errors import ConfigError, DataError


def test_cross_document_pair_layout(corpus, word_ids, special, documents, events):
    item = build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=256)
    ids = item.input_ids
    assert ids[0] == special.cls and ids[-1] == special.sep
    assert ids.count(special.doc_start) == 2 and ids.count(special.doc_end) == 2
    assert ids.count(special.mention_start) == 2 and ids.count(special.mention_end) == 2
    assert [ids[p] for p in item.first_positions] == word_ids("struck")
    assert [ids[p] for p in item.second_positions] == word_ids("tremor")
    assert ids[item.first_positions[0] - 1] == special.mention_start
    assert ids[item.second_positions[-1] + 1] == special.mention_end
    # the first mention lies in the first document, the second in the second
    assert item.first_positions[-1] < ids.index(special.doc_end) < item.second_positions[0]
    # global attention: <s>, the markers and the mention tokens, nothing else
    markers = [p for p, t in enumerate(ids) if t in (special.mention_start, special.mention_end)]
    assert item.global_positions == sorted([0, *markers, *item.first_positions, *item.second_positions])
    assert item.truncated_documents == 0 and not item.split_document
    # the whole documents are there: every word of both
    n_words = sum(len(word_ids(w)) for doc in corpus for s in doc["sentences"] for w in s)
    assert len(ids) == n_words + 1 + 4 + 4 + 1


def test_within_document_pair_uses_the_single_document(special, documents, events):
    item = build_pair_input(MentionPair(events["a1"], events["a2"]), documents, special, max_length=256)
    assert item.input_ids.count(special.doc_start) == 1
    assert item.input_ids.count(special.mention_start) == 2
    assert item.first_positions[0] < item.second_positions[0]


def test_long_documents_are_cut_around_the_mention_and_counted(word_ids, special, documents, events):
    pair = MentionPair(events["a3"], events["b2"])  # both in the last sentence of their document
    item = build_pair_input(pair, documents, special, max_length=24)
    assert len(item.input_ids) <= 24
    assert item.truncated_documents == 2
    assert [item.input_ids[p] for p in item.first_positions] == word_ids("searched")
    assert [item.input_ids[p] for p in item.second_positions] == word_ids("arrested")
    _, stats = encode_pairs([pair, MentionPair(events["a1"], events["b1"])], documents, special, max_length=24)
    assert stats.truncated_pairs == 2 and stats.mean_length <= 24


def test_a_short_document_stays_whole_and_leaves_its_room_to_the_long_one(special, documents, events):
    pair = MentionPair(events["a3"], events["b1"])
    whole = build_pair_input(pair, documents, special, max_length=256).input_ids
    second_doc = len(whole) - whole.index(special.doc_start, 2) - 3  # tokens between <doc-s> and </doc-s>
    item = build_pair_input(pair, documents, special, max_length=6 + 2 * second_doc + 10)
    assert item.truncated_documents == 1 and len(item.input_ids) == 6 + 2 * second_doc + 10
    assert item.input_ids[-second_doc - 2:-2] == whole[-second_doc - 2:-2]  # document 2 untouched


def test_two_long_documents_share_the_room_in_halves(special, documents, events):
    item = build_pair_input(MentionPair(events["a3"], events["b2"]), documents, special, max_length=26)
    first_doc = item.input_ids.index(special.doc_end) - 2  # <s> <doc-s> ... </doc-s>
    assert len(item.input_ids) == 26 and first_doc == (26 - 6) // 2


def test_within_document_mentions_too_far_apart_get_two_windows(special, documents, events):
    item = build_pair_input(MentionPair(events["a1"], events["a3"]), documents, special, max_length=20)
    assert item.split_document and item.input_ids.count(special.doc_start) == 2
    assert len(item.input_ids) <= 20


def test_a_mention_longer_than_the_budget_is_a_config_error(special, documents, events):
    with pytest.raises(ConfigError, match="max_length"):
        build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=7)


def test_sentences_only_ablation_keeps_the_mention_sentences(corpus, word_ids, special, documents, events):
    item = build_pair_input(MentionPair(events["a2"], events["b1"]), documents, special, max_length=256,
                            context="sentences")
    kept = corpus[0]["sentences"][1] + corpus[1]["sentences"][0]
    assert len(item.input_ids) == sum(len(word_ids(w)) for w in kept) + 1 + 4 + 4 + 1
    with pytest.raises(ConfigError, match="context"):
        build_pair_input(MentionPair(events["a2"], events["b1"]), documents, special, 256, context="paragraph")


def test_unknown_document_is_a_data_error(special, events):
    with pytest.raises(DataError, match="1_1ecb"):
        build_pair_input(MentionPair(events["a1"], events["b1"]), {}, special, max_length=256)


def test_render_pair_input_brackets_global_tokens(tokenizer, special, documents, events):
    item = build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=256)
    text = render_pair_input(item, tokenizer)
    assert text.startswith("[<s>] <doc-s> A strong earthquake [<m>] [struck] [</m>] the coastal town")
    assert "[</m>] hit the small town early in the week" in text
    # <s>, and each mention with its two markers; a mention's subwords are glued into one bracketed word
    assert text.count("[") == 7 and "[tremor] [</m>]" in text


def test_preview_pair_shows_a_cross_document_coreferent_pair(corpus, tokenizer, encoder, special):
    text = preview_pair(corpus, encoder, tokenizer, "event", max_length=256)
    header, body = text.split("\n\n", 1)
    assert "(1_1ecb)" in header and "(1_2ecb)" in header and "coreferent: True" in header
    assert "[<m>]" in body and "[</m>]" in body and body.count("<doc-s>") == 2
