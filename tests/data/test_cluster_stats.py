"""The cluster statistics that compare the embedded world with real Multi-News clusters, by one text-only rule."""

from __future__ import annotations

import math

import pytest

from cdlm_nb.data import cluster_stats as cs
from cdlm_nb.profiles import get_profile

CLUSTERS = [["Anna Petrov won in Lyon on May 30. She smiled.", "The mayor of Lyon met Petrov."],
            ["Rain fell on 12 towns."]]


def test_a_fact_is_a_number_or_a_capitalised_word_inside_its_sentence():
    assert cs.proxy_facts("Anna Petrov won in Lyon on May 30. She smiled.") == ["petrov", "lyon", "may", "30"]
    assert cs.proxy_facts("The mayor of Lyon met Petrov.") == ["lyon", "petrov"]


def test_statistics_by_hand():
    s = cs.cluster_statistics(CLUSTERS)
    assert (s.clusters, s.documents_per_cluster) == (2, 1.5)
    assert s.words_per_document == pytest.approx((10 + 6 + 5) / 3)
    assert s.fact_share == pytest.approx(7 / 21)  # 4 + 2 + 1 ("12")
    assert s.facts_elsewhere == pytest.approx(4 / 7)  # petrov, lyon in both documents of the first cluster
    assert s.missing_elsewhere == pytest.approx((2 / 4 + 0 / 2) / 2)  # may, 30 lack from the second document
    counts = [2, 2, 1, 1, 1]  # petrov, lyon, may, 30, 12
    assert s.value_entropy_bits == pytest.approx(-sum(n / 7 * math.log2(n / 7) for n in counts))
    assert s.values_per_1k_facts == pytest.approx(1000 * 5 / 7)


def test_table_and_metrics_give_shares_in_percent():
    stats = {"world": cs.cluster_statistics(CLUSTERS)}
    table = cs.comparison_table(stats)
    assert table.loc["fact words another document states (%)", "world"] == round(100 * 4 / 7, 1)
    assert cs.stats_metrics(stats)["calibration/world/facts_elsewhere"] == pytest.approx(100 * 4 / 7)


def test_world_and_multinews_measure_equally_many_clusters(shared_data, monkeypatch):
    stats, notes = cs.world_and_multinews(get_profile("smoke"))
    assert set(stats) == {"world", cs.MATCHED_WORLD, "multinews", "multinews_pretraining"}
    assert stats[cs.MATCHED_WORLD].clusters == stats["multinews"].clusters == stats["multinews_pretraining"].clusters
    monkeypatch.setattr(cs, "multinews_sample", lambda path=None: None)  # a clone without ../shared
    alone = cs.world_and_multinews(get_profile("smoke"))[0]
    assert alone == {"world": stats["world"]}  # all the world's training clusters, with the sample or without
    assert list(cs.comparison_table(stats).columns) == ["world", "multinews", "multinews_pretraining"]
    assert stats["multinews_pretraining"].documents_per_cluster >= 3 and "clusters of each" in notes[0]
    assert any("Shared facts" in line for line in cs.readings(stats))
