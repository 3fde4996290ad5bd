"""Notebook 10's tables, figure, recorded metrics and readings, beside the CDA paper's Tables 2, 4, 5, 10 and 11
(Zhou, Pappas & Smith, EMNLP 2020, arXiv:2010.01263)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import timing, verdicts
from ..finetuning import decide
from ..profiles import CDAConfig
from ..recipe_search import search_metrics, search_note, space_table
from ..verdicts import NR, reference_label
from .experiment import RANDOM, CDARun, model_spec

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Table 2, test sets: (accuracy, F1) on AAN, OC, S2ORC, PAN.
PAPER_TABLE2 = {
    "bert_avg": ((53.54, 53.89), (84.72, 84.99), (77.78, 76.92), (79.62, 76.60)),
    "bert_han": ((67.32, 64.97), (85.96, 86.33), (90.67, 90.76), (87.57, 87.36)),
    "bert_han_shallow": ((71.57, 69.08), (87.81, 87.89), (91.92, 92.07), (86.23, 86.19)),
    "gru_han": ((68.01, 67.23), (84.46, 82.26), (82.36, 83.28), (75.70, 75.88)),
    "gru_han_shallow": ((74.51, 74.81), (88.71, 88.96), (88.91, 89.92), (77.04, 78.23)),
    "gru_han_deep": ((75.08, 75.18), (89.79, 89.92), (91.59, 91.61), (75.77, 76.71)),
}
#: Tables 4 (S2ORC) and 5 (PAN), joint with D2D: MRR of attention alignment on S2ORC, of cosine on S2ORC, of
#: attention on PAN (the MRR columns our S2D table shows beside ours).
PAPER_MRR = {"random": (0.3611, 0.3611, 0.4215), "bert_avg": (0.5596, 0.5470, 0.7864),
             "bert_han": (0.6068, 0.5481, 0.8072), "bert_han_shallow": (0.6240, 0.6152, 0.8386),
             "gru_han": (0.5430, 0.4742, 0.6205), "gru_han_shallow": (0.6225, 0.5013, 0.6479),
             "gru_han_deep": (0.6474, 0.6252, 0.6378)}
#: Table 10 (BERT-HAN SHALLOW fine-tuned, AAN): concatenation vs addition in eq. 2, (accuracy, F1).
PAPER_TABLE10 = {"concat": (82.03, 82.08), "add": (79.02, 79.08)}
#: Table 11: inference seconds per epoch (batch 256, GeForce 1080) on S2ORC and PAN.
PAPER_TABLE11 = {"gru_han": (0.256, 0.568), "gru_han_shallow": (0.256, 0.581), "gru_han_deep": (0.258, 0.637)}
LABELS = {"gru_han": "GRU-HAN", "gru_han_shallow": "GRU-HAN + SHALLOW", "gru_han_deep": "GRU-HAN + DEEP",
          "bert_han": "BERT-HAN", "bert_han_shallow": "BERT-HAN + SHALLOW",
          "bert_han_shallow_add": "BERT-HAN + SHALLOW (addition)", "bert_avg": "BERT-AVG", RANDOM: "Random"}


def label(name: str) -> str:
    return LABELS.get(name, name)


def _percent(scores: Mapping[str, float]) -> tuple[float, float]:
    return round(100 * scores["acc"], 1), round(100 * scores["f1"], 1)


def d2d_table(runs: Mapping[str, CDARun], data: str, test_labels: Sequence[int]) -> pd.DataFrame:
    """Ours (test accuracy and F1, %) beside the paper's Table 2 on its four benchmarks, with the reference rows
    (calling every test pair related, or none; the coin-flip Random row is one too)."""
    ours, rows = [(f"ours: {data}", "acc"), (f"ours: {data}", "F1")], {}
    for name, run in runs.items():
        paper = zip(("AAN", "OC", "S2ORC", "PAN"), PAPER_TABLE2.get(name, ((NR, NR),) * 4))
        rows[label(name)] = dict(zip(ours, _percent(run.d2d))) | {(f"paper: {bench}", metric): value
                                                                  for bench, scores in paper
                                                                  for metric, value in zip(("acc", "F1"), scores)}
    rows |= {reference_label(name): dict(zip(ours, _percent(ref)))
             for name, ref in verdicts.pair_references(test_labels).items()}
    return pd.DataFrame(rows).T


def s2d_table(runs: Mapping[str, CDARun], oracle: bool = False) -> pd.DataFrame:
    """MRR and P@1/5/10 (%) by attention and cosine alignment, joint with D2D (or given the gold D2D), beside
    the paper's Table 4 (S2ORC) and Table 5 (PAN) MRR."""
    paper, rows = (("paper S2ORC", "MRR att"), ("paper S2ORC", "MRR cos"), ("paper PAN", "MRR att")), {}
    for name, run in runs.items():
        scored = (run.oracle["attention"], run.oracle["cosine"]) if oracle else (run.s2d_attention, run.s2d_cosine)
        row = {}
        for scorer, scores in zip(("attention", "cosine"), scored):
            row[(scorer, "MRR")] = round(scores.metrics["mrr"], 3)
            row |= {(scorer, f"P@{n}"): round(100 * scores.metrics[f"p{n}"], 1) for n in (1, 5, 10)}
        rows[label(name)] = row | dict(zip(paper, PAPER_MRR.get(name, (NR,) * 3)))
    return pd.DataFrame(rows).T


