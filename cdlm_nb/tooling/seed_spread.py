"""Fine-tuning seed spread: how far a fine-tuned metric moves when only the training seed changes. On another
machine the last float bits differ (AVX2 and AVX-512 order float32 sums differently), and on a few hundred pairs a
last-bit difference can flip a dev-chosen epoch or a decision at 0.5 just as another seed would. `cdlm-nb compare`
therefore holds a run from another machine to the measured seed band, and a run on the same machine to the tight
tolerance of `metric_kinds`. Measured by `tools/seed_spread.py`, kept beside the baseline."""

from __future__ import annotations

import json
import math
import os
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from ..support.paths import spread_path
from .metric_kinds import KINDS, MetricKind, kind_of

# Two runs that differ only by chance (seed, float noise) differ by more than 1.96 x sqrt(2) x sd in 5 % of cases
# (the difference of two normal draws with the same sd).
BAND_FACTOR = 1.96 * math.sqrt(2)


def metric_spread(runs: Mapping[int, Mapping[str, float]], kinds: tuple[MetricKind, ...] = KINDS
                  ) -> dict[str, dict[str, Any]]:
    """Per non-timing metric recorded under every seed: its values (seed order), their sample sd, its family's
    pooled sd, and the band a rerun elsewhere may differ by: BAND_FACTOR x the larger of the two sds. Three seeds
    give one metric's sd 2 degrees of freedom (its 95 % range is 0.16-1.9 x the true sd); pooling the variances of
    a family (the systems of one table: `family`) gives 2 per system. Metrics some seed lacks are left out."""
    seeds = sorted(runs)
    if len(seeds) < 2:
        raise ValueError(f"a spread needs at least two seeds' runs, got {seeds}")
    shared = set.intersection(*(set(runs[seed]) for seed in seeds))
    values = {metric: [float(runs[seed][metric]) for seed in seeds] for metric in sorted(shared)
              if not kind_of(metric, kinds).timing}
    sds = {metric: statistics.stdev(v) for metric, v in values.items()}
    variances: dict[str, list[float]] = {}
    for metric, sd in sds.items():
        variances.setdefault(family(metric), []).append(sd**2)
    pooled = {name: math.sqrt(statistics.fmean(v)) for name, v in variances.items()}
    return {metric: {"values": values[metric], "sd": sds[metric], "pooled_sd": pooled[family(metric)],
                     "band": BAND_FACTOR * max(sds[metric], pooled[family(metric)])} for metric in values}


def spread_file(profile: str, runs: Mapping[int, Mapping[str, float]], notebooks: Sequence[str], command: str,
                cpu: Mapping[str, str] | None = None, previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The committed record: how it was measured and each metric's spread; metrics of notebooks not measured this
    time are kept from `previous` (a spread is measured one task at a time)."""
    previous = previous or {}
    metrics = dict(previous.get("metrics", {})) | metric_spread(runs)
    measured = sorted(set(notebooks) | set(previous.get("notebooks", [])))
    return {"profile": profile, "seeds": sorted(runs), "notebooks": measured,
            "command": command, "cpu": dict(cpu or {}),
            "band": "1.96 x sqrt(2) x max(sample sd over the seeds, the family's pooled sd)",
            "metrics": metrics}


def load_bands(baseline: str | os.PathLike) -> dict[str, float]:
    """metric -> band from the spread file beside `baseline` (empty when none was measured)."""
    path = spread_path(baseline)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
        return {name: float(entry["band"]) for name, entry in data["metrics"].items()}
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a seed-spread file ({exc}); re-measure it with tools/seed_spread.py") from exc


def same_machine(baseline: Mapping[str, Any], run: Mapping[str, Any]) -> bool:
    """Whether both runs name the same CPU (model, vector instructions, threads). A baseline written before CPUs
    were recorded counts as another machine for a run that names its CPU; two that name none are held tightly."""
    return baseline.get("cpu") == run.get("cpu")


def family(metric: str) -> str:
    """The quantity a metric measures, for every system of its table: a known system's segment after the first
    (the notebook's namespace) replaced by `*` (`matching/world/f1/cdlm` and `.../rand` -> `matching/world/f1/*`;
    `.../recipe/cdlm/epochs` -> `.../recipe/*/epochs`); a name without one drops its last segment (a variant:
    `match_ignition/world/f1/alpha_10` -> `match_ignition/world/f1`)."""
    from ..profiles import CDA_MODELS
    from ..profiles import COMPARISON_SYSTEMS as SYSTEMS

    systems = {*SYSTEMS, *CDA_MODELS}
    first, *rest = metric.split("/")
    if any(part in systems for part in rest):
        return "/".join([first, *("*" if part in systems else part for part in rest)])
    return metric.rsplit("/", 1)[0] if rest else metric


def summary_table(spread: Mapping[str, Any]) -> str:
    """A Markdown table of a spread file: per family (one quantity over the systems of a table), how many
    metrics, how many moved with the seed, the pooled sd and the largest single sd with its metric (on the
    metrics' own scale: points for F1 and accuracy in %, fractions where the metric is one)."""
    families: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, entry in spread["metrics"].items():
        families.setdefault(family(name), []).append((name, entry))
    lines = [f"seeds {', '.join(map(str, spread['seeds']))}; band = {spread['band']}", "",
             "| family | metrics | moved | pooled sd | largest sd | of |", "|---|---:|---:|---:|---:|---|"]
    for name, rows in sorted(families.items()):
        metric, entry = max(rows, key=lambda row: row[1]["sd"])
        moved = sum(e["sd"] > 0 for _, e in rows)
        pooled = entry.get("pooled_sd", entry["sd"])
        lines.append(f"| {name} | {len(rows)} | {moved} | {pooled:.3g} | {entry['sd']:.3g} | "
                     f"{metric if moved else '—'} |")
    return "\n".join(lines)
