"""Notebook 05's tables, figure, recorded metrics and readings: the pairs per split, our results beside the CDLM
papers' Table 4 (and v1's accuracy), the cost, F1 by model and pair kind."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import verdicts
from ..data.pairs import pair_stats
from ..recipe_search import search_metrics, search_note, space_table
from ..variants import display_name, run_label
from ..verdicts import NR, reference_label
from .experiment import TFIDF, MatchingRun

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PAPER_COLUMNS = ("AAN", "OC", "S2ORC", "PAN")
#: Test F1 on the four sets (CDLM paper, Findings of EMNLP 2021, Table 4), then test accuracy on them (the CDLM
#: preprint (v1), Tables 4 (AAN) and 5; NR where v1 has no row). Our extracted copy of Table 4 merges the BERT-HAN
#: and GRU-HAN+CDA rows into one line that cannot be split reliably, so they are left out here.
PAPER_TABLE4: dict[str, tuple[float | None, ...]] = {
    "SMASH (Jiang et al., 2019)": (80.8, NR, NR, NR, 80.7, NR, NR, NR),
    "SMITH (Yang et al., 2020)": (85.4, NR, NR, NR, 85.4, NR, NR, NR),
    "BERT-HAN+CDA (Zhou et al., 2020)": (82.1, 87.8, 92.1, 86.2, 82.0, 86.7, 85.1, 56.8),
    "Longformer": (85.4, 93.4, 95.8, 80.4, 85.5, 93.2, 95.7, 81.2),
    "Local CDLM": (83.8, 92.1, 94.5, 80.9, NR, NR, NR, NR),
    "Rand CDLM": (85.7, 93.5, 94.6, 79.4, 85.7, 93.4, 94.6, 81.3),
    "Prefix CDLM": (87.3, 94.8, 94.7, 81.7, NR, NR, NR, NR),
    "CDLM": (88.8, 95.3, 96.5, 82.9, 88.9, 95.4, 96.5, 83.9),
}
DATA_LABELS = {"world": "embedded world", "ecbplus": "ECB+", "multinews": "Multi-News", "pan_like": "PAN-like",
               "cda": "CDA files"}


#: The table row of a run: the lexical floor by its method, the encoders by their display names.
row_label = partial(run_label, labels={TFIDF: "TF-IDF cosine"})


def split_table(splits: Mapping[str, Any]) -> pd.DataFrame:
    """Pairs per split: positives, hard and easy negatives, document length in words."""
    return pd.DataFrame({name: pair_stats(list(rows)) for name, rows in splits.items()}).T.round(1)


def _percent_rows(runs: Mapping[str, MatchingRun], labels) -> dict[str, dict[str, float]]:
    """Test accuracy and F1 (%) per run, then per reference row (`verdicts.pair_references`)."""
    rows = {row_label(name): (run.test["accuracy"], run.test["f1"]) for name, run in runs.items()}
    rows |= {reference_label(name): (ref["acc"], ref["f1"])
             for name, ref in verdicts.pair_references(list(labels)).items()}
    return {label: {"accuracy": round(100 * acc, 1), "F1": round(100 * f1, 1)} for label, (acc, f1) in rows.items()}


def results_table(runs: Mapping[str, MatchingRun], labels) -> pd.DataFrame:
    """Test accuracy and F1 (%), the share right per pair kind and the cost per system, then the reference rows."""
    rows = _percent_rows(runs, labels)
    for name, run in runs.items():
        shares = {"dev F1": run.dev["f1"]} | {f"right on {key[4:]}": value for key, value in run.test.items()
                                             if key.startswith("acc/")}
        rows[row_label(name)] |= {key: round(100 * value, 1) for key, value in shares.items()} | {
            "train s": round(run.train_seconds, 1), "pairs/s": round(run.pairs_per_second, 1)}
    return pd.DataFrame(rows).T


def paper_table(runs: Mapping[str, MatchingRun], data: str, profile: str, labels,
                missing: Mapping[str, str] | None = None) -> pd.DataFrame:
    """`PAPER_TABLE4` beside our test F1 and accuracy and reference rows; a model of `missing` (display name -> how
    to get it) says how in a last column."""
    table = pd.DataFrame.from_dict(PAPER_TABLE4, orient="index", columns=[
        *(f"{column} F1" for column in PAPER_COLUMNS), *(f"{column} acc (v1)" for column in PAPER_COLUMNS)])
    ours = f"ours: {DATA_LABELS.get(data, data)}, {profile}"
    table.loc[row_label(TFIDF)] = NR
    for label, row in _percent_rows(runs, labels).items():
        table.loc[label, [f"{ours} F1", f"{ours} acc"]] = [row["F1"], row["accuracy"]]
    if missing:
        table["not run"] = [missing.get(label, "") for label in table.index]
    return table


def cost_table(runs: Mapping[str, MatchingRun]) -> pd.DataFrame:
    """Per fine-tuned model: training time, test pairs/s, and what the length cap cut from the test pairs."""
    return pd.DataFrame({row_label(name): {
        "train s": round(run.train_seconds, 1), "test pairs/s": round(run.pairs_per_second, 1),
        "pairs": run.encoding.pairs, "documents cut": run.encoding.truncated_documents,
        "tokens cut": run.encoding.tokens_cut, "longest pair (tokens)": run.encoding.longest_pair}
        for name, run in runs.items() if run.encoding is not None}).T


def searched(runs: Mapping[str, MatchingRun]) -> dict:
    """The recipe search of every run that had one."""
    return {name: run.recipe for name, run in runs.items() if run.recipe is not None}


def matching_metrics(data: str, runs: Mapping[str, MatchingRun], labels) -> dict[str, float]:
    """`matching/<data>/<f1|acc>/<model>` (fractions), `matching/<data>/reference/<row>/<f1|acc>` and, for a run
    whose recipe was searched on dev, `matching/<data>/recipe/<model>/...`."""
    metrics = verdicts.reference_metrics(f"matching/{data}", verdicts.pair_references(list(labels)))
    for name, run in runs.items():
        metrics |= {f"matching/{data}/f1/{name}": run.test["f1"], f"matching/{data}/acc/{name}": run.test["accuracy"]}
    return metrics | search_metrics(f"matching/{data}", searched(runs))


def recipe_table(runs: Mapping[str, MatchingRun]) -> pd.DataFrame:
    """Dev macro-F1 (%) of every point of each recipe search."""
    return space_table(searched(runs), row_label)


def recipe_note(runs: Mapping[str, MatchingRun]) -> str:
    """The search space, each system's chosen recipe and dev F1, and the search's cost."""
    return search_note(searched(runs), row_label)


def kind_figure(runs: Mapping[str, MatchingRun]) -> "Figure":
    """Share of test pairs right per pair kind and system (grouped bars), with F1 as a marker."""
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(runs)
    kinds = sorted({key[4:] for run in runs.values() for key in run.test if key.startswith("acc/")})
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(names), 3.6))
    width, x = 0.8 / max(len(kinds), 1), np.arange(len(names))
    for i, kind in enumerate(kinds):
        ax.bar(x + (i - (len(kinds) - 1) / 2) * width, [100 * runs[n].test.get(f"acc/{kind}", np.nan) for n in names],
               width, label=f"right on {kind.replace('_', ' ')}")
    ax.plot(x, [100 * runs[n].test["f1"] for n in names], "k_", markersize=28, markeredgewidth=2, label="F1")
    ax.set_xticks(x, [row_label(n) for n in names], rotation=20)
    ax.set(ylabel="% of test pairs", ylim=(0, 105))
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def readings(runs: Mapping[str, MatchingRun], labels, profile: str, data: str) -> list[str]:
    """The systems that learned nothing (not above the reference rows), the best of the others on test F1, and
    CDLM against each other system on F1 (the paper's Table 4 metric) under the noise rule (`verdicts`)."""
    if not runs:
        return ["no system ran"]
    labels = list(labels)
    decisions = {name: (run.test_scores >= run.threshold).astype(int) for name, run in runs.items()}
    floors = verdicts.floors(verdicts.pair_references(labels))
    learned, lines = verdicts.split_learned({name: run.test for name, run in runs.items()},
                                            {"f1": floors["f1"], "accuracy": floors["acc"]},
                                            {name: row_label(name) for name in runs}, predictions=decisions)
    ranking = verdicts.ranked({name: runs[name].test["f1"] for name in learned}, floors["f1"])
    lines.append(f"- Best test F1 among the systems that learned something: {row_label(ranking[0])} "
                 f"({100 * runs[ranking[0]].test['f1']:.1f})." if ranking else
                 "- No system is above the reference rows: this run ranks none of them.")
    spread = verdicts.load_spread(profile)
    for other in [n for n in runs if n != "cdlm"] if "cdlm" in runs else []:
        band = verdicts.seed_band(spread, f"matching/{data}/f1/cdlm", f"matching/{data}/f1/{other}")
        lines.append(verdicts.ordering_line(
            f"CDLM over {row_label(other)} (CDLM paper, Table 4)", ("cdlm", other), learned,
            {name: row_label(name) for name in runs},
            partial(verdicts.decision_difference, labels, decisions["cdlm"], decisions[other], "f1", band)))
    return lines


def run_line(run: MatchingRun) -> str:
    """An encoder's test accuracy and F1 (%) and its training time."""
    return (f"{display_name(run.model):<12} test accuracy {100 * run.test['accuracy']:5.1f}  F1 "
            f"{100 * run.test['f1']:5.1f}  ({run.train_seconds:.0f} s training)")
