"""Step 0 of the copy question: can the cpu model learn to copy at all, and how fast? (docs/experiments.md, "Can
the cpu model copy?")

Trains a model on `cdlm_nb.pretraining.copy_task` (a document written twice, tokens of the second copy masked)
with full attention and prints the copy gain on held-out documents as it goes, as JSON lines:

    .venv/bin/python tools/copy_task.py --length 24 --steps 400                 # copy by position
    .venv/bin/python tools/copy_task.py --length 64 --shuffle --steps 1000      # copy by content
    .venv/bin/python tools/copy_task.py --length 64 --shuffle --fresh-worlds 10 # ... from 10 unseen worlds

The start is the shipped cpu base (`--start base-long`, `base`) or a random tiny Longformer (`--start random`
with `--layers/--heads/--hidden`); training documents are the cpu world's training clusters, or with
`--fresh-worlds N` the training clusters of N worlds of other seeds (names and facts the start never saw);
held-out documents are the cpu world's validation and test clusters. `--attention hf` runs Hugging Face's
attention instead of the fast one (the same function).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from cdlm_nb.encoders import with_attention_window
from cdlm_nb.finetuning import TrainSetup, train_epochs
from cdlm_nb.pretraining import copy_task

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


def full_attention_copy(model: "PreTrainedModel", length: int) -> "torch.nn.Module":
    """`model` with a window wide enough that every token of a `length`-token input sees every other."""
    return with_attention_window(model, 2 * (length // 2 + 8))



def train_copy_task(model: "PreTrainedModel", data: copy_task.CopyTaskData, every: int = 0,
                    report: Callable[[int, float, float], object] | None = None) -> list[tuple[int, float, float]]:
    """Train `model` on the task; (step, readable NLL, copy gain) at 0, every `every` steps and at the end."""
    task = data.task
    every = every or task.steps
    setup = TrainSetup(epochs=-(-task.steps // every), batch_size=task.batch_size, learning_rate=task.learning_rate,
                       seed=task.seed, warmup=task.warmup_steps / task.steps, decay=False, random_batches=True)
    history = []

    def measure(step: int) -> None:
        history.append((step, *copy_task.copy_task_gain(model, data)))
        if report is not None:
            report(*history[-1])

    measure(0)
    for epoch in train_epochs(model, [1] * (every * task.batch_size),
                              lambda batch: model(**data.batch(len(batch))).loss, setup, what="copy-task inputs"):
        measure(epoch.number * every)
    return history


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", default="base-long", choices=("base-long", "base", "random"))
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--attention", default="fast", choices=("fast", "hf"))
    parser.add_argument("--length", type=int, default=24)
    parser.add_argument("--shuffle", action="store_true")
    parser.add_argument("--mask-rate", type=float, default=0.3)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--fresh-worlds", type=int, default=0)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import torch
    from transformers import AutoTokenizer, LongformerForMaskedLM

    from cdlm_nb.data.corpora import world
    from cdlm_nb.encoders import tiny_longformer
    from cdlm_nb.longformer_attention import use_fast_attention
    from cdlm_nb.pretraining.shipped_base import shipped_base_dir
    from cdlm_nb.profiles import get_profile

    torch.manual_seed(args.seed)
    profile = get_profile("cpu")
    tokenizer = AutoTokenizer.from_pretrained(shipped_base_dir("cpu", "base-long"))
    if args.start == "random":
        encoder = replace(profile.encoder, num_layers=args.layers, num_heads=args.heads, hidden_size=args.hidden,
                          intermediate_size=4 * args.hidden)
        model = tiny_longformer(encoder, tokenizer)
    else:
        model = LongformerForMaskedLM.from_pretrained(shipped_base_dir("cpu", args.start))
    model = full_attention_copy(model, 2 * args.length + 3)
    if args.attention == "fast":
        use_fast_attention(model)
    made = world(profile.world)
    worlds = [world(replace(profile.world, seed=profile.world.seed + 1000 + k)) for k in range(args.fresh_worlds)]
    train_texts = [doc for w in (worlds or [made]) for docs in w.clusters["train"]["documents"] for doc in docs]
    heldout_texts = [doc for split in ("dev", "test") for docs in made.clusters[split]["documents"] for doc in docs]
    task = copy_task.CopyTask(length=args.length, shuffle=args.shuffle, mask_rate=args.mask_rate, steps=args.steps,
                              batch_size=args.batch_size, learning_rate=args.lr, seed=args.seed)
    data = copy_task.CopyTaskData(task, tokenizer, copy_task.task_documents(train_texts, tokenizer, args.length),
                                  copy_task.task_documents(heldout_texts, tokenizer, args.length))
    def report(step: int, readable: float, gain: float) -> None:
        print(json.dumps({"step": step, "readable_nll": round(readable, 3), "copy_gain": round(gain, 3)}), flush=True)

    train_copy_task(model, data, every=args.every, report=report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
