"""How fast is one CD-MLM training step with Hugging Face's Longformer attention, ours, and dense attention?

For each configuration and sequence length, one training step (forward, backward, AdamW update) of a masked-LM is
timed on random token ids with 15 % of the positions predicted, with dropout as each configuration is trained
(hidden and attention dropout: tiny 0.0 as the cpu profile, base 0.1 as Longformer-base; `--dropout` overrides).
The Longformers give those positions global attention, as CDLM pretraining does: `hf` runs Hugging Face's
`LongformerSelfAttention`, `ours` the same weights through `cdlm_nb.longformer_attention` (fused
`scaled_dot_product_attention` over blocks; on the CPU with attention dropout, `cdlm_nb.attention_dropout`'s
chunks of matmuls); `dense` is RoBERTa of
the same width, depth, heads and vocabulary with PyTorch's fused attention over everything; `floor` is the Longformer
with every self-attention replaced by its value projection (no scores, no softmax): the time of everything else in
the step, so `hf / floor` bounds the speed-up any attention implementation can give (Amdahl's law). As in the project's
pretraining (`pretraining.trainer.MaskedPositionsLongformer`), the vocabulary projection runs on the predicted
positions only, for all of them. Reported: tokens per second and peak memory (CUDA: `max_memory_allocated`; CPU:
the growth of the process's peak resident memory, each measurement in a fresh process so that peaks do not mix),
and how far ours is from Hugging Face's on the same weights and batch (fp32).

    python benchmarks/attention_speed.py                          # tiny and base-like (4 layers) on this CPU
    python benchmarks/attention_speed.py --device cuda --dtype bfloat16 --json   # base-like has 12 layers on CUDA
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import time
from dataclasses import asdict, dataclass, replace

import torch

from cdlm_nb.pretraining.trainer import masked_positions_loss
from cdlm_nb.tooling.runtime import matmul_gflops

LENGTHS = (512, 1024, 2048, 4096)
IMPLEMENTATIONS = ("hf", "ours", "dense", "floor")
MASKED_SHARE = 0.15  # CD-MLM: 15 % of the tokens are predicted and (in CDLM) global


@dataclass(frozen=True)
class Size:
    """The dimensions the three models share."""

    name: str
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    vocab_size: int
    attention_window: int
    dropout: float  # hidden and attention dropout


def tiny_size() -> Size:
    """The cpu profile's tiny encoder (`cdlm_nb/profiles/cpu.py`: `ENCODER`)."""
    from cdlm_nb.profiles import get_profile

    encoder = get_profile("cpu").encoder
    return Size("tiny", encoder.hidden_size, encoder.num_layers, encoder.num_heads, encoder.intermediate_size,
                encoder.vocab_size, encoder.attention_window, encoder.dropout)


#: Longformer-base plus <doc-s> </doc-s>; 4 layers on CPU (12 on CUDA), so that a CPU run takes minutes.
BASE = Size("base", hidden_size=768, num_layers=12, num_heads=12, intermediate_size=3072, vocab_size=50_267,
            attention_window=512, dropout=0.1)  # Longformer-base: dropout 0.1


def base_size(device: str) -> Size:
    return BASE if device == "cuda" else replace(BASE, name="base-4-layers", num_layers=4)


class ValueOnly(torch.nn.Module):
    """A Longformer self-attention replaced by its own value projection: no scores, no softmax (`floor`)."""

    def __init__(self, attention: torch.nn.Module):
        super().__init__()
        self.value = attention.value

    def forward(self, hidden_states, *args, **kwargs):
        return (self.value(hidden_states),)


def no_attention(model):
    """`model` with each Longformer self-attention replaced by `ValueOnly`, in place."""
    for layer in model.longformer.encoder.layer:
        layer.attention.self = ValueOnly(layer.attention.self)
    return model


def build_model(impl: str, size: Size, max_length: int):
    """A randomly initialised LongformerForMaskedLM (`hf`, `ours`, `floor`) or RobertaForMaskedLM with sdpa
    (`dense`)."""
    from transformers import LongformerConfig, LongformerForMaskedLM, RobertaConfig, RobertaForMaskedLM

    from cdlm_nb.longformer_attention import use_fast_attention

    shared = dict(vocab_size=size.vocab_size, hidden_size=size.hidden_size, num_hidden_layers=size.num_layers,
                  num_attention_heads=size.num_heads, intermediate_size=size.intermediate_size,
                  max_position_embeddings=max_length + 2, pad_token_id=1, type_vocab_size=1,
                  hidden_dropout_prob=size.dropout, attention_probs_dropout_prob=size.dropout)
    if impl == "dense":
        model = RobertaForMaskedLM(RobertaConfig(**shared))
        model.set_attn_implementation("sdpa")
        return model
    model = LongformerForMaskedLM(LongformerConfig(attention_window=size.attention_window, **shared))
    return use_fast_attention(model) if impl == "ours" else no_attention(model) if impl == "floor" else model


