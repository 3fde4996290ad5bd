"""Fine-tuning seed spread of a profile's fine-tuned metrics: the fine-tuning notebooks rerun with other training
seeds (`-p SEED N`) on the same pretrained models, and each metric's sd over the seeds written beside the baseline
(baselines/<profile>.spread.json), where `cdlm-nb compare` reads it for runs from another machine.

    .venv/bin/cdlm-nb run --profile cpu --output runs/cpu            # seed 13 (the profile's), once
    .venv/bin/python tools/seed_spread.py --from runs/cpu --seeds 14 15 [--only 05]

Each seed runs into runs/<profile>-seed<N>/ with notebook 02's models linked from --from. `--only` measures one
task at a time; the other tasks' spreads already in the file are kept.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

FINETUNED = ("04", "05", "06", "08", "09", "10", "11")  # the notebooks that fine-tune (SEED is their parameter)


def finished(out: Path, seed: int, only: list[str]) -> dict[str, Any] | None:
    """A finished run of the chosen notebooks with this seed already in `out` (every one ok), else None."""
    path = out / "results.json"
    if not path.is_file():
        return None
    results = json.loads(path.read_text())
    ran = {nb["name"][:2] for nb in results["notebooks"] if nb["status"] == "ok"}
    return results if results.get("parameters", {}).get("SEED") == seed and set(only) <= ran else None


def seed_run(profile: str, source: Path, seed: int, only: list[str], root: Path) -> dict[str, Any]:
    """The chosen notebooks with training seed `seed` in `<root>/<profile>-seed<seed>`, 02's models linked; a
    finished run there is read instead of run again."""
    from cdlm_nb.tooling.runner import run_notebooks

    out = root / f"{profile}-seed{seed}"
    done = finished(out, seed, only)
    if done is not None:
        return done
    out.mkdir(parents=True, exist_ok=True)
    models = out / "models"
    if not models.exists():
        models.symlink_to((source / "models").resolve(), target_is_directory=True)
    return run_notebooks(profile, only, str(out), parameters={"SEED": seed})


def notebook_metrics(results: dict[str, Any], only: list[str]) -> dict[str, float]:
    """The metrics that the chosen notebooks recorded in a run (`metric_notebooks` of its results.json)."""
    names = {metric for notebook, metrics in results.get("metric_notebooks", {}).items()
             if notebook[:2] in only or notebook in only for metric in metrics}
    return {name: value for name, value in results["metrics"].items() if name in names}


def measure(source: Path, seeds: list[int], only: list[str], baseline: Path, root: Path,
            command: str) -> dict[str, Any]:
    """Run the other seeds, then write (and return) the spread file beside `baseline`."""
    from cdlm_nb.profiles import get_profile
    from cdlm_nb.tooling.regression import load_results
    from cdlm_nb.tooling.seed_spread import spread_file, spread_path

    first = load_results(source)
    profile = first["profile"]
    runs = {get_profile(profile).seed: notebook_metrics(first, only)}
    for seed in seeds:
        results = seed_run(profile, source, seed, only, root)
        failed = [nb["name"] for nb in results["notebooks"] if nb["status"] != "ok"]
        if failed:
            raise SystemExit(f"seed {seed}: {', '.join(failed)} failed; see {root / f'{profile}-seed{seed}'}")
        runs[seed] = notebook_metrics(results, only)
    path = spread_path(baseline)
    previous = json.loads(path.read_text()) if path.is_file() else None
    spread = spread_file(profile, runs, only, command, first.get("cpu"), previous)
    path.write_text(json.dumps(spread, indent=1, sort_keys=True) + "\n")
    return spread


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", required=True, help="a full run of the profile (seed 13)")
    parser.add_argument("--seeds", type=int, nargs="+", required=True, help="the other training seeds, e.g. 14 15")
    parser.add_argument("--only", default=",".join(FINETUNED), help=f"notebooks (default {','.join(FINETUNED)})")
    parser.add_argument("--baseline", default=None, help="the baseline beside which to write (baselines/<profile>"
                                                         ".json of the run's profile)")
    parser.add_argument("--root", default="runs", help="where the seed runs go (default runs/)")
    args = parser.parse_args(argv)
    from cdlm_nb.tooling.seed_spread import spread_path, summary_table

    source = Path(args.source)
    profile = json.loads((source / "results.json").read_text())["profile"]
    baseline = Path(args.baseline or Path("baselines") / f"{profile}.json")
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    spread = measure(source, args.seeds, only, baseline, Path(args.root), "python tools/seed_spread.py "
                     + " ".join(argv if argv is not None else sys.argv[1:]))
    print(summary_table(spread))
    moved = sum(entry["sd"] > 0 for entry in spread["metrics"].values())
    print(f"{len(spread['metrics'])} metrics, {moved} moved with the seed; wrote {spread_path(baseline)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
