"""Notebook 06's tables, figure, recorded metrics and readings: our official scores beside the CDLM paper's
Table 5, the breakdown by question type, the cost, and the loss curves."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from .. import verdicts
from ..variants import run_label
from ..verdicts import reference_label
from .experiment import QUESTION_TYPES, REFERENCE, TFIDF, QARun, by_type, kept

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ..profiles import MultihopConfig

MISSING = None
#: HotpotQA distractor dev set, F1 (answer, supporting facts, joint): the CDLM paper (Caciularu et al., Findings of
#: EMNLP 2021, arXiv:2101.00406 v2), Table 5, "base"-size models. Our copy of the paper lost the Prefix CDLM and
#: CDLM rows and we found no public source that prints them, so they are shown as missing.
PAPER_TABLE5: dict[str, tuple[float | None, float | None, float | None]] = {
    "Transformer-XH (2020)": (66.2, 72.1, 52.9),
    "Graph Recurrent Retriever (2020)": (73.3, 76.1, 61.4),
    "RoBERTa-lf (2020)": (73.5, 83.4, 63.5),
    "BigBird (2020)": (75.5, 87.1, 67.8),
    "Longformer": (74.5, 83.9, 64.5),
    "Local CDLM": (74.1, 84.0, 64.2),
    "Rand CDLM": (72.7, 84.8, 63.7),
    "Prefix CDLM": (MISSING, MISSING, MISSING),
    "CDLM": (MISSING, MISSING, MISSING),
}
METRICS = {"ans_f1": "f1", "sp_f1": "sp_f1", "joint_f1": "joint_f1"}  # recorded name -> official key
COLUMNS = {"f1": "answer F1", "sp_f1": "support F1", "joint_f1": "joint F1", "em": "answer EM",
           "sp_em": "support EM", "joint_em": "joint EM"}


#: The table row of a run: the references by their method, the encoders by their display names.
row_label = partial(run_label, labels={TFIDF: "TF-IDF + heuristic",
                                       REFERENCE: reference_label("most frequent answer, every sentence")})


def scores_table(runs: Mapping[str, QARun]) -> "pd.DataFrame":
    """Official F1 and EM (%) per system."""
    import pandas as pd

    return pd.DataFrame({row_label(name): {label: 100 * run.scores.metrics[key] for key, label in COLUMNS.items()}
                         for name, run in runs.items()}).T.round(1)


def paper_table(ours: Mapping[str, Mapping[str, QARun]]) -> "pd.DataFrame":
    """Table 5 of the CDLM paper (HotpotQA dev, F1) above ours, one block per set of questions (label -> runs)."""
    import pandas as pd

    keys = ("f1", "sp_f1", "joint_f1")
    rows = {f"{name} (paper)": dict(zip((COLUMNS[k] for k in keys), values)) for name, values in PAPER_TABLE5.items()}
    for label, runs in ours.items():
        for name, run in runs.items():
            rows[f"{row_label(name)} ({label})"] = {COLUMNS[k]: round(100 * run.scores.metrics[k], 1) for k in keys}
    return pd.DataFrame(rows).T


def type_table(runs: Mapping[str, QARun], rows: Any) -> "pd.DataFrame":
    """Answer / support / joint F1 (%) per system and question type, with the number of questions."""
    import pandas as pd

    if not runs:
        return pd.DataFrame({"note": ["no questions to score"]})
    counts = {kind: sum(1 for row in rows if row["type"] == kind) for kind in QUESTION_TYPES}
    table = {}
    for name, run in runs.items():
        for kind, metrics in by_type(run, rows).items():
            table[(row_label(name), f"{kind} ({counts[kind]})")] = {
                COLUMNS[key]: round(100 * metrics[key], 1) for key in ("f1", "sp_f1", "joint_f1")}
    return pd.DataFrame(table).T


def cost_table(runs: Mapping[str, QARun]) -> "pd.DataFrame":
    """Training seconds, answering seconds and what the length limit cut, per system."""
    import pandas as pd

    rows = {}
    for name, run in runs.items():
        encoding = run.encoding
        rows[row_label(name)] = {
            "train s": round(run.train_seconds, 1), "answer s": round(run.seconds, 2),
            "sentences cut": f"{encoding.cut_sentences}/{encoding.total_sentences}" if encoding else "-",
            "answers not in kept text": encoding.answers_not_found if encoding else "-"}
    return pd.DataFrame(rows).T


def truncation_note(runs: Mapping[str, QARun]) -> str:
    """What the length limit cut from these questions (the same for every model of one tokenizer and length)."""
    encoded = next((run.encoding for run in runs.values() if run.encoding is not None), None)
    return f"length limit: {encoded.summary()}" if encoded else ""


def qa_metrics(data: str, runs: Mapping[str, QARun]) -> dict[str, float]:
    """`hotpot/<data>/<metric>/<model>` for ans_f1, sp_f1 and joint_f1, in % (the reference row as model
    `most_frequent`)."""
    return {f"hotpot/{data}/{metric}/{name}": round(100 * run.scores.metrics[key], 2)
            for name, run in runs.items() for metric, key in METRICS.items()}


def loss_figure(runs: Mapping[str, QARun]) -> "Figure":
    """Training loss per step (smoothed over an epoch's worth of steps) for each fine-tuned model."""
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, run in runs.items():
        if run.losses:
            window = max(1, len(run.losses) // 20)
            smooth = np.convolve(run.losses, np.ones(window) / window, mode="valid")
            ax.plot(smooth, label=row_label(name))
    ax.set(xlabel="step", ylabel="multi-task loss", title="Fine-tuning on the world's questions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def learned(runs: Mapping[str, QARun]) -> dict[str, list[str]]:
    """Per official F1 (answer, support, joint): the systems above the reference row on it (all of them when the
    run has no reference row)."""
    floor = runs.get(REFERENCE)
    return {key: [name for name, run in runs.items() if name != REFERENCE and
                  (floor is None or verdicts.learned(run.scores.metrics[key], floor.scores.metrics[key]))]
            for key in ("f1", "sp_f1", "joint_f1")}


def readings(world: Mapping[str, QARun], real: Mapping[str, QARun], label: str, profile: str, data: str
             ) -> list[str]:
    """What the numbers say on each set (the test split called `label`, and real dev records): the systems not
    above the reference row on every official F1 (learned nothing here), the best system above it per metric,
    and CDLM against Longformer on joint F1 under the noise rule (`verdicts`), when both learned something."""
    lines = []
    spread = verdicts.load_spread(profile)
    for set_label, runs, name_of_set in ((label, world, data), ("real dev records", real, "dev")):
        if not runs:
            continue
        answers = {name: [d.answer for d in run.predictions.values()] for name, run in runs.items()}
        above = learned(runs)
        systems = [n for n in runs if n != REFERENCE]
        everywhere = [n for n in systems if all(n in names for names in above.values())]
        nothing = []
        for name in (n for n in systems if n not in everywhere):
            short = ", ".join(COLUMNS[key] for key, names in above.items() if name not in names)
            habit = verdicts.one_class(answers[name], inputs="questions the answer") if name != TFIDF else None
            nothing.append(f"{row_label(name)} (not above it on {short}{'; ' + habit if habit else ''})")
        if nothing:
            lines.append(f"- {set_label}: {verdicts.LEARNED_NOTHING} (not above the reference row on every F1): "
                         f"{', '.join(nothing)}.")
        if not everywhere:
            lines.append(f"- {set_label}: no system is above the reference row on every F1: none is ranked.")
        for key in ("f1", "sp_f1", "joint_f1") if everywhere else ():
            best = max(everywhere, key=lambda name: runs[name].scores.metrics[key])
            lines.append(f"- {set_label}, {COLUMNS[key]}: best {row_label(best)} "
                         f"({100 * runs[best].scores.metrics[key]:.1f}) of the systems that learned something.")
        if "cdlm" in runs and "longformer" in runs:
            lines.append(_cdlm_line(runs, everywhere, set_label, spread, name_of_set))
    return lines


def _cdlm_line(runs: Mapping[str, QARun], above: list[str], set_label: str, spread, data: str) -> str:
    """CDLM against Longformer on joint F1 (the paper lost its CDLM row; its Local and Rand CDLM rows sit below its
    Longformer), per question, under the noise rule."""
    longformer = PAPER_TABLE5["Longformer"][2]
    below = " and ".join(f"{longformer - PAPER_TABLE5[name][2]:.1f}" for name in ("Local CDLM", "Rand CDLM"))
    paper = f"(the paper's Local and Rand CDLM rows are {below} below its Longformer; its CDLM row is missing)"
    if nothing := [row_label(n) for n in ("cdlm", "longformer") if n not in above]:
        return f"- {set_label}: CDLM vs Longformer {paper}: not compared ({verdicts.LEARNED_NOTHING}: " \
               f"{' and '.join(nothing)})."
    ids = list(runs["cdlm"].scores.per_question)
    per = {n: [runs[n].scores.per_question[q]["joint_f1"] for q in ids] for n in ("cdlm", "longformer")}
    band = verdicts.seed_band(spread, f"hotpot/{data}/joint_f1/cdlm", f"hotpot/{data}/joint_f1/longformer", 100)
    diff = verdicts.mean_difference(per["cdlm"], per["longformer"], band)
    return verdicts.claim_line(f"{set_label}: CDLM over Longformer {paper}", diff, "joint F1")


def run_line(run: QARun, config: "MultihopConfig") -> str:
    """One line per encoder as notebook 06 fine-tunes it: the official F1s (%), time, the recipe and the epoch
    kept."""
    metrics = run.scores.metrics
    return (f"{row_label(run.name):<12} test answer F1 {100 * metrics['f1']:5.1f}  support F1 "
            f"{100 * metrics['sp_f1']:5.1f}  joint F1 {100 * metrics['joint_f1']:5.1f}  "
            f"({run.train_seconds:.0f} s training at lr {config.learning_rate:g}, batch {config.batch_size}, "
            f"{kept(run, config)})")
