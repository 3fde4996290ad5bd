"""Fixtures of the perplexity tests: packed held-out stand-in clusters, and results built from per-cluster sums."""

from __future__ import annotations

import random

import numpy as np
import pytest


@pytest.fixture(scope="session")
def heldout(tiny_tokenizer):
    """Stand-in packed held-out examples: 6 clusters of 3 short documents sharing a made-up name, 2 packings each
    (so a masked name often has its answer in another document of the cluster)."""
    from datasets import Dataset

    from cdlm_nb.data.schemas import CLUSTER_FEATURES
    from cdlm_nb.inputs import pack_clusters

    rng = random.Random(1)
    words = [f"w{i}" for i in range(40)]
    rows = [{"cluster_id": f"c{c}", "summary": "",
             "documents": [" ".join(f"Nm{c}" if rng.random() < 0.2 else rng.choice(words) for _ in range(12))
                           for _ in range(3)]} for c in range(6)]
    clusters = Dataset.from_list(rows, features=CLUSTER_FEATURES)
    return tiny_tokenizer, pack_clusters(clusters, tiny_tokenizer, 128, examples_per_cluster=2)


@pytest.fixture(scope="session")
def model(tiny_encoder):
    """The shared seeded tiny LongformerForMaskedLM (attention window 8); tests that change it deepcopy it."""
    return tiny_encoder.model


@pytest.fixture(scope="session")
def make_result():
    """`make_result(variant, nll_sums, token_counts, ids=None)`: a PerplexityResult over those clusters, with its
    bootstrap interval, as `evaluate_perplexity` would return for them."""
    from cdlm_nb.perplexity.bootstrap import cluster_result

    def make(variant: str, sums, counts, ids=None):
        ids = list(ids or (f"c{i}" for i in range(len(counts))))
        return cluster_result(variant, ids, np.asarray(sums, dtype=float), np.asarray(counts), n_resamples=200)

    return make
