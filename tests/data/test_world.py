"""The embedded world: deterministic, schema-true, gold spans exact, and its knobs doing what they claim."""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

import pytest

from cdlm_nb.data.schemas import (
    CLUSTER_FEATURES, COREF_FEATURES, PAIR_FEATURES, QA_FEATURES, classification_features,
)
from cdlm_nb.data.world import (
    FACT_FEATURES, LABEL_NAMES, SPLITS, NameBook, Slot, Maybe, check_config, check_lexicon, detokenize,
    draw_subtopic, generate_world, highlight_mentions, parse_template, tokenize, write_cluster, wrong_number,
)
from cdlm_nb.data.world_lexicon import EVENT_TYPES
from cdlm_nb.errors import ConfigError
from cdlm_nb.profiles import WORLD, get_profile

SMOKE = WORLD["smoke"]
#: One topic per event type, small clusters: big enough to measure the knobs, fast to generate.
PROBE = replace(SMOKE, topics=len(EVENT_TYPES), task_topics=len(EVENT_TYPES))


@pytest.fixture(scope="module")
def world():
    return generate_world(SMOKE)


@pytest.fixture(scope="module", params=["smoke", "every_type"])
def any_world(request, world):
    """The smoke world, and a world with one topic of every event type (so every template gets written)."""
    return world if request.param == "smoke" else generate_world(PROBE)


def _rows(dataset_dict):
    return [row for split in SPLITS for row in dataset_dict[split]]


def _doc_subtopics(world) -> dict[str, str]:
    """Plain document text -> its subtopic (cluster id), over every split."""
    return {doc: row["cluster_id"] for row in _rows(world.clusters) for doc in row["documents"]}


# --- templates and text ------------------------------------------------------------------------------------


def test_every_event_type_can_write_every_fact():
    assert {etype.name: check_lexicon(etype) for etype in EVENT_TYPES} == {e.name: [] for e in EVENT_TYPES}


def test_parse_template_splits_slots_and_optional_segments():
    parts = parse_template("A {core:n} hit {place}[ on {time}].")
    assert parts == ("A ", Slot("core", "n"), " hit ", Slot("place"), Maybe((" on ", Slot("time"))), ".")
    with pytest.raises(ConfigError, match="never closed"):
        parse_template("A [{place}")


def test_tokens_round_trip_through_detokenize():
    text = "A judge set bail at $1,200 in Valparaiso, Chile on Monday. It is the company's first 6.1 quake."
    tokens = tokenize(text)
    assert "$" in tokens and "1,200" in tokens and "'s" in tokens and "6.1" in tokens
    rebuilt, offsets = detokenize(tokens)
    assert rebuilt == text
    assert all(rebuilt[o:o + len(t)] == t for o, t in zip(offsets, tokens))


# --- determinism, schema, splits ---------------------------------------------------------------------------


def _content(world) -> dict:
    names = ("clusters", "coref", "pairs", "qa", "classification", "facts")
    return {name: {split: getattr(world, name)[split].to_list() for split in SPLITS} for name in names}


def test_same_seed_gives_the_same_world_and_another_seed_another(world):
    assert _content(generate_world(SMOKE)) == _content(world)
    other = generate_world(replace(SMOKE, seed=SMOKE.seed + 1))
    assert other.clusters["train"]["documents"] != world.clusters["train"]["documents"]


def test_datasets_use_the_shared_features(world):
    expected = {
        "clusters": CLUSTER_FEATURES, "coref": COREF_FEATURES, "pairs": PAIR_FEATURES, "qa": QA_FEATURES,
        "classification": classification_features(LABEL_NAMES), "facts": FACT_FEATURES,
    }
    for name, features in expected.items():
        dataset_dict = getattr(world, name)
        assert list(dataset_dict) == list(SPLITS), name
        for split in SPLITS:
            assert dataset_dict[split].features == features, (name, split)
            assert len(dataset_dict[split]) > 0, (name, split)


