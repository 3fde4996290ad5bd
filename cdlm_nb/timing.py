"""Timing steps against each other, as a student compares a cost with a limit: every step once per round after an
untimed warm-up round (so a slow spell of the machine falls on all of them alike), and the ratio of two steps as the
median over rounds of their paired ratios, with its 95 % bootstrap interval (`verdicts.paired_bootstrap`).
Notebook 02 (global attention, the fused kernels), 09 (Match-Ignition's speed-up) and 10 (CDA's cost) time with it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from . import verdicts
from .finetuning import synchronize

ROUNDS = 10  # timed rounds where a profile does not set them: ten paired ratios give a median's interval a width of
#              a few percent on this repository's steps (docs/experiments.md, Match-Ignition's speed-up)


def interleaved_times(steps: Sequence[Callable[[], object]], rounds: int = ROUNDS, device: str = "cpu"
                      ) -> list[tuple[float, ...]]:
    """Seconds of each step in each of `rounds` rounds, every step once per round after one untimed round; on a
    GPU the clock waits for the queued kernels (`finetuning.synchronize`)."""
    times: list[list[float]] = [[] for _ in steps]
    for round_ in range(rounds + 1):
        for step, spent in zip(steps, times):
            synchronize(device)
            start = time.perf_counter()
            step()
            synchronize(device)
            if round_:
                spent.append(time.perf_counter() - start)
    return [tuple(spent) for spent in times]


def ratio(numerator: Sequence[float], denominator: Sequence[float]) -> tuple[float, float, float]:
    """The median over rounds of `numerator` / `denominator` seconds, paired by round, and its 95 % bootstrap
    interval over the rounds: (median, low, high)."""
    ratios = np.divide(numerator, denominator)
    low, high = verdicts.paired_bootstrap(lambda rounds: np.median(ratios[rounds], axis=-1), len(ratios))
    return float(np.median(ratios)), low, high


def side(low: float, high: float, limit: float) -> str:
    """Where an interval lies against a limit: "below" or "above" only when the whole interval does."""
    return "below" if high < limit else "above" if low > limit else "not distinguishable from"


def caption(rounds: int) -> str:
    """A timed table's caption: what its seconds and ratios are."""
    return f"medians over {rounds} timed rounds, paired by round"


def describe(value: float, low: float, high: float, rounds: int, what: str = "") -> str:
    """`1.41× faster (95 % interval 1.34-1.49 over 10 rounds)`, `what` ("faster") after the ratio."""
    return f"{value:.2f}×{' ' + what if what else ''} (95 % interval {low:.2f}-{high:.2f} over {rounds} rounds)"
