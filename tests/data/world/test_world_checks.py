"""Checks before generating: every lexicon event type can write every fact, and bad knobs name their field."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.data.world import EVENT_TYPES, check_config, check_lexicon, generate_world
from cdlm_nb.data.world.lexicon import Role
from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import ConfigError


def test_every_event_type_can_write_every_fact():
    assert {etype.name: check_lexicon(etype) for etype in EVENT_TYPES} == {e.name: [] for e in EVENT_TYPES}


def test_check_lexicon_names_a_broken_template():
    etype = EVENT_TYPES[0]
    broken = replace(etype, facts=etype.facts + ("The {nobody} left.", "A {core:zz} again."),
                     roles=etype.roles + (Role("crowd", "nmber"),))
    problems = check_lexicon(broken)
    assert any("role 'crowd': kind 'nmber' is not one of" in p for p in problems)
    assert any("unknown slot 'nobody'" in p for p in problems)
    assert any("has no form 'zz'" in p for p in problems)


def test_bad_config_values_raise_config_errors(smoke_config):
    for bad in (dict(fact_overlap=1.5), dict(noise=-0.1), dict(topics=2), dict(docs_per_cluster=(1, 3)),
                dict(words_per_doc=(80, 40))):
        with pytest.raises(ConfigError, match="WorldConfig"):
            check_config(replace(smoke_config, **bad))
        with pytest.raises(ConfigError, match="WorldConfig"):
            generate_world(replace(smoke_config, **bad))


def test_every_profile_has_a_world_section():
    for name in ("smoke", "cpu", "gpu"):
        check_config(get_profile(name).world)