def test_splits_are_by_topic_and_hold_every_cluster(world):
    topics = world.topics
    assert [len(topics[s]) for s in SPLITS] == [SMOKE.topics - 2, 1, 1]
    assert len({t for s in SPLITS for t in topics[s]}) == SMOKE.topics
    for split in SPLITS:
        assert {c.split("_")[0] for c in world.clusters[split]["cluster_id"]} == set(topics[split])
        assert set(world.coref[split]["topic"]) <= set(topics[split])
    assert sum(len(world.clusters[s]) for s in SPLITS) == 2 * SMOKE.topics


def test_cluster_sizes_and_document_lengths_follow_the_config(world):
    low, high = SMOKE.docs_per_cluster
    words_low, words_high = SMOKE.words_per_doc
    for row in _rows(world.clusters):
        assert low <= len(row["documents"]) <= high
        for document in row["documents"]:
            assert words_low <= len(document.split()) <= words_high, document


def test_siblings_share_the_event_type_but_no_fact_value():
    rng, book = random.Random(0), NameBook()
    for etype in EVENT_TYPES:
        first = draw_subtopic(etype, "1", "a", rng, book, None)
        second = draw_subtopic(etype, "1", "b", rng, book, first)
        assert first.year != second.year
        for name, fact in first.facts.items():
            if fact.role.kind in ("person", "org", "place", "number", "time") and fact.role.pool != "building":
                assert fact.name != second.facts[name].name, (etype.name, name)


# --- coreference gold --------------------------------------------------------------------------------------


def test_every_mention_text_equals_the_tokens_at_its_span(any_world):
    for row in _rows(any_world.coref):
        assert row["sentence_ids"] == list(range(len(row["sentences"])))
        for m in row["mentions"]:
            tokens = row["sentences"][m["sentence"]]
            assert 0 <= m["start"] < m["end"] <= len(tokens)
            assert m["text"] == " ".join(tokens[m["start"]:m["end"]])
            assert m["kind"] in ("event", "entity") and m["type"]


def test_cluster_ids_singletons_and_cross_document_clusters(any_world):
    mentions = [(row, m) for row in _rows(any_world.coref) for m in row["mentions"]]
    assert len({m["mention_id"] for _, m in mentions}) == len(mentions)
    sizes = Counter(m["cluster_id"] for _, m in mentions)
    assert all(m["singleton"] == (sizes[m["cluster_id"]] == 1) for _, m in mentions)
    docs = defaultdict(set)
    subtopics = defaultdict(set)
    for row, m in mentions:
        docs[(m["kind"], m["cluster_id"])].add(row["doc_id"])
        subtopics[m["cluster_id"]].add(row["subtopic"])
    cross = Counter(kind for (kind, _), ds in docs.items() if len(ds) > 1)
    assert cross["event"] > 0 and cross["entity"] > 0
    # no cluster spans two subtopics: siblings (same event type, same trigger lemmas) never corefer
    assert all(len(s) == 1 for s in subtopics.values())
    lemmas = defaultdict(set)
    for row, m in mentions:
        if m["kind"] == "event" and not m["singleton"]:
            lemmas[(row["topic"], m["text"].lower())].add(row["subtopic"])
    assert any(len(s) == 2 for s in lemmas.values()), "siblings should share trigger words"


def test_highlight_mentions_brackets_every_mention(world):
    row = world.coref["train"][0]
    shown = highlight_mentions(row)
    assert shown.count("[") == len(row["mentions"])
    assert row["mentions"][0]["cluster_id"] in shown
    assert highlight_mentions(row, clusters=False).count("]") == len(row["mentions"])


# --- pairs, QA, classification, facts ----------------------------------------------------------------------


