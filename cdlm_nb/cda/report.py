"""Notebook 10's tables, figure, recorded metrics and readings, beside the CDA paper's Tables 2, 4, 5, 10 and 11
(Zhou, Pappas & Smith, EMNLP 2020, arXiv:2010.01263)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .. import verdicts
from ..finetuning import decide
from ..verdicts import NR, reference_label
from .experiment import RANDOM, CDARun, model_spec

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ..profiles import CDAConfig

#: Table 2, test sets: (accuracy, F1) on AAN, OC, S2ORC, PAN.
PAPER_TABLE2 = {
    "bert_avg": ((53.54, 53.89), (84.72, 84.99), (77.78, 76.92), (79.62, 76.60)),
    "bert_han": ((67.32, 64.97), (85.96, 86.33), (90.67, 90.76), (87.57, 87.36)),
    "bert_han_shallow": ((71.57, 69.08), (87.81, 87.89), (91.92, 92.07), (86.23, 86.19)),
    "gru_han": ((68.01, 67.23), (84.46, 82.26), (82.36, 83.28), (75.70, 75.88)),
    "gru_han_shallow": ((74.51, 74.81), (88.71, 88.96), (88.91, 89.92), (77.04, 78.23)),
    "gru_han_deep": ((75.08, 75.18), (89.79, 89.92), (91.59, 91.61), (75.77, 76.71)),
}
#: Table 4 (S2ORC, joint with D2D): attention alignment (MRR, P@10, P@5, P@1), then cosine alignment.
PAPER_TABLE4 = {
    "random": ((0.3611, 46.03, 39.30, 28.83), (0.3611, 46.03, 39.30, 28.83)),
    "bert_avg": ((0.5596, 72.67, 64.24, 47.22), (0.5470, 74.18, 64.25, 45.07)),
    "bert_han": ((0.6068, 82.75, 70.67, 51.20), (0.5481, 63.71, 56.73, 48.46)),
    "bert_han_shallow": ((0.6240, 84.95, 73.14, 52.51), (0.6152, 81.21, 71.16, 52.27)),
    "gru_han": ((0.5430, 74.94, 63.38, 44.75), (0.4742, 52.59, 47.91, 41.68)),
    "gru_han_shallow": ((0.6225, 84.17, 73.11, 52.42), (0.5013, 54.19, 48.93, 45.31)),
    "gru_han_deep": ((0.6474, 86.37, 76.11, 54.90), (0.6252, 81.93, 72.04, 53.35)),
}
#: Table 5 (PAN, attention alignment, joint): MRR, P@10, P@5.
PAPER_TABLE5 = {"random": (0.4215, 44.23, 43.28), "bert_avg": (0.7864, 58.24, 64.69),
                "bert_han": (0.8072, 60.36, 68.94), "bert_han_shallow": (0.8386, 60.47, 69.07),
                "gru_han": (0.6205, 50.72, 51.90), "gru_han_shallow": (0.6479, 51.71, 53.05),
                "gru_han_deep": (0.6378, 52.07, 53.82)}
#: Table 10 (BERT-HAN SHALLOW fine-tuned, AAN): concatenation vs addition in eq. 2, (accuracy, F1).
PAPER_TABLE10 = {"concat": (82.03, 82.08), "add": (79.02, 79.08)}
#: Table 11: inference seconds per epoch (batch 256, GeForce 1080) on S2ORC and PAN.
PAPER_TABLE11 = {"gru_han": (0.256, 0.568), "gru_han_shallow": (0.256, 0.581), "gru_han_deep": (0.258, 0.637)}
LABELS = {"gru_han": "GRU-HAN", "gru_han_shallow": "GRU-HAN + SHALLOW", "gru_han_deep": "GRU-HAN + DEEP",
          "bert_han": "BERT-HAN", "bert_han_shallow": "BERT-HAN + SHALLOW",
          "bert_han_shallow_add": "BERT-HAN + SHALLOW (addition)", "bert_avg": "BERT-AVG", RANDOM: "Random"}


def label(name: str) -> str:
    return LABELS.get(name, name)


def d2d_table(runs: Mapping[str, CDARun], data: str, test_labels: Sequence[int]) -> "pd.DataFrame":
    """Ours (test accuracy and F1, %) beside the paper's Table 2 on its four benchmarks, with the reference rows
    (calling every test pair related, or none; the coin-flip Random row is one too)."""
    import pandas as pd

    rows = {}
    for name, run in runs.items():
        row = {(f"ours: {data}", "acc"): round(100 * run.d2d["acc"], 1),
               (f"ours: {data}", "F1"): round(100 * run.d2d["f1"], 1)}
        for bench, (acc, f1) in zip(("AAN", "OC", "S2ORC", "PAN"), PAPER_TABLE2.get(name, ((NR, NR),) * 4)):
            row[(f"paper: {bench}", "acc")], row[(f"paper: {bench}", "F1")] = acc, f1
        rows[label(name)] = row
    for name, ref in verdicts.pair_references(test_labels).items():
        rows[reference_label(name)] = {(f"ours: {data}", "acc"): round(100 * ref["acc"], 1),
                                       (f"ours: {data}", "F1"): round(100 * ref["f1"], 1)}
    return pd.DataFrame(rows).T


def s2d_table(runs: Mapping[str, CDARun], oracle: bool = False) -> "pd.DataFrame":
    """MRR and P@1/5/10 (%) by attention and cosine alignment, joint with D2D (or given the gold D2D), beside
    the paper's Table 4 (S2ORC, attention) MRR."""
    import pandas as pd

    rows = {}
    for name, run in runs.items():
        scored = (run.oracle["attention"], run.oracle["cosine"]) if oracle else (run.s2d_attention, run.s2d_cosine)
        row = {}
        for scorer, scores in zip(("attention", "cosine"), scored):
            row[(scorer, "MRR")] = round(scores.metrics["mrr"], 3)
            for n in (1, 5, 10):
                row[(scorer, f"P@{n}")] = round(100 * scores.metrics[f"p{n}"], 1)
        paper = PAPER_TABLE4.get(name)
        row[("paper S2ORC", "MRR att")] = paper[0][0] if paper else NR
        row[("paper S2ORC", "MRR cos")] = paper[1][0] if paper else NR
        row[("paper PAN", "MRR att")] = PAPER_TABLE5.get(name, (NR,))[0]
        rows[label(name)] = row
    return pd.DataFrame(rows).T


