"""Notebook 11's tables, figures, recorded metrics and readings: every system on the same test pairs with bootstrap
intervals, F1 on hard negatives, F1 by pair length, the pairs only one system gets right, and the papers' orderings
under the noise rule (`verdicts.decision_difference`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import verdicts
from ..matching.metrics import pair_scores
from ..recipe_search import search_metrics, search_note, space_table
from ..verdicts import decision_interval, reference_label
from .systems import System, system_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Orderings the papers claim, as (better, worse, whose claim).
CLAIMS = (("cdlm", "longformer", "CDLM paper, Table 4: CDLM over Longformer"),
          ("match_ignition", "minilm_cross", "Match-Ignition, Table 3: both filters over the truncated BERT"),
          ("cda_minilm_shallow", "aose", "CDA paper, Table 2: cross-document attention helps (here MiniLM-HAN + "
                                         "SHALLOW against AoSE, on the same frozen sentence vectors)"))


def scores(labels: Sequence[int], decisions: Sequence[int], kinds: Sequence[str]) -> dict[str, float]:
    """Accuracy, F1 (related class) and `f1_hard`, the F1 on positives and hard negatives only (can it tell the same
    event from its sibling?)."""
    labels, decisions, kinds = np.asarray(labels), np.asarray(decisions), np.asarray(kinds)
    hard = np.isin(kinds, ("positive", "hard_negative"))
    overall = pair_scores(labels, decisions)
    f1_hard = pair_scores(labels[hard], decisions[hard])["f1"] if (kinds == "hard_negative").any() else float("nan")
    return {"acc": overall["accuracy"], "f1": overall["f1"], "f1_hard": f1_hard}


def _scores(system: System, rows) -> dict[str, float]:
    return scores(rows["label"], system.decisions, rows["kind"])


def length_buckets(rows, buckets: int) -> tuple[np.ndarray, list[str]]:
    """Each test pair's bucket by total words (quantiles), and the buckets' labels."""
    words = np.array([sum(len(s.split()) for s in (*a, *b)) for a, b in zip(rows["doc_a"], rows["doc_b"])])
    edges = np.unique(np.quantile(words, np.linspace(0, 1, buckets + 1)))
    index = np.clip(np.searchsorted(edges, words, side="right") - 1, 0, len(edges) - 2)
    return index, [f"{int(edges[i])}-{int(edges[i + 1])} words" for i in range(len(edges) - 1)]


def only_right(systems: Mapping[str, System], labels: Sequence[int]) -> dict[int, str]:
    """Test pairs that exactly one system classifies correctly, and which system."""
    names, right = list(systems), np.array([system.decisions == np.asarray(labels) for system in systems.values()])
    return {int(i): names[int(np.argmax(right[:, i]))] for i in np.flatnonzero(right.sum(0) == 1)}


def results_table(systems: Mapping[str, System], rows, resamples: int) -> pd.DataFrame:
    """Accuracy and F1 (%, 95 % bootstrap intervals), F1 on hard negatives, and the costs."""
    table = {}
    for system in systems.values():
        measured = _scores(system, rows)
        intervals = {metric: decision_interval(rows["label"], system.decisions, metric, resamples)
                     for metric in ("acc", "f1")}
        table[system.label] = {metric: f"{100 * measured[metric]:.1f} [{100 * low:.0f}-{100 * high:.0f}]"
                               for metric, (low, high) in intervals.items()} | {
            "F1 hard neg.": round(100 * measured["f1_hard"], 1), "train s": round(system.train_seconds, 1),
            "pairs/s": round(system.pairs_per_second, 1), "peak MB": round(system.peak_mb),
            "params trained / total (M)": f"{system.trained_parameters / 1e6:.2f} / "
                                          f"{system.total_parameters / 1e6:.2f}",
            "reads": system.longest_input}
    for name, ref in verdicts.pair_references(rows["label"]).items():
        table[reference_label(name)] = {"acc": f"{100 * ref['acc']:.1f}", "f1": f"{100 * ref['f1']:.1f}"}
    return pd.DataFrame(table).T


def compare_metrics(data: str, systems: Mapping[str, System], rows) -> dict[str, float]:
    """`compare/<data>/<metric>/<system>` for acc, f1, f1_hard (%), pairs_per_s and train_s, and the reference
    rows' `compare/<data>/reference/<row>/<acc|f1>` (%)."""
    references = verdicts.pair_references(rows["label"])
    metrics = verdicts.reference_metrics(f"compare/{data}", {name: {k: round(100 * v, 3) for k, v in row.items()}
                                                              for name, row in references.items()})
    for name, system in systems.items():
        values = {**{k: 100 * v for k, v in _scores(system, rows).items()}, "pairs_per_s": system.pairs_per_second,
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


def learned_systems(systems: Mapping[str, System], rows) -> tuple[dict[str, System], list[str]]:
    """(the systems above the reference rows on accuracy and F1, the lines naming the others, which are left out of
    rankings, the Pareto front and claims)."""
    learned, notes = verdicts.split_learned({name: _scores(s, rows) for name, s in systems.items()},
                                            verdicts.floors(verdicts.pair_references(rows["label"])),
                                            {name: s.label for name, s in systems.items()},
                                            predictions={name: s.decisions for name, s in systems.items()})
    return {name: systems[name] for name in learned}, notes


def pareto_figure(systems: Mapping[str, System], rows) -> "Figure":
    """Accuracy against inference seconds per pair (log), the Pareto front of the systems that learned something
    joined, the others in grey, the majority-class accuracy as a line."""
    import matplotlib.pyplot as plt
    from adjustText import adjust_text

    fig, ax = plt.subplots(figsize=(7, 4.5))
    cost = {name: 1 / s.pairs_per_second for name, s in systems.items()}
    accuracy = {name: 100 * _scores(s, rows)["acc"] for name, s in systems.items()}
    learned, _ = learned_systems(systems, rows)
    for name in systems:
        ax.scatter(cost[name], accuracy[name], s=40, **({} if name in learned else {"color": "#bbbbbb"}))
    majority = 100 * verdicts.floors(verdicts.pair_references(rows["label"]))["acc"]
    ax.axhline(majority, color="#999999", lw=0.8, ls=":", label=f"majority class ({majority:.1f} %)")
    front = pareto_front(learned, rows)
    ax.plot([cost[n] for n in front], [accuracy[n] for n in front], "k--", lw=0.8,
            label="Pareto front (systems that learned something)")
    ax.set(xscale="log", xlabel="inference seconds per pair (log)", ylabel="test accuracy (%)",
           title="Accuracy against inference cost")
    ax.margins(x=0.25, y=0.2)
    ax.legend(fontsize=8)
    fig.tight_layout()
    # Labels right of and above their points, pushed apart by adjustText once the layout is final, a leader line to
    # a moved one; a fixed number of steps, so the same figure every run. It pushes two labels apart along the
    # difference of their positions: the 1e-6 steps let labels at one accuracy part vertically, not only sideways.
    # prevent_crossings (swapping labels after the push) can leave two overlapping, so it is off.
    texts = [ax.text(cost[n], accuracy[n] + 1e-6 * i, s.label, fontsize=7, ha="left", va="bottom")
             for i, (n, s) in enumerate(systems.items())]
    adjust_text(texts, ax=ax, iter_lim=500, prevent_crossings=False,
                arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "#777777", "shrinkB": 3})
    return fig


