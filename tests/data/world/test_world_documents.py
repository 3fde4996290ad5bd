"""Writing documents: cluster sizes and lengths follow the config, and the knobs do what they claim."""

from __future__ import annotations

import random
import statistics
from collections import Counter
from dataclasses import replace

from cdlm_nb.data.world import EVENT_TYPES, SPLITS, generate_world
from cdlm_nb.data.world.documents import write_cluster
from cdlm_nb.data.world.facts import NameBook, draw_subtopic


def test_cluster_sizes_and_document_lengths_follow_the_config(world, smoke_config, rows_of):
    low, high = smoke_config.docs_per_cluster
    words_low, words_high = smoke_config.words_per_doc
    for row in rows_of(world.clusters):
        assert low <= len(row["documents"]) <= high
        for document in row["documents"]:
            assert words_low <= len(document.split()) <= words_high, document


def test_indefinite_articles_agree_with_the_words_filled_in(any_world, rows_of):
    for row in rows_of(any_world.coref):
        for tokens in row["sentences"]:
            for article, word in zip(tokens, tokens[1:]):
                if article.lower() == "a":
                    assert word[0].lower() not in "aeio", " ".join(tokens)


def _stated_share(world, rows_of) -> float:
    """Mean over non-anchor facts of the share of a cluster's documents that state them correctly."""
    type_of = {c: EVENT_TYPES[label] for split in SPLITS
               for c, label in zip(world.clusters[split]["cluster_id"], world.classification[split]["label"])}
    n_docs = {row["cluster_id"]: len(row["documents"]) for row in rows_of(world.clusters)}
    stating = Counter((r["cluster_id"], r["fact"]) for r in rows_of(world.facts) if r["correct"] and not r["anchor"])
    shares = [stating[(c, role.name)] / n_docs[c] for c in n_docs for role in type_of[c].roles
              if role.name not in type_of[c].anchors]
    return statistics.mean(shares)


def test_fact_overlap_one_makes_every_document_state_every_fact(probe_config, rows_of):
    full = generate_world(replace(probe_config, fact_overlap=1.0, noise=0.0))
    assert _stated_share(full, rows_of) == 1.0
    sparse = generate_world(replace(probe_config, fact_overlap=0.3, noise=0.0))
    middle = generate_world(replace(probe_config, fact_overlap=0.7, noise=0.0))
    assert _stated_share(sparse, rows_of) < _stated_share(middle, rows_of) < 1.0
    assert all(r["support"] == 0 or r["correct"] for r in rows_of(sparse.facts))
    recoverable = [w.describe()["recoverable_fact_share"] for w in (sparse, middle, full)]
    assert recoverable[0] < recoverable[1] < recoverable[2] == 1.0
    lonely = generate_world(replace(probe_config, fact_overlap=0.0, noise=0.0))  # each fact in exactly one document
    assert lonely.describe()["recoverable_fact_share"] == 0.0
    assert all(r["support"] == 0 for r in rows_of(lonely.facts) if not r["anchor"])


def test_noise_makes_documents_state_wrong_numbers(probe_config, rows_of):
    clean = generate_world(replace(probe_config, noise=0.0))
    noisy = generate_world(replace(probe_config, noise=0.5))
    assert not any(not r["correct"] for r in rows_of(clean.facts))
    wrong = [r for r in rows_of(noisy.facts) if not r["correct"]]
    assert wrong and all(r["kind"] == "number" and r["text"] != r["value"] for r in wrong)
    assert _stated_share(noisy, rows_of) < _stated_share(clean, rows_of)


def test_filler_share_grows_with_the_filler_knob(probe_config):
    rng = random.Random(3)

    def filler_share(filler: float) -> float:
        config = replace(probe_config, filler=filler, noise=0.0, words_per_doc=(1, 10_000))
        shares = []
        for etype in EVENT_TYPES:
            subtopic = draw_subtopic(etype, "1", "a", rng, NameBook(), None)
            write_cluster(subtopic, config, rng, NameBook())
            for document in subtopic.documents:
                fillers = sum(not s.statements and not any("/entity/" in m.label for m in s.mentions)
                              for s in document.sentences[1:])
                shares.append(fillers / len(document.sentences))
        return statistics.mean(shares)

    none, some, most = filler_share(0.0), filler_share(0.3), filler_share(0.7)
    assert none == 0.0 < some < most
    assert 0.15 < some < 0.45
