"""How many steps does the second base stage need? The start's perplexity at the full packed length, under each
attention pattern (`pretraining.start_check`), every `--every` steps of the long stage trained from the shipped
first stage (docs/experiments.md, "A start that reads the whole input"):

    .venv/bin/python tools/start_by_steps.py --steps 1500 --every 250 --run-dir runs/start-by-steps

Prints one JSON line per measurement (step 0: the start the first stage alone makes).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from transformers import TrainerCallback

    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.encoders import Encoder
    from cdlm_nb.pretraining.shipped_base import install_shipped_base
    from cdlm_nb.pretraining.stages import (
        base_stage_config,
        full_attention,
        initial_encoder,
        long_stage_config,
        longformer_recipe,
    )
    from cdlm_nb.pretraining.start_check import start_perplexity
    from cdlm_nb.pretraining.trainer import pretrain
    from cdlm_nb.profiles import get_profile
    from cdlm_nb.variants import load_pretrained

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--run-dir", type=Path, default=Path("runs/start-by-steps"))
    args = parser.parse_args(argv)

    profile = get_profile(args.profile)
    config = profile.pretrain
    clusters = pretraining_clusters(profile)
    first = base_stage_config(config)
    if install_shipped_base(profile.name, "base", first, initial_encoder(profile, clusters), len(clusters.train),
                            args.run_dir) is None:
        raise SystemExit(f"no shipped first base stage matches the {profile.name} profile")
    base = load_pretrained(args.run_dir, "base")
    validation = clusters.heldout["validation"]

    def measure(model, step: int) -> None:
        start = longformer_recipe(Encoder(model, base.tokenizer), profile, config.max_length)
        scores = start_perplexity(start, validation, profile, lengths=[config.max_length])
        print(json.dumps({"step": step, **{f"{p}/{n}": round(v, 3) for (p, n), v in scores.items()}}), flush=True)

    class Every(TrainerCallback):
        def on_step_end(self, _args, state, control, model=None, **kwargs):
            if state.global_step % args.every == 0:
                measure(model.to_plain(), state.global_step)
                model.train()

    wide = full_attention(base, config.max_length, trained=config.base_max_length)
    measure(wide.model, 0)
    stage = replace(long_stage_config(replace(config, base_long_steps=args.steps)), save_steps=10**9)
    pretrain("base-long", stage, wide.model, base.tokenizer, clusters.train, args.run_dir, resume=False,
             callbacks=[Every()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
