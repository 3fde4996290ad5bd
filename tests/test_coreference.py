"""The pairwise cross-encoder (pairs, markers, windows, the scorer) and the clustering on top of it."""

from __future__ import annotations

import numpy as np
import pytest

from cdlm_nb.coref.clustering import build_dendrograms, cluster_mentions, cut_dendrograms, pair_probabilities, tune_threshold
from cdlm_nb.coreference import (
    MentionPair,
    add_mention_markers,
    build_pair_input,
    build_pair_scorer,
    candidate_pairs,
    collate,
    collect_mentions,
    encode_pairs,
    gold_clusters,
    group_mentions,
    length_sorted_batches,
    score_pairs,
    tokenize_documents,
    train_scorer,
)
from cdlm_nb.errors import ConfigError, DataError

SENTENCES_A = [
    "A strong earthquake struck the coastal town on Monday .".split(),
    "Officials said the quake damaged dozens of houses near the harbour .".split(),
    "Rescue teams searched the ruins through the night .".split(),
]
SENTENCES_B = [
    "The tremor hit the small town early in the week .".split(),
    "Police arrested a man after the robbery downtown .".split(),
]


def _mention(mid, kind, sentence, start, end, cluster, sentences):
    return {"mention_id": mid, "kind": kind, "type": "X", "sentence": sentence, "start": start, "end": end,
            "text": " ".join(sentences[sentence][start:end]), "cluster_id": cluster, "singleton": False}


def corpus():
    """Two documents of one subtopic: an earthquake (struck/quake/tremor) and an arrest."""
    doc_a = {"doc_id": "1_1ecb", "topic": "1", "subtopic": "1_ecb", "sentence_ids": [0, 1, 2],
             "sentences": SENTENCES_A, "mentions": [
                 _mention("a1", "event", 0, 3, 4, "quake", SENTENCES_A),  # struck
                 _mention("a2", "event", 1, 3, 4, "quake", SENTENCES_A),  # quake
                 _mention("a3", "event", 2, 2, 3, "search", SENTENCES_A),  # searched
                 _mention("a4", "entity", 0, 4, 7, "town", SENTENCES_A),  # the coastal town
             ]}
    doc_b = {"doc_id": "1_2ecb", "topic": "1", "subtopic": "1_ecb", "sentence_ids": [0, 1],
             "sentences": SENTENCES_B, "mentions": [
                 _mention("b1", "event", 0, 1, 2, "quake", SENTENCES_B),  # tremor
                 _mention("b2", "event", 1, 1, 2, "arrest", SENTENCES_B),  # arrested
             ]}
    return [doc_a, doc_b]


@pytest.fixture(scope="module")
def tokenizer():
    from cdlm_nb.tokenization import train_tokenizer

    texts = [" ".join(s) for doc in corpus() for s in doc["sentences"]]
    return train_tokenizer(texts * 5, vocab_size=400, model_max_length=512)


@pytest.fixture(scope="module")
def encoder(tokenizer):
    import torch
    from transformers import LongformerConfig, LongformerModel

    torch.manual_seed(0)
    config = LongformerConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=64, attention_window=8, max_position_embeddings=258,
                              pad_token_id=tokenizer.pad_token_id, hidden_dropout_prob=0.0,
                              attention_probs_dropout_prob=0.0)
    return LongformerModel(config)


@pytest.fixture(scope="module")
def special(tokenizer, encoder):
    return add_mention_markers(tokenizer, encoder)


@pytest.fixture(scope="module")
def documents(tokenizer, special):
    return tokenize_documents(corpus(), tokenizer)


@pytest.fixture(scope="module")
def events():
    return {m.mention_id: m for m in collect_mentions(corpus(), "event")}


def word_ids(tokenizer, word):
    return tokenizer(" " + word, add_special_tokens=False)["input_ids"]


# --- mentions ---------------------------------------------------------------------------------------------


def test_collect_mentions_keeps_one_kind_with_its_groups():
    events = collect_mentions(corpus(), "event")
    assert [m.mention_id for m in events] == ["a1", "a2", "a3", "b1", "b2"]
    assert {m.subtopic for m in events} == {"1_ecb"}
    assert sorted(map(sorted, gold_clusters(events))) == [["a1", "a2", "b1"], ["a3"], ["b2"]]
    assert [m.mention_id for m in collect_mentions(corpus(), "entity")] == ["a4"]


