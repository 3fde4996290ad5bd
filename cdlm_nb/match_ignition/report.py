"""Notebook 09's tables, figures, recorded metrics and readings, beside Match-Ignition's Tables 3-4 (Pang, Lan &
Cheng 2021: Chinese news pairs CNSE (same event) and CNSS (same story), bert-base-chinese, a K80 GPU)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from statistics import median
from typing import TYPE_CHECKING, Any

from .. import timing, verdicts
from ..verdicts import reference_label
from .experiment import Speed, alpha_name, paper_time_cost, speedup
from .sentence_filter import sentence_graph, sentence_scores, top_sentences

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ..matching.experiment import MatchingRun

#: Table 3, the ablation: (CNSE acc, F1, CNSS acc, F1); its first and last rows are Table 2's Match-Ignition and
#: BERT-Finetuning rows.
PAPER_TABLE3 = {"Match-Ignition": (86.32, 84.55, 91.28, 91.39), "– sentence-level filter": (80.31, 76.39, 91.10, 91.18),
                "– word-level filter": (84.11, 82.17, 91.04, 91.07), "BERT-Finetune": (81.30, 79.20, 86.64, 87.08)}
#: Table 4: α -> (CNSE acc, F1, CNSS acc, F1, train s/batch, eval s/batch) on a K80, batch 8, 400 tokens.
PAPER_TABLE4 = {0.0: (84.11, 82.17, 91.04, 91.07, 1.73, 0.42), 0.05: (85.68, 83.65, 90.70, 90.73, 1.58, 0.37),
                0.1: (86.32, 84.55, 91.28, 91.39, 1.33, 0.31), 0.2: (82.55, 79.66, 90.25, 90.21, 1.07, 0.21)}
PAPER_COLUMNS = ("CNSE acc", "CNSE F1", "CNSS acc", "CNSS F1")
ABLATION_ROWS = {"Match-Ignition": None, "– sentence-level filter": "word_only", "– word-level filter": "alpha_0",
                 "BERT-Finetune": "no_filter"}


def variant_label(name: str) -> str:
    """A trained variant's name in the readings: "α = 10 %", "the word filter alone", "the truncated ..."."""
    if name.startswith("alpha_"):
        return f"α = {name[6:]} %"
    return {"word_only": "the word filter alone", "no_filter": "the truncated cross-encoder"}.get(name, name)


def _percent(scores: Mapping[str, float] | None) -> tuple[float | None, float | None]:
    return (round(100 * scores["accuracy"], 1), round(100 * scores["f1"], 1)) if scores else (None, None)


def _table(rows: Mapping[str, tuple], labels: Sequence[int],
           columns: Sequence[str] = ("ours acc", "ours F1", *PAPER_COLUMNS)) -> "pd.DataFrame":
    """`rows` and the reference rows (calling every test pair related, or none: acc, F1, the rest blank)."""
    import pandas as pd

    references = {reference_label(name): (round(100 * ref["acc"], 1), round(100 * ref["f1"], 1),
                                          *(None,) * (len(columns) - 2))
                  for name, ref in verdicts.pair_references(labels).items()}
    return pd.DataFrame.from_dict({**rows, **references}, orient="index", columns=list(columns))


def alpha_table(runs: Mapping[str, "MatchingRun"], alphas: Sequence[float], labels: Sequence[int]) -> "pd.DataFrame":
    """Table 4's layout: accuracy and F1 per word reduction ratio α (both filters on), the paper's, our references."""
    ours = {name: run.test for name, run in runs.items()}
    return _table({f"α = {100 * alpha:g} %": (*_percent(ours.get(alpha_name(alpha))),
                                              *PAPER_TABLE4.get(alpha, (None,) * 6)[:4])
                   for alpha in sorted(set(alphas) | set(PAPER_TABLE4))}, labels)


def ablation_table(runs: Mapping[str, "MatchingRun"], ablation_alpha: float, labels: Sequence[int]) -> "pd.DataFrame":
    """Table 3's layout: both filters, without each, without both (BERT on truncated pairs), our reference rows."""
    ours = {name: run.test for name, run in runs.items()}
    return _table({label: (*_percent(ours.get(name or alpha_name(ablation_alpha))), *PAPER_TABLE3[label])
                   for label, name in ABLATION_ROWS.items()}, labels)


def lambda_table(results: Mapping[str, Mapping[str, float]], labels: Sequence[int]) -> "pd.DataFrame":
    """Test accuracy and F1 of one trained model with other sentence filters (inference only), and reference rows."""
    return _table({name: _percent(scores) for name, scores in results.items()}, labels, ("acc", "F1"))