def random_batch(impl: str, size: Size, length: int, batch_size: int, device: str) -> dict:
    """Random ids with 15 % of the positions predicted; those are global for the Longformers (CDLM's pattern)."""
    generator = torch.Generator().manual_seed(0)
    input_ids = torch.randint(5, size.vocab_size, (batch_size, length), generator=generator)
    predicted = torch.rand(batch_size, length, generator=generator) < MASKED_SHARE
    batch = {
        "input_ids": torch.where(predicted, torch.full_like(input_ids, 4), input_ids),
        "attention_mask": torch.ones_like(input_ids),
        "labels": torch.where(predicted, input_ids, torch.full_like(input_ids, -100)),
    }
    if impl != "dense":
        batch["global_attention_mask"] = predicted.long()
    return {key: value.to(device) for key, value in batch.items()}


def masked_lm_loss(model, batch: dict):
    """The CD-MLM loss as pretraining computes it (projection on the predicted positions only), for the
    Longformers and RoBERTa alike."""
    inputs = {key: value for key, value in batch.items() if key != "labels"}
    return masked_positions_loss(model.lm_head, model.base_model(**inputs)[0], batch["labels"])[1]


def measure(impl: str, size: Size, length: int, batch_size: int, device: str, dtype: str, steps: int,
            warmup: int) -> dict:
    """Seconds per training step after `warmup` untimed steps, tokens/s and peak memory in MiB."""
    import transformers  # noqa: F401  (imported before the baseline: its own memory is not the model's)

    torch.manual_seed(0)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    model = build_model(impl, size, length).to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    batch = random_batch(impl, size, length, batch_size, device)
    autocast = torch.autocast(device, dtype=getattr(torch, dtype), enabled=dtype != "float32")
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()

    def step():
        with autocast:
            loss = masked_lm_loss(model, batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    for _ in range(warmup):  # allocations, kernels, optimizer state
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / steps
    if device == "cuda":
        peak_mib = torch.cuda.max_memory_allocated() / 2**20
    else:  # ru_maxrss is in KiB on Linux
        peak_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    return {"config": size.name, "tokens": length, "impl": impl, "tokens_per_s": batch_size * length / seconds,
            "peak_mib": peak_mib, "seconds_per_step": seconds}


def attention_gflop(size: Size, length: int, batch_size: int) -> float:
    """Multiply-adds of the exact Longformer attention in one training step, in GFLOP, on `random_batch`'s global
    tokens: every query against the keys of its window that are not global (|i - j| <= w) and against every global
    key, every global query against all keys; 4 FLOP per (query, key) pair and head dimension (scores and weighted
    values), times 3 for forward and backward. Projections are left out, so this is a lower bound on the work."""
    is_global = random_batch("hf", size, length, batch_size, "cpu")["global_attention_mask"].bool()
    one_side = size.attention_window // 2
    local = torch.nn.functional.pad((~is_global).long(), (one_side + 1, one_side)).cumsum(1)
    window_pairs = (local[:, 2 * one_side + 1:] - local[:, :-2 * one_side - 1]).sum()
    n_global = is_global.sum()
    pairs = window_pairs + n_global * length * 2  # every query to the global keys, every global query to all keys
    return 3 * 4 * float(pairs) * size.hidden_size * size.num_layers / 1e9


def bounds(rows: list[dict], sizes: dict[str, Size], batch_size: int, gflops: float) -> list[dict]:
    """Per measured `floor` row, the fastest step any exact attention could give here: the rest of the step
    (`floor`) plus `attention_gflop` at `gflops`, in tokens/s."""
    found = []
    for row in rows:
        if row["impl"] == "floor" and "seconds_per_step" in row:
            work = attention_gflop(sizes[row["config"]], row["tokens"], batch_size)
            seconds = row["seconds_per_step"] + work / gflops
            found.append({"config": row["config"], "tokens": row["tokens"], "attention_gflop": work,
                          "tokens_per_s": batch_size * row["tokens"] / seconds})
    return found


def _measure_in_child(queue, *args) -> None:
    try:
        queue.put(measure(*args))
    except Exception as exc:  # reported in the table, e.g. out of memory at 4,096 tokens
        queue.put({"config": args[1].name, "tokens": args[2], "impl": args[0],
                   "error": f"{type(exc).__name__}: {exc}"[:120]})


def measure_isolated(*args) -> dict:
    """`measure` in a fresh process, so the CPU peak-memory figure belongs to this measurement alone."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_measure_in_child, args=(queue, *args))
    child.start()
    result = queue.get()
    child.join()
    return result


def equivalence(size: Size, length: int) -> dict:
    """Largest |ours - HF| over the last hidden states and over every parameter's gradient (fp32, CPU, eval mode:
    no dropout), same weights and batch."""
    import copy

    from cdlm_nb.longformer_attention import use_fast_attention

    torch.manual_seed(0)
    reference = build_model("hf", size, length).eval()
    ours = use_fast_attention(copy.deepcopy(reference))
    batch = random_batch("hf", size, length, 1, "cpu")
    diffs = []
    for model in (reference, ours):
        loss = masked_lm_loss(model, batch)
        loss.backward()
        hidden = model.base_model(**{k: v for k, v in batch.items() if k != "labels"})[0].detach()
        diffs.append((hidden, {name: p.grad for name, p in model.named_parameters() if p.grad is not None}))
    (hidden_hf, grads_hf), (hidden_ours, grads_ours) = diffs
    return {"max_abs_diff_hidden": (hidden_hf - hidden_ours).abs().max().item(),
            "max_abs_diff_grad": max((grads_hf[n] - grads_ours[n]).abs().max().item() for n in grads_hf)}


def markdown_table(rows: list[dict], limits: list[dict] = ()) -> str:
    """One line per configuration and length: each implementation's tokens/s and peak memory, ours / HF, and the
    bound / HF (`bounds`: the most any exact attention could give)."""
    by_key = {(row["config"], row["tokens"], row["impl"]): row for row in rows}
    by_key.update({(row["config"], row["tokens"], "bound"): row for row in limits})
    impls = [impl for impl in IMPLEMENTATIONS if any(row["impl"] == impl for row in rows)]

    def cell(row: dict, key: str) -> str:
        return format(row[key], ",.0f") if key in row else row.get("error", "-")

    header = (["config", "tokens"] + [f"{i} tok/s" for i in impls] + [f"{i} peak MiB" for i in impls]
              + ["ours / hf", "floor / hf", "bound / hf"])
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for config, length in dict.fromkeys((row["config"], row["tokens"]) for row in rows):
        found = [by_key.get((config, length, impl), {}) for impl in impls]
        hf = by_key.get((config, length, "hf"), {})
        ratios = [_ratio(by_key.get((config, length, impl), {}), hf) for impl in ("ours", "floor", "bound")]
        cells = ([config, f"{length:,}"] + [cell(r, "tokens_per_s") for r in found]
                 + [cell(r, "peak_mib") for r in found])
        lines.append("| " + " | ".join(cells + ratios) + " |")
    return "\n".join(lines)


def _ratio(row: dict, hf: dict) -> str:
    """`row`'s tokens/s over Hugging Face's, e.g. "1.47x" ("-" when either is missing)."""
    return f"{row['tokens_per_s'] / hf['tokens_per_s']:.2f}x" if "tokens_per_s" in row and "tokens_per_s" in hf else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default="tiny,base", help="comma-separated: tiny (cpu profile), base (768 wide)")
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="comma-separated sequence lengths")
    parser.add_argument("--impls", default=",".join(IMPLEMENTATIONS), help="comma-separated: hf, ours, dense, floor")
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3, help="timed steps")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps before them")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"),
                        help="autocast dtype of the timed steps (the equivalence check is always fp32)")
    parser.add_argument("--dropout", type=float, default=None,
                        help="hidden and attention dropout (default: each config's own, tiny 0.0, base 0.1)")
    parser.add_argument("--json", action="store_true", help="print the rows and the equivalence as JSON")
    args = parser.parse_args(argv)

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    sizes = {"tiny": tiny_size(), "base": base_size(device)}
    configs = [sizes[name] if args.dropout is None else replace(sizes[name], dropout=args.dropout)
               for name in args.configs.split(",")]
    lengths = [int(value) for value in args.lengths.split(",")]
    print(f"device {device}, dtype {args.dtype}, batch {args.batch_size}, {torch.get_num_threads()} threads",
          file=sys.stderr)
    rows = []
    for size in configs:
        print(f"{size.name}: {asdict(size)}", file=sys.stderr)
        for length in lengths:
            for impl in args.impls.split(","):
                rows.append(measure_isolated(impl, size, length, args.batch_size, device, args.dtype, args.steps,
                                             args.warmup))
                print(f"  {impl} {length}: {rows[-1]}", file=sys.stderr)
    # this machine's throughput on a large matrix product: the most any attention kernel can sustain
    gflops = matmul_gflops(2048, repeats=10, device=device, dtype=args.dtype)
    limits = bounds(rows, {size.name: size for size in configs}, args.batch_size, gflops)
    checks = [equivalence(size, min(lengths)) for size in configs]
    check = {key: max(c[key] for c in checks) for key in ("max_abs_diff_hidden", "max_abs_diff_grad")}
    if args.json:
        print(json.dumps({"rows": rows, "equivalence": check, "device": device, "dtype": args.dtype,
                          "matmul_gflops": gflops, "bound": limits}, indent=2))
    else:
        print(markdown_table(rows, limits))
        print(f"\nbound: floor + exact attention GFLOP at this machine's matmul speed ({gflops:,.0f} GFLOP/s)")
        print(f"\nours vs hf (fp32, {min(lengths)} tokens): hidden {check['max_abs_diff_hidden']:.1e}, "
              f"gradients {check['max_abs_diff_grad']:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
