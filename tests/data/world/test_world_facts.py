"""Drawing facts: siblings differ in every value, misreported numbers stay plausible, profiles hold answers."""

from __future__ import annotations

import random

from cdlm_nb.data.world.facts import EntityProfile, NameBook, draw_subtopic, wrong_number
from cdlm_nb.data.world.lexicon import EVENT_TYPES


def test_siblings_share_the_event_type_but_no_fact_value():
    rng, book = random.Random(0), NameBook()
    for etype in EVENT_TYPES:
        first = draw_subtopic(etype, "1", "a", rng, book, None)
        second = draw_subtopic(etype, "1", "b", rng, book, first)
        assert first.year != second.year
        for name, fact in first.facts.items():
            if fact.role.kind in ("person", "org", "place", "number", "time") and fact.role.pool != "building":
                assert fact.name != second.facts[name].name, (etype.name, name)


def test_wrong_numbers_are_plausible_misreports():
    rng, book = random.Random(5), NameBook()
    for etype in EVENT_TYPES:
        subtopic = draw_subtopic(etype, "1", "a", rng, book, None)
        for fact in subtopic.facts.values():
            if fact.role.kind == "number":
                wrong = float(wrong_number(fact, rng).replace(",", ""))
                assert wrong != fact.amount and fact.role.low <= wrong <= fact.role.high + 1, (etype.name, fact.name)


def test_bridge_keys_have_entity_profiles_stating_the_answer():
    rng, book = random.Random(1), NameBook()
    for etype in (e for e in EVENT_TYPES if e.bridge):
        fact = draw_subtopic(etype, "1", "a", rng, book, None).facts[etype.bridge.key]
        assert isinstance(fact.profile, EntityProfile) and fact.profile.title == fact.name
        index, answer = fact.profile.answers[etype.bridge.attribute]
        assert answer in fact.profile.sentences[index]