def speed_table(speeds: Sequence[Speed], length: int, batch: int) -> "pd.DataFrame":
    """Seconds per batch, speed-ups over α = 0 (same batch, same run), the operation-count limit and the paper's."""
    import pandas as pd

    base, rows = speeds[0], {}
    for speed in speeds:
        paper = PAPER_TABLE4.get(speed.alpha)
        evaluated, low, high = speedup(base, speed)
        rows[f"α = {100 * speed.alpha:g} %"] = {
            "train s/batch": round(median(speed.train_rounds), 3), "eval s/batch": round(median(speed.eval_rounds), 3),
            "train speed-up": round(speedup(base, speed, "train")[0], 2), "eval speed-up": round(evaluated, 2),
            "eval 95 % interval": f"{low:.2f}-{high:.2f}", "limit (FLOP)": round(speed.limit, 2),
            "paper TimeCost limit": round(paper_time_cost(0.0) / paper_time_cost(speed.alpha), 2),
            "paper train speed-up": round(PAPER_TABLE4[0.0][4] / paper[4], 2) if paper else None,
            "paper eval speed-up": round(PAPER_TABLE4[0.0][5] / paper[5], 2) if paper else None}
    table = pd.DataFrame(rows).T
    rounds = len(base.eval_rounds)
    table.attrs["caption"] = (f"batch of {batch} inputs of {length} tokens; speed-ups: the median over {rounds} "
                              f"timed rounds, paired by round")
    return table


def speed_metrics(speeds: Sequence[Speed]) -> dict[str, float]:
    """`match_ignition/{eval,train}_speedup/alpha_<a>` (the median over rounds) with the evaluation speed-up's
    interval (`.../ci_low`, `.../ci_high`), and `match_ignition/eval_speedup_limit/alpha_<a>`."""
    metrics = {}
    for speed in speeds:
        name, (evaluated, low, high) = alpha_name(speed.alpha), speedup(speeds[0], speed)
        metrics |= {f"match_ignition/eval_speedup/{name}": evaluated, f"match_ignition/eval_speedup/{name}/ci_low": low,
                    f"match_ignition/eval_speedup/{name}/ci_high": high, f"match_ignition/eval_speedup_limit/{name}":
                    speed.limit, f"match_ignition/train_speedup/{name}": speedup(speeds[0], speed, "train")[0]}
    return metrics


def accuracy_metrics(data: str, runs: Mapping[str, "MatchingRun"], labels: Sequence[int]) -> dict[str, float]:
    """`match_ignition/<data>/{acc,f1}/<variant>` (percent) for every trained variant, and the reference rows'
    `match_ignition/<data>/reference/<row>/{acc,f1}`."""
    references = {name: {k: 100 * v for k, v in row.items()} for name, row in verdicts.pair_references(labels).items()}
    return verdicts.reference_metrics(f"match_ignition/{data}", references) | {
        f"match_ignition/{data}/{metric}/{name}": 100 * run.test[key] for name, run in runs.items()
        for metric, key in (("acc", "accuracy"), ("f1", "f1"))}