def length_results(systems: Mapping[str, System], rows, buckets: int) -> pd.DataFrame:
    """F1 (%) per system and pair-length bucket (by total words; the count in each header), and the F1 of calling
    every pair of a bucket related."""
    index, names = length_buckets(rows, buckets)
    labels, kinds = np.asarray(rows["label"]), np.asarray(rows["kind"])
    masks = [index == b for b in range(len(names))]
    table = pd.DataFrame({system.label: [round(100 * scores(labels[m], system.decisions[m], kinds[m])["f1"], 1)
                                         for m in masks] for system in systems.values()},
                         index=[f"{name} ({int(m.sum())})" for name, m in zip(names, masks)]).T
    table.loc[reference_label("all related")] = [
        round(100 * verdicts.pair_references(labels[m])["all related"]["f1"], 1) for m in masks]
    return table


def length_figure(table: pd.DataFrame) -> "Figure":
    """`length_results` as lines: does a system keep its F1 when the documents pass its window?"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, row in table.iterrows():
        ax.plot(range(len(row)), row.values, marker="o", label=name)
    ax.set_xticks(range(len(table.columns)), table.columns, fontsize=8)
    ax.set(ylabel="F1 (%)", title="F1 by pair length")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def only_right_examples(systems: Mapping[str, System], rows, shown: int = 3, chars: int = 220) -> pd.DataFrame:
    """How many pairs each system alone gets right (printed), and a few of them to read."""
    alone = only_right(systems, rows["label"])
    examples = [{"only right": systems[name].label, "kind": row["kind"] or str(row["label"]),
                 "doc_a": " ".join(row["doc_a"])[:chars] + "…", "doc_b": " ".join(row["doc_b"])[:chars] + "…"}
                for row, name in ((rows[index], name) for index, name in list(alone.items())[:shown])]
    counts = {systems[name].label: list(alone.values()).count(name) for name in systems}
    print("pairs only one system gets right:", {k: v for k, v in counts.items() if v} or "none")
    return pd.DataFrame(examples or [{"only right": "no pair is right for exactly one system"}])


def readings(systems: Mapping[str, System], rows, resamples: int, buckets: int, profile: str, data: str
             ) -> list[str]:
    """The systems that learned nothing, the best of the others on F1 and its lead over the second, each one's F1 on
    the longest minus the shortest pairs (described, not ranked), and the papers' orderings (`CLAIMS`) on F1 (the
    CDLM paper's Table 4 metric) under the noise rule."""
    labels = list(rows["label"])
    f1 = {name: _scores(s, rows)["f1"] for name, s in systems.items()}
    learned, lines = learned_systems(systems, rows)
    ranking = verdicts.ranked({name: f1[name] for name in learned},
                              verdicts.floors(verdicts.pair_references(labels))["f1"])
    if not ranking:
        return lines + ["- No system is above the reference rows: this run ranks none of them."]
    spread = verdicts.load_spread(profile)

    def difference(better: str, worse: str) -> verdicts.Difference:
        band = verdicts.seed_band(spread, f"compare/{data}/f1/{better}", f"compare/{data}/f1/{worse}", scale=100)
        return verdicts.decision_difference(labels, systems[better].decisions, systems[worse].decisions, "f1", band,
                                            resamples)

    lines.append(f"- Best F1 among the systems that learned something: {systems[ranking[0]].label} "
                 f"({100 * f1[ranking[0]]:.1f}).")
    if len(ranking) > 1:
        lines.append(verdicts.claim_line(f"Its lead over {systems[ranking[1]].label}",
                                         difference(ranking[0], ranking[1]), "F1"))
    table = length_results(learned, rows, buckets).drop(reference_label("all related"))
    if table.shape[1] > 1:  # a description of each system, not a ranking: no interval is drawn for it
        change = (table.iloc[:, -1] - table.iloc[:, 0]).dropna()
        lines.append("- F1 on the longest minus the shortest pairs (one bucket each, no interval: not ranked): "
                     + ", ".join(f"{name} {value:+.1f}" for name, value in change.items()) + ".")
    names = {name: system.label for name, system in systems.items()}
    lines += [verdicts.ordering_line(text, (better, worse), learned, names, partial(difference, better, worse))
              for better, worse, text in CLAIMS if better in systems and worse in systems]
    return lines


