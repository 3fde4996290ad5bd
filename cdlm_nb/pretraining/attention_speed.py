"""One CDLM training step with each self-attention implementation, same weights and batch: what the fused attention
(`cdlm_nb.longformer_attention`) saves over Hugging Face's. `benchmarks/attention_speed.py`: 512-4,096 tokens."""

from __future__ import annotations

import os
import statistics
import time
from typing import TYPE_CHECKING

import pandas as pd
import torch

from ..finetuning import autocast, synchronize
from ..longformer_attention import IMPLEMENTATIONS, use_fast_attention, use_hf_attention
from ..masking import CrossDocumentMLMCollator
from .inputs import first_inputs
from .trainer import MaskedPositionsLongformer

if TYPE_CHECKING:
    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..profiles import Profile


def cdlm_batch(profile: "Profile", clusters: "PretrainingClusters", encoder: "Encoder", size: int = 1,
               run_dir: str | os.PathLike | None = None) -> dict:
    """A training batch of the first `size` CDLM inputs (`inputs.first_inputs`), masked, masked tokens global. One
    by default: Hugging Face's attention keeps its score matrices, so one long input alone takes gigabytes."""
    examples = first_inputs("cdlm", clusters.train, encoder.tokenizer, profile.pretrain.max_length, size, profile.seed,
                            profile.encoder.sentence_markers, run_dir)
    rows = [{"input_ids": ids} for ids in examples["input_ids"]]
    return CrossDocumentMLMCollator(encoder.tokenizer, pattern="cdlm", seed=profile.seed)(rows)


def attention_speed(profile: "Profile", clusters: "PretrainingClusters", encoder: "Encoder", device: str = "cpu",
                    repeats: int = 3, run_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """Median seconds and tokens per second of one training step (forward + backward, after an untimed one) on
    `device` with each implementation, and the speed-up over Hugging Face's, on a copy of `encoder.model`."""
    batch = {key: value.to(device) for key, value in cdlm_batch(profile, clusters, encoder, run_dir=run_dir).items()}
    tokens = int(batch["attention_mask"].sum())
    model = MaskedPositionsLongformer.from_plain(encoder.model).to(device).train()

    def step() -> float:  # one forward + backward; on a GPU the clock waits for the asynchronous kernels
        synchronize(model.device)
        start = time.perf_counter()
        with autocast(model.device.type):
            loss = model(**batch).loss
        loss.backward()
        model.zero_grad(set_to_none=True)
        synchronize(model.device)
        return time.perf_counter() - start

    rows = []
    torch.manual_seed(profile.seed)
    for name, swap in (("hf", use_hf_attention), ("ours", use_fast_attention)):
        swap(model)
        step()  # untimed: the first pass warms up
        seconds = statistics.median(step() for _ in range(repeats))
        rows.append({"attention": name, "implementation": IMPLEMENTATIONS[name], "seconds_per_step": seconds,
                     "tokens_per_s": tokens / seconds})
    table = pd.DataFrame(rows).set_index("attention")
    table["speed-up"] = table["tokens_per_s"] / table["tokens_per_s"].iloc[0]
    return table


def speed_metrics(table: pd.DataFrame) -> dict[str, float]:
    """`pretrain/step_tokens_per_s/<implementation>` and `pretrain/attention_speedup` from `attention_speed`."""
    metrics = {f"pretrain/step_tokens_per_s/{name}": float(row.tokens_per_s) for name, row in table.iterrows()}
    return metrics | {"pretrain/attention_speedup": float(table["speed-up"].iloc[-1])}


def speed_reading(table: pd.DataFrame) -> str:
    """The comparison in a sentence: the fused attention faster, as fast or slower, and both step times."""
    hf, ours = table.loc["hf"], table.loc["ours"]
    ratio = ours["speed-up"]
    verdict = f"{ratio:.1f}x faster" if ratio >= 1.05 else ("as fast" if ratio > 0.95 else f"{1 / ratio:.1f}x slower")
    return (f"One CDLM training step takes {hf.seconds_per_step:.2f} s with Hugging Face's attention and "
            f"{ours.seconds_per_step:.2f} s with the fused one: {verdict} on this machine.")