@pytest.mark.parametrize("field,value,message", [
    ("sentence", 7, "sentence index 7 is out of range"),
    ("end", 40, r"span \[3, 40\) lies outside sentence 0"),
    ("start", -1, r"span \[-1, 4\) lies outside"),
])
def test_bad_mentions_name_document_and_mention(field, value, message):
    docs = corpus()
    docs[0]["mentions"][0][field] = value
    with pytest.raises(DataError, match=message) as error:
        collect_mentions(docs, "event")
    assert "'1_1ecb'" in str(error.value) and "'a1'" in str(error.value)


def test_unknown_kind_is_a_config_error():
    with pytest.raises(ConfigError, match="event"):
        collect_mentions(corpus(), "events")


# --- pair inputs ------------------------------------------------------------------------------------------


def test_cross_document_pair_layout(tokenizer, special, documents, events):
    item = build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=256)
    ids = item.input_ids
    assert ids[0] == special.cls and ids[-1] == special.sep
    assert ids.count(special.doc_start) == 2 and ids.count(special.doc_end) == 2
    assert ids.count(special.mention_start) == 2 and ids.count(special.mention_end) == 2
    assert [ids[p] for p in item.first_positions] == word_ids(tokenizer, "struck")
    assert [ids[p] for p in item.second_positions] == word_ids(tokenizer, "tremor")
    assert ids[item.first_positions[0] - 1] == special.mention_start
    assert ids[item.second_positions[-1] + 1] == special.mention_end
    # the first mention lies in the first document, the second in the second
    assert item.first_positions[-1] < ids.index(special.doc_end) < item.second_positions[0]
    # global attention: <s>, the markers and the mention tokens, nothing else
    markers = [p for p, t in enumerate(ids) if t in (special.mention_start, special.mention_end)]
    assert item.global_positions == sorted([0, *markers, *item.first_positions, *item.second_positions])
    assert item.truncated_documents == 0 and not item.split_document
    # the whole documents are there: every word of both
    n_words = sum(len(word_ids(tokenizer, w)) for doc in corpus() for s in doc["sentences"] for w in s)
    assert len(ids) == n_words + 1 + 4 + 4 + 1


def test_within_document_pair_uses_the_single_document(special, documents, events):
    item = build_pair_input(MentionPair(events["a1"], events["a2"]), documents, special, max_length=256)
    assert item.input_ids.count(special.doc_start) == 1
    assert item.input_ids.count(special.mention_start) == 2
    assert item.first_positions[0] < item.second_positions[0]


def test_long_documents_are_cut_around_the_mention_and_counted(tokenizer, special, documents, events):
    pair = MentionPair(events["a3"], events["b2"])  # both in the last sentence of their document
    item = build_pair_input(pair, documents, special, max_length=24)
    assert len(item.input_ids) <= 24
    assert item.truncated_documents == 2
    assert [item.input_ids[p] for p in item.first_positions] == word_ids(tokenizer, "searched")
    assert [item.input_ids[p] for p in item.second_positions] == word_ids(tokenizer, "arrested")
    _, stats = encode_pairs([pair, MentionPair(events["a1"], events["b1"])], documents, special, max_length=24)
    assert stats.truncated_pairs == 2 and stats.truncated_documents == 4 and stats.max_length <= 24


def test_a_short_document_stays_whole_and_leaves_its_room_to_the_long_one(special, documents, events):
    pair = MentionPair(events["a3"], events["b1"])
    whole = build_pair_input(pair, documents, special, max_length=256).input_ids
    second_doc = len(whole) - whole.index(special.doc_start, 2) - 3  # tokens between <doc-s> and </doc-s>
    item = build_pair_input(pair, documents, special, max_length=6 + 2 * second_doc + 10)
    assert item.truncated_documents == 1 and len(item.input_ids) == 6 + 2 * second_doc + 10
    assert item.input_ids[-second_doc - 2:-2] == whole[-second_doc - 2:-2]  # document 2 untouched


def test_within_document_mentions_too_far_apart_get_two_windows(special, documents, events):
    item = build_pair_input(MentionPair(events["a1"], events["a3"]), documents, special, max_length=20)
    assert item.split_document and item.input_ids.count(special.doc_start) == 2
    assert len(item.input_ids) <= 20


def test_a_mention_longer_than_the_budget_is_a_config_error(special, documents, events):
    with pytest.raises(ConfigError, match="max_length"):
        build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=7)