def _searched(recipes: Mapping) -> dict:
    """The systems whose recipe was chosen on dev."""
    return {name: recipe for name, recipe in recipes.items() if recipe is not None}


def recipe_metrics(data: str, recipes: Mapping) -> dict[str, float]:
    """`compare/<data>/recipe/<system>/...` for every system whose recipe was chosen on dev."""
    return search_metrics(f"compare/{data}", _searched(recipes))


def recipe_table(recipes: Mapping) -> pd.DataFrame:
    """Dev macro-F1 (%) of every point of each recipe search (* chosen), its recipe and cost; past 10 epochs only the
    first, every fifth and the chosen ones."""
    table = space_table(_searched(recipes), system_label)
    epochs = [c for c in table.columns if c.startswith("epoch ")]
    shown = [c for c in epochs if "*" in "".join(table[c]) or int(c.split()[1]) % 5 == 0 or c == "epoch 1"]
    return table[shown + [c for c in table.columns if c not in epochs]] if len(epochs) > 10 else table


def recipe_note(recipes: Mapping) -> str:
    """The searches' space, each system's chosen recipe and dev scores, and their cost."""
    return search_note(_searched(recipes), system_label)


def system_line(system: System, labels: Sequence[int], seconds: float) -> str:
    """A system's test accuracy and the seconds building and scoring it took."""
    return f"{system.label:<28} accuracy {100 * np.mean(system.decisions == labels):5.1f}  ({seconds:.0f} s)"