def combine_table(runs: Mapping[str, CDARun], test_labels: Sequence[int]) -> "pd.DataFrame":
    """Table 10: concatenation vs addition in eq. 2 (BERT-HAN + SHALLOW), ours beside the paper's, and our
    reference rows (calling every test pair related, or none)."""
    import pandas as pd

    rows = {}
    for name, combine in (("bert_han_shallow", "concat"), ("bert_han_shallow_add", "add")):
        if name in runs:
            rows[combine] = {"ours acc": round(100 * runs[name].d2d["acc"], 1),
                             "ours F1": round(100 * runs[name].d2d["f1"], 1),
                             "paper acc (AAN, fine-tuned)": PAPER_TABLE10[combine][0],
                             "paper F1": PAPER_TABLE10[combine][1]}
    for name, ref in verdicts.pair_references(test_labels).items():
        rows[reference_label(name)] = {"ours acc": round(100 * ref["acc"], 1), "ours F1": round(100 * ref["f1"], 1)}
    return pd.DataFrame(rows).T


def time_table(runs: Mapping[str, CDARun], pairs: int) -> "pd.DataFrame":
    """Table 11: inference seconds on the test pairs (and relative to the encoder without CDA), paper beside."""
    import pandas as pd

    rows = {}
    for name, run in runs.items():
        if name == RANDOM:
            continue
        base = runs.get(model_spec(name)[0])
        rows[label(name)] = {f"ours s ({pairs} pairs)": round(run.inference_seconds, 3),
                             "× no CDA": round(run.inference_seconds / base.inference_seconds, 2) if base else NR,
                             "paper S2ORC s/epoch": PAPER_TABLE11.get(name, (NR, NR))[0],
                             "paper PAN s/epoch": PAPER_TABLE11.get(name, (NR, NR))[1]}
    return pd.DataFrame(rows).T


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
    from ..recipe_search import search_metrics

    return search_metrics(f"cda/{data}", searched(runs))


