"""How much does Longformer's sparse attention save? One CD-MLM training step, Longformer against dense attention.

For each sequence length, one training step (forward, backward, AdamW update) of a masked-LM is timed on a batch
of random token ids with 15 % of the positions predicted. The Longformer gives those positions global attention,
as CDLM pretraining does; the dense model (RoBERTa, the same width, depth, heads and vocabulary) attends
everywhere anyway. Reported: tokens per second and peak memory (CUDA: `torch.cuda.max_memory_allocated`; CPU:
the growth of the process's peak resident memory, each measurement in a fresh process so the peaks do not mix).

    python benchmarks/attention_speed.py                      # tiny cpu-profile model, 512-4,096 tokens
    python benchmarks/attention_speed.py --base --device cuda # Longformer-base size (random weights)
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import time
from dataclasses import asdict, dataclass

LENGTHS = (512, 1024, 2048, 4096)
MASKED_SHARE = 0.15  # CD-MLM: 15 % of the tokens are predicted and (in CDLM) global
#: Dense attention kernels: PyTorch's fused scaled-dot-product attention (memory-efficient, what a user gets by
#: default) and the textbook one that materialises the full length x length score matrix.
DENSE_KERNELS = {"dense": "sdpa", "dense-eager": "eager"}


@dataclass(frozen=True)
class Size:
    """The dimensions both models share."""

    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    vocab_size: int
    attention_window: int


def tiny_size() -> Size:
    """The cpu profile's tiny encoder (`cdlm_nb.profiles.ENCODER["cpu"]`)."""
    from cdlm_nb.profiles import get_profile

    encoder = get_profile("cpu").encoder
    return Size(encoder.hidden_size, encoder.num_layers, encoder.num_heads, encoder.intermediate_size,
                encoder.vocab_size, encoder.attention_window)


BASE = Size(hidden_size=768, num_layers=12, num_heads=12, intermediate_size=3072, vocab_size=50_267,
            attention_window=512)  # Longformer-base plus <doc-s> </doc-s>


def build_model(kind: str, size: Size, max_length: int):
    """A randomly initialised LongformerForMaskedLM, or RobertaForMaskedLM with `kind` = its attention kernel."""
    from transformers import LongformerConfig, LongformerForMaskedLM, RobertaConfig, RobertaForMaskedLM

    shared = dict(vocab_size=size.vocab_size, hidden_size=size.hidden_size, num_hidden_layers=size.num_layers,
                  num_attention_heads=size.num_heads, intermediate_size=size.intermediate_size,
                  max_position_embeddings=max_length + 2, pad_token_id=1, type_vocab_size=1)
    if kind == "longformer":
        return LongformerForMaskedLM(LongformerConfig(attention_window=size.attention_window, **shared))
    model = RobertaForMaskedLM(RobertaConfig(**shared))
    model.set_attn_implementation(DENSE_KERNELS[kind])
    return model


def random_batch(kind: str, size: Size, length: int, batch_size: int, device: str) -> dict:
    """Random ids with 15 % of the positions predicted; those are global for the Longformer (CDLM's pattern)."""
    import torch

    generator = torch.Generator().manual_seed(0)
    input_ids = torch.randint(5, size.vocab_size, (batch_size, length), generator=generator)
    predicted = torch.rand(batch_size, length, generator=generator) < MASKED_SHARE
    batch = {
        "input_ids": torch.where(predicted, torch.full_like(input_ids, 4), input_ids),
        "attention_mask": torch.ones_like(input_ids),
        "labels": torch.where(predicted, input_ids, torch.full_like(input_ids, -100)),
    }
    if kind == "longformer":
        batch["global_attention_mask"] = predicted.long()
    return {key: value.to(device) for key, value in batch.items()}


def measure(kind: str, size: Size, length: int, batch_size: int, device: str, steps: int, warmup: int = 6) -> dict:
    """Seconds per training step (after `warmup` untimed steps), tokens/s and peak memory in MiB.

    In a fresh CPU process the first few Longformer steps are several times slower than the later ones (memory
    being mapped while the allocator settles), hence several warm-up steps rather than one.
    """
    import torch
    import transformers  # noqa: F401  (imported before the baseline: its own memory is not the model's)

    torch.manual_seed(0)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    model = build_model(kind, size, length).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    batch = random_batch(kind, size, length, batch_size, device)
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()

    def step():
        loss = model(**batch).loss
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
    return {"model": kind, "length": length, "seconds_per_step": seconds,
            "tokens_per_second": batch_size * length / seconds, "peak_mib": peak_mib}


def _measure_in_child(queue, *args) -> None:
    try:
        queue.put(measure(*args))
    except Exception as exc:  # reported in the table, e.g. out of memory at 4,096 tokens
        queue.put({"model": args[0], "length": args[2], "error": f"{type(exc).__name__}: {exc}"[:120]})


def measure_isolated(kind: str, size: Size, length: int, batch_size: int, device: str, steps: int,
                     warmup: int) -> dict:
    """`measure` in a fresh process, so the CPU peak-memory figure belongs to this measurement alone."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    arguments = (queue, kind, size, length, batch_size, device, steps, warmup)
    child = context.Process(target=_measure_in_child, args=arguments)
    child.start()
    result = queue.get()
    child.join()
    return result


def markdown_table(rows: list[dict]) -> str:
    """One line per length: each model's tokens/s and peak memory, and the dense/Longformer time ratio."""
    kinds = list(dict.fromkeys(row["model"] for row in rows))
    by_key = {(row["model"], row["length"]): row for row in rows}

    def cell(row: dict, key: str) -> str:
        return format(row[key], ",.0f") if key in row else row.get("error", "-")

    header = ["tokens"] + [f"{kind} tok/s" for kind in kinds] + [f"{kind} peak MiB" for kind in kinds]
    header.append("dense time / Longformer time")
    lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
    for length in sorted({row["length"] for row in rows}):
        found = [by_key.get((kind, length), {}) for kind in kinds]
        sparse, dense = by_key.get(("longformer", length), {}), by_key.get(("dense", length), {})
        ratio = (f"{dense['seconds_per_step'] / sparse['seconds_per_step']:.2f}"
                 if "tokens_per_second" in sparse and "tokens_per_second" in dense else "-")
        cells = [f"{length:,}"] + [cell(row, "tokens_per_second") for row in found]
        cells += [cell(row, "peak_mib") for row in found] + [ratio]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", action="store_true", help="Longformer-base size (768 x 12 layers) instead of tiny")
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="comma-separated sequence lengths")
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--steps", type=int, default=2, help="timed steps")
    parser.add_argument("--warmup", type=int, default=6, help="untimed steps before them")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    parser.add_argument("--eager", action="store_true", help="also time dense attention without a fused kernel")
    args = parser.parse_args(argv)

    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    size = BASE if args.base else tiny_size()
    lengths = [int(value) for value in args.lengths.split(",")]
    print(f"device {device}, {'base' if args.base else 'tiny'} size {asdict(size)}, batch {args.batch_size}, "
          f"{torch.get_num_threads()} threads", file=sys.stderr)
    rows = []
    for length in lengths:
        for kind in ("longformer", "dense", *(["dense-eager"] if args.eager else [])):
            rows.append(measure_isolated(kind, size, length, args.batch_size, device, args.steps, args.warmup))
            print(f"  {kind} {length}: {rows[-1]}", file=sys.stderr)
    print(markdown_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
