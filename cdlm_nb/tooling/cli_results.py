"""The `cdlm-nb` subcommands about a run's results: `compare` (against a baseline) and `publish` (the executed
notebooks into docs/notebooks/, the results into baselines/). Registered by `cli.SUBCOMMANDS`."""

from __future__ import annotations

import argparse
import json


def _compare(args: argparse.Namespace) -> int:
    from .regression import compare_files, format_comparison, load_results, verdict

    result = compare_files(args.run, args.baseline, args.rtol)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    elif args.verdict:
        print(verdict(result, load_results(args.run).get("metric_notebooks")))
    else:
        print(format_comparison(result, args.rtol))
    return 0 if result.ok else 1


def add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare", help="compare a run's recorded metrics with a baseline results.json; exit 1 on drift",
        description="Every metric of the run against the baseline (same layout as results.json, e.g. "
                    "baselines/smoke.json). Timings (seconds, tokens/s, pairs/s, speed-ups, GFLOP/s) are reported, "
                    "never failed on; every other metric must stay within the tolerance its kind sets "
                    "(cdlm_nb/tooling/metric_kinds.py); a run from another CPU may move a fine-tuned metric within "
                    "the seed band measured beside the baseline (baselines/<profile>.spread.json, "
                    "tools/seed_spread.py). Missing metrics fail unless their optional input is absent here (not "
                    "applicable); new ones are listed. Exit status 1 on drift.")
    p.add_argument("run", help="a run folder (holding results.json) or a results.json file")
    p.add_argument("baseline", help="the baseline file, e.g. baselines/smoke.json")
    p.add_argument("--rtol", type=float, default=None,
                   help="relative tolerance for every checked metric instead of the registry's (e.g. 1e-3 for a "
                        "run on another machine)")
    p.add_argument("--verdict", action="store_true",
                   help="print only a short verdict: a match, or which notebooks differ and by how much")
    p.add_argument("--json", action="store_true", help='print {"ok", "drift": [...], "missing", "new", "timings", '
                                                       '"notes"} as JSON')
    p.set_defaults(func=_compare)


def _publish(args: argparse.Namespace) -> int:
    from .publish import publish

    for line in publish(args.run, args.smoke):
        print(line)
    return 0


def add_publish(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish", help="copy a full cpu run's executed notebooks to docs/notebooks/ and write baselines/",
        description="Copy the executed notebooks of RUN (a cpu run of all notebooks, every one ok) into "
                    "docs/notebooks/ as they are (outputs and embedded PNG figures untouched), write "
                    "baselines/cpu.json from its results.json and, with --smoke, baselines/smoke.json from a smoke "
                    "run's. `make publish` runs both profiles and this.")
    p.add_argument("run", help="the cpu run folder, e.g. runs/cpu")
    p.add_argument("--smoke", default=None, help="a smoke run folder (e.g. runs/smoke) to write baselines/smoke.json")
    p.set_defaults(func=_publish)
