"""The `cdlm-nb` command line (also `python -m cdlm_nb`).

Adding a subcommand takes a few lines: write `def _add_NAME(sub)` that registers its parser with
`set_defaults(func=...)`, and append it to `SUBCOMMANDS`. Handlers return the process exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..profiles import get_profile, profile_names
from ..support.errors import CdlmNbError
from .cli_results import add_compare, add_publish

if TYPE_CHECKING:
    import os

    from ..variants import PretrainResult


def _only(args: argparse.Namespace) -> list[str] | None:
    """The notebooks of `--only 01,03` (None: all)."""
    return [key.strip() for key in args.only.split(",") if key.strip()] if args.only else None


def _notebooks_exit_code(results: dict) -> int:
    """Name every failed notebook on stderr; 1 if any failed, else 0."""
    failed = [nb for nb in results["notebooks"] if nb["status"] != "ok"]
    for nb in failed:
        print(f"FAILED {nb['name']}: {nb['error']}", file=sys.stderr)
    return 1 if failed else 0


def _run(args: argparse.Namespace) -> int:
    from .runner import parse_parameters, run_notebooks

    parameters = parse_parameters(args.parameters)
    results = run_notebooks(args.profile, _only(args), args.output, log_output=args.log_output, parameters=parameters)
    return _notebooks_exit_code(results)


def _add_parameter_option(p: argparse.ArgumentParser) -> None:
    """`-p NAME VALUE`, shared by `run` and `rehearse`."""
    p.add_argument("-p", "--parameter", nargs=2, action="append", dest="parameters", metavar=("NAME", "VALUE"),
                   help="set a parameters-cell value in every chosen notebook that declares NAME (repeatable); "
                        "VALUE is a JSON/YAML literal: 2, 1e-4, true, ecbplus, '[\"cdlm\"]'")


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="execute the notebooks in order with papermill")
    p.add_argument("--profile", default="cpu", choices=profile_names(), help="run profile (default: cpu)")
    p.add_argument("--only", help="comma-separated notebook numbers or names, e.g. 01,03")
    p.add_argument("--output", help="output folder (default: runs/<profile>)")
    _add_parameter_option(p)
    p.add_argument("--log-output", action="store_true", help="stream the notebooks' output to the terminal")
    p.set_defaults(func=_run)


def _ecbplus_stats(args: argparse.Namespace) -> int:
    import json

    from ..data.ecbplus import ecbplus_stats, format_stats, read_ecbplus, rows_to_datasets

    rows, report = read_ecbplus(args.dir, validated_only=not args.all_sentences)
    stats = ecbplus_stats(rows_to_datasets(rows))
    for line in report.lines():
        print(f"ecbplus-stats: {line}", file=sys.stderr)
    print(json.dumps(stats, indent=2) if args.json else format_stats(stats))
    return 0


def _add_ecbplus_stats(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ecbplus-stats", help="ECB+ statistics per standard split (Table 7 of the CDLM preprint, v1)")
    p.add_argument("dir", help="the ECB+ release folder (holding ECB+/ and the sentences CSV) or its ECB+ folder")
    p.add_argument("--json", action="store_true", help='print {"train": {...}, "dev": {...}, ...} as JSON')
    p.add_argument("--all-sentences", action="store_true", help="count every sentence, not only the validated ones")
    p.set_defaults(func=_ecbplus_stats)


def _score_coref(args: argparse.Namespace) -> int:
    import json

    from .official_files import format_scores, score_conll_files

    scores = score_conll_files(args.key, args.response, remove_singletons=args.remove_singletons,
                               shared_ids=not args.within_document_ids)
    print(json.dumps(scores.to_dict(), indent=2) if args.json else format_scores(scores))
    return 0


def _add_score_coref(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score-coref", help="score a CoNLL-2012 coreference response (MUC, B3, CEAF-e, LEA, CoNLL)")
    p.add_argument("key", help="the gold CoNLL file")
    p.add_argument("response", help="the system CoNLL file (same documents and tokens as the key)")
    p.add_argument("--json", action="store_true", help='print {"muc": {"recall", "precision", "f1"}, ..., "conll": f1}')
    p.add_argument("--remove-singletons", action="store_true", help="drop one-mention clusters from key and response")
    p.add_argument("--within-document-ids", action="store_true",
                   help="cluster ids are local to each #begin document block (default: shared across the file)")
    p.set_defaults(func=_score_coref)


def _coref_baseline(args: argparse.Namespace) -> int:
    import json

    from ..coref.baselines import head_lemma_scores
    from ..data.ecbplus import read_ecbplus, split_of_topic
    from ..support.errors import DataError
    from .official_files import format_scores

    rows, report = read_ecbplus(args.dir)
    for line in report.lines():
        print(f"coref-baseline: {line}", file=sys.stderr)
    present = sorted({split_of_topic(row["topic"]) for row in rows})
    if args.split not in present:
        raise DataError(f"split {args.split!r} is not in {args.dir} (splits present: {', '.join(present) or 'none'}); "
                        "ECB+ test topics are 36-45, dev 2 5 12 18 21 23 34 35, train the rest")
    scores = head_lemma_scores([row for row in rows if split_of_topic(row["topic"]) == args.split])
    if args.json:
        print(json.dumps({kind: s.to_dict() for kind, s in scores.items()}, indent=2))
    else:
        title = "Same head-lemma, ECB+ {split}, {kind} mentions"
        tables = [format_scores(s, title.format(split=args.split, kind=kind)) for kind, s in scores.items()]
        print("\n\n".join(tables))
    return 0


def _add_coref_baseline(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("coref-baseline", help="score the same-head-lemma baseline on ECB+ gold mentions")
    p.add_argument("dir", help="the ECB+ release folder (holding ECB+/ and the sentences CSV) or its ECB+ folder")
    p.add_argument("--split", required=True, choices=("train", "dev", "test"), help="the standard split to score")
    p.add_argument("--json", action="store_true", help='print {"event": {"muc": ..., "conll": f1}, "entity": {...}}')
    p.set_defaults(func=_coref_baseline)


def _hotpot_eval(args: argparse.Namespace) -> int:
    import json

    from .official_files import evaluate_files

    scores = evaluate_files(args.prediction, args.gold)
    for what, ids in (("no answer", scores.missing_answer), ("no supporting facts", scores.missing_sp)):
        if ids:
            print(f"hotpot-eval: {what} for {len(ids)} gold ids (first: {ids[0]}): they score 0", file=sys.stderr)
    if scores.unknown_ids:
        print(f"hotpot-eval: {len(scores.unknown_ids)} predicted ids are not in the gold file (first: "
              f"{scores.unknown_ids[0]}): ignored, as by the official script", file=sys.stderr)
    if args.json:
        print(json.dumps(scores.metrics))
    else:
        print("\n".join(f"{key:<13}{100 * value:6.2f}" for key, value in scores.metrics.items()))
    return 0


def _add_hotpot_eval(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hotpot-eval", help="score HotpotQA predictions with the official metric (hotpot_evaluate_v1)")
    p.add_argument("prediction", help='{"answer": {id: answer}, "sp": {id: [[title, sent_id], ...]}} as JSON')
    p.add_argument("gold", help="a dev file: the original layout (a list with _id) or the Hugging Face layout (id)")
    p.add_argument("--json", action="store_true", help="the official keys (em, f1, ..., joint_recall) as fractions")
    p.set_defaults(func=_hotpot_eval)


def _run_line(name: str, result: PretrainResult, target: str | os.PathLike) -> str:
    """One line per pretraining run (`PretrainResult`): steps, last loss, time, throughput, where the model is."""
    return (f"{name:<12} {result.steps} steps, final loss {result.final_loss:.3f}, {result.seconds:.0f} s, "
            f"{result.tokens_per_second:,.0f} tokens/s -> {target}")


def _pretrain(args: argparse.Namespace) -> int:
    import json

    from ..support.processes import end_job, is_main_process
    from ..variants import display_name
    from .pretrain_script import pretrain_from_config

    results = pretrain_from_config(args.config)
    end_job()
    if not is_main_process():
        return 0  # under torchrun every process trains; only the first one reports
    if args.json:
        print(json.dumps([result.to_json() for result in results], indent=2))
    for result in results if not args.json else []:
        print(_run_line(display_name(result.variant), result, result.model_dir))
    return 0


def _add_pretrain(sub: argparse._SubParsersAction) -> None:
    from textwrap import dedent

    p = sub.add_parser(
        "pretrain", help="CD-MLM pretraining from a JSON config (also under torchrun / accelerate launch)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=dedent("""\
            Pretrain CDLM and its ablations as notebook 02 does, as a script that scales out, e.g.
              torchrun --nproc_per_node 4 -m cdlm_nb pretrain --config pretrain.json
            Config fields (JSON object, all optional): profile, output_dir, variants, seed, resume,
            pretrain (PretrainConfig overrides), encoder (EncoderConfig overrides),
            data ({"source": "world"} or {"source": "multinews", "path": FILE}), world (WorldConfig overrides)."""),
    )
    p.add_argument("--config", required=True, help="the JSON config file")
    p.add_argument("--json", action="store_true", help="print the results (loss curves, tokens/s) as JSON")
    p.set_defaults(func=_pretrain)


def _pretrain_base(args: argparse.Namespace) -> int:
    from .pretrain_script import build_shipped_base, to_stderr

    for folder, result in build_shipped_base(args.profile, args.run_dir, args.output, echo=to_stderr):
        print(_run_line(result.variant, result, folder))
    return 0


def _add_pretrain_base(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pretrain-base", help="train a profile's base models (notebook 02's base stages) to ship with the package",
        description="Train the base stages of notebook 02 (single-document MLM, then MLM on unrelated documents "
                    "packed to the full length, then the copy stage's short inputs with a span written again, all "
                    "with full attention) from the profile's seeded random start, "
                    "as notebook 02 would, and save each where notebook 02 looks for a shipped one "
                    "(cdlm_nb/checkpoints/<profile>-<stage>), or under --output.")
    p.add_argument("--profile", default="cpu", help="profile whose base stage is trained (default cpu)")
    p.add_argument("--run-dir", default=None, help="resumable run folder (default runs/<profile>-base)")
    p.add_argument("--output", default=None, help="folder to write the stages' model folders into (default: the "
                   "package's checkpoints)")
    p.set_defaults(func=_pretrain_base)


def _rehearse(args: argparse.Namespace) -> int:
    from .rehearsal.rehearse import rehearse
    from .runner import parse_parameters

    results = rehearse(args.output, _only(args), shape=args.shape, profile=args.profile, log_output=args.log_output,
                       parameters=parse_parameters(args.parameters))
    over = [nb["name"] for nb in results["rehearsal_times"]["notebooks"] if nb["over"]]
    over = over if args.shape == "tiny" else []  # the budget is stated for tiny stand-ins on a CPU
    if over:
        print(f"OVER BUDGET: {', '.join(over)} took more than their share of the rehearsal (table above); "
              "shrink the loop bounds they walk in cdlm_nb/profiles/rehearsal.py", file=sys.stderr)
    return max(_notebooks_exit_code(results), int(bool(over)))


def _add_rehearse(sub: argparse._SubParsersAction) -> None:
    from .rehearsal.hub_models import SHAPES

    p = sub.add_parser(
        "rehearse", help="walk the gpu path offline: stand-ins of the hub's files, gpu with only its sizes shrunk",
        description="Write stand-ins of every download of the gpu profile (models and datasets in the Hugging Face "
                    "cache layout, ECB+ where its downloader looks), switch the hub off, and run the notebooks "
                    "through the normal runner with the gpu-rehearsal profile. Writes results.json as `run` does.")
    p.add_argument("--only", help="comma-separated notebook numbers or names, e.g. 02,03 (default: all)")
    p.add_argument("--output", help="output folder (default: runs/<profile>); the stand-ins go in its standins/")
    p.add_argument("--shape", default="tiny", choices=tuple(SHAPES),
                   help="stand-in models: tiny (seconds on a CPU) or Longformer-base's real shapes (for a GPU)")
    p.add_argument("--profile", default="gpu-rehearsal", choices=profile_names(),
                   help="profile run from the stand-ins (default gpu-rehearsal; gpu with --shape real on a GPU)")
    _add_parameter_option(p)
    p.add_argument("--log-output", action="store_true", help="stream the notebooks' output to the terminal")
    p.set_defaults(func=_rehearse)


def _plan(args: argparse.Namespace) -> int:
    from .plan import get_card, plan_suite
    from .plan.report import readme_table, suite_json

    profile = get_profile(args.profile)
    if args.table:
        print(readme_table(profile))
    elif args.json:
        print(json.dumps(suite_json(profile, get_card(args.device)), indent=2))
    else:
        print("\n\n".join(plan.summary() for plan in plan_suite(profile, get_card(args.device))))
    return 0


def _add_plan(sub: argparse._SubParsersAction) -> None:
    from .plan import CARDS

    p = sub.add_parser(
        "plan", help="memory and time of every notebook on a GPU: batch, accumulation, precision (no GPU needed)",
        description="For the card named, each notebook's per-device batch and gradient accumulation (keeping the "
                    "effective batch), precision, gradient checkpointing, peak memory and minutes of compute "
                    "(estimates: FLOPs at a stated share of the card's peak). A notebook prints the same for the "
                    "card it finds.")
    p.add_argument("--profile", default="gpu", choices=profile_names())
    p.add_argument("--device", default="t4", choices=tuple(CARDS))
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.add_argument("--table", action="store_true", help="print the README's table (T4, A100-80, H100) in Markdown")
    p.set_defaults(func=_plan)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_run, _add_ecbplus_stats, _add_score_coref, _add_coref_baseline, _add_hotpot_eval, _add_pretrain,
    _add_pretrain_base, _add_rehearse, _add_plan, add_compare, add_publish,
]


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
