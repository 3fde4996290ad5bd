"""Does `cdlm-nb plan` hold on a real card? Each job of the gpu profile's plan, run as planned on random weights.

For every distinct step the plan makes for a notebook (per-device batch, longest input, precision, gradient
checkpointing, global tokens, predicted tokens, attention maps), a randomly initialised model of the job's shape
(Longformer-base with the project's fast attention, or Hugging Face's where the job keeps the scores or returns
attention maps; RoBERTa-base; MiniLM's width as a BERT-sized RoBERTa) runs a few steps: forward, and when training
backward and an AdamW update, under the plan's autocast. Reported per step: the modelled peak
(`plan.memory_model.peak_bytes`) against `torch.cuda.max_memory_allocated`, and the time per step against the
plan's (`step_flops` at the card's `utilisation` of its peak), i.e. the utilisation actually reached.

    python benchmarks/plan_check.py --json            # on a GPU: the card torch reports
    python benchmarks/plan_check.py --device cpu --card t4 --only 09 --steps 1   # a quick look on a CPU
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from dataclasses import replace

import torch

from cdlm_nb.pretraining.trainer import masked_positions_loss
from cdlm_nb.profiles import get_profile
from cdlm_nb.tooling.plan.cards import GIB, get_card, this_card
from cdlm_nb.tooling.plan.memory_model import Step, peak_bytes, step_flops
from cdlm_nb.tooling.plan.planner import plan_suite

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def build_model(step: Step):
    """A random masked LM of the step's shape: Longformer (fast attention unless the step keeps the scores or
    returns attention maps) or RoBERTa with PyTorch's fused attention."""
    from transformers import LongformerConfig, LongformerForMaskedLM, RobertaConfig, RobertaForMaskedLM

    from cdlm_nb.longformer_attention import use_fast_attention

    s = step.shape
    shared = dict(vocab_size=s.vocab, hidden_size=s.hidden, num_hidden_layers=s.layers, num_attention_heads=s.heads,
                  intermediate_size=s.intermediate, max_position_embeddings=s.positions, pad_token_id=1,
                  type_vocab_size=1)
    if s.window <= 0:
        model = RobertaForMaskedLM(RobertaConfig(**shared))
        model.set_attn_implementation("sdpa")
        return model
    model = LongformerForMaskedLM(LongformerConfig(attention_window=s.window, **shared))
    return model if step.keeps_scores or step.attention_maps else use_fast_attention(model)


def random_inputs(step: Step, device: str) -> tuple[dict, torch.Tensor]:
    """Random ids at the step's batch and length; the first `global_tokens` positions global (Longformer), the
    first `predicted` ones labelled (masked LM; otherwise the loss reads the first token, as a classifier does)."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, step.shape.vocab, (step.batch, step.tokens), generator=g)
    inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    if step.shape.window > 0:
        inputs["global_attention_mask"] = (torch.arange(step.tokens) < step.global_tokens).long().expand_as(ids)
    labels = torch.where(torch.arange(step.tokens) < step.predicted, ids, torch.full_like(ids, -100))
    return {k: v.to(device) for k, v in inputs.items()}, labels.to(device)


def run_step(step: Step, device: str, steps: int, warmup: int) -> dict:
    """Seconds per step and peak GiB of `step` run `warmup` + `steps` times on `device` (the peak counts only what
    this step allocates: earlier models are collected first, and what is still allocated then is reported)."""
    gc.collect()  # a model of the last job may survive in a reference cycle
    if device == "cuda":
        torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated() / GIB if device == "cuda" else 0.0
    torch.manual_seed(0)
    model = build_model(step).to(device).train(step.training)
    if step.checkpointing:
        model.gradient_checkpointing_enable()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5) if step.training else None
    inputs, labels = random_inputs(step, device)
    autocast = torch.autocast(device, dtype=DTYPES[step.precision], enabled=step.precision != "fp32")
    scaler = torch.amp.GradScaler(device, enabled=step.precision == "fp16")
    if step.attention_maps:
        inputs["output_attentions"] = True

    def one() -> None:
        with torch.set_grad_enabled(step.training), autocast:
            hidden = model.base_model(**inputs)[0]
            loss = (masked_positions_loss(model.lm_head, hidden, labels)[1] if step.predicted
                    else hidden[:, 0].float().pow(2).mean())
        if step.training:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)

    for _ in range(warmup):
        one()
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    for _ in range(steps):
        one()
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / steps
    peak = torch.cuda.max_memory_allocated() / GIB - before if device == "cuda" else float("nan")
    return {"seconds_per_step": seconds, "measured_gib": peak, "allocated_before_gib": before}


def planned_steps(card, only: list[str], typical: bool = False) -> list[tuple[str, str, Step]]:
    """(notebook, job, planned step) for every job of the gpu profile's plan on `card`, each distinct step once;
    `typical`: at the job's typical input length (what the plan's minutes assume) instead of its longest."""
    seen, found = set(), []
    for plan in plan_suite(get_profile("gpu"), card):
        if only and not any(plan.name.startswith(n) for n in only):
            continue
        for j in plan.jobs:
            if j.job.step is None:  # the CPU's work alone (notebook 02's packing): nothing on the card
                continue
            step = replace(j.job.step, batch=j.per_device_batch, checkpointing=j.checkpointing,
                           precision=plan.precision)
            if typical:
                tokens = j.job.typical_tokens
                step = replace(step, tokens=tokens, global_tokens=min(step.global_tokens, tokens),
                               predicted=min(step.predicted, tokens))
            if step not in seen:
                seen.add(step)
                found.append((plan.name, j.job.what, step))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    parser.add_argument("--card", default=None, help="plan for this card (default: the card torch reports)")
    parser.add_argument("--only", default="", help="comma-separated notebook numbers, e.g. 04,06")
    parser.add_argument("--steps", type=int, default=3, help="timed steps per job")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--typical", action="store_true", help="inputs of typical length (the plan's minutes)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    card = get_card(args.card) if args.card else this_card(device)
    print(f"card {card.label}, device {device}, torch {torch.__version__}", file=sys.stderr)
    rows = []
    for notebook, what, step in planned_steps(card, [n for n in args.only.split(",") if n], args.typical):
        row = {"notebook": notebook, "job": what, "shape": step.shape.name, "batch": step.batch,
               "tokens": step.tokens, "training": step.training, "precision": step.precision,
               "checkpointing": step.checkpointing, "modelled_gib": peak_bytes(step) / GIB,
               "planned_seconds_per_step": step_flops(step) / (card.peak_tflops * 1e12 * card.utilisation)}
        try:
            row.update(run_step(step, device, args.steps, args.warmup))
            row["utilisation"] = step_flops(step) / row["seconds_per_step"] / (card.peak_tflops * 1e12)
        except Exception as exc:  # e.g. out of memory: reported in its row
            row["error"] = f"{type(exc).__name__}: {exc}"[:200]
            torch.cuda.empty_cache() if device == "cuda" else None
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"card": card.label, "device": device, "torch": torch.__version__, "rows": rows}, indent=1))
    else:
        print("| notebook | job | batch | modelled GiB | measured GiB | planned s/step | measured s/step | util |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['notebook']} | {r['job']} | {r['batch']} | {r['modelled_gib']:.1f} | "
                  f"{r.get('measured_gib', float('nan')):.1f} | {r['planned_seconds_per_step']:.3f} | "
                  f"{r.get('seconds_per_step', float('nan')):.3f} | {r.get('utilisation', float('nan')):.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
