"""Notebook 05's tables, figure, recorded metrics and readings: the pairs per split, our results beside the CDLM
papers' Table 4 (and the first version's Tables 4-5 with accuracy), the cost, F1 by model and pair kind."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from ..label_prior import PAIR_CLASSES, not_comparable, prior_note, stuck
from ..report_rows import NR, run_label
from .experiment import TFIDF, MatchingRun

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

PAPER_COLUMNS = ("AAN", "OC", "S2ORC", "PAN")
#: F1 on the test sets: CDLM paper (Findings of EMNLP 2021), Table 4. Our extracted copy merges the BERT-HAN and
#: GRU-HAN+CDA rows into one line that cannot be split reliably, so they are left out here.
PAPER_F1: dict[str, tuple[float | None, ...]] = {
    "SMASH (Jiang et al., 2019)": (80.8, NR, NR, NR),
    "SMITH (Yang et al., 2020)": (85.4, NR, NR, NR),
    "BERT-HAN+CDA (Zhou et al., 2020)": (82.1, 87.8, 92.1, 86.2),
    "Longformer": (85.4, 93.4, 95.8, 80.4),
    "Local CDLM": (83.8, 92.1, 94.5, 80.9),
    "Rand CDLM": (85.7, 93.5, 94.6, 79.4),
    "Prefix CDLM": (87.3, 94.8, 94.7, 81.7),
    "CDLM": (88.8, 95.3, 96.5, 82.9),
}
#: Accuracy on the test sets: the CDLM preprint (v1), Tables 4 (AAN) and 5 (OC, S2ORC, PAN).
PAPER_V1_ACCURACY: dict[str, tuple[float | None, ...]] = {
    "SMASH (Jiang et al., 2019)": (80.7, NR, NR, NR),
    "SMITH (Yang et al., 2020)": (85.4, NR, NR, NR),
    "BERT-HAN+CDA (Zhou et al., 2020)": (82.0, 86.7, 85.1, 56.8),
    "Longformer": (85.5, 93.2, 95.7, 81.2),
    "Rand CDLM": (85.7, 93.4, 94.6, 81.3),
    "CDLM": (88.9, 95.4, 96.5, 83.9),
}
DATA_LABELS = {"world": "embedded world", "ecbplus": "ECB+", "multinews": "Multi-News", "pan_like": "PAN-like",
               "cda": "CDA files"}


#: The table row of a run: the lexical floor by its method, the encoders by their display names.
row_label = partial(run_label, labels={TFIDF: "TF-IDF cosine"})


def split_table(splits: Mapping[str, Any]) -> "pd.DataFrame":
    """Pairs per split: positives, hard and easy negatives, document length in words."""
    import pandas as pd

    from ..data.pairs import pair_stats

    return pd.DataFrame({name: pair_stats(list(rows)) for name, rows in splits.items()}).T.round(1)


def results_table(runs: Mapping[str, MatchingRun]) -> "pd.DataFrame":
    """Test accuracy and F1 (%), the share right per pair kind, and the cost, one row per system."""
    import pandas as pd

    rows = {}
    for name, run in runs.items():
        row = {"accuracy": run.test["accuracy"], "F1": run.test["f1"], "dev F1": run.dev["f1"]}
        row |= {f"right on {key[4:]}": value for key, value in run.test.items() if key.startswith("acc/")}
        rows[row_label(name)] = {k: round(100 * v, 1) for k, v in row.items()} | {
            "train s": round(run.train_seconds, 1), "pairs/s": round(run.pairs_per_second, 1)}
    return pd.DataFrame(rows).T


def paper_table(runs: Mapping[str, MatchingRun], data: str, profile: str,
                missing: Mapping[str, str] | None = None) -> "pd.DataFrame":
    """The CDLM paper's Table 4 (F1) and the preprint's accuracy beside our test F1 and accuracy; a model of
    `missing` (display name -> how to get it, `PretrainedShelf.missing_notes`) says how in a last column."""
    import pandas as pd

    table = pd.DataFrame({f"{column} F1": [PAPER_F1[row][i] for row in PAPER_F1] for i, column in
                          enumerate(PAPER_COLUMNS)}, index=list(PAPER_F1))
    for i, column in enumerate(PAPER_COLUMNS):
        table[f"{column} acc (v1)"] = [PAPER_V1_ACCURACY.get(row, (NR,) * 4)[i] for row in PAPER_F1]
    ours = f"ours: {DATA_LABELS.get(data, data)}, {profile}"
    table.loc[row_label(TFIDF)] = NR
    for name, run in runs.items():
        label = row_label(name)
        if label not in table.index:
            table.loc[label] = NR
        table.loc[label, f"{ours} F1"] = round(100 * run.test["f1"], 1)
        table.loc[label, f"{ours} acc"] = round(100 * run.test["accuracy"], 1)
    if missing:
        table["not run"] = [missing.get(label, "") for label in table.index]
    return table


def cost_table(runs: Mapping[str, MatchingRun]) -> "pd.DataFrame":
    """Per fine-tuned model: training time, test pairs/s, and what the length cap cut from the test pairs."""
    import pandas as pd

    rows = {}
    for name, run in runs.items():
        if run.encoding is None:
            continue
        rows[row_label(name)] = {"train s": round(run.train_seconds, 1), "test pairs/s": round(run.pairs_per_second, 1),
                                 "pairs": run.encoding.pairs, "documents cut": run.encoding.truncated_documents,
                                 "tokens cut": run.encoding.tokens_cut,
                                 "longest pair (tokens)": run.encoding.longest_pair}
    return pd.DataFrame(rows).T


def matching_metrics(data: str, runs: Mapping[str, MatchingRun]) -> dict[str, float]:
    """`matching/<data>/f1/<model>` and `matching/<data>/acc/<model>` (fractions), for every run; for a run whose
    recipe was searched on dev, `matching/<data>/recipe/<model>/...` (`recipe_search.search_metrics`)."""
    from ..recipe_search import search_metrics

    metrics = {}
    for name, run in runs.items():
        metrics[f"matching/{data}/f1/{name}"] = run.test["f1"]
        metrics[f"matching/{data}/acc/{name}"] = run.test["accuracy"]
    return metrics | search_metrics(f"matching/{data}", searched(runs))


def searched(runs: Mapping[str, MatchingRun]) -> dict:
    """The recipe search of every run that had one (`MatchingRun.recipe`)."""
    return {name: run.recipe for name, run in runs.items() if run.recipe is not None}


def recipe_table(runs: Mapping[str, MatchingRun]) -> "pd.DataFrame":
    """Dev F1 (%) of every point of the recipe search, per system and learning rate (columns: epochs; * the
    chosen point), with the chosen recipe and the search's seconds."""
    from ..recipe_search import space_table

    return space_table(searched(runs), row_label)


