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


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_run]


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
