"""Notebook 06's tables (our official scores beside the CDLM paper's Table 5, by question type, cost), loss figure,
recorded metrics and readings."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import verdicts
from ..profiles import MultihopConfig
from ..variants import run_label
from ..verdicts import NR, reference_label
from .experiment import QUESTION_TYPES, REFERENCE, TFIDF, QARun
from .metric import mean_scores

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: HotpotQA distractor dev F1 (answer, supporting facts, joint): the CDLM paper (arXiv:2101.00406 v2), Table 5, "base"
#: models. Our copy lost the Prefix CDLM and CDLM rows and no public source prints them: shown as missing.
PAPER_TABLE5: dict[str, tuple[float | None, float | None, float | None]] = {
    "Transformer-XH (2020)": (66.2, 72.1, 52.9), "Graph Recurrent Retriever (2020)": (73.3, 76.1, 61.4),
    "RoBERTa-lf (2020)": (73.5, 83.4, 63.5), "BigBird (2020)": (75.5, 87.1, 67.8), "Longformer": (74.5, 83.9, 64.5),
    "Local CDLM": (74.1, 84.0, 64.2), "Rand CDLM": (72.7, 84.8, 63.7), "Prefix CDLM": (NR, NR, NR),
    "CDLM": (NR, NR, NR)}
METRICS = {"ans_f1": "f1", "sp_f1": "sp_f1", "joint_f1": "joint_f1"}  # recorded name -> official key
RECORDED = {key: metric for metric, key in METRICS.items()}  # official key -> recorded name
COLUMNS = {"f1": "answer F1", "sp_f1": "support F1", "joint_f1": "joint F1", "em": "answer EM",
           "sp_em": "support EM", "joint_em": "joint EM"}
F1S = tuple(METRICS.values())

#: The table row of a run: the references by their method, the encoders by their display names.
row_label = partial(run_label, labels={TFIDF: "TF-IDF + heuristic",
                                       REFERENCE: reference_label("most frequent answer, every sentence")})


def _percent(metrics: Mapping[str, float]) -> dict[str, float]:
    """The three official F1s (fractions) in % to one decimal, by column name."""
    return {COLUMNS[key]: round(100 * metrics[key], 1) for key in F1S}


def scores_table(runs: Mapping[str, QARun]) -> pd.DataFrame:
    """Official F1 and EM (%) per system."""
    return pd.DataFrame({row_label(name): {label: 100 * run.scores.metrics[key] for key, label in COLUMNS.items()}
                         for name, run in runs.items()}).T.round(1)


def paper_table(ours: Mapping[str, Mapping[str, QARun]]) -> pd.DataFrame:
    """Table 5 of the CDLM paper (HotpotQA dev, F1) above ours, one block per set of questions (label -> runs)."""
    rows = {f"{name} (paper)": dict(zip((COLUMNS[k] for k in F1S), values)) for name, values in PAPER_TABLE5.items()}
    rows |= {f"{row_label(name)} ({label})": _percent(run.scores.metrics)
             for label, runs in ours.items() for name, run in runs.items()}
    return pd.DataFrame(rows).T


def type_table(runs: Mapping[str, QARun], rows: Any) -> pd.DataFrame:
    """Answer / support / joint F1 (%) per system and question type, with the number of questions."""
    if not runs:
        return pd.DataFrame({"note": ["no questions to score"]})
    ids = {kind: [row["id"] for row in rows if row["type"] == kind] for kind in QUESTION_TYPES}
    return pd.DataFrame({(row_label(name), f"{kind} ({len(chosen)})"): _percent(mean_scores(run.scores, chosen))
                         for name, run in runs.items() for kind, chosen in ids.items() if chosen}).T


def cost_table(runs: Mapping[str, QARun]) -> pd.DataFrame:
    """Training seconds, answering seconds and what the length limit cut, per system."""
    return pd.DataFrame({row_label(name): {
        "train s": round(run.train_seconds, 1), "answer s": round(run.seconds, 2),
        "sentences cut": f"{run.encoding.cut_sentences}/{run.encoding.total_sentences}" if run.encoding else "-",
        "answers not in kept text": run.encoding.answers_not_found if run.encoding else "-"}
        for name, run in runs.items()}).T


def truncation_note(runs: Mapping[str, QARun]) -> str:
    """What the length limit cut from these questions (the same for every model of one tokenizer and length)."""
    if (encoded := next((run.encoding for run in runs.values() if run.encoding is not None), None)) is None:
        return ""
    return (f"length limit: {len(encoded.inputs)} questions, {encoded.cut_sentences} of {encoded.total_sentences} "
            f"sentences cut, {encoded.answers_not_found} span answers not in the kept text")


def qa_metrics(data: str, runs: Mapping[str, QARun]) -> dict[str, float]:
    """`hotpot/<data>/<metric>/<model>` for ans_f1, sp_f1 and joint_f1, in % (the reference row: `most_frequent`)."""
    return {f"hotpot/{data}/{metric}/{name}": round(100 * run.scores.metrics[key], 2)
            for name, run in runs.items() for metric, key in METRICS.items()}


def loss_figure(runs: Mapping[str, QARun]) -> "Figure":
    """Training loss per step (smoothed over a twentieth of the steps) for each fine-tuned model."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, run in runs.items():
        if run.losses:
            window = max(1, len(run.losses) // 20)
            ax.plot(np.convolve(run.losses, np.ones(window) / window, mode="valid"), label=row_label(name))
    ax.set(xlabel="step", ylabel="multi-task loss", title="Fine-tuning on the world's questions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _difference(runs: Mapping[str, QARun], first: str, second: str, key: str, spread: Mapping | None, data: str
                ) -> verdicts.Difference:
    """`first` minus `second` on the official F1 `key`, paired per question, with the seed band of both systems."""
    questions = runs[first].scores.per_question
    per = [[runs[name].scores.per_question[q][key] for q in questions] for name in (first, second)]
    band = verdicts.seed_band(spread, *(f"hotpot/{data}/{RECORDED[key]}/{name}" for name in (first, second)), 100)
    return verdicts.mean_difference(*per, band)


def readings(world: Mapping[str, QARun], real: Mapping[str, QARun], label: str, profile: str, data: str
             ) -> list[str]:
    """Per set of questions (test split `label`, real dev records): the systems not above the reference row on every
    official F1 (learned nothing), the best of the others per F1 and its lead over the second, and CDLM over
    Longformer on joint F1, under the noise rule (`verdicts`); without the reference row nothing is ranked."""
    spread, lines = verdicts.load_spread(profile), []
    below = " and ".join(f"{PAPER_TABLE5['Longformer'][2] - PAPER_TABLE5[name][2]:.1f}"
                         for name in ("Local CDLM", "Rand CDLM"))
    claim = f"CDLM over Longformer (paper: Local and Rand CDLM {below} joint F1 below Longformer, CDLM missing)"
    for set_label, runs, name_of_set in ((label, world, data), ("real dev records", real, "dev")):
        scores = {name: {COLUMNS[k]: run.scores.metrics[k] for k in F1S} for name, run in runs.items()
                  if name != REFERENCE}
        if not scores:
            continue
        if REFERENCE not in runs:
            lines.append(f"- {set_label}: no reference row, so no system is ranked or compared.")
            continue
        floors = {COLUMNS[k]: runs[REFERENCE].scores.metrics[k] for k in F1S}
        answers = {name: [d.answer for d in runs[name].predictions.values()] for name in scores}
        labels = {name: row_label(name) for name in scores}
        learned, nothing = verdicts.split_learned(scores, floors, labels, prefix=f"{set_label} ", predictions=answers,
                                                  class_names=None)
        lines += nothing
        difference = partial(_difference, runs, spread=spread, data=name_of_set)
        rankings = {key: verdicts.ranked({n: scores[n][COLUMNS[key]] for n in learned}, floors[COLUMNS[key]])
                    for key in F1S}  # every F1's ranking, best first (the same systems: above on every F1)
        if learned:
            best = ", ".join(f"{COLUMNS[k]} {labels[r[0]]} ({100 * scores[r[0]][COLUMNS[k]]:.1f})"
                             for k, r in rankings.items())
            lines.append(f"- {set_label}, best of the systems that learned something: {best}.")
        lines += [verdicts.claim_line(f"{set_label}: the lead of {labels[r[0]]} over {labels[r[1]]}",
                                      difference(r[0], r[1], k), COLUMNS[k]) for k, r in rankings.items() if len(r) > 1]
        if {"cdlm", "longformer"} <= set(runs):
            lines.append(verdicts.ordering_line(f"{set_label}: {claim}", ("cdlm", "longformer"), learned, labels,
                                                partial(difference, "cdlm", "longformer", "joint_f1"), "joint F1"))
    return lines


def run_line(run: QARun, config: MultihopConfig) -> str:
    """One encoder as notebook 06 fine-tunes it: test answer / support / joint F1 (%), time, recipe, epoch kept."""
    kept = f"epoch {run.kept_epoch} of {config.epochs} kept, best on dev" if run.kept_epoch else "last epoch"
    return (f"{row_label(run.name)}: test answer / support / joint F1 "
            f"{' / '.join(f'{100 * run.scores.metrics[k]:.1f}' for k in F1S)} "
            f"({run.train_seconds:.0f} s training at lr {config.learning_rate:g}, batch {config.batch_size}, {kept})")
