"""One CDLM training step with each self-attention implementation, same weights and batch: what the fused attention
(`cdlm_nb.longformer_attention`) saves over Hugging Face's, and what global attention on the masked tokens costs;
timed in rounds (`cdlm_nb.timing`). `benchmarks/attention_speed.py`: 512-4,096 tokens."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import torch

from .. import timing
from ..finetuning import autocast
from ..longformer_attention import IMPLEMENTATIONS, use_fast_attention, use_hf_attention
from ..pretraining.inputs import cdlm_batch
from ..pretraining.trainer import MaskedPositionsLongformer

if TYPE_CHECKING:
    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..profiles import Profile


#: The timed steps: (name, implementation, global attention on the masked tokens).
STEPS = (("hf", "hf", True), ("ours", "ours", True), ("ours_local", "ours", False))


@dataclass(frozen=True)
class StepTimes:
    """Seconds of each step in `STEPS` per timed round, and the batch's (non-padding) tokens."""

    rounds: dict[str, tuple[float, ...]]
    tokens: int

    def ratio(self, numerator: str, denominator: str) -> tuple[float, float, float]:
        """`numerator` / `denominator` seconds: the median over rounds and its 95 % interval (`timing.ratio`)."""
        return timing.ratio(self.rounds[numerator], self.rounds[denominator])


def attention_speed(profile: "Profile", clusters: "PretrainingClusters", encoder: "Encoder", device: str = "cpu",
                    rounds: int = timing.ROUNDS, run_dir: str | os.PathLike | None = None) -> StepTimes:
    """Seconds of one training step on `device` with each of `STEPS`, each on its own model copy, once per round."""
    batch = {key: value.to(device) for key, value in cdlm_batch(profile, clusters, encoder, run_dir=run_dir).items()}
    local = batch | {"global_attention_mask": torch.zeros_like(batch["global_attention_mask"])}
    swaps = {"hf": use_hf_attention, "ours": use_fast_attention}

    def step(implementation: str, global_attention: bool):
        model = MaskedPositionsLongformer.from_plain(copy.deepcopy(encoder.model)).to(device).train()
        swaps[implementation](model)

        def one_step() -> None:
            with autocast(model.device.type):
                loss = model(**(batch if global_attention else local)).loss
            loss.backward()
            model.zero_grad(set_to_none=True)
        return one_step

    torch.manual_seed(profile.seed)
    times = timing.interleaved_times([step(implementation, glob) for _, implementation, glob in STEPS], rounds, device)
    return StepTimes({name: seconds for (name, _, _), seconds in zip(STEPS, times)}, int(batch["attention_mask"].sum()))


def speed_table(times: StepTimes) -> pd.DataFrame:
    """Per step: implementation, global tokens, median seconds, tokens/s, and its time over the fused CDLM step's."""
    rows = {}
    for name, implementation, global_attention in STEPS:
        seconds, (ratio, low, high) = float(np.median(times.rounds[name])), times.ratio(name, "ours")
        rows[name] = {"implementation": IMPLEMENTATIONS[implementation],
                      "global tokens": "masked tokens" if global_attention else "none",
                      "seconds_per_step": round(seconds, 4), "tokens_per_s": round(times.tokens / seconds),
                      "× fused CDLM step": round(ratio, 2), "95 % interval": f"{low:.2f}-{high:.2f}"}
    table = pd.DataFrame(rows).T.rename_axis("step")
    table.attrs["caption"] = timing.caption(len(times.rounds["ours"]))
    return table


def speed_metrics(times: StepTimes) -> dict[str, float]:
    """Tokens/s per step, and the fused attention's speedup and global attention's slowdown with their intervals."""
    metrics = {f"pretrain/step_tokens_per_s/{name}": times.tokens / float(np.median(seconds))
               for name, seconds in times.rounds.items()}
    for name, ratio in (("attention_speedup", times.ratio("hf", "ours")),
                        ("global_attention_slowdown", times.ratio("ours", "ours_local"))):
        metrics |= dict(zip((f"pretrain/{name}", f"pretrain/{name}/ci_low", f"pretrain/{name}/ci_high"), ratio))
    return metrics


def speed_readings(times: StepTimes) -> list[str]:
    """The two comparisons in sentences, each ratio's interval read against 1× (no difference, `timing.side`)."""
    rounds, (fused, *fused_interval), (cost, *cost_interval) = (len(times.rounds["ours"]), times.ratio("hf", "ours"),
                                                                times.ratio("ours", "ours_local"))
    faster = {"above": "the fused attention is faster", "below": "the fused attention is slower",
              "not distinguishable from": "neither is faster beyond the timing noise"}
    costs = {"above": "a cost beyond the timing noise", "below": "faster with them, beyond the timing noise",
             "not distinguishable from": "no cost beyond the timing noise"}
    return [f"- Implementations: a CDLM training step with Hugging Face's attention takes "
            f"{timing.describe(fused, *fused_interval, rounds)} the fused one's on this machine: "
            f"{faster[timing.side(*fused_interval, 1.0)]}.",
            f"- Global attention: the fused CDLM step takes {timing.describe(cost, *cost_interval, rounds)} the same "
            f"step's time without global tokens (Local CDLM's attention, the same tokens): "
            f"{costs[timing.side(*cost_interval, 1.0)]}."]