def combine_table(runs: Mapping[str, CDARun], test_labels: Sequence[int]) -> pd.DataFrame:
    """Table 10: concatenation vs addition in eq. 2 (BERT-HAN + SHALLOW), ours beside the paper's, and our
    reference rows (calling every test pair related, or none)."""
    ours, paper = ("ours acc", "ours F1"), ("paper acc (AAN, fine-tuned)", "paper F1")
    rows = {combine: dict(zip(ours, _percent(runs[name].d2d))) | dict(zip(paper, PAPER_TABLE10[combine]))
            for name, combine in (("bert_han_shallow", "concat"), ("bert_han_shallow_add", "add")) if name in runs}
    rows |= {reference_label(name): dict(zip(ours, _percent(ref)))
             for name, ref in verdicts.pair_references(test_labels).items()}
    return pd.DataFrame(rows).T


def paper_cost(name: str) -> tuple[float, float] | None:
    """Table 11's cost of a CDA model: its seconds over its encoder's, on S2ORC and on PAN (None: not timed)."""
    if name not in PAPER_TABLE11 or (base := model_spec(name)[0]) == name:
        return None
    return tuple(round(ours / theirs, 2) for ours, theirs in zip(PAPER_TABLE11[name], PAPER_TABLE11[base]))


#: The largest cost the paper measured (GRU-HAN + DEEP on PAN): what "small" means there; a cost is read against it.
PAPER_LARGEST_COST = max(max(cost) for name in PAPER_TABLE11 if (cost := paper_cost(name)))


def costs(rounds: Mapping[str, Sequence[float]]) -> dict[str, tuple[float, float, float]]:
    """Each CDA model's inference seconds over its encoder's, paired by round: median, 95 % interval (timing.ratio)."""
    return {name: timing.ratio(seconds, rounds[base]) for name, seconds in rounds.items()
            if (base := model_spec(name)[0]) != name and base in rounds}


def time_table(rounds: Mapping[str, Sequence[float]], pairs: int) -> pd.DataFrame:
    """Table 11: inference seconds on the test pairs (the median over rounds), CDA's cost (the time relative to
    the encoder without CDA) with its interval, and the paper's seconds and cost beside."""
    rows, cost = {}, costs(rounds)
    for name, seconds in rounds.items():
        ratio, paper = cost.get(name), PAPER_TABLE11.get(name, (NR, NR))
        rows[label(name)] = {f"ours s ({pairs} pairs)": round(float(np.median(seconds)), 3),
                             "× no CDA": round(ratio[0], 2) if ratio else NR,
                             "95 % interval": f"{ratio[1]:.2f}-{ratio[2]:.2f}" if ratio else "",
                             "paper S2ORC s/epoch": paper[0], "paper PAN s/epoch": paper[1],
                             "paper × no CDA": "-".join(f"{x:.2f}" for x in paper_cost(name) or ())}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.attrs["caption"] = timing.caption(len(next(iter(rounds.values()))))
    return table


