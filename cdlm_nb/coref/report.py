"""Notebook 04's tables and numbers: the data table, results in the papers' layout (CDLM paper, Tables 2-3), the
cost table, the metrics the notebook records, and the readings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple
from functools import partial
from typing import TYPE_CHECKING, Any

from .. import verdicts
from ..variants import run_label
from ..verdicts import NR, reference_label
from .baselines import head_lemma_assignment
from .experiment import SENTENCES_ONLY, CorefRun, CorefRuns
from .mentions import MENTION_KINDS, collect_mentions, gold_clusters
from .metrics import METRIC_NAMES, CorefScores
from .references import conll_difference, reference_scores

if TYPE_CHECKING:
    import pandas as pd

    from ..profiles import CorefConfig

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


def split_table(splits: Mapping[str, Any]) -> "pd.DataFrame":
    """Per split: topics, subtopics, documents, mentions and clusters of each kind (the notebook's data table)."""
    import pandas as pd

    rows = {}
    for name, dataset in splits.items():
        rows[name] = {"topics": len(set(dataset["topic"])), "subtopics": len(set(dataset["subtopic"])),
                      "documents": len(dataset)}
        for kind in MENTION_KINDS:
            mentions = collect_mentions(dataset, kind)
            rows[name] |= {f"{kind} mentions": len(mentions), f"{kind} clusters": len(gold_clusters(mentions))}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("split")


def results_table(ours: Mapping[str, CorefScores], paper: Mapping[str, Sequence[float | None]],
                  ours_label: str) -> "pd.DataFrame":
    """The papers' table layout: the paper's rows (ECB+ test) above ours (`{row label: CorefScores}`)."""
    import pandas as pd

    rows = {("paper: ECB+ test", label): values for label, values in paper.items()}
    rows |= {(ours_label, label): (*(100 * value for name in METRIC_NAMES for value in astuple(getattr(scores, name))),
                                   100 * scores.conll) for label, scores in ours.items()}  # R, P, F1 each, CoNLL F1
    table = pd.DataFrame.from_dict(rows, orient="index", columns=pd.MultiIndex.from_tuples(TABLE_COLUMNS))
    table.index = pd.MultiIndex.from_tuples(table.index, names=["source", "model"])
    return table.astype(float).round(1)


def ours_label(source: str, profile: str) -> str:
    """The source label of our rows, e.g. "ours: embedded test (cpu)"."""
    return f"ours: {source} test ({profile})"


def references(test: Any, kinds: Sequence[str]) -> dict[str, dict[str, CorefScores]]:
    """Per mention kind, the reference rows on the test mentions (`references.reference_scores`)."""
    return {kind: reference_scores(collect_mentions(test, kind)) for kind in kinds}


def paper_tables(lemma: Mapping[str, CorefScores], runs: CorefRuns, label: str, test: Any,
                 missing: Mapping[str, str] | None = None) -> dict[str, "pd.DataFrame"]:
    """One `results_table` per mention kind that was run: the same-head-lemma baseline, every run and the reference
    rows (every mention alone, one cluster per subtopic) below the paper's rows; each model of `missing` (display
    name -> how to get it, `PretrainedShelf.missing_notes`) is an empty row of ours, a last column saying how."""
    tables = {}
    trivial = references(test, list(lemma))
    for kind in (kind for kind in PAPER_ROWS if kind in lemma):
        ours = {LEMMA_ROW: lemma[kind]}
        ours |= {row_label(name): run.test_scores for (name, k), run in runs.items() if k == kind}
        ours |= {reference_label(name): scores for name, scores in trivial[kind].items()}
        tables[kind] = table = results_table(ours, PAPER_ROWS[kind], label)
        if missing:
            for model in missing:
                table.loc[(label, model), :] = float("nan")
            table[("", "not run")] = [missing.get(model, "") if src == label else "" for src, model in table.index]
    return tables


def ablation_table(runs: CorefRuns, label: str, test: Any) -> "pd.DataFrame":
    """The CDLM paper's Table 3 (CoNLL F1, event coreference) beside ours, in the paper's row order, with our
    reference rows (every mention alone, one cluster per subtopic) below."""
    import pandas as pd

    ours = {row_label(name): 100 * run.test_scores.conll for (name, kind), run in runs.items() if kind == "event"}
    table = pd.DataFrame({"paper (ECB+ test)": pd.Series(PAPER_ABLATION_CONLL),
                          label: pd.Series(ours, dtype=float)}).reindex(list(PAPER_ABLATION_CONLL))
    for name, scores in references(test, ["event"])["event"].items():
        table.loc[reference_label(name)] = [NR, 100 * scores.conll]
    return table.astype(float).round(1)


def cost_table(runs: CorefRuns) -> "pd.DataFrame":
    """Per run: training pairs and time, scored test pairs, what the caps dropped, truncations and throughput."""
    import pandas as pd

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
    import pandas as pd

    if not runs:
        return ""
    summary = pd.Series(next(iter(runs.values())).test.pair_stats.per_group, dtype=float).describe()
    return f"scored candidate pairs per test subtopic:\n{summary[['count', 'mean', 'min', 'max']].round(1).to_string()}"


def coref_metrics(lemma: Mapping[str, CorefScores], runs: CorefRuns, test: Any) -> dict[str, float]:
    """What notebook 04 records: `coref/lemma/<kind>/conll`, `coref/reference/<kind>/<all_singletons|...>/conll`,
    `coref/<kind>/conll/<run>` (test CoNLL F1 in percent) and `coref/<kind>/pairs_per_second/<run>` (test scoring
    throughput)."""
    metrics = {f"coref/lemma/{kind}/conll": 100 * scores.conll for kind, scores in lemma.items()}
    for kind, rows in references(test, list(lemma)).items():
        metrics |= verdicts.reference_metrics(f"coref/{kind}", {name: {"conll": 100 * scores.conll}
                                                                 for name, scores in rows.items()})
    metrics |= {f"coref/{kind}/conll/{name}": 100 * run.test_scores.conll for (name, kind), run in runs.items()}
    return metrics | {f"coref/{kind}/pairs_per_second/{name}": run.test.scoring.pairs_per_second
                      for (name, kind), run in runs.items()}


def lemma_clusters(test: Any, kind: str) -> list[list[str]]:
    """The same-head-lemma baseline's clusters (mention ids), for a paired interval against a scorer."""
    clusters: dict[str, list[str]] = {}
    for mention_id, label in head_lemma_assignment(test, kind).items():
        clusters.setdefault(label, []).append(mention_id)
    return list(clusters.values())


def readings(lemma: Mapping[str, CorefScores], runs: CorefRuns, test: Any, profile: str) -> list[str]:
    """Our differences in test CoNLL F1 beside the papers' (CDLM - Longformer, best scorer - same-head-lemma, whole
    documents - sentences only), each read by the noise rule (`verdicts`: paired bootstrap over test subtopics and
    the seed band). A row not above the reference rows (every mention alone, one cluster per subtopic), the
    same-head-lemma rule included, learned nothing here and is compared with nothing."""
    spread, lines = verdicts.load_spread(profile), []
    for kind in lemma:
        mentions = collect_mentions(test, kind)
        floor = verdicts.floor({name: 100 * s.conll for name, s in reference_scores(mentions).items()})
        conll = {name: 100 * run.test_scores.conll for (name, k), run in runs.items() if k == kind}
        conll[LEMMA_ROW] = 100 * lemma[kind].conll
        learned = [name for name, value in conll.items() if verdicts.learned(value, floor)]
        lines += [verdicts.nothing_note(f"{kind}: {row_label(name)}", value, floor, "CoNLL F1")
                  for name, value in conll.items() if name not in learned]
        paper = {row: values[-1] for row, values in PAPER_ROWS[kind].items()}
        best = max((name for name in learned if name not in (SENTENCES_ONLY, LEMMA_ROW)), key=conll.get, default="")
        claims = [  # (claim, first, second, the paper's difference), read where both rows were run
            ("CDLM over Longformer", "cdlm", "longformer", paper["CDLM"] - paper["Longformer"]),
            (f"the best scorer ({row_label(best)}) over same-head-lemma", best, LEMMA_ROW,
             paper["CDLM"] - paper[LEMMA_ROW]),
            ("whole documents (CDLM) over sentences only", "cdlm", SENTENCES_ONLY,
             PAPER_ABLATION_CONLL["CDLM"] - PAPER_ABLATION_CONLL["CDLM, sentences only"])]
        for claim, first, second, gap in claims:
            if first not in conll or second not in conll:
                continue
            if nothing := [row_label(name) for name in (first, second) if name not in learned]:
                lines.append(f"- {kind}: {claim}: not compared ({verdicts.LEARNED_NOTHING}: {' and '.join(nothing)}).")
                continue
            band = verdicts.seed_band(spread, f"coref/{kind}/conll/{first}",
                                      None if second == LEMMA_ROW else f"coref/{kind}/conll/{second}")
            first_clusters, second_clusters = (lemma_clusters(test, kind) if name == LEMMA_ROW
                                               else runs[name, kind].test_clusters for name in (first, second))
            diff = conll_difference(mentions, first_clusters, second_clusters, band)
            lines.append(verdicts.claim_line(f"{kind}: {claim} (paper: {gap:+.1f})", diff, "CoNLL F1", scale=1.0))
    return lines


def run_line(run: CorefRun, config: "CorefConfig") -> str:
    """One line per encoder and mention kind as notebook 04 fine-tunes it: test CoNLL F1 (%), threshold, training
    time and recipe."""
    return (f"{row_label(run.model):<12} {run.kind:<6} test CoNLL F1 {100 * run.test_scores.conll:5.1f}  "
            f"(threshold {run.threshold}, {run.train_seconds:.0f} s training: {config.epochs} epoch(s) at lr "
            f"{config.learning_rate:g}, batch {config.batch_size})")
