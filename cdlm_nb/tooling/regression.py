"""`cdlm-nb compare`: a run's recorded metrics against a baseline results.json, so a change that moves a number
fails loudly instead of passing because every notebook still finished."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..support.errors import ConfigError, DataError
from .metric_kinds import KINDS, MetricKind, kind_of
from .seed_spread import load_bands, same_machine


@dataclass(frozen=True)
class Row:
    metric: str
    baseline: float | None
    now: float | None
    kind: str

    @property
    def difference(self) -> float | None:
        """now - baseline (None when either side is absent)."""
        return None if self.baseline is None or self.now is None else self.now - self.baseline

    @property
    def relative(self) -> float | None:
        """The difference as a fraction of the baseline (None where the baseline is 0 or absent)."""
        difference = self.difference
        return None if difference is None or not self.baseline else difference / abs(self.baseline)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "difference": self.difference, "relative": self.relative}


@dataclass
class Comparison:
    run: str
    baseline: str
    profile: str
    checked: int = 0  # metrics within tolerance
    same_machine: bool = True  # False: fine-tuned metrics held to their measured seed band (`seed_spread`)
    within_band: list[Row] = field(default_factory=list)  # beyond the tight tolerance, inside the seed band: passes
    drift: list[Row] = field(default_factory=list)
    missing: list[Row] = field(default_factory=list)  # in the baseline, not recorded by the run: fails
    not_applicable: list[Row] = field(default_factory=list)  # missing because an optional input is absent here
    new: list[Row] = field(default_factory=list)  # recorded by the run, not in the baseline: reported
    timings: list[Row] = field(default_factory=list)  # reported, never failed on
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No metric drifted past its tolerance and none is missing."""
        return not self.drift and not self.missing

    def to_json(self) -> dict[str, Any]:
        rows = {key: [row.to_json() for row in getattr(self, key)]
                for key in ("drift", "missing", "not_applicable", "within_band", "new", "timings")}
        return {"ok": self.ok, "run": self.run, "baseline": self.baseline, "profile": self.profile,
                "checked": self.checked, "same_machine": self.same_machine, **rows, "notes": self.notes}


def results_path(path: str | os.PathLike) -> Path:
    """A run folder's results.json, or the results.json-like file itself."""
    path = Path(path)
    return path / "results.json" if path.is_dir() else path


def load_results(path: str | os.PathLike) -> dict[str, Any]:
    """A results.json (`cdlm-nb run`'s layout: profile, notebooks, metrics), checked enough to compare."""
    file = results_path(path)
    if not file.is_file():
        raise ConfigError(f"{file}: no such file; give a run folder (holding results.json, as `cdlm-nb run "
                          "--output DIR` writes it) or a results.json / baseline file")
    try:
        results = json.loads(file.read_text())
    except ValueError as exc:
        raise DataError(f"{file}: not JSON ({exc}); re-run `cdlm-nb run` or restore the baseline from git") from exc
    if not isinstance(results, dict) or not isinstance(results.get("metrics"), dict):
        raise DataError(f"{file}: no 'metrics' object; expected the layout of a run's results.json")
    return results


