"""Matching pairs built from grouped documents, and the PAN-like plagiarism stand-in."""

from __future__ import annotations

from cdlm_nb.data.pairs import (
    GroupedDocument,
    PanLikeConfig,
    ecbplus_documents,
    grouped_pairs,
    pair_stats,
    pan_like_pairs,
)


def _documents() -> list[GroupedDocument]:
    docs = []
    for topic in ("1", "2"):
        for sub in ("a", "b"):
            for n in range(3):
                docs.append(GroupedDocument(topic, f"{topic}{sub}",
                                            [f"Sentence {k} of {topic}{sub}{n} ." for k in range(5)]))
    return docs


def test_grouped_pairs_follow_the_kind_rules():
    docs = _documents()
    where = {tuple(d.sentences): d for d in docs}
    rows, missing = grouped_pairs(docs, per_kind=2, seed=0)
    assert len(rows) == 4 * 2 * 3 and not missing
    for row in rows:
        a, b = where[tuple(row["doc_a"])], where[tuple(row["doc_b"])]
        assert a is not b
        if row["kind"] == "positive":
            assert a.subtopic == b.subtopic and row["label"] == 1
        elif row["kind"] == "hard_negative":
            assert a.topic == b.topic and a.subtopic != b.subtopic and row["label"] == 0
        else:
            assert a.topic != b.topic and row["label"] == 0


def test_grouped_pairs_count_what_cannot_be_drawn():
    lonely = [GroupedDocument("1", "1a", ["Only one."])]
    rows, missing = grouped_pairs(lonely, per_kind=1, seed=0)
    assert rows == [] and missing == {"positive": 1, "hard_negative": 1, "easy_negative": 1}


def test_pan_like_positive_holds_the_source_segment_and_the_negative_does_not():
    docs = _documents()
    rows = pan_like_pairs(docs, n_pairs=5, seed=1, config=PanLikeConfig(word_drop=0.0))
    assert len(rows) == 10 and sum(r["label"] for r in rows) == 5
    for row in rows:
        source = set(row["doc_b"])
        inserted = [s for s in row["doc_a"] if s in source]
        if row["label"]:
            assert inserted and [row["doc_a"][i] for i in row["positive_sentences"]] == inserted
        else:
            assert not inserted and row["positive_sentences"] == []
    stats = pair_stats(rows)
    assert stats["pairs"] == 10 and stats["positive"] == 5 and stats["hard_negative"] == 5


def test_ecbplus_documents_join_tokens():
    (doc,) = ecbplus_documents([{"topic": "1", "subtopic": "1_ecb", "sentences": [["A", "b", "."]], "mentions": []}])
    assert doc.sentences == ["A b ."] and doc.subtopic == "1_ecb"


def test_related_pairs_of_a_coreference_corpus_mark_the_sentences_coreferent_with_the_other_document():
    def mention(sentence, cluster, singleton=False):
        return {"sentence": sentence, "cluster_id": cluster, "kind": "event", "singleton": singleton}

    rows = [{"topic": "1", "subtopic": "1a", "sentences": [["Quake", "hits"], ["Rain"], ["Aid", "came"]],
             "mentions": [mention(0, "e1"), mention(1, "e9", singleton=True), mention(2, "e2")]},
            {"topic": "1", "subtopic": "1a", "sentences": [["The", "quake"], ["Aid"]],
             "mentions": [mention(0, "e1"), mention(1, "e2"), mention(1, "e3")]}]
    first, second = ecbplus_documents(rows)
    assert first.sentence_clusters == (frozenset({"event:e1"}), frozenset(), frozenset({"event:e2"}))
    rows, _ = grouped_pairs([first, second], per_kind=1, seed=0)
    positive = next(row for row in rows if row["label"] == 1)
    assert positive["positive_sentences"] == ([0, 2] if positive["doc_a"] == first.sentences else [0, 1])
    assert all(row["positive_sentences"] == [] for row in rows if row["label"] == 0)