def test_sentences_only_ablation_keeps_the_mention_sentences(tokenizer, special, documents, events):
    item = build_pair_input(MentionPair(events["a2"], events["b1"]), documents, special, max_length=256,
                            context="sentences")
    kept = SENTENCES_A[1] + SENTENCES_B[0]
    assert len(item.input_ids) == sum(len(word_ids(tokenizer, w)) for w in kept) + 1 + 4 + 4 + 1
    with pytest.raises(ConfigError, match="context"):
        build_pair_input(MentionPair(events["a2"], events["b1"]), documents, special, 256, context="paragraph")


def test_unknown_document_is_a_data_error(special, events):
    with pytest.raises(DataError, match="1_1ecb"):
        build_pair_input(MentionPair(events["a1"], events["b1"]), {}, special, max_length=256)


# --- pairs ------------------------------------------------------------------------------------------------


def test_candidate_pairs_and_the_cap(events):
    groups = group_mentions(events.values(), "subtopic")
    pairs, stats = candidate_pairs(groups)
    assert stats.pairs == 10 and stats.positives == 3 and stats.dropped == 0 and stats.per_group == {"1_ecb": 10}
    capped, stats = candidate_pairs(groups, max_pairs_per_group=4)
    assert len(capped) == 4 and stats.dropped == 6
    assert {frozenset((p.first.mention_id, p.second.mention_id)) for p in capped} <= \
        {frozenset((p.first.mention_id, p.second.mention_id)) for p in pairs}


def test_training_pairs_sample_negatives():
    from cdlm_nb.coreference import training_pairs

    groups = group_mentions(collect_mentions(corpus(), "event"), "topic")
    pairs, stats = training_pairs(groups, negative_ratio=1.0)
    assert stats.positives == 3 and len(pairs) == 6 and sum(p.label for p in pairs) == 3 and stats.dropped == 4
    everything, stats = training_pairs(groups, negative_ratio=None)
    assert len(everything) == 10 and stats.dropped == 0
    capped, stats = training_pairs(groups, negative_ratio=None, max_pairs=5)
    assert len(capped) == 5 and stats.dropped == 5


def test_length_sorted_batches_cover_every_pair_once(special, documents, events):
    pairs, _ = candidate_pairs(group_mentions(events.values(), "subtopic"))
    inputs, _ = encode_pairs(pairs, documents, special, max_length=256)
    batches = length_sorted_batches(inputs, batch_size=3)
    assert sorted(i for b in batches for i in b) == list(range(len(inputs)))
    widths = [max(len(inputs[i].input_ids) for i in b) for b in batches]
    assert widths == sorted(widths)


# --- the scorer -------------------------------------------------------------------------------------------


def test_pair_vector_is_cls_and_summed_mentions(special, documents, events, encoder):
    import torch

    scorer = build_pair_scorer(encoder, hidden_sizes=(16,)).eval()
    item = build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=256)
    batch = collate([item], special.pad)
    with torch.no_grad():
        vector = scorer.pair_vectors(**batch)[0]
        hidden = encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                         global_attention_mask=batch["global_attention_mask"]).last_hidden_state[0]
    d = encoder.config.hidden_size
    first, second = hidden[item.first_positions].sum(0), hidden[item.second_positions].sum(0)
    torch.testing.assert_close(vector, torch.cat([hidden[0], first, second, first * second]))
    assert vector.shape == (4 * d,)
    assert scorer(**batch).shape == (1,)


def test_unknown_activation_is_a_config_error(encoder):
    with pytest.raises(ConfigError, match="activation"):
        build_pair_scorer(encoder, activation="sigmoid")


@pytest.mark.slow
def test_scores_do_not_depend_on_batching(special, documents, events, encoder):
    scorer = build_pair_scorer(encoder, hidden_sizes=(16,))
    pairs, _ = candidate_pairs(group_mentions(events.values(), "subtopic"))
    inputs, _ = encode_pairs(pairs, documents, special, max_length=256)
    one = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=1)
    many = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=4)
    np.testing.assert_allclose(one.probabilities, many.probabilities, atol=1e-5)
    assert ((0 < many.probabilities) & (many.probabilities < 1)).all() and many.pairs_per_second > 0


