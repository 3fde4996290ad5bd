"""The plan of a notebook on a card: per-device batch and gradient accumulation (keeping the effective batch),
gradient checkpointing only where batch 1 does not fit without it, the card's precision, peak memory, minutes.

Minutes are floating-point operations at the card's peak times its utilisation (`Card.utilisation`: the share
measured on an H100, used for every card not measured itself): an estimate (loading models and data, downloads,
tokenisation and Python overhead are not in it) until a run of the notebooks on that card measures it. A CPU whose
rate nobody measured gets no minutes (NaN). A job of the CPU alone (`Job.step` None: notebook 02's tokenizing and
packing) brings its own minutes, at a rate measured on a CPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...support.precision import precision_for
from .cards import GIB, Card
from .memory_model import peak_bytes, step_flops
from .workloads import NOTEBOOK_JOBS, Job

if TYPE_CHECKING:
    from ...profiles import Profile

@dataclass(frozen=True)
class JobPlan:
    """How one job runs on the card, and what it costs there."""

    job: Job
    per_device_batch: int
    accumulation: int
    checkpointing: bool
    peak_gib: float
    minutes: float
    fits: bool  # False: even batch 1 (with checkpointing, when training) passes the card's usable memory


def _candidates(wanted: int) -> list[int]:
    """Per-device batches to try, largest first: the wanted batch, then powers of two below it."""
    return sorted({wanted, *(2**k for k in range(int(math.log2(max(wanted, 1))) + 1))}, reverse=True)


def plan_job(job: Job, card: Card) -> JobPlan:
    """The largest per-device batch that fits the card (checkpointing only when batch 1 does not fit without it)
    and the job's minutes at the card's rate; a job of the CPU alone (no step) takes its own minutes, no memory."""
    if job.step is None:
        return JobPlan(job, 0, 1, False, 0.0, job.cpu_seconds / 60, True)
    cpu = card.capability == (0, 0)
    step = replace(job.step, precision=precision_for(card.capability),
                   keeps_scores=job.step.keeps_scores or (cpu and job.step.training))
    limit = card.usable_gib * GIB
    options = [(b, False) for b in _candidates(job.batch)]
    if job.step.training:
        options += [(b, True) for b in _candidates(job.batch)]
    fitting = [(b, c) for b, c in options if peak_bytes(replace(step, batch=b, checkpointing=c)) <= limit]
    batch, checkpointing = fitting[0] if fitting else (1, job.step.training)
    planned = replace(step, batch=batch, checkpointing=checkpointing)
    typical = replace(planned, batch=1, tokens=job.typical_tokens,
                      global_tokens=min(step.global_tokens, job.typical_tokens),
                      predicted=min(step.predicted, job.typical_tokens))
    rate = card.peak_tflops * 1e12 * card.utilisation  # 0 for a CPU whose rate was not measured: no minutes
    seconds = job.sequences * job.models * step_flops(typical) / rate if rate > 0 else math.nan
    accumulation = -(-job.batch // batch) if job.step.training else 1
    return JobPlan(job, batch, accumulation, checkpointing, peak_bytes(planned) / GIB, seconds / 60, bool(fitting))


@dataclass(frozen=True)
class NotebookPlan:
    """Every job of one notebook on one card."""

    name: str
    card: Card
    jobs: tuple[JobPlan, ...]

    @property
    def default_jobs(self) -> list[JobPlan]:
        """The jobs a run with the notebook's defaults does (not the opt-in ones)."""
        return [j for j in self.jobs if not j.job.opt_in]

    @property
    def main(self) -> JobPlan:
        """The job whose batch the notebook is known by: its first training job, else its first job."""
        return next((j for j in self.default_jobs if j.job.step and j.job.step.training and j.job.batch_field),
                    self.jobs[0])

    @property
    def peak_gib(self) -> float:
        return max(j.peak_gib for j in self.default_jobs)

    @property
    def minutes(self) -> float:
        return sum(j.minutes for j in self.default_jobs)

    @property
    def precision(self) -> str:
        return precision_for(self.card.capability)

    def to_json(self) -> dict:
        main = self.main
        return {"name": self.name, "peak_gib": round(self.peak_gib, 2), "minutes": round(self.minutes, 1),
                "per_device_batch": main.per_device_batch, "accumulation": main.accumulation,
                "precision": self.precision, "checkpointing": any(j.checkpointing for j in self.default_jobs),
                "fits": all(j.fits for j in self.default_jobs),
                "opt_in": [{"what": j.job.what, "peak_gib": round(j.peak_gib, 2), "minutes": round(j.minutes, 1),
                            "per_device_batch": j.per_device_batch, "accumulation": j.accumulation,
                            "checkpointing": j.checkpointing} for j in self.jobs if j.job.opt_in]}

    def summary(self) -> str:
        """What the notebook will do on this card, in a few lines (printed at its top)."""
        main = self.main
        cost = (f"≈ {self.minutes:.0f} min of compute (estimate: {share(self.card.utilisation)} of "
                f"{self.card.peak_tflops:g} TFLOP/s, {self.card.utilisation_note}; "
                "loading and downloads not included)" if not math.isnan(self.minutes) else
                "minutes not estimated (this CPU's rate is not measured: notebook 00's probe records it)")
        lines = [f"plan of {self.name} on {self.card.label}: {self.precision}, peak ≈ {self.peak_gib:.1f} GiB of "
                 f"{self.card.usable_gib:.1f} usable, {cost}",
                 f"  batch {main.per_device_batch} per device x {main.accumulation} accumulation"
                 f"{', gradient checkpointing' if main.checkpointing else ''}"]
        for j in self.jobs:
            flag = "" if j.fits else "  (does not fit this card even at batch 1)"
            how = f"batch {j.per_device_batch}" + (f" x {j.accumulation}" if j.accumulation > 1 else "") + (
                ", checkpointing" if j.checkpointing else "")
            step = j.job.step
            if step is None:
                lines.append(f"  - {j.job.what} (on the CPU): {_minutes(j.minutes)}")
                continue
            lines.append(f"  - {j.job.what} ({step.shape.name}, up to {step.tokens:,} tokens): "
                         f"{j.job.sequences * j.job.models:,} inputs, {how}, {j.peak_gib:.1f} GiB, "
                         f"{_minutes(j.minutes)}{' (opt-in, not in the total)' if j.job.opt_in else ''}{flag}")
        return "\n".join(lines)

    def apply(self, profile: "Profile") -> "Profile":
        """`profile` with this plan's batches, accumulation and checkpointing in the fields the jobs name."""
        from ...profiles import shrunk

        changes: dict = {}
        for j in self.jobs:
            for field, value in ((j.job.batch_field, j.per_device_batch), (j.job.accumulation_field, j.accumulation),
                                 (j.job.checkpointing_field, j.checkpointing)):
                if field:
                    _set(changes, field.split("."), value)
        return replace(profile, **{name: shrunk(getattr(profile, name), sizes, f"plan [{name!r}]")
                                   for name, sizes in changes.items()})