def cost_metrics(data: str, rounds: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """`cda/<data>/slowdown/<model>` (CDA's cost, a timing) with its interval's `.../ci_low` and `.../ci_high`."""
    return {f"cda/{data}/slowdown/{name}{suffix}": value for name, cost in costs(rounds).items()
            for suffix, value in zip(("", "/ci_low", "/ci_high"), cost)}


def cost_lines(rounds: Mapping[str, Sequence[float]]) -> list[str]:
    """CDA's cost, one reading for every model: its interval against the largest cost the paper measured."""
    if not (measured := costs(rounds)):
        return []
    each = "; ".join(f"{label(name)} {value:.2f}× ({low:.2f}-{high:.2f}), {timing.side(low, high, PAPER_LARGEST_COST)}"
                     " it" for name, (value, low, high) in measured.items())
    return [f"- CDA paper, Table 11 (CDA's cost is small): each model's inference time over its encoder's (95 % "
            f"interval over {len(next(iter(rounds.values())))} rounds) against the paper's largest, "
            f"{PAPER_LARGEST_COST:.2f}×: {each}."]


def cda_metrics(data: str, runs: Mapping[str, CDARun], test_labels: Sequence[int]) -> dict[str, float]:
    """`cda/<data>/d2d/<acc|f1>/<model>` and `cda/<data>/s2d/<mrr|p1|p5|p10>/<model>` (attention alignment), and
    the D2D reference rows' `cda/<data>/d2d/reference/<row>/<acc|f1>` (%)."""
    references = {name: {k: round(100 * v, 2) for k, v in row.items()}
                  for name, row in verdicts.pair_references(test_labels).items()}
    metrics = verdicts.reference_metrics(f"cda/{data}/d2d", references)
    for name, run in runs.items():
        metrics |= {f"cda/{data}/d2d/{key}/{name}": round(100 * value, 2) for key, value in run.d2d.items()}
        metrics |= {f"cda/{data}/s2d/{key}/{name}": round(run.s2d_attention.metrics[key], 4)
                    for key in ("mrr", "p1", "p5", "p10")}
    return metrics


def searched(runs: Mapping[str, CDARun]) -> dict:
    """The recipe search of every run that had one (`CDARun.recipe`)."""
    return {name: run.recipe for name, run in runs.items() if run.recipe is not None}


def recipe_metrics(data: str, runs: Mapping[str, CDARun]) -> dict[str, float]:
    """`cda/<data>/recipe/<model>/...`: each model's dev-chosen recipe and its dev score (`search_metrics`)."""
    return search_metrics(f"cda/{data}", searched(runs))


def recipe_table(runs: Mapping[str, CDARun]) -> pd.DataFrame:
    """Dev D2D F1 (%) of every point of the recipe search, per model and learning rate (* the chosen point)."""
    table = space_table(searched(runs), label)
    epochs = [c for c in table.columns if c.startswith("epoch ")]
    shown = [c for c in epochs if "*" in "".join(table[c]) or int(c.split()[1]) % 5 == 0 or c == "epoch 1"]
    return table[shown + [c for c in table.columns if c not in epochs]]


def stopping_rule(config: CDAConfig) -> str:
    """How long one learning rate trains, in words: the epoch bound and the early-stopping rule."""
    return (f"each learning rate trains at most {config.epochs} epochs, and stops earlier once the dev loss has not "
            f"fallen by at least {config.min_improvement:g} for {config.patience} epoch(s) in a row")


def recipe_note(runs: Mapping[str, CDARun]) -> str:
    """The search space, each model's chosen recipe and dev F1, and what the search cost."""
    return search_note(searched(runs), label)


def pair_alignment_figure(run: CDARun, rows, index: int, chars: int = 110) -> "Figure":
    """Test pair `index`'s doc_a sentences (those `run` read) shaded by attention (darker: higher), gold marked ★."""
    import matplotlib.pyplot as plt

    values, row = np.asarray(run.attention[index], dtype=float), rows[index]
    sentences, gold = row["doc_a"][:len(values)], set(row["positive_sentences"])
    shade = (values - values.min()) / (np.ptp(values) or 1.0)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(sentences) + 0.8))
    for i, (sentence, level) in enumerate(zip(sentences, shade)):
        text = ("★ " if i in gold else "   ") + (sentence if len(sentence) <= chars else sentence[:chars] + "…")
        ax.text(0.01, len(sentences) - i - 0.5, text, va="center", fontsize=8,
                bbox={"facecolor": plt.cm.Blues(0.15 + 0.7 * level), "edgecolor": "none", "pad": 1.5})
    ax.set(xlim=(0, 1), ylim=(0, len(sentences)), title=f"{label(run.name)}, test pair {index}")
    ax.axis("off")
    fig.tight_layout()
    return fig