def test_pairs_positive_share_a_subtopic_hard_negatives_a_topic(any_world):
    subtopic_of = _doc_subtopics(any_world)
    kinds = Counter()
    for row in _rows(any_world.pairs):
        a, b = subtopic_of[" ".join(row["doc_a"])], subtopic_of[" ".join(row["doc_b"])]
        kinds[row["kind"]] += 1
        if row["kind"] == "positive":
            assert row["label"] == 1 and a == b and row["doc_a"] != row["doc_b"]
            assert row["positive_sentences"] and all(0 <= i < len(row["doc_a"]) for i in row["positive_sentences"])
        else:
            assert row["label"] == 0 and a != b and row["positive_sentences"] == []
            same_topic = a.split("_")[0] == b.split("_")[0]
            assert same_topic == (row["kind"] == "hard_negative")
    assert kinds["positive"] == kinds["hard_negative"] == kinds["easy_negative"] > 0


def _check_qa(world) -> Counter:
    """Assert the HotpotQA invariants on every question; the count per question type."""
    types = Counter()
    for row in _rows(world.qa):
        types[row["type"]] += 1
        titles = row["context"]["title"]
        assert len(set(titles)) == len(titles)
        sentences = dict(zip(titles, row["context"]["sentences"]))
        supporting = []
        for title, sent_id in zip(row["supporting_facts"]["title"], row["supporting_facts"]["sent_id"]):
            assert title in sentences and 0 <= sent_id < len(sentences[title])
            supporting.append(sentences[title][sent_id])
        assert any(row["answer"] in sentence for sentence in supporting), row
        assert len(set(row["supporting_facts"]["title"])) == 2  # two gold paragraphs
        assert len(titles) == 2 + world.config.qa_distractors
        if row["type"] == "comparison":
            assert row["answer"] in row["question"]
    return types


def test_qa_supporting_facts_exist_and_contain_the_answer(any_world):
    types = _check_qa(any_world)
    assert types["bridge"] > 0 and types["comparison"] > 0


def test_classification_concatenates_a_cluster_under_its_event_type(world):
    for split in SPLITS:
        clusters, labelled = world.clusters[split], world.classification[split]
        assert len(clusters) == len(labelled)
        for docs, row in zip(clusters["documents"], labelled):
            assert row["text"] == "\n\n".join(docs)
    assert world.classification["train"].features["label"].names == [e.name for e in EVENT_TYPES]


def test_fact_offsets_point_at_the_stated_text(any_world):
    documents = {(row["cluster_id"], i): doc for row in _rows(any_world.clusters) for i, doc in
                 enumerate(row["documents"])}
    rows = _rows(any_world.facts)
    assert rows
    for row in rows:
        document = documents[(row["cluster_id"], row["doc_index"])]
        assert document[row["char_start"]:row["char_end"]] == row["text"]
        if row["kind"] == "number":
            assert (row["text"] == row["value"]) == row["correct"]


# --- the knobs ---------------------------------------------------------------------------------------------


def _stated_share(world) -> float:
    """Mean over non-anchor facts of the share of a cluster's documents that state them correctly."""
    type_of = {c: EVENT_TYPES[label] for split in SPLITS
               for c, label in zip(world.clusters[split]["cluster_id"], world.classification[split]["label"])}
    n_docs = {row["cluster_id"]: len(row["documents"]) for row in _rows(world.clusters)}
    stating = Counter((r["cluster_id"], r["fact"]) for r in _rows(world.facts) if r["correct"] and not r["anchor"])
    shares = [stating[(c, role.name)] / n_docs[c] for c in n_docs for role in type_of[c].roles
              if role.name not in type_of[c].anchors]
    return statistics.mean(shares)


def test_fact_overlap_one_makes_every_document_state_every_fact():
    full = generate_world(replace(PROBE, fact_overlap=1.0, noise=0.0))
    assert _stated_share(full) == 1.0
    sparse = generate_world(replace(PROBE, fact_overlap=0.3, noise=0.0))
    middle = generate_world(replace(PROBE, fact_overlap=0.7, noise=0.0))
    assert _stated_share(sparse) < _stated_share(middle) < 1.0
    assert all(r["support"] == 0 or r["correct"] for r in _rows(sparse.facts))
    recoverable = [w.describe()["recoverable_fact_share"] for w in (sparse, middle, full)]
    assert recoverable[0] < recoverable[1] < recoverable[2] == 1.0
    lonely = generate_world(replace(PROBE, fact_overlap=0.0, noise=0.0))  # each fact in exactly one document
    assert lonely.describe()["recoverable_fact_share"] == 0.0
    assert all(r["support"] == 0 for r in _rows(lonely.facts) if not r["anchor"])


