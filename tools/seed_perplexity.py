"""Notebook 03's test perplexities (overall, and by fact group on the embedded world) for the variants of another
pretraining seed: how much of an ordering is the seed's (docs/experiments.md).

Train the seed's variants first, from the same base (the shipped one on `cpu`), then score them:

    echo '{"profile": "cpu", "seed": 14, "output_dir": "runs/cpu-seed14"}' > seed14.json
    .venv/bin/cdlm-nb pretrain --config seed14.json
    .venv/bin/python tools/seed_perplexity.py runs/cpu-seed14 --seed 14 --profile cpu

Prints the metrics under notebook 03's names (`perplexity/<variant>` with its interval,
`perplexity/facts_elsewhere/<variant>`, `copy_gain/<variant>`, ...) and each variant's paired difference from CDLM
with its paired bootstrap interval (`paired/<variant>`, `/ci_low`, `/ci_high`: the same resampled clusters for
both) as JSON.

With several seeds' run folders, `--write-spread` writes their pretraining seed spread of notebook 03's metrics
(the paired differences as `perplexity/paired/<variant>`) into baselines/<profile>.spread.json, where notebook
03's readings take the seed band of its noise rule (docs/reading_rule.md):

    .venv/bin/python tools/seed_perplexity.py runs/cpu:13 runs/cpu-seed14:14 runs/cpu-seed15:15 --write-spread
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def seed_metrics(run_dir: str, seed: int, profile_name: str) -> dict[str, float]:
    """Test perplexity of every variant of the profile pretrained with `seed` in `run_dir`, with the fact split."""
    from cdlm_nb import variants
    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.perplexity import copy_gain, evaluate, fact_tokens, report
    from cdlm_nb.perplexity.bootstrap import paired_difference
    from cdlm_nb.pretraining.heldout import heldout_examples
    from cdlm_nb.profiles import get_profile

    profile = get_profile(profile_name)
    config = profile.pretrain
    models = {variant: variants.load_pretrained(run_dir, variant, seed, config, profile.name)
              for variant in config.variants}
    tokenizer = variants.shared_tokenizer(models)
    test = heldout_examples(pretraining_clusters(profile).heldout["test"], tokenizer, profile)
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
    probed, targets = copy_gain.probe_set(test, profile, tokenizer) or (None, None)
    gains = copy_gain.copy_gains(models, tokenizer, probed, targets, config) if targets is not None else {}
    return metrics | (fact_tokens.fact_metrics(by_fact) if by_fact is not None else {}) | copy_gain.copy_metrics(gains)


def write_spread(by_seed: dict[int, dict[str, float]], profile: str, command: str) -> Path:
    """Notebook 03's metrics of every seed (`perplexity/...`, the paired differences renamed into that namespace)
    written as their seed spread beside the profile's baseline; other notebooks' spreads in the file are kept."""
    from cdlm_nb.tooling.seed_spread import spread_file, spread_path

    runs = {seed: {(f"perplexity/{name}" if name.startswith("paired/") else name): value
                   for name, value in metrics.items() if "/ci_" not in name or not name.startswith("paired/")}
            for seed, metrics in by_seed.items()}
    path = spread_path(Path("baselines") / f"{profile}.json")
    previous = json.loads(path.read_text()) if path.is_file() else None
    spread = spread_file(profile, runs, ["03"], command, (previous or {}).get("cpu"), previous)
    path.write_text(json.dumps(spread, indent=1, sort_keys=True) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="the run folder(s) the seed's variants were pretrained into; with "
                                                "several, RUN_DIR:SEED each")
    parser.add_argument("--seed", type=int, help="the pretraining seed of one run folder's variants")
    parser.add_argument("--profile", default="cpu", help="the profile they were pretrained with (default cpu)")
    parser.add_argument("--write-spread", action="store_true", help="write the seeds' spread into "
                                                                    "baselines/<profile>.spread.json")
    args = parser.parse_args(argv)
    pairs = [(args.runs[0], args.seed)] if args.seed is not None else [
        (run.rsplit(":", 1)[0], int(run.rsplit(":", 1)[1])) for run in args.runs]
    by_seed = {seed: seed_metrics(run_dir, seed, args.profile) for run_dir, seed in pairs}
    if args.write_spread:
        command = "python tools/seed_perplexity.py " + " ".join(argv if argv is not None else sys.argv[1:])
        print(f"wrote {write_spread(by_seed, args.profile, command)}", file=sys.stderr)
    print(json.dumps(by_seed if len(by_seed) > 1 else next(iter(by_seed.values())), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