@pytest.mark.slow
def test_fine_tuning_separates_positive_from_negative_pairs(special, documents, events, encoder):
    import copy

    scorer = build_pair_scorer(copy.deepcopy(encoder), hidden_sizes=(16,), dropout=0.0)
    pairs, _ = candidate_pairs(group_mentions(events.values(), "subtopic"))
    inputs, _ = encode_pairs(pairs, documents, special, max_length=256)
    labels = [p.label for p in pairs]
    losses = train_scorer(scorer, inputs, labels, pad_id=special.pad, epochs=8, batch_size=10, learning_rate=1e-2)
    assert np.mean(losses[-2:]) < np.mean(losses[:2])
    probabilities = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=5).probabilities
    positives = probabilities[np.array(labels) == 1]
    negatives = probabilities[np.array(labels) == 0]
    assert positives.min() > negatives.max()


# --- clustering -------------------------------------------------------------------------------------------


def test_average_linkage_clustering_at_a_threshold():
    groups = {"g1": ["a", "b", "c", "d"], "g2": ["e"]}
    probabilities = pair_probabilities(
        [("a", "b"), ("a", "c"), ("b", "c"), ("a", "d"), ("b", "d"), ("c", "d")],
        [0.9, 0.7, 0.5, 0.1, 0.2, 0.6],
    )
    clusters = sorted(map(sorted, cluster_mentions(groups, probabilities, threshold=0.4)))
    # a-b merge at distance 0.1; {a,b}-c at mean(0.3, 0.5) = 0.4; then d at mean(0.9, 0.8, 0.4) = 0.7 > 0.4
    assert clusters == [["a", "b", "c"], ["d"], ["e"]]
    assert sorted(map(sorted, cluster_mentions(groups, probabilities, threshold=0.39))) == \
        [["a", "b"], ["c"], ["d"], ["e"]]
    assert sorted(map(sorted, cluster_mentions(groups, probabilities, threshold=0.75))) == [["a", "b", "c", "d"], ["e"]]


def test_unscored_pairs_count_as_not_coreferent():
    trees = build_dendrograms({"g": ["a", "b", "c"]}, pair_probabilities([("a", "b")], [0.95]))
    assert trees["g"].unscored_pairs == 2
    assert sorted(map(sorted, cut_dendrograms(trees, 0.5))) == [["a", "b"], ["c"]]


def test_tune_threshold_picks_the_best_dev_score():
    from cdlm_nb.coref.metrics import score_coreference

    trees = build_dendrograms({"g": ["a", "b", "c"]}, pair_probabilities([("a", "b"), ("a", "c"), ("b", "c")],
                                                                          [0.8, 0.45, 0.35]))
    key = [["a", "b"], ["c"]]
    best, curve = tune_threshold(trees, key, [0.1, 0.3, 0.5, 0.7], lambda k, r: score_coreference(k, r).conll)
    assert best == 0.3 and len(curve) == 4
    assert dict(curve)[0.3] == pytest.approx(1.0)
    with pytest.raises(ConfigError):
        tune_threshold(trees, key, [], lambda k, r: 0.0)


def test_predict_topics_groups_documents_by_words():
    from cdlm_nb.coref.clustering import predict_topics

    topics = predict_topics({
        "q1": "earthquake struck the coastal town, quake damage",
        "q2": "a strong earthquake hit the town; quake victims",
        "m1": "the company announced a merger with its rival firm",
        "m2": "merger talks: the firm and its rival company agree",
    }, threshold=0.9)
    assert topics["q1"] == topics["q2"] != topics["m1"] == topics["m2"]


# --- the experiment and its reporting ---------------------------------------------------------------------


def small_config(**changes):
    from dataclasses import replace

    from cdlm_nb.profiles import get_profile

    return replace(get_profile("smoke").coref, max_train_pairs=None, negative_ratio=None, eval_subtopics=None,
                   max_pairs_per_subtopic=None, **changes)


@pytest.mark.slow
def test_run_coreference_end_to_end(tokenizer, encoder):
    import copy

    from datasets import Dataset

    from cdlm_nb.coreference import run_coreference
    from cdlm_nb.data.schemas import COREF_FEATURES

    data = Dataset.from_list(corpus(), features=COREF_FEATURES)
    splits = {"train": data, "dev": data, "test": data}
    run = run_coreference("tiny", copy.deepcopy(encoder), copy.deepcopy(tokenizer), splits, small_config(), "event")
    assert run.train_pairs.pairs == 10 and len(run.losses) == 2  # 10 pairs in batches of 8, one epoch
    assert run.test.pair_stats.pairs == 10 and run.test.scoring.probabilities.shape == (10,)
    assert run.threshold in small_config().thresholds and len(run.dev_curve) == len(small_config().thresholds)
    assert sorted(m for c in run.test_clusters for m in c) == ["a1", "a2", "a3", "b1", "b2"]
    assert 0.0 <= run.test_scores.conll <= 1.0


