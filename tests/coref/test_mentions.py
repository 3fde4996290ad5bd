"""Gold mentions: collected per kind with their groups, checked against their document."""

from __future__ import annotations

import pytest

from cdlm_nb.coref.mentions import collect_mentions, coref_clusters, gold_clusters, group_mentions
from cdlm_nb.support.errors import ConfigError, DataError


def test_collect_mentions_keeps_one_kind_with_its_groups(corpus):
    events = collect_mentions(corpus, "event")
    assert [m.mention_id for m in events] == ["a1", "a2", "a3", "b1", "b2"]
    assert {m.subtopic for m in events} == {"1_ecb"}
    assert sorted(map(sorted, gold_clusters(events))) == [["a1", "a2", "b1"], ["a3"], ["b2"]]
    assert [m.mention_id for m in collect_mentions(corpus, "entity")] == ["a4"]


@pytest.mark.parametrize("field,value,message", [
    ("sentence", 7, "sentence index 7 is out of range"),
    ("end", 40, r"span \[3, 40\) lies outside sentence 0"),
    ("start", -1, r"span \[-1, 4\) lies outside"),
])
def test_bad_mentions_name_document_and_mention(corpus, field, value, message):
    corpus[0]["mentions"][0][field] = value
    with pytest.raises(DataError, match=message) as error:
        collect_mentions(corpus, "event")
    assert "'1_1ecb'" in str(error.value) and "'a1'" in str(error.value)


def test_unknown_kind_is_a_config_error(corpus):
    with pytest.raises(ConfigError, match="event"):
        collect_mentions(corpus, "events")


def test_group_mentions_by_an_attribute(corpus):
    events = collect_mentions(corpus, "event")
    assert {k: [m.mention_id for m in v] for k, v in group_mentions(events, "doc_id").items()} == \
        {"1_1ecb": ["a1", "a2", "a3"], "1_2ecb": ["b1", "b2"]}
    with pytest.raises(ConfigError, match="group_by"):
        group_mentions(events, "sentence")


ROWS = [
    {
        "doc_id": "1_1ecb", "topic": "1", "subtopic": "1_ecb", "sentence_ids": [0, 2],
        "sentences": [["Lohan", "checked", "into", "rehab"], ["She", "entered", "rehab", "again"]],
        "mentions": [
            {"mention_id": "m1", "kind": "entity", "sentence": 0, "start": 0, "end": 1, "cluster_id": "LOHAN"},
            {"mention_id": "m2", "kind": "event", "sentence": 0, "start": 1, "end": 3, "cluster_id": "CHECKIN"},
            {"mention_id": "m3", "kind": "entity", "sentence": 0, "start": 3, "end": 4, "cluster_id": "REHAB"},
            {"mention_id": "m4", "kind": "entity", "sentence": 1, "start": 0, "end": 1, "cluster_id": "LOHAN"},
            {"mention_id": "m5", "kind": "event", "sentence": 1, "start": 1, "end": 2, "cluster_id": "CHECKIN"},
            {"mention_id": "m6", "kind": "entity", "sentence": 1, "start": 2, "end": 3, "cluster_id": "REHAB"},
        ],
    },
    {
        "doc_id": "1_2ecb", "topic": "1", "subtopic": "1_ecb", "sentence_ids": [1],
        "sentences": [["Lindsay", "Lohan", "went", "to", "rehab"]],
        "mentions": [
            {"mention_id": "n1", "kind": "entity", "sentence": 0, "start": 0, "end": 2, "cluster_id": "LOHAN"},
            {"mention_id": "n2", "kind": "event", "sentence": 0, "start": 2, "end": 3, "cluster_id": "CHECKIN"},
            {"mention_id": "n3", "kind": "entity", "sentence": 0, "start": 4, "end": 5, "cluster_id": "REHAB2"},
        ],
    },
]


def test_coref_clusters_gold_and_predicted():
    assert coref_clusters(ROWS, "event") == [[("1_1ecb", 1, 3), ("1_1ecb", 5, 6), ("1_2ecb", 2, 3)]]
    # document-level offsets: sentence 1 of 1_1ecb starts at token 4
    gold_entities = coref_clusters(ROWS, "entity")
    assert gold_entities[0] == [("1_1ecb", 0, 1), ("1_1ecb", 4, 5), ("1_2ecb", 0, 2)]
    predicted = coref_clusters(ROWS, "event", {"m2": "x", "m5": "y", "n2": "x"})
    assert predicted == [[("1_1ecb", 1, 3), ("1_2ecb", 2, 3)], [("1_1ecb", 5, 6)]]


def test_coref_clusters_rejects_incomplete_or_foreign_assignments():
    with pytest.raises(DataError, match="1 event mention"):
        coref_clusters(ROWS, "event", {"m2": "x", "m5": "y"})
    with pytest.raises(DataError, match="not event mentions"):
        coref_clusters(ROWS, "event", {"m2": "x", "m5": "y", "n2": "x", "m1": "z"})
    with pytest.raises(ConfigError):
        coref_clusters(ROWS, "events")


# ROWS' tokens (columns doc_id, sentence_id, token index, token) with the entity key and a response, as CoNLL
# coreference columns: the key's clusters 0, 1, 2 are coref_clusters' LOHAN, REHAB, REHAB2.
