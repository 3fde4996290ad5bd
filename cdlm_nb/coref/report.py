"""Notebook 04's tables (CDLM Tables 2-3 layout, data, cost), recorded metrics, figure and readings: the reference
rows (every mention alone, one cluster per subtopic) and a paired bootstrap of CoNLL F1 over the test subtopics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import verdicts
from ..profiles import SEED, CorefConfig
from ..variants import run_label
from ..verdicts import NR, reference_label
from .baselines import head_lemma_assignment
from .experiment import SENTENCES_ONLY, Clusters, CorefRun, CorefRuns
from .mentions import MENTION_KINDS, Mention, collect_mentions, gold_clusters, group_mentions, grouped
from .metrics import METRIC_NAMES, CorefScores, score_coreference

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Table columns: (metric, R/P/F1) for MUC, B3, CEAF-e and LEA, then (CoNLL, F1); values in percent.
TABLE_COLUMNS = [(metric, part) for metric in METRIC_NAMES.values() for part in ("R", "P", "F1")] + [("CoNLL", "F1")]

#: ECB+ test, event coreference, gold mentions: the CDLM preprint (v1), Table 2; the CDLM row is also the CDLM
#: paper's Table 2, which adds Allaway et al. (2021). The "Longformer" / "Rand CDLM" rows are the preprint's.
PAPER_EVENT_ROWS: dict[str, tuple[float | None, ...]] = {
    "Same Head-Lemma": (76.5, 80.0, 78.2, 71.8, 85.0, 77.8, 75.5, 71.8, 73.6, 57.0, 72.0, 63.7, 76.5),
    "Barhom et al. (2019)": (78.1, 84.0, 80.9, 76.8, 86.1, 81.2, 79.6, 73.3, 76.3, 64.6, 72.3, 68.3, 79.5),
    "Meged et al. (2020)": (78.8, 84.7, 81.6, 75.9, 85.9, 80.6, 81.1, 74.8, 77.8, 64.7, 73.4, 68.8, 80.0),
    "Cattan et al. (2020)": (85.1, 81.9, 83.5, 82.1, 82.7, 82.4, 75.2, 78.9, 77.0, 68.8, 72.0, 70.4, 81.0),
    "Zeng et al. (2020)": (85.6, 89.3, 87.5, 77.6, 89.7, 83.2, 84.5, 80.1, 82.3, NR, NR, NR, 84.3),
    "Yu et al. (2020)": (88.1, 85.1, 86.6, 86.1, 84.7, 85.4, 79.6, 83.1, 81.3, NR, NR, NR, 84.4),
    "Allaway et al. (2021)": (81.7, 82.8, 82.2, 80.8, 81.5, 81.1, 79.8, 78.4, 79.1, NR, NR, NR, 80.8),
    "Longformer": (85.2, 88.8, 86.9, 83.8, 87.7, 85.7, 83.4, 79.0, 81.1, 75.1, 77.3, 76.2, 84.6),
    "Rand CDLM": (81.8, 88.8, 85.2, 83.9, 84.5, 84.2, 83.3, 79.1, 81.1, 72.6, 74.4, 73.5, 83.5),
    "CDLM": (87.1, 89.2, 88.1, 84.9, 87.9, 86.4, 83.3, 81.2, 82.2, 76.7, 77.2, 76.9, 85.6),
}
#: ECB+ test, entity coreference: the CDLM paper, Table 2 (Barhom, Cattan, Allaway, CDLM); the CDLM preprint (v1),
#: Table 3 for the head-lemma, Longformer and Rand CDLM rows, whose extracted text keeps only MUC F1 and CoNLL F1.
PAPER_ENTITY_ROWS: dict[str, tuple[float | None, ...]] = {
    "Same Head-Lemma": (NR, NR, 76.7, NR, NR, NR, NR, NR, NR, NR, NR, NR, 67.4),
    "Barhom et al. (2019)": (81.0, 80.8, 80.9, 66.8, 75.5, 70.9, 62.5, 62.8, 62.7, 53.5, 63.8, 58.2, 71.5),
    "Cattan et al. (2020)": (85.7, 81.7, 83.6, 70.7, 74.8, 72.7, 59.3, 67.4, 63.1, 56.8, 65.8, 61.0, 73.1),
    "Allaway et al. (2021)": (83.9, 84.7, 84.3, 74.5, 70.5, 72.4, 70.0, 68.1, 69.2, NR, NR, NR, 75.3),
    "Longformer": (NR, NR, 87.9, NR, NR, NR, NR, NR, NR, NR, NR, NR, 80.4),
    "Rand CDLM": (NR, NR, 87.7, NR, NR, NR, NR, NR, NR, NR, NR, NR, 80.2),
    "CDLM": (88.1, 91.8, 89.9, 82.5, 81.7, 82.1, 81.2, 72.9, 76.8, 76.4, 73.0, 74.7, 82.9),
}
PAPER_ROWS = {"event": PAPER_EVENT_ROWS, "entity": PAPER_ENTITY_ROWS}
#: The CDLM paper, Table 3: ablations, CoNLL F1 on ECB+ test event coreference.
PAPER_ABLATION_CONLL: dict[str, float] = {"CDLM": 85.6, "CDLM, sentences only": 84.2, "Longformer": 84.6,
                                           "Local CDLM": 84.7, "Rand CDLM": 84.1, "Prefix CDLM": 85.1}
LEMMA_ROW = "Same Head-Lemma"
#: The table row of a run: the model's display name, or "CDLM, sentences only" for the ablation.
row_label = partial(run_label, labels={SENTENCES_ONLY: "CDLM, sentences only"})
RESAMPLES = 500  # each draw scores two clusterings with all four metrics; 500 keep the 95 % ends within a point


def reference_scores(test: Any, kind: str) -> dict[str, CorefScores]:
    """The reference rows, two trivial responses on the test `kind` mentions: every mention alone, one per subtopic."""
    mentions = collect_mentions(test, kind)
    key = gold_clusters(mentions)
    subtopics = [[m.mention_id for m in subtopic] for subtopic in group_mentions(mentions, "subtopic").values()]
    return {"all singletons": score_coreference(key, [[m.mention_id] for m in mentions]),
            "one cluster per subtopic": score_coreference(key, subtopics)}


def resampling_units(mentions: Sequence[Mention]) -> list[list[str]]:
    """The test subtopics as bootstrap units (mention ids), joined where a gold cluster spans them: none is cut."""
    import networkx as nx

    first_of_cluster: dict[str, str] = {}  # each subtopic joined to the first subtopic of every cluster it shares
    graph = nx.Graph((m.subtopic, first_of_cluster.setdefault(m.cluster_id, m.subtopic)) for m in mentions)
    unit_of = {subtopic: i for i, part in enumerate(nx.connected_components(graph)) for subtopic in part}
    units = grouped(mentions, lambda m: unit_of[m.subtopic])  # in the order of the units' first mentions
    return [[m.mention_id for m in unit] for unit in units.values()]


def _restricted(clusters: Clusters, unit_of: Mapping[str, int], draw: Sequence[int]) -> list[list[str]]:
    """`clusters` over the drawn units, a unit drawn twice copied under new ids (`<copy>:<mention id>`)."""
    by_unit: dict[int, list[list[str]]] = {}
    for cluster in clusters:
        for unit, part in grouped(cluster, unit_of.__getitem__).items():
            by_unit.setdefault(unit, []).append(part)
    return [[f"{copy}:{m}" for m in part] for copy, unit in enumerate(draw) for part in by_unit.get(unit, [])]


def conll_difference(mentions: Sequence[Mention], first: Clusters, second: Clusters, band: float | None,
                     resamples: int = RESAMPLES, seed: int = SEED) -> verdicts.Difference:
    """CoNLL F1 (%) of `first` minus `second`, with its 95 % paired bootstrap interval over `resampling_units`."""
    units = resampling_units(mentions)
    unit_of = {m: i for i, unit in enumerate(units) for m in unit}
    key = gold_clusters(mentions)

    def difference(draw: Sequence[int]) -> float:
        gold = _restricted(key, unit_of, draw)
        return 100 * (score_coreference(gold, _restricted(first, unit_of, draw)).conll
                      - score_coreference(gold, _restricted(second, unit_of, draw)).conll)

    low, high = verdicts.paired_bootstrap(lambda draws: np.array([difference(draw) for draw in draws]), len(units),
                                          resamples, seed)
    return verdicts.Difference(difference(range(len(units))), low, high, band)


def split_table(splits: Mapping[str, Any]) -> pd.DataFrame:
    """Per split: topics, subtopics, documents, mentions and clusters of each kind (the notebook's data table)."""
    rows = {}
    for name, dataset in splits.items():
        rows[name] = {"topics": len(set(dataset["topic"])), "subtopics": len(set(dataset["subtopic"])),
                      "documents": len(dataset)}
        for kind in MENTION_KINDS:
            mentions = collect_mentions(dataset, kind)
            rows[name] |= {f"{kind} mentions": len(mentions), f"{kind} clusters": len(gold_clusters(mentions))}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("split")


def results_table(ours: Mapping[str, CorefScores], paper: Mapping[str, Sequence[float | None]],
                  ours_label: str) -> pd.DataFrame:
    """The papers' table layout: the paper's rows (ECB+ test) above ours (`{row label: CorefScores}`)."""
    rows = {("paper: ECB+ test", label): values for label, values in paper.items()}
    rows |= {(ours_label, label): (*(100 * value for name in METRIC_NAMES for value in astuple(getattr(scores, name))),
                                   100 * scores.conll) for label, scores in ours.items()}  # R, P, F1 each, CoNLL F1
    table = pd.DataFrame.from_dict(rows, orient="index", columns=pd.MultiIndex.from_tuples(TABLE_COLUMNS))
    table.index = pd.MultiIndex.from_tuples(table.index, names=["source", "model"])
    return table.astype(float).round(1)


def ours_label(source: str, profile: str) -> str:
    """The source label of our rows, e.g. "ours: embedded test (cpu)"."""
    return f"ours: {source} test ({profile})"


def paper_tables(lemma: Mapping[str, CorefScores], runs: CorefRuns, label: str, test: Any,
                 missing: Mapping[str, str] | None = None) -> dict[str, pd.DataFrame]:
    """One `results_table` per mention kind run: same-head-lemma, every run and the reference rows below the paper's;
    each model of `missing` (`PretrainedShelf.missing_notes`) an empty row, a last column saying how to get it."""
    tables = {}
    for kind in (kind for kind in PAPER_ROWS if kind in lemma):
        ours = {LEMMA_ROW: lemma[kind]}
        ours |= {row_label(name): run.test_scores for (name, k), run in runs.items() if k == kind}
        ours |= {reference_label(name): scores for name, scores in reference_scores(test, kind).items()}
        tables[kind] = table = results_table(ours, PAPER_ROWS[kind], label)
        if missing:
            for model in missing:
                table.loc[(label, model), :] = float("nan")
            table[("", "not run")] = [missing.get(model, "") if src == label else "" for src, model in table.index]
    return tables


def ablation_table(runs: CorefRuns, label: str, test: Any) -> pd.DataFrame:
    """The CDLM paper's Table 3 (event CoNLL F1) beside ours in its row order, our reference rows below."""
    ours = {row_label(name): 100 * run.test_scores.conll for (name, kind), run in runs.items() if kind == "event"}
    table = pd.DataFrame({"paper (ECB+ test)": pd.Series(PAPER_ABLATION_CONLL),
                          label: pd.Series(ours, dtype=float)}).reindex(list(PAPER_ABLATION_CONLL))
    for name, scores in reference_scores(test, "event").items():
        table.loc[reference_label(name)] = [NR, 100 * scores.conll]
    return table.astype(float).round(1)


def cost_table(runs: CorefRuns) -> pd.DataFrame:
    """Per run: training pairs and time, scored test pairs, what the caps dropped, truncations and throughput."""
    return pd.DataFrame([{
        "model": row_label(name), "kind": kind, "max length": run.max_length,
        "train pairs": run.train_pairs.pairs, "train positives": run.train_pairs.positives,
        "train pairs left out": run.train_pairs.dropped, "train s": round(run.train_seconds, 1),
        "test pairs": run.test.pair_stats.pairs,
        "pairs / group": round(run.test.pair_stats.pairs / max(run.test.pair_stats.groups, 1), 1),
        "dropped by cap": run.test.pair_stats.dropped, "mean tokens": round(run.test.encoding.mean_length),
        "truncated pairs": run.test.encoding.truncated_pairs, "split docs": run.test.encoding.split_documents,
        "pairs / s": round(run.test.scoring.pairs_per_second, 1),
    } for (name, kind), run in runs.items()])


def pairs_per_group_summary(runs: CorefRuns) -> str:
    """Count, mean, min and max of the scored candidate pairs per test group (of the first run; '' if none)."""
    if not runs:
        return ""
    summary = pd.Series(next(iter(runs.values())).test.pair_stats.per_group, dtype=float).describe()
    return f"scored candidate pairs per test subtopic:\n{summary[['count', 'mean', 'min', 'max']].round(1).to_string()}"


def coref_metrics(lemma: Mapping[str, CorefScores], runs: CorefRuns, test: Any) -> dict[str, float]:
    """What notebook 04 records: `coref/lemma/<kind>/conll`, `coref/<kind>/reference/<row>/conll`,
    `coref/<kind>/conll/<run>` (test CoNLL F1, %) and `coref/<kind>/pairs_per_second/<run>` (test scoring)."""
    metrics = {f"coref/lemma/{kind}/conll": 100 * scores.conll for kind, scores in lemma.items()}
    for kind in lemma:
        metrics |= verdicts.reference_metrics(f"coref/{kind}", {
            name: {"conll": 100 * scores.conll} for name, scores in reference_scores(test, kind).items()})
    metrics |= {f"coref/{kind}/conll/{name}": 100 * run.test_scores.conll for (name, kind), run in runs.items()}
    return metrics | {f"coref/{kind}/pairs_per_second/{name}": run.test.scoring.pairs_per_second
                      for (name, kind), run in runs.items()}


def readings(lemma: Mapping[str, CorefScores], runs: CorefRuns, test: Any, profile: str) -> list[str]:
    """Our test CoNLL F1 differences beside the papers' (CDLM - Longformer, the top cross-encoder by point estimate -
    same-head-lemma, documents - sentences) under the noise rule (`verdicts`, bootstrap over test subtopics); a row
    not above the reference rows' best, same-head-lemma included, learned nothing and is compared with nothing."""
    spread, lines = verdicts.load_spread(profile), []
    for kind in lemma:
        mentions = collect_mentions(test, kind)
        floor = verdicts.floor({name: 100 * s.conll for name, s in reference_scores(test, kind).items()})
        conll = {name: 100 * run.test_scores.conll for (name, k), run in runs.items() if k == kind}
        conll[LEMMA_ROW] = 100 * lemma[kind].conll
        learned = [name for name, value in conll.items() if verdicts.learned(value, floor)]
        lines += [verdicts.nothing_note(f"{kind}: {row_label(name)}", value, floor, "CoNLL F1")
                  for name, value in conll.items() if name not in learned]
        paper = {row: values[-1] for row, values in PAPER_ROWS[kind].items()}
        best = max((name for name in learned if name not in (SENTENCES_ONLY, LEMMA_ROW)), key=conll.get, default="")
        lemma_of = head_lemma_assignment(test, kind)
        clusters = {name: run.test_clusters for (name, k), run in runs.items() if k == kind}
        clusters[LEMMA_ROW] = list(grouped(lemma_of, lemma_of.get).values())  # the same-head-lemma clusters
        top = paper.get(row_label(best))  # the top cross-encoder's paper row (None: the paper has none)
        claims = [  # (claim, first, second, the paper's difference or None), read where both rows were run
            ("CDLM over Longformer", "cdlm", "longformer", paper["CDLM"] - paper["Longformer"]),
            (f"the top cross-encoder by point estimate ({row_label(best)}) over same-head-lemma", best, LEMMA_ROW,
             None if top is None else top - paper[LEMMA_ROW]),
            ("whole documents (CDLM) over sentences only", "cdlm", SENTENCES_ONLY,
             PAPER_ABLATION_CONLL["CDLM"] - PAPER_ABLATION_CONLL["CDLM, sentences only"])]
        for claim, first, second, gap in claims:
            if first not in conll or second not in conll:
                continue
            band = verdicts.seed_band(spread, f"coref/{kind}/conll/{first}",
                                      None if second == LEMMA_ROW else f"coref/{kind}/conll/{second}")
            shown = "not reported" if gap is None else f"{gap:+.1f}"
            lines.append(verdicts.ordering_line(
                f"{kind}: {claim} (paper: {shown})", (first, second), learned,
                {name: row_label(name) for name in conll},
                partial(conll_difference, mentions, clusters[first], clusters[second], band), "CoNLL F1", scale=1.0))
    return lines


def run_line(run: CorefRun, config: CorefConfig) -> str:
    """One run as notebook 04 fine-tunes it: test CoNLL F1 (%), threshold, training time and recipe."""
    return (f"{row_label(run.model):<12} {run.kind:<6} test CoNLL F1 {100 * run.test_scores.conll:5.1f}  "
            f"(threshold {run.threshold}, {run.train_seconds:.0f} s training: {config.epochs} epoch(s) at lr "
            f"{config.learning_rate:g}, batch {config.batch_size})")


def threshold_and_loss_figure(runs: CorefRuns) -> "Figure":
    """Left: dev CoNLL F1 per distance threshold, a dot on the chosen one. Right: the BCE loss (rolling mean of 3)."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    for (name, kind), run in runs.items():
        label = f"{row_label(name)} ({kind})"
        thresholds, scores = zip(*run.dev_curve)
        line, = left.plot(thresholds, [100 * s for s in scores], marker=".", label=label)
        left.plot(run.threshold, 100 * dict(run.dev_curve)[run.threshold], "o", color=line.get_color())
        right.plot(pd.Series(run.losses).rolling(3, min_periods=1).mean(), label=label)
    left.set(xlabel="distance threshold", ylabel="dev CoNLL F1", title="threshold tuned on dev")
    right.set(xlabel="batch", ylabel="BCE loss (rolling mean of 3)", title="fine-tuning")
    left.legend(fontsize=8)
    return fig
