"""The coref, pairs and facts rows: gold spans exact, clusters scoped to a subtopic, pairs of the right kind."""

from __future__ import annotations

from collections import Counter, defaultdict


def test_every_mention_text_equals_the_tokens_at_its_span(any_world, rows_of):
    for row in rows_of(any_world.coref):
        assert row["sentence_ids"] == list(range(len(row["sentences"])))
        for m in row["mentions"]:
            tokens = row["sentences"][m["sentence"]]
            assert 0 <= m["start"] < m["end"] <= len(tokens)
            assert m["text"] == " ".join(tokens[m["start"]:m["end"]])
            assert m["kind"] in ("event", "entity") and m["type"]


def test_cluster_ids_singletons_and_cross_document_clusters(any_world, rows_of):
    mentions = [(row, m) for row in rows_of(any_world.coref) for m in row["mentions"]]
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


def test_pairs_positive_share_a_subtopic_hard_negatives_a_topic(any_world, rows_of):
    subtopic_of = {doc: row["cluster_id"] for row in rows_of(any_world.clusters) for doc in row["documents"]}
    kinds = Counter()
    for row in rows_of(any_world.pairs):
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


def test_fact_offsets_point_at_the_stated_text(any_world, rows_of):
    documents = {(row["cluster_id"], i): doc for row in rows_of(any_world.clusters) for i, doc in
                 enumerate(row["documents"])}
    rows = rows_of(any_world.facts)
    assert rows
    for row in rows:
        document = documents[(row["cluster_id"], row["doc_index"])]
        assert document[row["char_start"]:row["char_end"]] == row["text"]
        if row["kind"] == "number":
            assert (row["text"] == row["value"]) == row["correct"]


def test_classification_preambles_name_no_event_and_leave_the_rest_unchanged(smoke_config):
    from dataclasses import replace

    from cdlm_nb.data.world import generate_world
    from cdlm_nb.data.world.lexicon import EVENT_TYPES

    plain = generate_world(replace(smoke_config, preamble_share=0.0))
    opened = generate_world(replace(smoke_config, preamble_share=1.0, preamble_words=(60, 80)))
    triggers = {form.lower() for etype in EVENT_TYPES for event in etype.events if event.name == "core"
                for forms in event.forms.values() for form in forms}
    for before, after in zip(rows_of_split(plain), rows_of_split(opened)):
        preamble, _, rest = after["text"].partition("\n\n")
        assert rest == before["text"] and after["label"] == before["label"]
        assert 60 <= len(preamble.split()) <= 80 + 30  # the last sentence may run past the drawn length
        assert not set(preamble.lower().replace(".", " ").replace(",", " ").split()) & triggers
    assert plain.pairs["train"][:] == opened.pairs["train"][:]  # other datasets do not move


def rows_of_split(world):
    return [row for split in ("train", "dev", "test") for row in world.classification[split]]
