"""Calibrating the embedded world against real news clusters, by the statistics of `cluster_stats`.

The target is what CDLM pretrains on: Multi-News clusters with at least `CDLM_MIN_DOCUMENTS` documents. The
cluster size skew (`WorldConfig.more_docs`) is estimated from their document counts; the sharing knobs
(`fact_overlap`, `filler`) are chosen on a small grid as the point whose world is closest to them on the three
sharing statistics (`TARGETS`), in percentage points summed. Only the world's training clusters are measured and
no model is trained: the choice cannot look at which setting makes CDLM win.

Run `python -m cdlm_nb.tooling.world_calibration [MULTINEWS_PATH]` to print the grid (docs/experiments.md).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..data.cluster_stats import ClusterStats, cluster_statistics, multinews_sample, sample_clusters
from ..profiles import SEED

if TYPE_CHECKING:
    import pandas as pd

    from ..profiles import WorldConfig

#: The statistics the sharing knobs are fitted on (shares; the gap is in percentage points).
TARGETS = ("fact_share", "facts_elsewhere", "missing_elsewhere")
OVERLAPS = (0.1, 0.2, 0.3, 0.5, 0.7)
FILLERS = (0.3, 0.5, 0.7)


def more_docs_estimate(clusters: Sequence[Sequence[str]], fewest: int) -> float:
    """P(one more document) of a geometric cluster size starting at `fewest`, fitted to the clusters' mean size
    (maximum likelihood, ignoring the cap): (mean - fewest) / (mean - fewest + 1)."""
    sizes = [len(c) for c in clusters if len(c) >= fewest]
    if not sizes:
        raise ValueError(f"no cluster has {fewest} or more documents: nothing to fit `more_docs` on")
    extra = sum(sizes) / len(sizes) - fewest
    return extra / (extra + 1)


def gap(world: ClusterStats, real: ClusterStats) -> float:
    """How far the world is from the real clusters on `TARGETS`, in percentage points summed."""
    return sum(100 * abs(getattr(world, key) - getattr(real, key)) for key in TARGETS)


@dataclass(frozen=True)
class GridPoint:
    """One generator setting, its world's statistics and their gap to the real clusters."""

    fact_overlap: float
    filler: float
    stats: ClusterStats
    gap: float


def calibration_grid(config: "WorldConfig", real: ClusterStats, overlaps: Sequence[float] = OVERLAPS,
                     fillers: Sequence[float] = FILLERS, seed: int = SEED) -> list[GridPoint]:
    """Generate the world of `config` at every (fact_overlap, filler) and measure its training clusters (as many
    as `real` has, when the world has that many)."""
    from ..data.world import generate_world

    points = []
    for overlap in overlaps:
        for filler in fillers:
            clusters = generate_world(replace(config, fact_overlap=overlap, filler=filler)).clusters["train"]
            stats = cluster_statistics(sample_clusters(clusters["documents"], real.clusters, seed))
            points.append(GridPoint(overlap, filler, stats, gap(stats, real)))
    return points


def closest(points: Sequence[GridPoint]) -> GridPoint:
    """The grid point with the smallest gap (ties: the first, i.e. the smaller overlap and filler)."""
    return min(points, key=lambda p: p.gap)


def grid_table(points: Sequence[GridPoint]) -> "pd.DataFrame":
    """One row per grid point: the knobs, the fitted statistics and words per document (shares in %), the gap."""
    import pandas as pd

    rows = [{"fact_overlap": p.fact_overlap, "filler": p.filler,
             **{key: round(100 * getattr(p.stats, key), 1) for key in TARGETS},
             "words_per_document": round(p.stats.words_per_document, 1), "gap (points)": round(p.gap, 1)}
            for p in points]
    return pd.DataFrame(rows)


def main(argv: Sequence[str] = ()) -> None:
    """Print the calibration of the cpu world against Multi-News (`argv[0]`, else the sample beside the checkout)."""
    from ..data.multinews import CDLM_MIN_DOCUMENTS, MULTINEWS_MANUAL, filter_min_documents, load_multinews
    from ..profiles import get_profile
    from ..support.errors import ConfigError

    path = multinews_sample(argv[0] if argv else None)
    if path is None:
        raise ConfigError(f"no Multi-News sample beside the checkout: pass its path. {MULTINEWS_MANUAL}")
    clusters = filter_min_documents(load_multinews(path), CDLM_MIN_DOCUMENTS)[0]["documents"]
    real = cluster_statistics(clusters)
    config = get_profile("cpu").world
    print(f"Multi-News clusters with >= {CDLM_MIN_DOCUMENTS} documents ({path}): {len(clusters)}; "
          f"more_docs fitted: {more_docs_estimate(clusters, config.docs_per_cluster[0]):.3f}")
    print({key: round(100 * getattr(real, key), 1) for key in TARGETS})
    points = calibration_grid(config, real)
    print(grid_table(points).to_string(index=False))
    best = closest(points)
    print(f"closest: fact_overlap={best.fact_overlap}, filler={best.filler} (gap {best.gap:.1f} points)")


if __name__ == "__main__":
    main(sys.argv[1:])
