"""The rehearsal's time budget per notebook, on any machine: each notebook's seconds scaled to a reference CPU by
notebook 00's matmul probe, against a share of `REHEARSAL_MINUTES`. A loop bound left at the gpu profile's value
shows here as one notebook taking most of the budget, whatever the CPU."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ...profiles import REHEARSAL_MINUTES
from ..runtime import PROBE_METRIC, matmul_gflops

REFERENCE_GFLOPS = 150.0  # the 2-core CPU the budgets are stated for (notebook 00's probe)
NOTEBOOK_SHARE = 0.25  # no notebook may take more than this share of the whole rehearsal's budget


@dataclass(frozen=True)
class NotebookTime:
    name: str
    seconds: float  # measured on this machine
    reference_seconds: float  # scaled to REFERENCE_GFLOPS: seconds x probe / reference
    limit_seconds: float  # NOTEBOOK_SHARE of REHEARSAL_MINUTES, at the reference CPU

    @property
    def over(self) -> bool:
        return self.reference_seconds > self.limit_seconds


def notebook_times(results: Mapping[str, Any], probe_gflops: float, minutes: float = REHEARSAL_MINUTES,
                   share: float = NOTEBOOK_SHARE) -> list[NotebookTime]:
    """Every notebook of a run's results.json, timed against its share of the budget on a `probe_gflops` CPU."""
    if not probe_gflops > 0:
        raise ValueError(f"probe_gflops must be a positive GFLOP/s figure, got {probe_gflops!r}")
    scale = probe_gflops / REFERENCE_GFLOPS
    limit = share * minutes * 60
    return [NotebookTime(nb["name"], nb["seconds"], nb["seconds"] * scale, limit) for nb in results["notebooks"]]


def probe_of(results: Mapping[str, Any]) -> float:
    """Notebook 00's probe from the run's metrics, else a fresh one on this machine (00 was not run)."""
    return results["metrics"].get(PROBE_METRIC) or matmul_gflops()


def timing_section(times: list[NotebookTime], probe_gflops: float) -> dict[str, Any]:
    """What results.json keeps of the check: the probe, the reference and each notebook's times."""
    return {"probe_gflops": probe_gflops, "reference_gflops": REFERENCE_GFLOPS, "share": NOTEBOOK_SHARE,
            "budget_minutes": REHEARSAL_MINUTES, "notebooks": [asdict(t) | {"over": t.over} for t in times]}


def timing_report(times: list[NotebookTime], probe_gflops: float) -> str:
    """A table of each notebook's time, scaled time and limit, and a verdict line."""
    lines = [f"rehearsal times (this CPU's probe {probe_gflops:.0f} GFLOP/s; scaled to {REFERENCE_GFLOPS:.0f}; "
             f"limit per notebook {100 * NOTEBOOK_SHARE:.0f} % of {REHEARSAL_MINUTES} min):",
             "| notebook | s here | s at reference | limit s | |", "|---|---:|---:|---:|---|"]
    lines += [f"| {t.name} | {t.seconds:.1f} | {t.reference_seconds:.1f} | {t.limit_seconds:.0f} | "
              f"{'OVER' if t.over else 'ok'} |" for t in times]
    over = [t.name for t in times if t.over]
    total = sum(t.reference_seconds for t in times)
    lines.append(f"total {sum(t.seconds for t in times):.0f} s here, {total:.0f} s at the reference; "
                 + (f"over their share: {', '.join(over)}" if over else "every notebook within its share"))
    return "\n".join(lines)
