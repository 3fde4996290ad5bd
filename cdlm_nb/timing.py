"""Timing steps against each other (notebooks 02, 09, 10): every step once per round after an untimed round, so a
slow spell of the machine falls on all alike, and a ratio as the median of the paired ratios with its interval."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from . import verdicts
from .finetuning import synchronize

ROUNDS = 10  # where a profile does not set them: a median's interval a few percent wide (docs/experiments.md)


def interleaved_times(steps: Sequence[Callable[[], object]], rounds: int = ROUNDS, device: str = "cpu"
                      ) -> list[tuple[float, ...]]:
    """Seconds of each step in each of `rounds` rounds after one untimed round (on a GPU, queued kernels included)."""
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
    """(median, low, high): the median of `numerator` / `denominator` paired by round, its 95 % bootstrap interval."""
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