def recipe_table(runs: Mapping[str, CDARun]) -> "pd.DataFrame":
    """Dev D2D F1 (%) of every point of the recipe search, per model and learning rate (* the chosen point)."""
    from ..recipe_search import space_table

    table = space_table(searched(runs), label)
    epochs = [c for c in table.columns if c.startswith("epoch ")]
    shown = [c for c in epochs if "*" in "".join(table[c]) or int(c.split()[1]) % 5 == 0 or c == "epoch 1"]
    return table[shown + [c for c in table.columns if c not in epochs]]


def stopping_rule(config: "CDAConfig") -> str:
    """How long one learning rate trains, in words: the epoch bound and the early-stopping rule."""
    return (f"each learning rate trains at most {config.epochs} epochs, and stops earlier once the dev loss has not "
            f"fallen by at least {config.min_improvement:g} for {config.patience} epoch(s) in a row")


def recipe_note(runs: Mapping[str, CDARun]) -> str:
    """The search space, each model's chosen recipe and dev F1, and what the search cost."""
    from ..recipe_search import search_note

    return search_note(searched(runs), label)


def alignment_figure(sentences: Sequence[str], scores: Sequence[float], gold: Sequence[int], title: str,
                     chars: int = 110) -> "Figure":
    """doc_a's sentences shaded by their alignment score (darker: higher), gold sentences marked with ★."""
    import matplotlib.pyplot as plt
    import numpy as np

    values = np.asarray(scores, dtype=float)
    shade = (values - values.min()) / (np.ptp(values) or 1.0)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(sentences) + 0.8))
    for i, (sentence, level) in enumerate(zip(sentences, shade)):
        text = ("★ " if i in set(gold) else "   ") + (sentence if len(sentence) <= chars else sentence[:chars] + "…")
        ax.text(0.01, len(sentences) - i - 0.5, text, va="center", fontsize=8,
                bbox={"facecolor": plt.cm.Blues(0.15 + 0.7 * level), "edgecolor": "none", "pad": 1.5})
    ax.set(xlim=(0, 1), ylim=(0, len(sentences)), title=title)
    ax.axis("off")
    fig.tight_layout()
    return fig


def best_aligner(runs: Mapping[str, CDARun]) -> str:
    """The trained model whose attention ranks doc_a's sentences best given the gold D2D (oracle MRR)."""
    return max((name for name in runs if name != RANDOM),
               key=lambda name: runs[name].oracle["attention"].metrics["mrr"])


def pair_alignment_figure(run: CDARun, rows, index: int) -> "Figure":
    """`alignment_figure` of test pair `index` under `run`'s attention scores (the sentences it read)."""
    scores = run.attention[index]
    row = rows[index]
    return alignment_figure(row["doc_a"][:len(scores)], scores, row["positive_sentences"],
                            f"{label(run.name)}, test pair {index}")


def learned_d2d(runs: Mapping[str, CDARun], test_labels: Sequence[int]) -> tuple[list[str], list[str]]:
    """(the trained models above the D2D reference rows on accuracy and F1, the readings naming the others): a
    model not above calling every pair related / none learned nothing here."""
    decisions = {name: decide(run.probabilities) for name, run in runs.items()
                 if name != RANDOM and run.probabilities is not None}
    return verdicts.split_learned({name: runs[name].d2d for name in decisions},
                                  verdicts.floors(verdicts.pair_references(test_labels)),
                                  {name: label(name) for name in decisions}, prefix="D2D ", predictions=decisions)