def tradeoff_figure(runs: Mapping[str, "MatchingRun"], speeds: Sequence[Speed]) -> "Figure":
    """Test F1 against the measured evaluation speed-up, one point per α."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.4))
    for speed in speeds:
        if (run := runs.get(alpha_name(speed.alpha))) is None:
            continue
        measured, low, high = speedup(speeds[0], speed)
        point = (measured, 100 * run.test["f1"])
        ax.errorbar(*point, xerr=[[measured - low], [high - measured]], fmt="o", color="C0", capsize=3)
        ax.annotate(f"α={100 * speed.alpha:g}%", point, textcoords="offset points", xytext=(5, 4), fontsize=8)
        ax.plot(speed.limit, point[1], "|", color="grey", markersize=12)
    ax.set_xlabel("evaluation speed-up over α = 0, 95 % interval (grey: the operation-count limit)")
    ax.set_ylabel("test F1 (%)")
    fig.tight_layout()
    return fig


def sentence_graph_figure(doc_a: Sequence[str], doc_b: Sequence[str], keep: int) -> "Figure":
    """The joint sentence graph of one pair: node size = PageRank, colour = document, kept sentences outlined."""
    import matplotlib.pyplot as plt
    import networkx as nx

    graph, scores = sentence_graph(doc_a, doc_b), sentence_scores(doc_a, doc_b)
    kept = {(d, i) for d, doc in enumerate((doc_a, doc_b)) for i in top_sentences(scores, doc, d, keep)}
    fig, ax = plt.subplots(figsize=(6, 4.2))
    layout = nx.spring_layout(graph, seed=0, weight="weight")
    nodes = list(graph.nodes)
    nx.draw_networkx_edges(graph, layout, ax=ax, alpha=0.3, width=[2 * graph.edges[e]["weight"] for e in graph.edges])
    nx.draw_networkx_nodes(graph, layout, ax=ax, nodelist=nodes, node_size=[6000 * scores[n] for n in nodes],
                           node_color=["C0" if n[0] == 0 else "C1" for n in nodes],
                           edgecolors=["black" if n in kept else "none" for n in nodes], linewidths=2)
    nx.draw_networkx_labels(graph, layout, ax=ax, labels={n: f"{'AB'[n[0]]}{n[1]}" for n in nodes}, font_size=7)
    ax.set_title(f"sentences of A (blue) and B (orange); outlined: the top {keep} of each", fontsize=9)
    ax.axis("off")
    fig.tight_layout()
    return fig


def surviving_tokens_figure(tokens: Sequence[str], positions: Sequence[Any]) -> "Figure":
    """A heat strip: one row per layer, dark where the input token is still in the sequence after that layer."""
    import matplotlib.pyplot as plt
    import numpy as np

    alive = np.zeros((len(positions) + 1, len(tokens)))
    alive[0] = 1
    for layer, kept in enumerate(positions, start=1):
        alive[layer, [int(p) for p in kept if p < len(tokens)]] = 1
    fig, ax = plt.subplots(figsize=(10, 0.4 * len(alive) + 1.2))
    ax.imshow(alive, aspect="auto", cmap="Greys", vmin=0, vmax=1.4, interpolation="nearest")
    ax.set_yticks(range(len(alive)), ["input"] + [f"after layer {i}" for i in range(1, len(alive))], fontsize=7)
    step = max(1, len(tokens) // 40)
    ax.set_xticks(range(0, len(tokens), step), [tokens[i] for i in range(0, len(tokens), step)], rotation=90,
                  fontsize=6)
    fig.tight_layout()
    return fig


#: The paper's orderings of trained variants, as (better, worse, claim); `best` is the ablation's α.
CLAIMS = (("best", "alpha_0", "Match-Ignition, Table 4: the best α over α = 0"),
          ("best", "no_filter", "Match-Ignition, Table 3: both filters over the truncated cross-encoder"),
          ("alpha_0", "no_filter", "Match-Ignition, Table 3: the sentence filter alone over the truncated "
                                   "cross-encoder"))


def readings(runs: Mapping[str, "MatchingRun"], speeds: Sequence[Speed], ablation_alpha: float,
             labels: Sequence[int], profile: str, data: str) -> list[str]:
    """The paper's claims checked on this run's numbers: which variants learned something (above the reference
    rows), the orderings of Tables 3-4 on F1 under the noise rule (`verdicts`), the speed-up against its limit."""
    labels = list(labels)
    decisions = {name: (run.test_scores >= run.threshold).astype(int) for name, run in runs.items()}
    floors = verdicts.floors(verdicts.pair_references(labels))
    learned, lines = verdicts.split_learned({name: run.test for name, run in runs.items()},
                                            {"f1": floors["f1"], "accuracy": floors["acc"]},
                                            {name: variant_label(name) for name in runs}, predictions=decisions)
    spread = verdicts.load_spread(profile)

    def f1_difference(better: str, worse: str) -> verdicts.Difference:
        band = verdicts.seed_band(spread, f"match_ignition/{data}/f1/{better}", f"match_ignition/{data}/f1/{worse}",
                                  scale=100)
        return verdicts.decision_difference(labels, decisions[better], decisions[worse], "f1", band)

    for better, worse, claim in CLAIMS:
        better = alpha_name(ablation_alpha) if better == "best" else better
        if better != worse and {better, worse} <= set(runs):
            lines.append(verdicts.ordering_line(f"{claim} ({variant_label(better)} vs {variant_label(worse)})",
                                                (better, worse), learned, {n: variant_label(n) for n in runs},
                                                partial(f1_difference, better, worse)))
    lines += [speed_line(speeds[0], speed) for speed in speeds[1:]]
    if any(speedup(speeds[0], speed)[1] > speed.limit for speed in speeds[1:]):
        lines.append("- Above the operation-count limit: the count weighs every FLOP alike, but attention's n² part "
                     "is bound by memory traffic on a CPU, so dropping tokens saves more time than operations.")
    return lines


def speed_line(base: Speed, speed: Speed) -> str:
    """One α's evaluation speed-up over α = 0 with its interval, read against its operation-count limit."""
    measured, low, high = speedup(base, speed)
    evaluated = timing.describe(measured, low, high, len(speed.eval_rounds), "faster")
    return (f"- α = {100 * speed.alpha:g} %: evaluation {evaluated}, {timing.side(low, high, speed.limit)} its "
            f"{speed.limit:.2f}× operation-count limit; training "
            f"{speedup(base, speed, 'train')[0]:.2f}× faster.")


def variant_line(name: str, run: "MatchingRun") -> str:
    """One line per variant as notebook 09 trains it: test accuracy and F1 (%), and its training time."""
    return (f"{name:<10} test accuracy {100 * run.test['accuracy']:5.1f}  F1 {100 * run.test['f1']:5.1f}"
            f"  ({run.train_seconds:.0f} s training)")