def test_noise_makes_documents_state_wrong_numbers():
    clean = generate_world(replace(PROBE, noise=0.0))
    noisy = generate_world(replace(PROBE, noise=0.5))
    assert not any(not r["correct"] for r in _rows(clean.facts))
    wrong = [r for r in _rows(noisy.facts) if not r["correct"]]
    assert wrong and all(r["kind"] == "number" and r["text"] != r["value"] for r in wrong)
    assert _stated_share(noisy) < _stated_share(clean)


def test_indefinite_articles_agree_with_the_words_filled_in(any_world):
    for row in _rows(any_world.coref):
        for tokens in row["sentences"]:
            for article, word in zip(tokens, tokens[1:]):
                if article.lower() == "a":
                    assert word[0].lower() not in "aeio", " ".join(tokens)


def test_wrong_numbers_are_plausible_misreports():
    rng, book = random.Random(5), NameBook()
    for etype in EVENT_TYPES:
        subtopic = draw_subtopic(etype, "1", "a", rng, book, None)
        for fact in subtopic.facts.values():
            if fact.role.kind == "number":
                wrong = float(wrong_number(fact, rng).replace(",", ""))
                assert wrong != fact.amount and fact.role.low <= wrong <= fact.role.high + 1, (etype.name, fact.name)


def test_filler_share_grows_with_the_filler_knob():
    rng = random.Random(3)

    def filler_share(filler: float) -> float:
        config = replace(PROBE, filler=filler, noise=0.0, words_per_doc=(1, 10_000))
        shares = []
        for etype in EVENT_TYPES:
            subtopic = draw_subtopic(etype, "1", "a", rng, NameBook(), None)
            write_cluster(subtopic, config, rng, NameBook())
            for document in subtopic.documents:
                fillers = sum(not s.statements and not any("/entity/" in m.label for m in s.mentions)
                              for s in document.sentences[1:])
                shares.append(fillers / len(document.sentences))
        return statistics.mean(shares)

    none, some, most = filler_share(0.0), filler_share(0.3), filler_share(0.7)
    assert none == 0.0 < some < most
    assert 0.15 < some < 0.45


def test_bad_config_values_raise_config_errors():
    for bad in (dict(fact_overlap=1.5), dict(noise=-0.1), dict(topics=2), dict(docs_per_cluster=(1, 3)),
                dict(words_per_doc=(80, 40))):
        with pytest.raises(ConfigError, match="WorldConfig"):
            check_config(replace(SMOKE, **bad))


def test_every_profile_has_a_world_section():
    for name in ("smoke", "cpu", "gpu"):
        check_config(get_profile(name).world)


def test_smoke_world_is_quick(world):
    started = time.perf_counter()
    generate_world(SMOKE)
    assert time.perf_counter() - started < 3.0  # about 0.5 s on 2 cores; slack for busy CI machines


@pytest.mark.slow
def test_cpu_world_generates_within_ten_seconds():
    world = generate_world(WORLD["cpu"])
    summary = world.describe()
    assert world.seconds < 10.0, summary
    assert summary["clusters"]["train"] >= 300 and summary["cross_doc_clusters"]["event"] > 100
    assert 50 <= summary["words_per_doc"]["mean"] <= 150 and summary["recoverable_fact_share"] > 0.8
    cpu = WORLD["cpu"]
    assert _check_qa(world)["comparison"] == cpu.task_topics + cpu.dev_topics + cpu.test_topics  # one per topic


@pytest.mark.slow
def test_the_world_does_not_depend_on_the_hash_seed(world):
    script = ("import json; from cdlm_nb.data.world import generate_world; from cdlm_nb.profiles import "
              "WORLD; w = generate_world(WORLD['smoke']); print(json.dumps(w.clusters['train'].to_list()))")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert json.loads(out.stdout) == world.clusters["train"].to_list()
