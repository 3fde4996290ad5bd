"""Notebook 03's test perplexities (overall, and by fact group on the embedded world) for the variants of another
pretraining seed: how much of an ordering is the seed's (docs/experiments.md).

Train the seed's variants first, from the same base (the shipped one on `cpu`), then score them:

    echo '{"profile": "cpu", "seed": 14, "output_dir": "runs/cpu-seed14"}' > seed14.json
    .venv/bin/cdlm-nb pretrain --config seed14.json
    .venv/bin/python tools/seed_perplexity.py runs/cpu-seed14 --seed 14 --profile cpu

Prints the metrics under notebook 03's names (`perplexity/<variant>` with its interval,
`perplexity/facts_elsewhere/<variant>`, ...) and each variant's paired difference from CDLM with its paired
bootstrap interval (`paired/<variant>`, `/ci_low`, `/ci_high`: the same resampled clusters for both) as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys


def seed_metrics(run_dir: str, seed: int, profile_name: str) -> dict[str, float]:
    """Test perplexity of every variant of the profile pretrained with `seed` in `run_dir`, with the fact split."""
    from cdlm_nb import variants
    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.perplexity import evaluate, fact_tokens, report
    from cdlm_nb.perplexity.bootstrap import paired_difference
    from cdlm_nb.profiles import get_profile

    profile = get_profile(profile_name)
    config = profile.pretrain
    models = {variant: variants.load_pretrained(run_dir, variant, seed, config, profile.name)
              for variant in config.variants}
    tokenizer = variants.shared_tokenizer(models)
    test = evaluate.heldout_examples(pretraining_clusters(profile).heldout["test"], tokenizer, profile)
    scores = [evaluate.evaluate_perplexity(encoder.model, tokenizer, test, variant, batch_size=config.eval_batch_size,
                                          n_resamples=config.bootstrap_resamples)
              for variant, encoder in models.items()]
    metrics = report.perplexity_metrics({"test": scores, "validation": []})
    reference = next(score for score in scores if score.variant == "cdlm")
    for score in (score for score in scores if score is not reference):
        difference, low, high = paired_difference(score, reference, config.bootstrap_resamples)
        metrics |= {f"paired/{score.variant}": difference, f"paired/{score.variant}/ci_low": low,
                    f"paired/{score.variant}/ci_high": high}
    by_fact = fact_tokens.world_fact_results(models, tokenizer, test, profile)
    return metrics | (fact_tokens.fact_metrics(by_fact) if by_fact is not None else {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", help="the run folder the seed's variants were pretrained into")
    parser.add_argument("--seed", type=int, required=True, help="the pretraining seed of those variants")
    parser.add_argument("--profile", default="cpu", help="the profile they were pretrained with (default cpu)")
    args = parser.parse_args(argv)
    print(json.dumps(seed_metrics(args.run_dir, args.seed, args.profile), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
