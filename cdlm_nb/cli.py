"""The `cdlm-nb` command line (also `python -m cdlm_nb`).

Adding a subcommand takes a few lines: write `def _add_NAME(sub)` that registers its parser with
`set_defaults(func=...)`, and append it to `SUBCOMMANDS`. Handlers return the process exit code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .errors import CdlmNbError
from .profiles import profile_names


def _run(args: argparse.Namespace) -> int:
    from .runner import run_notebooks

    only = [key.strip() for key in args.only.split(",") if key.strip()] if args.only else None
    results = run_notebooks(args.profile, only, args.output, log_output=args.log_output)
    failed = [nb for nb in results["notebooks"] if nb["status"] != "ok"]
    for nb in failed:
        print(f"FAILED {nb['name']}: {nb['error']}", file=sys.stderr)
    return 1 if failed else 0


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="execute the notebooks in order with papermill")
    p.add_argument("--profile", default="cpu", choices=profile_names(), help="run profile (default: cpu)")
    p.add_argument("--only", help="comma-separated notebook numbers or names, e.g. 01,03")
    p.add_argument("--output", help="output folder (default: runs/<profile>)")
    p.add_argument("--log-output", action="store_true", help="stream the notebooks' output to the terminal")
    p.set_defaults(func=_run)


def _ecbplus_stats(args: argparse.Namespace) -> int:
    import json

    from .data.ecbplus import ecbplus_stats, format_stats, read_ecbplus, rows_to_datasets

    rows, report = read_ecbplus(args.dir, validated_only=not args.all_sentences)
    stats = ecbplus_stats(rows_to_datasets(rows))
    for line in report.lines():
        print(f"ecbplus-stats: {line}", file=sys.stderr)
    print(json.dumps(stats, indent=2) if args.json else format_stats(stats))
    return 0


def _add_ecbplus_stats(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ecbplus-stats", help="ECB+ statistics per standard split (the CDLM paper's Table 7)")
    p.add_argument("dir", help="the ECB+ release folder (holding ECB+/ and the sentences CSV) or its ECB+ folder")
    p.add_argument("--json", action="store_true", help='print {"train": {...}, "dev": {...}, ...} as JSON')
    p.add_argument("--all-sentences", action="store_true", help="count every sentence, not only the validated ones")
    p.set_defaults(func=_ecbplus_stats)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_run, _add_ecbplus_stats]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cdlm-nb", description="Run and reproduce the cdlm-notebooks tutorial.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CdlmNbError as exc:
        print(f"cdlm-nb {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
