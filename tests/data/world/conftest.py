"""Fixtures of the embedded-world tests: the smoke world, a world with one topic of every event type, the cpu
world (slow tests only), and small helpers that read every split of a dataset."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import pytest

from cdlm_nb.data.world import EVENT_TYPES, SPLITS, World, generate_world
from cdlm_nb.profiles import WorldConfig, get_profile


@pytest.fixture(scope="session")
def smoke_config() -> WorldConfig:
    """The smoke profile's world section."""
    return get_profile("smoke").world


@pytest.fixture(scope="session")
def probe_config(smoke_config) -> WorldConfig:
    """One topic per event type, small clusters: big enough to measure the knobs, fast to generate."""
    return replace(smoke_config, topics=len(EVENT_TYPES), task_topics=len(EVENT_TYPES))


@pytest.fixture(scope="session")
def world(smoke_config) -> World:
    """The smoke world (generated once for all the world tests; do not mutate it)."""
    return generate_world(smoke_config)


@pytest.fixture(scope="session", params=["smoke", "every_type"])
def any_world(request, world, probe_config) -> World:
    """The smoke world, and a world with one topic of every event type (so every template gets written)."""
    return world if request.param == "smoke" else generate_world(probe_config)


@pytest.fixture(scope="session")
def cpu_world() -> World:
    """The cpu profile's world: for slow tests only (a few seconds to generate)."""
    return generate_world(get_profile("cpu").world)


def _rows(dataset_dict) -> list[dict]:
    return [row for split in SPLITS for row in dataset_dict[split]]


def _check_qa(world: World) -> Counter:
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
        if row["id"].endswith("/yes_no"):
            assert row["answer"] in ("yes", "no") and row["type"] == "comparison"
        else:
            assert any(row["answer"] in sentence for sentence in supporting), row
        assert len(set(row["supporting_facts"]["title"])) == 2  # two gold paragraphs
        assert len(titles) == 2 + world.config.qa_distractors
        if row["type"] == "comparison" and not row["id"].endswith("/yes_no"):
            assert row["answer"] in row["question"]
        if row["answer"] in ("yes", "no"):
            types[row["answer"]] += 1
    return types


@pytest.fixture(scope="session")
def rows_of() -> Callable:
    """`rows_of(world.coref)`: every row of a train/dev/test DatasetDict, in split order."""
    return _rows


@pytest.fixture(scope="session")
def check_qa() -> Callable:
    """`check_qa(world)`: assert the HotpotQA invariants on every question; returns the count per type."""
    return _check_qa