def test_limit_subtopics_counts_what_it_leaves_out():
    from datasets import Dataset

    from cdlm_nb.coreference import limit_subtopics, split_summary
    from cdlm_nb.data.schemas import COREF_FEATURES

    rows = corpus()
    rows[1]["subtopic"] = "1_ecbplus"
    data = Dataset.from_list(rows, features=COREF_FEATURES)
    kept, left_out = limit_subtopics(data, 1)
    assert kept["doc_id"] == ["1_1ecb"] and left_out == 1
    assert limit_subtopics(data, None) == (data, 0)
    summary = split_summary({"test": data})[0]
    assert summary["subtopics"] == 2 and summary["event mentions"] == 5 and summary["event clusters"] == 3


def test_render_pair_input_brackets_global_tokens(tokenizer, special, documents, events):
    from cdlm_nb.coreference import render_pair_input

    item = build_pair_input(MentionPair(events["a1"], events["b1"]), documents, special, max_length=256)
    text = render_pair_input(item, tokenizer)
    assert text.startswith("[<s>] <doc-s> A strong earthquake [<m>] [struck] [</m>] the coastal town")
    assert "[</m>] hit the small town early in the week" in text
    assert text.count("[") == len(item.global_positions)


def test_results_table_puts_paper_rows_above_ours():
    from cdlm_nb.coreference import PAPER_EVENT_ROWS, TABLE_COLUMNS, results_table
    from cdlm_nb.coref.metrics import score_coreference

    perfect = score_coreference([["a", "b"], ["c"]], [["a", "b"], ["c"]])
    table = results_table({"CDLM": perfect}, PAPER_EVENT_ROWS, "ours")
    assert list(table.columns) == TABLE_COLUMNS
    assert table.loc[("paper: ECB+ test", "CDLM"), ("CoNLL", "F1")] == 85.6
    assert table.loc[("ours", "CDLM")].tolist() == [100.0] * 13
    for values in PAPER_EVENT_ROWS.values():  # CoNLL F1 is the mean of the MUC, B3 and CEAF-e F1 (to rounding)
        assert abs((values[2] + values[5] + values[8]) / 3 - values[12]) < 0.1


def test_ecbplus_sample_without_test_topics_splits_dev(shared_data):
    from dataclasses import replace

    from cdlm_nb.coreference import load_coref_splits
    from cdlm_nb.profiles import get_profile

    profile = get_profile("cpu")
    profile = profile.override(coref=replace(profile.coref, ecbplus_topics=(1, 2, 5)))
    splits, notes = load_coref_splits("ecbplus", profile, str(shared_data / "ecbplus"))
    assert set(splits["train"]["topic"]) == {"1"}
    assert set(splits["dev"]["topic"]) == {"2"} and set(splits["test"]["topic"]) == {"5"}
    assert "stand in as test" in notes[-1]
    with pytest.raises(ConfigError, match="DATA"):
        load_coref_splits("ecb", profile)


def test_evaluation_groups_gold_or_predicted():
    from cdlm_nb.coreference import evaluation_groups

    mentions = collect_mentions(corpus(), "event")
    assert {k: len(v) for k, v in evaluation_groups(corpus(), mentions, "subtopic").items()} == {"1_ecb": 5}
    predicted = evaluation_groups(corpus(), mentions, "predicted")
    assert sorted(m.mention_id for group in predicted.values() for m in group) == ["a1", "a2", "a3", "b1", "b2"]
    with pytest.raises(ConfigError, match="grouping"):
        evaluation_groups(corpus(), mentions, "topic")


def test_preview_pair_shows_a_cross_document_coreferent_pair(tokenizer, encoder, special):
    from cdlm_nb.coreference import preview_pair

    text = preview_pair(corpus(), encoder, tokenizer, "event", max_length=256)
    header, body = text.split("\n\n", 1)
    assert "(1_1ecb)" in header and "(1_2ecb)" in header and "coreferent: True" in header
    assert "[<m>]" in body and "[</m>]" in body and body.count("<doc-s>") == 2
