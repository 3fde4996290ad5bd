"""Generating the world: deterministic, schema-true, split by topic, independent of the hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from cdlm_nb.data.schemas import (
    CLUSTER_FEATURES,
    COREF_FEATURES,
    PAIR_FEATURES,
    QA_FEATURES,
    classification_features,
)
from cdlm_nb.data.world import EVENT_TYPES, FACT_FEATURES, LABEL_NAMES, SPLITS, generate_world


def _content(world) -> dict:
    names = ("clusters", "coref", "pairs", "qa", "classification", "facts")
    return {name: {split: getattr(world, name)[split].to_list() for split in SPLITS} for name in names}


def test_same_seed_gives_the_same_world_and_another_seed_another(world, smoke_config):
    assert _content(generate_world(smoke_config)) == _content(world)
    other = generate_world(replace(smoke_config, seed=smoke_config.seed + 1))
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


def test_splits_are_by_topic_and_hold_every_cluster(world, smoke_config):
    topics = world.topics
    assert [len(topics[s]) for s in SPLITS] == [smoke_config.topics - 2, 1, 1]
    assert len({t for s in SPLITS for t in topics[s]}) == smoke_config.topics
    for split in SPLITS:
        assert {c.split("_")[0] for c in world.clusters[split]["cluster_id"]} == set(topics[split])
        assert set(world.coref[split]["topic"]) <= set(topics[split])
    assert sum(len(world.clusters[s]) for s in SPLITS) == 2 * smoke_config.topics


def test_classification_concatenates_a_cluster_under_its_event_type(world):
    for split in SPLITS:
        clusters, labelled = world.clusters[split], world.classification[split]
        assert len(clusters) == len(labelled)
        for docs, row in zip(clusters["documents"], labelled):  # some open with a preamble (WorldConfig)
            assert row["text"] == "\n\n".join(docs) or row["text"].endswith("\n\n" + "\n\n".join(docs))
    assert world.classification["train"].features["label"].names == [e.name for e in EVENT_TYPES]


def test_describe_summarises_the_world(world):
    summary = world.describe()
    assert summary["clusters"] == {split: len(world.clusters[split]) for split in SPLITS}
    assert summary["documents"] == sum(len(docs) for split in SPLITS for docs in world.clusters[split]["documents"])
    assert 0.0 <= summary["recoverable_fact_share"] <= 1.0


@pytest.mark.slow
def test_cpu_world_has_the_promised_shape(cpu_world):  # its speed is measured by benchmarks/world_speed.py
    summary = cpu_world.describe()
    assert summary["clusters"]["train"] >= 300 and summary["cross_doc_clusters"]["event"] > 100
    assert 50 <= summary["words_per_doc"]["mean"] <= 150
    # calibrated against Multi-News (fact_overlap 0.2): a minority of the non-anchor facts is stated twice
    assert 0.15 <= summary["recoverable_fact_share"] <= 0.5


@pytest.mark.slow
def test_the_world_does_not_depend_on_the_hash_seed(world):
    script = ("import json; from cdlm_nb.data.world import generate_world; from cdlm_nb.profiles import "
              "get_profile; w = generate_world(get_profile('smoke').world); "
              "print(json.dumps(w.clusters['train'].to_list()))")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parents[3])
    assert json.loads(out.stdout) == world.clusters["train"].to_list()