def readings(runs: Mapping[str, CDARun], test_labels: Sequence[int], profile: str, data: str) -> list[str]:
    """The paper's claims, checked on this run's numbers under the noise rule (`verdicts`): only models that
    learned D2D (`learned_d2d`) are compared, on the paper's metrics (D2D F1, S2D MRR)."""
    learned, lines = learned_d2d(runs, test_labels)
    spread = verdicts.load_spread(profile)

    def band(first: str, second: str, metric: str, scale: float = 1.0) -> float | None:
        return verdicts.seed_band(spread, f"cda/{data}/{metric}/{first}", f"cda/{data}/{metric}/{second}", scale)

    for encoder in ("gru_han", "bert_han"):
        for cda in ("shallow", "deep"):
            name = f"{encoder}_{cda}"
            if name in runs and encoder in runs:
                claim = f"CDA paper, Table 2: {label(name)} over {label(encoder)}"
                if nothing := [label(n) for n in (name, encoder) if n not in learned]:
                    lines.append(f"- {claim}: cannot be checked here ({verdicts.LEARNED_NOTHING}: "
                                 f"{' and '.join(nothing)}).")
                    continue
                diff = verdicts.decision_difference(test_labels, decide(runs[name].probabilities),
                                                    decide(runs[encoder].probabilities), "f1",
                                                    band(name, encoder, "d2d/f1", scale=100))
                lines.append(verdicts.claim_line(claim, diff, "D2D F1"))
    random_mrr = runs[RANDOM].oracle["attention"].metrics["mrr"] if RANDOM in runs else None
    if {"gru_han_deep", "gru_han_shallow"} <= set(runs):
        deep, shallow = (runs[n].oracle["attention"] for n in ("gru_han_deep", "gru_han_shallow"))
        diff = verdicts.mean_difference(deep.reciprocal_ranks, shallow.reciprocal_ranks,
                                        band("gru_han_deep", "gru_han_shallow", "s2d/mrr"))
        lines.append(verdicts.claim_line("CDA paper, Table 4: DEEP over SHALLOW for GRU on S2D (MRR given the gold "
                                         "D2D)", diff, "MRR", scale=1.0, digits=3))
    if random_mrr is not None:
        trained = [name for name in runs if name != RANDOM]
        above = [name for name in trained if runs[name].oracle["attention"].metrics["mrr"] > random_mrr]
        lines.append(f"- S2D (given the gold D2D): {len(above)} of {len(trained)} models rank doc_a's sentences "
                     f"better than random scores (MRR {random_mrr:.3f})" + (
                         f"; {', '.join(label(n) for n in trained if n not in above)}: {verdicts.LEARNED_NOTHING} "
                         "for alignment." if len(above) < len(trained) else "."))
    trained = [name for name in runs if name != RANDOM]
    beyond = [name for name in trained if verdicts.mean_difference(
        runs[name].oracle["attention"].reciprocal_ranks, runs[name].oracle["cosine"].reciprocal_ranks, None).low > 0]
    lines.append(f"- CDA paper, Table 4: attention over cosine alignment (MRR given the gold D2D): beyond its paired "
                 f"interval for {len(beyond)} of {len(trained)} models, but the cosine alignment has no measured seed "
                 f"spread -> {verdicts.UNRESOLVED}.")
    ratios = [f"{label(name)} {runs[name].inference_seconds / runs[encoder].inference_seconds:.2f}×"
              for encoder in ("gru_han", "bert_han") for name in (f"{encoder}_shallow", f"{encoder}_deep")
              if name in runs and encoder in runs]
    if ratios:
        lines.append(f"- CDA adds little time? Inference time against the same encoder without CDA: "
                     f"{', '.join(ratios)} (one run's timings: they move from run to run).")
    return lines


def run_line(run: CDARun) -> str:
    """One line per matcher as notebook 10 trains it: D2D accuracy and F1 (%), S2D MRR, time and the kept recipe."""
    kept = run.recipe.describe() if run.recipe is not None else f"best epoch {run.fit.best_epoch}"
    return (f"{run.name:<22} D2D acc {100 * run.d2d['acc']:5.1f}  F1 {100 * run.d2d['f1']:5.1f}  S2D MRR "
            f"{run.s2d_attention.metrics['mrr']:.3f}  ({run.fit.seconds:.0f} s, {kept})")