def recipe_note(runs: Mapping[str, MatchingRun]) -> str:
    """The search space, each system's chosen recipe and dev F1, and what the search cost."""
    from ..recipe_search import search_note

    return search_note(searched(runs), row_label)


def kind_figure(runs: Mapping[str, MatchingRun]) -> "Figure":
    """Share of test pairs right per pair kind and system (grouped bars), with F1 as a marker."""
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(runs)
    kinds = sorted({key[4:] for run in runs.values() for key in run.test if key.startswith("acc/")})
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(names), 3.6))
    width = 0.8 / max(len(kinds), 1)
    x = np.arange(len(names))
    for i, kind in enumerate(kinds):
        ax.bar(x + (i - (len(kinds) - 1) / 2) * width, [100 * runs[n].test.get(f"acc/{kind}", np.nan) for n in names],
               width, label=f"right on {kind.replace('_', ' ')}")
    ax.plot(x, [100 * runs[n].test["f1"] for n in names], "k_", markersize=28, markeredgewidth=2, label="F1")
    ax.set_xticks(x, [row_label(n) for n in names], rotation=20)
    ax.set_ylabel("% of test pairs")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def readings(runs: Mapping[str, MatchingRun]) -> list[str]:
    """Sentences read off the numbers: the best system, CDLM against each ablation and the lexical floor, and
    the hardest pair kind."""
    if not runs:
        return ["no system ran"]
    decisions = {name: run.test_scores >= run.threshold for name, run in runs.items()}
    at_prior, labels = stuck(decisions), {name: row_label(name) for name in runs}
    lines = [prior_note(labels[name], decisions[name], PAIR_CLASSES) for name in at_prior]
    f1 = {name: run.test["f1"] for name, run in runs.items() if name not in at_prior}
    if not f1:
        return lines + ["- Every system stayed at the label prior: this run compares none of them."]
    best = max(f1, key=f1.get)
    lines.append(f"- Best test F1: {row_label(best)} ({100 * f1[best]:.1f}).")
    if "cdlm" in runs:
        for other in [n for n in runs if n != "cdlm"]:
            if note := not_comparable("cdlm", other, labels, at_prior):
                lines.append(note)
                continue
            diff = 100 * (f1["cdlm"] - f1[other])
            lines.append(f"- CDLM {'above' if diff > 0 else 'below' if diff < 0 else 'level with'} "
                         f"{row_label(other)} by {abs(diff):.1f} F1 points.")
    n_test = len(next(iter(runs.values())).test_scores)
    lines.append(f"- With {n_test} test pairs, one pair is {100 / max(n_test, 1):.1f} accuracy points: differences "
                 "of a few points between models are within noise.")
    for name, run in runs.items():
        kinds = {k[4:]: v for k, v in run.test.items() if k.startswith("acc/")}
        if kinds:
            worst = min(kinds, key=kinds.get)
            lines.append(f"- {row_label(name)}: hardest pairs are {worst.replace('_', ' ')} "
                         f"({100 * kinds[worst]:.0f} % right).")
    return lines
