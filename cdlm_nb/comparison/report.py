"""Notebook 11's table, figures, recorded metrics and readings: every system on the same test pairs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .analysis import bootstrap_interval, length_buckets, only_right, paired_difference, scores
from .systems import System

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

#: Orderings the papers claim, as (better, worse, whose claim).
CLAIMS = (("cdlm", "longformer", "CDLM paper, Table 4: CDLM over Longformer"),
          ("match_ignition", "minilm_cross", "Match-Ignition, Table 3: both filters over the truncated BERT"),
          ("cda_minilm_shallow", "aose", "CDA paper, Table 2: cross-document attention helps (here MiniLM-HAN + "
                                         "SHALLOW against AoSE, on the same frozen sentence vectors)"))


def _scores(system: System, rows) -> dict[str, float]:
    return scores(rows["label"], system.decisions, rows["kind"])


def results_table(systems: Mapping[str, System], rows, resamples: int) -> "pd.DataFrame":
    """Accuracy and F1 (%, with 95 % bootstrap intervals), F1 on hard negatives, and the costs."""
    import pandas as pd

    table = {}
    for system in systems.values():
        measured = _scores(system, rows)
        row = {}
        for metric in ("acc", "f1"):
            low, high = bootstrap_interval(rows["label"], system.decisions, metric, resamples)
            row[metric] = f"{100 * measured[metric]:.1f} [{100 * low:.0f}-{100 * high:.0f}]"
        row |= {"F1 hard neg.": round(100 * measured["f1_hard"], 1), "train s": round(system.train_seconds, 1),
                "pairs/s": round(system.pairs_per_second, 1), "peak MB": round(system.peak_mb),
                "params trained / total (M)": f"{system.trained_parameters / 1e6:.2f} / "
                                              f"{system.total_parameters / 1e6:.2f}",
                "reads": system.longest_input}
        table[system.label] = row
    return pd.DataFrame(table).T


def compare_metrics(data: str, systems: Mapping[str, System], rows) -> dict[str, float]:
    """`compare/<data>/<metric>/<system>` for acc, f1, f1_hard (%), pairs_per_s and train_s."""
    metrics = {}
    for name, system in systems.items():
        measured = _scores(system, rows)
        values = {**{k: 100 * v for k, v in measured.items()}, "pairs_per_s": system.pairs_per_second,
                  "train_s": system.train_seconds}
        metrics |= {f"compare/{data}/{key}/{name}": round(float(value), 3) for key, value in values.items()}
    return metrics


def pareto_front(systems: Mapping[str, System], rows) -> list[str]:
    """The systems no other system beats on both accuracy and inference speed, fastest first."""
    points = {name: (s.pairs_per_second, _scores(s, rows)["acc"]) for name, s in systems.items()}
    front = [name for name, (speed, acc) in points.items()
             if not any(o_speed >= speed and o_acc >= acc and (o_speed, o_acc) != (speed, acc)
                        for o_speed, o_acc in points.values())]
    return sorted(front, key=lambda name: -points[name][0])


def pareto_figure(systems: Mapping[str, System], rows) -> "Figure":
    """Accuracy against inference cost (seconds per pair, log scale), the Pareto front joined."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    cost = {name: 1 / s.pairs_per_second for name, s in systems.items()}
    accuracy = {name: 100 * _scores(s, rows)["acc"] for name, s in systems.items()}
    for name, system in systems.items():
        ax.scatter(cost[name], accuracy[name], s=40)
        ax.annotate(system.label, (cost[name], accuracy[name]), fontsize=7, xytext=(4, 3), textcoords="offset points")
    front = pareto_front(systems, rows)
    ax.plot([cost[n] for n in front], [accuracy[n] for n in front], "k--", lw=0.8, label="Pareto front")
    ax.set(xscale="log", xlabel="inference seconds per pair (log)", ylabel="test accuracy (%)",
           title="Accuracy against inference cost")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def length_table(systems: Mapping[str, System], rows, buckets: int) -> "pd.DataFrame":
    """F1 (%) per system and pair-length bucket (test pairs by total words; the count in each header)."""
    import pandas as pd

    index, names = length_buckets(rows, buckets)
    labels = np.asarray(rows["label"])
    table = {}
    for system in systems.values():
        table[system.label] = {f"{name} ({int((index == b).sum())})": round(100 * scores(
            labels[index == b], system.decisions[index == b], np.asarray(rows["kind"])[index == b])["f1"], 1)
            for b, name in enumerate(names)}
    return pd.DataFrame(table).T


