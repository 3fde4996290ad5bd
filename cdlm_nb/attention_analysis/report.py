"""Notebook 07's tables and readings: the pairs sampled, Table 6 (our MPR beside the paper's), the recorded
`mpr/...` metrics, the paired gaps the paper's claim rests on, skipped pairs, and the position confound."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import verdicts
from ..coref.mentions import MentionPair
from ..support.errors import DataError
from ..variants import display_name
from ..verdicts import reference_label
from .pairs import PAIR_LABELS, pair_label
from .ranking import PairAttention, mean_percentile_rank

#: Table 6 of the CDLM paper (§3.5): mean percentile rank (%) of the target span among the tokens of its
#: document, on 1,000 positive + 1,000 negative ECB+ pairs per mention kind, by pretrained model.
#: Keys: model -> (label, kind) -> MPR. "longformer" = Longformer-base without further pretraining.
PAPER_TABLE6_MPR: dict[str, dict[tuple[str, str], float]] = {
    "longformer": {("pos", "event"): 61.9, ("pos", "entity"): 59.7, ("neg", "event"): 54.8, ("neg", "entity"): 50.5},
    "local": {("pos", "event"): 62.2, ("pos", "entity"): 60.8, ("neg", "event"): 54.6, ("neg", "entity"): 52.6},
    "rand": {("pos", "event"): 70.6, ("pos", "entity"): 69.1, ("neg", "event"): 56.6, ("neg", "entity"): 53.2},
    "prefix": {("pos", "event"): 70.7, ("pos", "entity"): 69.4, ("neg", "event"): 58.5, ("neg", "entity"): 56.5},
    "cdlm": {("pos", "event"): 72.1, ("pos", "entity"): 70.3, ("neg", "event"): 58.0, ("neg", "entity"): 55.7},
}

#: The reference row: attention that ignores the target ranks it, on average, in the middle of its document.
CHANCE_MPR = 50.0


def sampled_counts(pairs: Mapping[str, Sequence[MentionPair]], asked: int) -> pd.DataFrame:
    """Pairs asked and sampled per (kind, label): fewer sampled than asked means the corpus had fewer."""
    return pd.DataFrame([{"kind": kind, "label": label, "asked": asked,
                          "sampled": sum(pair_label(p) == label for p in kind_pairs)}
                         for kind, kind_pairs in pairs.items() for label in PAIR_LABELS]).set_index(["kind", "label"])


def pair_preview(pairs: Mapping[str, Sequence[MentionPair]], n: int = 3) -> pd.DataFrame:
    """The first and last `n` pairs of every kind: source and target mention and their documents."""
    return pd.DataFrame([{"kind": kind, "coreferring": bool(p.label), "source": p.first.text,
                          "source doc": p.first.doc_id, "target": p.second.text, "target doc": p.second.doc_id}
                         for kind, kind_pairs in pairs.items() for p in list(kind_pairs[:n]) + list(kind_pairs[-n:])])


def analysed(results: pd.DataFrame) -> pd.DataFrame:
    """The scored rows (status "ok") of `run.analyse_pairs` results."""
    return results[results["status"] == "ok"]


def mpr_table(results: pd.DataFrame, models: Sequence[str] | None = None) -> pd.DataFrame:
    """Table 6's layout: one row per model, columns (label, kind) holding the MPR (%) of the scored pairs."""
    scored = analysed(results)
    table = scored.pivot_table(index="model", columns=["label", "kind"], values="percentile", aggfunc="mean")
    kinds = [k for k in ("event", "entity") if k in set(scored["kind"])]
    columns = [(label, kind) for label in PAIR_LABELS for kind in kinds if (label, kind) in table.columns]
    order = [m for m in (models or table.index) if m in table.index]
    return table.reindex(index=order, columns=columns)


def table6_with_paper(results: pd.DataFrame, models: Sequence[str] | None = None,
                      missing: dict[str, str] | None = None) -> pd.DataFrame:
    """Our MPR beside the paper's Table 6: columns (label, kind, "ours" / "paper"), rows by display name; a model of
    `missing` (display name -> how to get it) is a row of the paper's values, with how to get it in a last column."""
    missing = missing or {}
    ours = mpr_table(results, models)
    rows = [m for m in (models or ours.index) if m in ours.index or display_name(m) in missing]
    columns = pd.MultiIndex.from_tuples([(label, kind, who) for label, kind in ours.columns
                                         for who in ("ours", "paper")], names=["label", "kind", ""])
    table = pd.DataFrame(index=rows, columns=columns, dtype=float)
    for label, kind in ours.columns:
        table[(label, kind, "ours")] = ours[(label, kind)].reindex(rows)
        table[(label, kind, "paper")] = [PAPER_TABLE6_MPR.get(m, {}).get((label, kind), np.nan) for m in rows]
    table = table.rename(index=display_name)
    table.loc[reference_label("chance")] = [CHANCE_MPR] * len(columns)
    if missing:
        table[("", "", "not analysed")] = [missing.get(label, "") for label in table.index]
    return table


