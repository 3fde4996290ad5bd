"""The registry of metric kinds `cdlm-nb compare` checks: which recorded metrics are timings (reported, never
failed on) and how close every other one must stay to its baseline."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class MetricKind:
    name: str
    pattern: str  # searched in the metric's name (`pretrain/tokens_per_s/cdlm`); the first kind that matches wins
    rtol: float = 0.0  # |now - baseline| <= atol + rtol * |baseline| passes (numpy's isclose)
    atol: float = 0.0
    timing: bool = False  # reported, never checked: wall-clock numbers move with the machine and its load
    rtol_elsewhere: float | None = None  # relative tolerance for a run from another CPU (None: rtol)
    atol_elsewhere: float | None = None  # absolute floor for a run from another CPU (None: atol): a value at zero
    #                                      is float noise there, which no relative tolerance covers

    def matches(self, metric: str) -> bool:
        """Whether this kind covers `metric`."""
        return re.search(self.pattern, metric) is not None

    def allows(self, baseline: float, now: float, rtol: float | None = None, same_machine: bool = True) -> bool:
        """Whether `now` is within this kind's tolerance of `baseline` (`rtol` overrides the kind's; on another
        machine the kind's `rtol_elsewhere` applies where it has one)."""
        if rtol is None:
            rtol = self.rtol if same_machine or self.rtol_elsewhere is None else self.rtol_elsewhere
        atol = self.atol if same_machine or self.atol_elsewhere is None else self.atol_elsewhere
        return abs(now - baseline) <= atol + rtol * abs(baseline)


# A path segment (between slashes) that names a time or a throughput: `train_s`, `tokens_per_s`,
# `pairs_per_second`, `attention_speedup`, `slowdown`, `matmul_gflops`. `eval_speedup_limit` is a FLOP ratio, not a
# timing.
TIMING_SEGMENT = r"(^|/)[a-z0-9_]*(_s|_seconds?|per_second|speedup|slowdown|gflops)(/|$)"

# Runs on one machine repeat every non-timing metric bit for bit (docs/experiments.md), so the default is tight:
# only the last digits a float64 sum in another order would move. Another machine's BLAS kernels (AVX2, AVX-512,
# ARM) and thread count reorder float32 sums, which moves losses and perplexities in the last digits and, through
# training, can flip a decision near its threshold (one of 6 smoke pairs is 16.7 accuracy points).
# `--rtol` loosens every checked kind for such a comparison; add a kind here (pattern, rtol, atol, and why) only
# where drift was measured, and record the measurement in docs/experiments.md.
# Another thread count moves only float32 model outputs (losses, perplexities and their intervals, and the attention
# readings below), and by far less than their kinds' 1e-5, itself far below what a code change moves
# (docs/experiments.md); counts, F1 and accuracy stay bit for bit.
FLOAT32_OUTPUTS = r"^(perplexity|learning_curve|copy_gain|within_reach)/|^pretrain/(.*/)?[a-z_]*loss(/|$)"
# Readings of float32 attention weights (shares of attention, mean percentile ranks), of the start itself or of models
# each machine pretrains: a weight near a tie moves a share or a rank.
ATTENTION_READINGS = r"^(attention_reach|mpr)/"
# On another CPU the outputs of models each machine pretrained itself move further: rtol_elsewhere is about three
# times the largest drift measured there (docs/experiments.md, "Results on another machine": perplexities, losses and
# learning curves within 6.8e-3 relative; attention reach +6.9 % and -6.5 %, a mean percentile rank +5.5 % and -5.1 %,
# on two pairs of CPUs).
# A value at zero (Local CDLM's copy gain, its interval) is float noise of 1e-9 to 1e-6 there: atol_elsewhere, 1e-4,
# is a thousandth of the copy gain's reading threshold (0.1 nats) and of a 0.1 % attention share.
FLOOR_ELSEWHERE = 1e-4
KINDS: tuple[MetricKind, ...] = (
    MetricKind("timing", TIMING_SEGMENT, timing=True),
    MetricKind("attention reading", ATTENTION_READINGS, rtol=1e-5, atol=1e-9, rtol_elsewhere=0.2,
               atol_elsewhere=FLOOR_ELSEWHERE),
    MetricKind("float32 model output", FLOAT32_OUTPUTS, rtol=1e-5, atol=1e-9, rtol_elsewhere=5e-2,
               atol_elsewhere=FLOOR_ELSEWHERE),
    MetricKind("deterministic", r"", rtol=1e-6, atol=1e-9),
)


def kind_of(metric: str, kinds: tuple[MetricKind, ...] = KINDS) -> MetricKind:
    """The first registered kind whose pattern matches `metric` (the catch-all last kind matches everything)."""
    for kind in kinds:
        if kind.matches(metric):
            return kind
    raise LookupError(f"no metric kind matches {metric!r}; end KINDS with a catch-all pattern ''")