def length_figure(table: "pd.DataFrame") -> "Figure":
    """`length_table` as lines: does a system keep its F1 when the documents pass its window?"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, row in table.iterrows():
        ax.plot(range(len(row)), row.values, marker="o", label=name)
    ax.set_xticks(range(len(table.columns)), table.columns, fontsize=8)
    ax.set(ylabel="F1 (%)", title="F1 by pair length")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def only_right_examples(systems: Mapping[str, System], rows, shown: int = 3, chars: int = 220) -> "pd.DataFrame":
    """How many pairs each system alone gets right, and a few of them to read."""
    import pandas as pd

    alone = only_right(systems, rows["label"])
    examples = []
    for index, name in list(alone.items())[:shown]:
        row = rows[index]
        examples.append({"only right": systems[name].label, "kind": row["kind"] or str(row["label"]),
                         "doc_a": " ".join(row["doc_a"])[:chars] + "…", "doc_b": " ".join(row["doc_b"])[:chars] + "…"})
    counts = {systems[name].label: sum(1 for v in alone.values() if v == name) for name in systems}
    print("pairs only one system gets right:", {k: v for k, v in counts.items() if v} or "none")
    return pd.DataFrame(examples or [{"only right": "no pair is right for exactly one system"}])


def readings(systems: Mapping[str, System], rows, resamples: int, buckets: int) -> list[str]:
    """Which system wins, at which cost, which keeps its F1 on long pairs, and the papers' orderings here."""
    accuracy = {name: _scores(s, rows)["acc"] for name, s in systems.items()}
    ranked = sorted(accuracy, key=accuracy.get, reverse=True)
    lines = [f"- Most accurate: {systems[ranked[0]].label} ({100 * accuracy[ranked[0]]:.1f} %)."]
    if len(ranked) > 1:
        diff, low, high = paired_difference(rows["label"], systems[ranked[0]].decisions,
                                            systems[ranked[1]].decisions, resamples)
        verdict = "beyond" if low > 0 else "within"
        lines.append(f"- Its lead over {systems[ranked[1]].label}: {100 * diff:+.1f} points (95 % paired bootstrap "
                     f"{100 * low:+.1f} to {100 * high:+.1f}: {verdict} the noise of {len(rows)} test pairs).")
    front = pareto_front(systems, rows)
    lines.append("- Pareto front (fastest first): " + ", ".join(
        f"{systems[n].label} ({100 * accuracy[n]:.1f} %, {systems[n].pairs_per_second:.0f} pairs/s)" for n in front))
    table = length_table(systems, rows, buckets)
    if table.shape[1] > 1:
        change = (table.iloc[:, -1] - table.iloc[:, 0]).dropna().sort_values()
        lines.append(f"- Longest vs shortest pairs (F1): best kept by {change.index[-1]} ({change.iloc[-1]:+.1f})"
                     + (f", most lost by {change.index[0]} ({change.iloc[0]:+.1f})." if change.iloc[0] < 0
                        else "; no system loses F1 on the longest pairs."))
    for better, worse, claim in CLAIMS:
        if better in systems and worse in systems:
            holds = accuracy[better] > accuracy[worse]
            lines.append(f"- {claim}: {100 * accuracy[better]:.1f} vs {100 * accuracy[worse]:.1f} % accuracy "
                         f"({'holds' if holds else 'does not hold'} here).")
    return lines

