"""Notebook 02's models built on demand: every later notebook runs on its own (on Colab each one opens in a fresh
runtime), so one that finds notebook 02's models missing makes them itself, before it loads them.

`ensure_pretrained` says what it builds, why, and about how long it takes on the profile (measured on a 2-core CPU
for `smoke` and `cpu`, `MEASURED_SECONDS`; on a hub profile the plan's minutes for notebook 02 on this device),
then calls the same functions notebook 02 calls (`stages.initial_encoder`, `stages.pretrain_base`,
`pretrain_variants`) into the same run folder. What is there and sound (`variants.model_problems`) is
reused, so nothing is built twice: after notebook 02 it builds nothing. From Longformer-base (`gpu`) it saves only
the released checkpoints, as notebook 02 does by default; the unreleased ablations stay "not run" rows. The random
state is kept (`runtime.random_state_kept`), so the notebook's own numbers are those it gives after notebook 02.
`build_missing=False` (a notebook's `BUILD_MISSING = False`) builds nothing: the notebook then fails as before,
naming the command that runs notebook 02.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..variants import display_name, is_saved, model_dir, model_problems, notebook_02_makes, starts_pretrained
from ..widgets import say

if TYPE_CHECKING:
    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..pretraining.stages import Echo
    from ..profiles import Profile
    from ..variants import PretrainResult


#: Seconds notebook 02's work takes when a later notebook builds it, on a 2-core x86-64 CPU: "start" is the corpus,
#: the starting model and the base stages (`cpu`: the two shipped with the package, copied), then each model with
#: its learning curve (Longformer: the start, saved). `smoke`: `build` timed part by part in an empty folder, "start"
#: from the notebooks run alone; `cpu`: notebook 02's `pretraining.json` seconds in the published cpu run (both:
#: docs/experiments.md).
MEASURED_SECONDS = {
    "smoke": {"start": 4.0, "longformer": 0.1, "local": 0.7, "rand": 0.6, "prefix": 0.6, "cdlm": 0.6},
    "cpu": {"start": 10.0, "longformer": 1.0, "local": 78.0, "rand": 109.0, "prefix": 88.0, "cdlm": 97.0},
}
MEASURED_ON = "measured on a 2-core CPU"


def made_by_notebook_02(profile: "Profile") -> tuple[str, ...]:
    """The models a default run of notebook 02 saves on `profile`: its variants (from Longformer-base, only the
    released ones), and the base stages every tiny variant starts from (notebook 03's Start row)."""
    from ..pretraining.stages import base_stages

    base = () if starts_pretrained(profile) or profile.pretrain.base_steps <= 0 else (
        tuple(name for name, _, _ in base_stages(profile.pretrain)))
    return tuple(v for v in (*profile.pretrain.variants, *base) if v in notebook_02_makes(profile.name))


def to_build(run_dir: str | os.PathLike, profile: "Profile", wanted: Collection[str]) -> list[str]:
    """Those of `wanted` (other names ignored: a notebook's baselines) that notebook 02 makes on `profile` and
    that `run_dir` lacks or holds damaged; [] when every one is there and sound."""
    return [v for v in made_by_notebook_02(profile) if v in wanted
            and (not is_saved(model_dir(run_dir, v)) or model_problems(model_dir(run_dir, v)))]


def _duration(seconds: float) -> str:
    """`40 s` under two minutes, else `9 min`."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def expected_time(profile: "Profile", names: Sequence[str], device: str = "cpu") -> str:
    """About how long building `names` takes: the `MEASURED_SECONDS` of the profile (a 2-core CPU), else the plan's
    minutes for notebook 02 on `device` (`cdlm-nb plan`, an estimate and here an upper bound; downloads not in it).
    Off a CUDA card that estimate needs the CPU's rate: measured here (`runtime.matmul_gflops`), explicitly, as a
    long build is about to start."""
    from .runtime import device_plan, matmul_gflops

    measured = MEASURED_SECONDS.get(profile.name)
    if measured is not None:
        seconds = measured["start"] + sum(measured.get(name, 0.0) for name in names)
        return f"about {_duration(seconds)} on the {profile.name} profile ({MEASURED_ON})"
    rate = matmul_gflops() if profile.wants_gpu and device != "cuda" else None
    plan = device_plan(profile, "02_pretraining", device, cpu_gflops=rate)
    if plan is None:
        return f"no measured time for the {profile.name} profile"
    return (f"at most {plan.minutes:.0f} min of compute on {plan.card.label} (`cdlm-nb plan`'s estimate for notebook "
            "02's default run, whose attention-speed check is not run here), plus downloading the checkpoints")


def build(run_dir: str | os.PathLike, profile: "Profile", names: Collection[str], echo: Echo = print) -> None:
    """Notebook 02's work for `names` only, with its functions and into `run_dir`: the released checkpoints saved
    from a pretrained start (no corpus needed), else the starting model, the base stage and the variants."""
    from ..data.corpora import pretraining_clusters
    from ..pretraining.stages import initial_encoder, pretrain_base, save_released

    if starts_pretrained(profile):
        encoder = initial_encoder(profile, None)
        for variant in names:
            save_released(variant, profile, encoder, run_dir, echo)
        return
    clusters = pretraining_clusters(profile)
    encoder, _ = pretrain_base(profile, initial_encoder(profile, clusters), clusters, run_dir, echo=echo)
    pretrain_variants(profile, encoder, clusters, run_dir, echo=echo, only=names)


def ensure_pretrained(run_dir: str | os.PathLike, profile: "Profile", wanted: Collection[str],
                      build_missing: bool = True, echo: Echo = print) -> list[str]:
    """Build those of notebook 02's models in `wanted` that `run_dir` lacks (`to_build`), after saying what, why and
    about how long; return what was built ([] when all are there, or with `build_missing` off)."""
    from .runtime import detect_device, random_state_kept

    names = to_build(run_dir, profile, wanted)
    if not names or not build_missing:
        return []
    readable = ", ".join(display_name(name) for name in names)
    echo(f"This notebook needs notebook 02's models, and {Path(run_dir) / 'models'} lacks (or holds damaged) "
         f"{readable}. Building them now as notebook 02 does, into the same run folder (notebook 02 and the later "
         f"notebooks will reuse them): {expected_time(profile, names, detect_device())}. "
         "BUILD_MISSING = False turns this off.")
    start = time.perf_counter()
    with random_state_kept():
        build(run_dir, profile, names, echo)
    echo(f"built {readable} in {_duration(time.perf_counter() - start)}")
    return names


def pretrain_variants(profile: "Profile", encoder: Encoder, clusters: "PretrainingClusters",
                      run_dir: str | os.PathLike, resume: bool = True, pretrain_steps: int | None = None,
                      echo: Echo = say, only: Collection[str] | None = None) -> list[PretrainResult]:
    """Notebook 02's loop over the variants, for a later notebook building what it lacks (`only`)."""
    from ..pretraining.stages import notebook_steps, reuse_or_pretrain, with_steps, without_pretraining

    steps = notebook_steps(profile, pretrain_steps)
    config = with_steps(profile.pretrain, steps) if steps else profile.pretrain
    results = []
    for variant in (v for v in config.variants if only is None or v in only):
        if variant == "longformer" or steps == 0:
            result = without_pretraining(variant, config, profile, encoder, clusters, run_dir, resume, echo)
        else:
            result = reuse_or_pretrain(variant, config, profile, encoder, clusters, run_dir, resume, echo)
        results += [result] if result is not None else []
    return results
