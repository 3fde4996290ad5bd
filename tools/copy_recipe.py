"""A CD-MLM recipe measured by the copy probe: does a variant trained this way read the other documents?
(docs/experiments.md, "Can the cpu model copy?")

Trains one variant from the shipped cpu start as notebook 02 does (`pretraining.trainer.pretrain`), then prints the
copy gain (`perplexity.copy_gain`) of the start and of the trained model on the world's validation clusters (never
test: this is for choosing a recipe), as JSON lines:

    .venv/bin/python tools/copy_recipe.py --steps 1000 --fresh-worlds 12          # each cluster seen once
    .venv/bin/python tools/copy_recipe.py --fresh-worlds 12 --statement-masking 1  # + shared facts masked whole

`--fresh-worlds N` trains on the training clusters of N worlds of other seeds (names and facts the start never saw,
so nothing can be recalled from memory); `--statement-masking P` adds, with probability P per shared fact of a
training row, one of its statements masked whole on top of the usual 15 % (the other documents' statements stay
readable): more targets that only copying predicts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import sys
from collections import defaultdict
from dataclasses import dataclass, field, replace

from cdlm_nb.masking import CrossDocumentMLMCollator


@dataclass
class StatementMasking(CrossDocumentMLMCollator):
    """CD-MLM's masking plus, with `probability` per shared fact, one of its statements masked whole;
    `statements` maps a row's tokens to its facts' statements (token positions)."""

    statements: dict[tuple[int, ...], list[list[tuple[int, ...]]]] = field(default_factory=dict)
    probability: float = 1.0
    rng: random.Random = field(default_factory=random.Random)

    def mask_row(self, row):
        masked = super().mask_row(row)
        for stated in self.statements.get(tuple(row.tolist()), []):
            if self.rng.random() < self.probability:
                positions = list(self.rng.choice(stated))
                masked.predicted[positions] = True
                masked.labels[positions] = row[positions]
                masked.input_ids[positions] = self.tokenizer.mask_token_id
        return masked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="cdlm")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--lr", type=float, default=None, help="peak learning rate (default: the cpu profile's)")
    parser.add_argument("--fresh-worlds", type=int, default=0)
    parser.add_argument("--statement-masking", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--output-dir", default="runs/copy-recipe")
    args = parser.parse_args(argv)

    from datasets import concatenate_datasets
    from transformers import AutoTokenizer, LongformerForMaskedLM

    from cdlm_nb import variants
    from cdlm_nb.data.corpora import world
    from cdlm_nb.encoders import Encoder
    from cdlm_nb.longformer_attention import use_fast_attention
    from cdlm_nb.perplexity import copy_gain
    from cdlm_nb.pretraining.heldout import heldout_examples
    from cdlm_nb.pretraining.shipped_base import shipped_base_dir
    from cdlm_nb.pretraining.stages import base_stages, longformer_recipe
    from cdlm_nb.pretraining.trainer import pretrain, training_examples
    from cdlm_nb.profiles import get_profile

    profile = get_profile("cpu")
    config = replace(profile.pretrain, max_steps=args.steps, curve_steps=0, save_steps=args.steps,
                     learning_rate=args.lr or profile.pretrain.learning_rate)
    last_stage, _, _ = base_stages(profile.pretrain)[-1]
    folder = shipped_base_dir(profile.name, last_stage)
    start = longformer_recipe(Encoder(use_fast_attention(LongformerForMaskedLM.from_pretrained(folder)),
                                      AutoTokenizer.from_pretrained(folder)), profile, profile.pretrain.max_length)
    made = world(profile.world)
    worlds = [world(replace(profile.world, seed=profile.world.seed + 1000 + k)) for k in range(args.fresh_worlds)]
    named = [(f"w{k}/", w) for k, w in enumerate(worlds)] or [("", made)]  # cluster ids are unique per world only
    clusters, facts = (concatenate_datasets([getattr(w, kind)["train"].map(
        lambda row, prefix=prefix: {"cluster_id": prefix + row["cluster_id"]}) for prefix, w in named])
        for kind in ("clusters", "facts"))
    shutil.rmtree(args.output_dir, ignore_errors=True)
    pattern = variants.attention_pattern_of(args.variant)
    collator = CrossDocumentMLMCollator(start.tokenizer, pattern=pattern)
    if args.statement_masking:
        examples = training_examples(args.variant, config, start.tokenizer, clusters, args.output_dir, args.seed)
        statements = {}
        for ids, targets in zip(examples["input_ids"], copy_gain.world_copy_targets(examples, clusters, facts,
                                                                                     start.tokenizer)):
            by_fact = defaultdict(list)
            for target in targets:
                by_fact[target.unit].append(target.target)
            statements[tuple(ids)] = list(by_fact.values())
        collator = StatementMasking(start.tokenizer, pattern=pattern, statements=statements,
                                    probability=args.statement_masking, rng=random.Random(args.seed))
    with contextlib.redirect_stdout(sys.stderr):  # the Trainer's log lines: stdout holds only the results
        result = pretrain(args.variant, config, start.model, start.tokenizer, clusters, args.output_dir,
                          resume=False, seed=args.seed, collator=collator)
    trained = variants.load_pretrained(args.output_dir, args.variant, args.seed, config, profile.name)
    heldout = heldout_examples(made.clusters["dev"], start.tokenizer, profile)
    heldout, targets = copy_gain.probe_set(heldout, profile, start.tokenizer, split="dev")
    gains = copy_gain.copy_gains({args.variant: trained}, start.tokenizer, heldout, targets, config,
                                 start=start)
    for name, gain in gains.items():
        print(json.dumps({"model": name, "copy_gain": round(gain.gain, 3), "ci": [round(gain.ci_low, 3),
                          round(gain.ci_high, 3)], "readable_nll": round(gain.readable_nll, 3),
                          "tokens": gain.n_tokens, "seconds": round(result.seconds), "final_loss":
                          round(result.final_loss, 3)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