def share(fraction: float) -> str:
    """A share of the peak as the docs write it: `12 %`."""
    return f"{100 * fraction:.0f} %"


def _minutes(minutes: float) -> str:
    """`12.5 min`, or that they are not estimated (a CPU whose rate was not measured)."""
    return "minutes not estimated" if math.isnan(minutes) else f"{minutes:.1f} min"


def _set(changes: dict, path: list[str], value: int | bool) -> None:
    """`changes[a][b]... = value` for path [a, b, ...]; two jobs setting one field keep the smaller batch (the one
    that fits both) and any checkpointing."""
    *sections, name = path
    for section in sections:
        changes = changes.setdefault(section, {})
    if name in changes:
        value = (changes[name] or value) if isinstance(value, bool) else min(changes[name], value)
    changes[name] = value


def plan_notebook(profile: "Profile", notebook: str, card: Card) -> NotebookPlan | None:
    """The plan of `notebook` (e.g. "04_coreference") on `card`; None for a notebook that trains or runs no model."""
    jobs_of = NOTEBOOK_JOBS.get(notebook)
    if jobs_of is None:
        return None
    return NotebookPlan(notebook, card, tuple(plan_job(job, card) for job in jobs_of(profile)))


def plan_suite(profile: "Profile", card: Card) -> list[NotebookPlan]:
    """Every notebook's plan on `card`, in notebook order."""
    return [plan_notebook(profile, name, card) for name in NOTEBOOK_JOBS]