def best_aligner(runs: Mapping[str, CDARun]) -> str:
    """The trained model whose attention ranks doc_a's sentences best given the gold D2D (oracle MRR)."""
    return max((name for name in runs if name != RANDOM),
               key=lambda name: runs[name].oracle["attention"].metrics["mrr"])


def readings(runs: Mapping[str, CDARun], test_labels: Sequence[int], profile: str, data: str,
             rounds: Mapping[str, Sequence[float]] | None = None) -> list[str]:
    """The paper's claims on this run's numbers under the noise rule (`verdicts`): D2D F1 compared only between
    models above the reference rows (calling every pair related / none), S2D MRR given the gold D2D, and CDA's
    cost from the timed `rounds` (`experiment.inference_rounds`)."""
    trained = [name for name in runs if name != RANDOM]
    decisions = {name: decide(runs[name].probabilities) for name in trained if runs[name].probabilities is not None}
    learned, lines = verdicts.split_learned(
        {name: runs[name].d2d for name in decisions}, verdicts.floors(verdicts.pair_references(test_labels)),
        {name: label(name) for name in decisions}, prefix="D2D ", predictions=decisions)
    spread = verdicts.load_spread(profile)

    def band(first: str, second: str, metric: str, scale: float = 1.0) -> float | None:
        return verdicts.seed_band(spread, f"cda/{data}/{metric}/{first}", f"cda/{data}/{metric}/{second}", scale)

    def d2d_f1(first: str, second: str) -> verdicts.Difference:
        return verdicts.decision_difference(test_labels, decisions[first], decisions[second], "f1",
                                            band(first, second, "d2d/f1", 100))

    for name in ("gru_han_shallow", "gru_han_deep", "bert_han_shallow", "bert_han_deep"):
        if {name, encoder := model_spec(name)[0]} <= set(runs):
            lines.append(verdicts.ordering_line(f"CDA paper, Table 2: {label(name)} over {label(encoder)}",
                                                (name, encoder), learned, {n: label(n) for n in runs},
                                                partial(d2d_f1, name, encoder), "D2D F1"))
    oracle = {name: run.oracle["attention"] for name, run in runs.items()}
    if {"gru_han_deep", "gru_han_shallow"} <= set(runs):
        diff = verdicts.mean_difference(oracle["gru_han_deep"].reciprocal_ranks,
                                        oracle["gru_han_shallow"].reciprocal_ranks,
                                        band("gru_han_deep", "gru_han_shallow", "s2d/mrr"))
        lines.append(verdicts.claim_line("CDA paper, Table 4: DEEP over SHALLOW for GRU on S2D (MRR given the gold "
                                         "D2D)", diff, "MRR", scale=1.0, digits=3))
    if RANDOM in runs:
        below = [label(name) for name in trained if verdicts.mean_difference(
            oracle[name].reciprocal_ranks, oracle[RANDOM].reciprocal_ranks, None).low <= 0]
        lines.append(f"- S2D (MRR given the gold D2D) above random scores' {oracle[RANDOM].metrics['mrr']:.3f} (the "
                     f"paired 95 % interval of the difference above 0): {len(trained) - len(below)} of "
                     f"{len(trained)} models" + (f"; {verdicts.LEARNED_NOTHING} for alignment: {', '.join(below)}."
                                                 if below else "."))
    beyond = [name for name in trained if verdicts.mean_difference(
        oracle[name].reciprocal_ranks, runs[name].oracle["cosine"].reciprocal_ranks, None).low > 0]
    lines.append(f"- CDA paper, Table 4: attention over cosine alignment (MRR given the gold D2D): beyond its paired "
                 f"interval for {len(beyond)} of {len(trained)} models, but the cosine alignment has no measured seed "
                 f"spread -> {verdicts.UNRESOLVED}.")
    return lines + cost_lines(rounds or {})


def run_line(run: CDARun) -> str:
    """One line per matcher as notebook 10 trains it: D2D accuracy and F1 (%), S2D MRR, time and the kept recipe."""
    kept = run.recipe.describe() if run.recipe is not None else f"best epoch {run.fit.best_epoch}"
    return (f"{run.name:<22} D2D acc {100 * run.d2d['acc']:5.1f}  F1 {100 * run.d2d['f1']:5.1f}  S2D MRR "
            f"{run.s2d_attention.metrics['mrr']:.3f}  ({run.fit.seconds:.0f} s, {kept})")
