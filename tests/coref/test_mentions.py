"""Gold mentions: collected per kind with their groups, checked against their document."""

from __future__ import annotations

import pytest

from cdlm_nb.coref.mentions import collect_mentions, gold_clusters, group_mentions
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
