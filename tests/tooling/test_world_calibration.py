"""The world's calibration against real clusters: the size skew fitted by hand, the gap by its definition, and a
grid that finds the setting whose world the target was measured on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.data.cluster_stats import ClusterStats, cluster_statistics
from cdlm_nb.data.world import generate_world
from cdlm_nb.profiles import get_profile
from cdlm_nb.tooling import world_calibration as wc


def test_more_docs_is_fitted_to_the_mean_size_of_the_clusters_big_enough():
    clusters = [["a"] * 2, ["a"] * 3, ["a"] * 3, ["a"] * 4, ["a"] * 5]  # the pair is below the fewest: ignored
    assert wc.more_docs_estimate(clusters, 3) == pytest.approx(0.75 / 1.75)
    assert wc.more_docs_estimate([["a"] * 3], 3) == 0.0
    with pytest.raises(ValueError, match="no cluster has 3 or more"):
        wc.more_docs_estimate([["a", "b"]], 3)


def test_gap_sums_the_target_statistics_in_points():
    base = ClusterStats(10, 3.0, 100.0, 0.10, 0.50, 0.70, 9.0, 200.0)
    other = replace(base, fact_share=0.12, facts_elsewhere=0.45, missing_elsewhere=0.75, words_per_document=900.0)
    assert wc.gap(other, base) == pytest.approx(2 + 5 + 5)  # the length is not a target


def test_the_grid_finds_the_setting_the_target_was_measured_on():
    config = get_profile("smoke").world
    target = cluster_statistics(generate_world(replace(config, fact_overlap=0.3, filler=0.5)).clusters["train"]
                                ["documents"])
    points = wc.calibration_grid(config, target, overlaps=(0.3, 0.9), fillers=(0.1, 0.5))
    assert len(points) == 4 and {(p.fact_overlap, p.filler) for p in points} == {(0.3, 0.1), (0.3, 0.5), (0.9, 0.1),
                                                                                 (0.9, 0.5)}
    best = wc.closest(points)
    assert (best.fact_overlap, best.filler) == (0.3, 0.5) and best.gap == pytest.approx(0.0, abs=1e-9)
    table = wc.grid_table(points)
    assert list(table.columns[:2]) == ["fact_overlap", "filler"] and table["gap (points)"].min() == 0.0  # rounded


def test_without_a_sample_the_command_says_where_to_get_multinews(monkeypatch):
    from cdlm_nb.support.errors import ConfigError

    monkeypatch.setattr("cdlm_nb.support.paths.shared_data_dir", lambda *args: None)
    with pytest.raises(ConfigError, match="pass its path.*Multi-News"):
        wc.main([])