def version_notes(baseline: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """One line per library (or machine) whose version differs: the first suspects when numbers drift."""
    old, new = baseline.get("versions") or {}, run.get("versions") or {}
    notes = [f"{name}: baseline {old[name]}, now {new[name]}" for name in sorted(old.keys() & new.keys())
             if old[name] != new[name]]
    if baseline.get("machine") and run.get("machine") and baseline["machine"] != run["machine"]:
        notes.append(f"machine: baseline {baseline['machine']}, now {run['machine']}")
    return notes


def notebook_notes(baseline: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """The baseline's notebooks that the run did not run, or that failed: where missing metrics come from."""
    ran = {nb["name"]: nb["status"] for nb in run.get("notebooks", [])}
    notes = []
    for nb in baseline.get("notebooks", []):
        status = ran.get(nb["name"])
        if status is None:
            notes.append(f"{nb['name']}: in the baseline, not in this run")
        elif status != "ok":
            notes.append(f"{nb['name']}: {status} in this run")
    return notes


def absent_inputs(run: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The run's optional inputs that were absent (`record_input`): name -> (metric prefix, notebook)."""
    return {name: (entry["metrics"], entry.get("notebook", "")) for name, entry in (run.get("inputs") or {}).items()
            if entry.get("source") is None}


def input_notes(run: dict[str, Any], not_applicable: list[Row]) -> list[str]:
    """One line per absent input whose metrics the baseline has: why those rows are not applicable here."""
    notes = []
    for name, (prefix, notebook) in sorted(absent_inputs(run).items()):
        count = sum(row.metric.startswith(prefix) for row in not_applicable)
        if count:
            notes.append(f"{name} absent here ({notebook}): {count} metrics under {prefix}* not applicable")
    return notes


def compare_results(run: dict[str, Any], baseline: dict[str, Any], rtol: float | None = None,
                    kinds: tuple[MetricKind, ...] = KINDS, run_name: str = "run",
                    baseline_name: str = "baseline", bands: Mapping[str, float] | None = None) -> Comparison:
    """Every metric of `run` against `baseline`: timings reported, the rest held to their kind's tolerance
    (`rtol` replaces every checked kind's relative tolerance). On another machine (`seed_spread.same_machine`) a
    metric with a measured seed band (`bands`) may move within it; a baseline metric whose optional input is
    absent from the run is not applicable rather than missing."""
    if run.get("profile") != baseline.get("profile"):
        raise ConfigError(f"{run_name} is profile {run.get('profile')!r} but {baseline_name} is "
                          f"{baseline.get('profile')!r}; compare with baselines/{run.get('profile')}.json")
    now, then = run["metrics"], baseline["metrics"]
    absent = [prefix for prefix, _ in absent_inputs(run).values()]
    result = Comparison(run_name, baseline_name, str(run.get("profile")), same_machine=same_machine(baseline, run),
                        notes=notebook_notes(baseline, run) + version_notes(baseline, run))
    bands = {} if result.same_machine else dict(bands or {})
    for metric in sorted(then.keys() | now.keys()):
        kind = kind_of(metric, kinds)
        row = Row(metric, then.get(metric), now.get(metric), kind.name)
        if row.now is None:
            absent_here = any(metric.startswith(prefix) for prefix in absent)
            (result.not_applicable if absent_here else result.missing).append(row)
        elif row.baseline is None:
            result.new.append(row)
        elif kind.timing:
            result.timings.append(row)
        elif kind.allows(row.baseline, row.now, rtol, result.same_machine):
            result.checked += 1
        elif abs(row.difference) <= bands.get(metric, 0.0):
            result.within_band.append(row)
        else:
            result.drift.append(row)
    result.notes += input_notes(run, result.not_applicable)
    return result


def compare_files(run: str | os.PathLike, baseline: str | os.PathLike, rtol: float | None = None) -> Comparison:
    """`compare_results` of a run folder (or results.json) and a baseline file, with the seed bands measured
    beside the baseline (`seed_spread.spread_path`) for a run from another machine."""
    return compare_results(load_results(run), load_results(baseline), rtol,
                           run_name=str(results_path(run)), baseline_name=str(results_path(baseline)),
                           bands=load_bands(results_path(baseline)))


def _number(value: float | None, signed: bool = False) -> str:
    """10 significant digits for values (a drift in the 7th shows), 4 for differences; a dash where absent."""
    if value is None:
        return "—"
    return f"{value:+.4g}" if signed else f"{value:.10g}"


def _table(rows: list[Row], last: str = "difference") -> list[str]:
    """A Markdown table: metric, baseline, now, and the difference (or the ratio, for timings)."""
    lines = [f"| metric | baseline | now | {last} |", "|---|---:|---:|---:|"]
    for row in rows:
        if last == "ratio":
            ratio = row.now / row.baseline if row.baseline and row.now is not None else None
            tail = "—" if ratio is None else f"{ratio:.2f}x"
        else:
            relative = f" ({100 * row.relative:+.2g} %)" if row.relative is not None else ""
            tail = _number(row.difference, signed=True) + relative
        lines.append(f"| {row.metric} | {_number(row.baseline)} | {_number(row.now)} | {tail} |")
    return lines


def format_comparison(result: Comparison, rtol: float | None = None) -> str:
    """The human report: a verdict line, the drift table, missing and new metrics, timings, notes."""
    tolerance = f"rtol {rtol:g} for every checked metric" if rtol is not None else "tolerances of metric_kinds.KINDS"
    machine = "same machine" if result.same_machine else "another machine: fine-tuned metrics within their seed band"
    verdict = "OK" if result.ok else "DRIFT"
    lines = [f"compare {result.run} with {result.baseline} (profile {result.profile}, {tolerance}; {machine}): "
             f"{verdict}",
             f"{result.checked} metrics within tolerance, {len(result.within_band)} within their seed band, "
             f"{len(result.drift)} drifted, {len(result.missing)} missing, {len(result.not_applicable)} not "
             f"applicable here, {len(result.new)} new, {len(result.timings)} timings (reported, not checked)"]
    sections = [("drifted past tolerance (fails)", result.drift, "difference"),
                ("missing: in the baseline, not recorded now (fails)", result.missing, "difference"),
                ("not applicable here (input absent; passes)", result.not_applicable, "difference"),
                ("within the measured seed band on another machine (passes)", result.within_band, "difference"),
                ("new: recorded now, not in the baseline (reported; `make publish` adds them)", result.new,
                 "difference"),
                ("timings: now / baseline (reported, never failed on)", result.timings, "ratio")]
    for title, rows, last in sections:
        if rows:
            lines += ["", f"{title}:", *_table(rows, last)]
    if result.notes:
        lines += ["", "notes:", *(f"- {note}" for note in result.notes)]
    return "\n".join(lines)


def verdict(result: Comparison, metric_notebooks: Mapping[str, list[str]] | None = None) -> str:
    """A few lines a newcomer can read after `make tutorial`: a match, or which notebooks differ and by how much."""
    if result.ok:
        how = (f"within its measured seed spread ({len(result.within_band)} fine-tuned metrics moved inside their "
               "band, as on another CPU they may)" if result.within_band else "within the tolerance of every metric")
        skipped = f" ({len(result.not_applicable)} metrics not applicable: input absent here)" \
            if result.not_applicable else ""
        return f"Your run matches the published one {how}{skipped}."
    owner = {metric: notebook for notebook, names in (metric_notebooks or {}).items() for metric in names}
    by_notebook: dict[str, list[Row]] = {}
    for row in result.drift + result.missing:
        by_notebook.setdefault(owner.get(row.metric, "notebook unknown"), []).append(row)
    lines = [f"Your run differs from the published one in {len(by_notebook)} notebook(s):"]
    for notebook, rows in sorted(by_notebook.items()):
        worst = max(rows, key=lambda row: abs(row.relative or 0.0) if row.now is not None else float("inf"))
        change = "missing" if worst.now is None else f"{_number(worst.baseline)} -> {_number(worst.now)}"
        lines.append(f"- {notebook}: {len(rows)} metric(s), the largest {worst.metric} ({change})")
    lines.append("The full table: `cdlm-nb compare RUN BASELINE`.")
    return "\n".join(lines)
