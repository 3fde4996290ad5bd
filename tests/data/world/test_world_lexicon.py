"""The lexicon's template language: slots and optional segments parse, tokens round-trip to text, articles agree."""

from __future__ import annotations

import pytest

from cdlm_nb.data.world.lexicon import (
    EVENT_TYPES,
    Maybe,
    Slot,
    detokenize,
    indefinite_article,
    parse_template,
    required_roles,
    template_events,
    tokenize,
)
from cdlm_nb.support.errors import ConfigError


def test_parse_template_splits_slots_and_optional_segments():
    parts = parse_template("A {core:n} hit {place}[ on {time}].")
    assert parts == ("A ", Slot("core", "n"), " hit ", Slot("place"), Maybe((" on ", Slot("time"))), ".")
    with pytest.raises(ConfigError, match="never closed"):
        parse_template("A [{place}")
    with pytest.raises(ConfigError, match="cannot nest"):
        parse_template("A [{place} [on {time}]]")


def test_required_roles_skip_optional_segments_and_events():
    etype = next(e for e in EVENT_TYPES if {"place", "time"} <= set(e.role_by_name))
    assert required_roles("A {core:n} hit {place}[ on {time}].", etype) == {"place"}
    assert {"core", "say"} <= set(template_events(etype))  # its own events and the reporting verbs


def test_tokens_round_trip_through_detokenize():
    text = "A judge set bail at $1,200 in Valparaiso, Chile on Monday. It is the company's first 6.1 quake."
    tokens = tokenize(text)
    assert "$" in tokens and "1,200" in tokens and "'s" in tokens and "6.1" in tokens
    rebuilt, offsets = detokenize(tokens)
    assert rebuilt == text
    assert all(rebuilt[o:o + len(t)] == t for o, t in zip(offsets, tokens))


def test_indefinite_article_follows_the_first_letter():
    assert [indefinite_article(w) for w in ("earthquake", "quake", "Airline")] == ["an", "a", "an"]