def mpr_metrics(results: pd.DataFrame) -> dict[str, float]:
    """`mpr/<label>/<model>` (the mean PR over all pairs, events and entities pooled), `mpr/<label>/<kind>/<model>`
    and the reference row `mpr/reference/chance`."""
    scored, keys = analysed(results), {"mpr/reference/chance": CHANCE_MPR}
    for columns in (["label", "model"], ["label", "kind", "model"]):
        keys |= {"mpr/" + "/".join(group): mean_percentile_rank(frame["percentile"])
                 for group, frame in scored.groupby(columns)}
    return keys


def paired_gap(results: pd.DataFrame, model: str, baseline: str, label: str) -> tuple[float, float, int]:
    """(mean, standard error, pairs) of `model`'s PR minus `baseline`'s over the pairs of `label` both scored,
    matched by kind and index: far less noisy than two separate MPRs."""
    scored = analysed(results).query("label == @label").set_index(["kind", "pair"])
    a, b = (scored.loc[scored["model"] == name, "percentile"] for name in (model, baseline))
    gap = (a - b).dropna()  # pairs skipped by either model are left out, and counted in the third value
    if gap.empty:
        raise DataError(f"no {label} pairs scored by both {model!r} and {baseline!r}")
    return float(gap.mean()), float(gap.sem()) if len(gap) > 1 else float("nan"), len(gap)


def label_gap(results: pd.DataFrame, model: str) -> tuple[float, float]:
    """(difference, standard error) of `model`'s MPR on coreferring minus non-coreferring pairs (independent
    samples: the standard errors add in quadrature)."""
    by_label = analysed(results).query("model == @model").groupby("label")["percentile"]
    means, sems = by_label.mean(), by_label.sem()
    if not {"pos", "neg"} <= set(means.index):
        raise DataError(f"model {model!r} has no scored pos and neg pairs to compare")
    return float(means["pos"] - means["neg"]), float(np.hypot(sems["pos"], sems["neg"]))


def readings(results: pd.DataFrame, model: str = "cdlm", baseline: str = "local") -> list[str]:
    """Per model, its coreferring MPR minus chance's 50, with a 95 % bootstrap interval over the pairs (no seed band:
    the pretrained models are fixed); when `model` and `baseline` both beat chance, the two gaps Table 6's claim
    rests on: `model` minus `baseline` on the same coreferring pairs, and `model`'s pos minus neg pairs."""
    chance = {name: verdicts.mean_difference(group["percentile"].to_numpy(), np.full(len(group), CHANCE_MPR), None)
              for name, group in analysed(results).query("label == 'pos'").groupby("model", sort=False)}
    lines = [f"{display_name(name)}: coreferring MPR minus the 50 of chance {diff.value:+.1f} (95 % bootstrap "
             f"{diff.low:+.1f} to {diff.high:+.1f}) -> "
             + ("above chance" if diff.low > 0 else f"at or below chance: {verdicts.LEARNED_NOTHING}")
             for name, diff in chance.items()]
    if not {model, baseline} <= set(results["model"]):
        return lines
    name, base = display_name(model), display_name(baseline)
    if nothing := [display_name(n) for n in (model, baseline) if chance[n].low <= 0]:
        return [*lines, f"{name} vs {base}: {verdicts.UNCHECKED} ({verdicts.LEARNED_NOTHING}: {' and '.join(nothing)})"]
    (gap, sem, n), (label, label_sem) = paired_gap(results, model, baseline, "pos"), label_gap(results, model)
    return [*lines, f"{name} minus {base} on the same {n} coreferring pairs: {gap:+.1f} points (± {sem:.1f} standard "
                    "error)",
            f"{name} coreferring minus non-coreferring pairs: {label:+.1f} points (± {label_sem:.1f} standard error)"]


def skip_report(results: pd.DataFrame) -> pd.DataFrame:
    """Per model (display names): pairs scored and skipped (by reason), and pairs with a document cut to fit."""
    counts = results.pivot_table(index="model", columns="status", values="kind", aggfunc="size", fill_value=0)
    counts["truncated pairs"] = results.assign(cut=results["truncated_documents"] > 0).groupby("model")["cut"].sum()
    return counts.rename(index=display_name)


def position_correlation(explained: PairAttention) -> float:
    """Spearman correlation of a candidate's position with its score s(i|S): how much of the ranking follows
    position rather than content; NaN with fewer than 3 candidates or all tied (the table's mean leaves it out)."""
    from scipy.stats import spearmanr

    scores = explained.scores[explained.candidates]
    if len(explained.candidates) < 3 or np.ptp(scores) == 0:
        return float("nan")
    return float(spearmanr(explained.candidates, scores).statistic)


def position_table(examples: Mapping[str, Mapping[int, PairAttention | str]]) -> pd.DataFrame:
    """Per model (display names): the mean `position_correlation` over its scored kept examples."""
    return pd.Series({display_name(model): np.nanmean([position_correlation(r) for r in kept.values()
                                                       if not isinstance(r, str)])
                      for model, kept in examples.items()}, name="Spearman(position, score)").to_frame()
