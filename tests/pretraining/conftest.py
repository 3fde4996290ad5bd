"""Fixtures of the pretraining tests: stand-in training clusters and a two-step pretraining config."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from cdlm_nb.profiles import get_profile


@pytest.fixture(scope="session")
def clusters():
    """Twelve clusters of four 15-word documents; the documents of one cluster share a made-up name only they hold."""
    from datasets import Dataset

    from cdlm_nb.data.schemas import CLUSTER_FEATURES

    rng = random.Random(0)
    vocabulary = [f"word{i}" for i in range(60)]
    rows = []
    for c in range(12):
        name = f"Name{c}x"
        documents = [" ".join(name if rng.random() < 0.1 else rng.choice(vocabulary) for _ in range(15))
                     for _ in range(4)]
        rows.append({"cluster_id": f"c{c}", "documents": documents, "summary": ""})
    return Dataset.from_list(rows, features=CLUSTER_FEATURES)


@pytest.fixture(scope="session")
def tiny_config():
    """A function: the smoke profile's PretrainConfig cut to two steps of batch 2 (plus `changes`)."""
    def make(**changes):
        base = replace(get_profile("smoke").pretrain, max_steps=2, per_device_batch_size=2, max_length=128,
                       logging_steps=1, save_steps=1000, warmup_steps=1)
        return replace(base, **changes)

    return make
