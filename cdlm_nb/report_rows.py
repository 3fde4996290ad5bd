"""What the task reports share: the blank for a number a paper does not report, and the row labels of a run and
of a reference row."""

from __future__ import annotations

from collections.abc import Mapping

from .variants import display_name

#: A number the paper does not report: a blank cell (None, so pandas shows it as missing, not as 0).
NR = None


def reference_label(name: str) -> str:
    """The table row of a reference (what a system that learned nothing scores): `reference: all related`."""
    return f"reference: {name}"


def run_label(run_name: str, labels: Mapping[str, str]) -> str:
    """The table row of a run: its label in `labels` (a task's own runs: baselines, ablations), else the model's
    display name (`cdlm` -> `CDLM`)."""
    return labels.get(run_name) or display_name(run_name)
