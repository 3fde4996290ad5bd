"""Notebook 03's "8x this notebook's budget" learning curves, measured once: CDLM, Local CDLM and Rand CDLM
pretrained `--steps` steps from the profile's start (the shipped base stages on `cpu`), validation perplexity every
`--every` steps, written as JSON for notebook 03 (`perplexity.learning_curve.measured_budget_curves`):

    .venv/bin/python tools/budget_curve.py --steps 8000 --every 500 --run-dir runs/cpu-budget \\
        --out benchmarks/measured/budget_curve_cpu.json

Resumable: an interrupted run continues from its last checkpoint (every `save_steps`) when run again.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path


def measure(profile: str, variants: list[str], steps: int, every: int, run_dir: Path) -> dict:
    """Pretrain `variants` for `steps` steps into `run_dir` (`cdlm-nb pretrain --config`), then read their curves."""
    from cdlm_nb.perplexity.learning_curve import learning_curves
    from cdlm_nb.tooling.pretrain_script import pretrain_from_config
    from cdlm_nb.tooling.runtime import cpu_identity

    run_dir.mkdir(parents=True, exist_ok=True)
    config = run_dir / "budget_curve.json"
    config.write_text(json.dumps({"profile": profile, "variants": variants, "output_dir": str(run_dir),
                                  "pretrain": {"max_steps": steps, "curve_steps": every}}, indent=1))
    results = pretrain_from_config(config)
    curves = learning_curves(run_dir, tuple(variants))
    return {
        "what": f"validation perplexity every {every} steps of {steps}-step pretraining from the {profile} start, "
                "one seed (the profile's first)",
        "command": " ".join(["python tools/budget_curve.py", *sys.argv[1:]]),
        "profile": profile, "steps": steps, "every": every, "date": datetime.date.today().isoformat(),
        "cpu": cpu_identity(),
        "seconds": {result.variant: round(result.seconds) for result in results},
        "curves": {variant: [[int(step), float(value)] for step, value in curves[variant].dropna().items()]
                   for variant in curves},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--variants", nargs="+", default=["cdlm", "local", "rand"])
    parser.add_argument("--steps", type=int, default=8000)
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--run-dir", type=Path, default=Path("runs/cpu-budget"))
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    args = parser.parse_args(argv)
    data = measure(args.profile, args.variants, args.steps, args.every, args.run_dir)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
