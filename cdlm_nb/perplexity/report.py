"""Notebook 03's tables, figures, readings and recorded metrics: Table 1 ours beside the CDLM paper's, the paired
comparison with CDLM, the split by answer location and the attention reach."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import verdicts
from ..data.corpora import HELDOUT_SPLITS
from ..masking import MASKED_GLOBAL_PATTERNS
from ..support.errors import DataError
from ..variants import DISPLAY_NAMES, TRAINED_ON, attention_pattern_of, display_name, load_result
from .bootstrap import lower_reading, paired_difference
from .evaluate import global_attention_reach, perplexity_by_answer_location, uniform_reach, with_start

if TYPE_CHECKING:
    from datasets import Dataset
    from matplotlib.figure import Figure
    from transformers import PreTrainedTokenizerBase

    from ..encoders import Encoder
    from ..profiles import Profile
    from .bootstrap import PerplexityResult

#: Cross-document perplexity on Multi-News (validation, test) in Table 1 of the paper's two versions (Caciularu et al.):
#: "v1", the preprint "Cross-Document Language Modeling", arXiv:2101.00406v1 (2021), without Local or Prefix rows;
#: "final", "CDLM: Cross-Document Language Modeling", Findings of EMNLP 2021 (arXiv:2101.00406v2).
PAPER_TABLE1 = {"v1": {"longformer": (2.03, 2.34), "rand": (1.88, 1.93), "cdlm": (1.69, 1.76)},
                "final": {"longformer": (3.89, 3.94), "local": (3.78, 3.84), "rand": (3.68, 3.81),
                          "prefix": (3.20, 3.41), "cdlm": (3.23, 3.39)}}
CROSS_DOCUMENT = "another document only"  # the answer location that needs attention across documents
UNIFORM, UNIFORM_LAYER = "Uniform attention", "any layer"  # the attention-reach table's scale row
_VARIANT_OF = {label: variant for variant, label in DISPLAY_NAMES.items()} | {UNIFORM: "uniform"}  # row -> model


def paper_table1() -> pd.DataFrame:
    """The CDLM paper's Table 1 (both versions) with our model names; NaN where a version has no such row."""
    variants = list(PAPER_TABLE1["final"])
    columns = {f"paper {version} {split}": [PAPER_TABLE1[version].get(v, (float("nan"),) * 2)[i] for v in variants]
               for version in PAPER_TABLE1 for i, split in enumerate(HELDOUT_SPLITS)}
    return pd.DataFrame(columns, index=pd.Index([display_name(v) for v in variants], name="model"))


def our_table1(scores: dict[str, list["PerplexityResult"]], missing: dict[str, str] | None = None) -> pd.DataFrame:
    """Our perplexity and interval per split beside `paper_table1()`; `missing` says why a model was not evaluated."""
    ours = pd.concat([pd.DataFrame({f"ours {split}": [r.ppl for r in results],
                                    f"ours {split} 95% CI": [f"[{r.ci_low:.2f}, {r.ci_high:.2f}]" for r in results]},
                                   index=pd.Index([display_name(r.variant) for r in results], name="model"))
                      for split, results in scores.items()], axis=1)
    paper = paper_table1()
    order = [*paper.index, *(model for model in ours.index if model not in paper.index)]
    table = ours.join(paper, how="outer").reindex(order)
    if missing:
        table["not evaluated"] = [missing.get(model, "") for model in table.index]
    return table


def perplexity_table(results: list["PerplexityResult"], reference: str | None = "cdlm", n_resamples: int = 1000,
                     confidence: float = verdicts.CONFIDENCE) -> pd.DataFrame:
    """Perplexity with its interval per model, and the paired difference to `reference` with its interval."""
    base = next((r for r in results if r.variant == reference), None) if reference else None
    rows = []
    for r in results:
        rows.append({"model": display_name(r.variant), "perplexity": r.ppl, "ci_low": r.ci_low, "ci_high": r.ci_high,
                     "masked_tokens": r.n_tokens, "clusters": r.n_clusters})
        if base is not None and r is not base:
            diff, low, high = paired_difference(r, base, n_resamples, confidence)
            rows[-1] |= {f"minus_{reference}": diff, "diff_ci_low": low, "diff_ci_high": high,
                         "interval excludes 0": bool(low > 0 or high < 0)}
    return pd.DataFrame(rows).set_index("model")


def plot_perplexity(results: list["PerplexityResult"]) -> "Figure":
    """Bar chart of the perplexities with their bootstrap intervals as error bars (lower is better)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar([display_name(r.variant) for r in results], [r.ppl for r in results],
           yerr=[[r.ppl - r.ci_low for r in results], [r.ci_high - r.ppl for r in results]], capsize=4,
           color=["tab:orange" if r.variant == "cdlm" else "tab:blue" for r in results])
    ax.set(ylabel="cross-document perplexity", title="Held-out clusters, 15 % masked (lower is better)")
    ax.tick_params(axis="x", rotation=20)
    fig.tight_layout()
    return fig


def training_tokens_table(results: list["PerplexityResult"], run_dir: str | os.PathLike) -> pd.DataFrame:
    """What each model was trained on after the start and how many tokens (notebook 02's), beside its perplexity."""
    return pd.DataFrame({"trained on (after the start)": [TRAINED_ON.get(r.variant, "") for r in results],
                         "pretraining tokens": [load_result(run_dir, r.variant).tokens for r in results],
                         "test perplexity": [r.ppl for r in results]},
                        index=pd.Index([display_name(r.variant) for r in results], name="model"))


def answer_location_table(models: dict[str, "Encoder"], tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                          profile: "Profile") -> pd.DataFrame:
    """Every model's perplexity by where the masked token's answer is visible; the last row counts the tokens."""
    tables = {display_name(variant): perplexity_by_answer_location(
                  encoder.model, tokenizer, examples, variant, window=profile.encoder.attention_window,
                  batch_size=profile.pretrain.eval_batch_size) for variant, encoder in models.items()}
    counts = next(iter(tables.values()))["masked_tokens"].rename("masked tokens")
    return pd.concat([pd.DataFrame({model: t["perplexity"] for model, t in tables.items()}).T, counts.to_frame().T])


def attention_reach_table(models: dict[str, "Encoder"], tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                          profile: "Profile", start: "Encoder | None" = None) -> pd.DataFrame:
    """Per model and layer, where global masked tokens attend (percent): the `start` first, the uniform scale last."""
    window = profile.encoder.attention_window
    tables = {display_name(name): 100 * global_attention_reach(
                  encoder.model, tokenizer, examples, variant, window=window,
                  batch_size=profile.pretrain.eval_batch_size)
              for name, encoder, variant in with_start(models, start)
              if attention_pattern_of(variant) in MASKED_GLOBAL_PATTERNS}
    if not tables:
        return pd.DataFrame()
    uniform = 100 * uniform_reach(tokenizer, examples, "cdlm", window).to_frame(UNIFORM_LAYER).T
    return pd.concat({**tables, UNIFORM: uniform}, names=["model"])


def plot_answer_location(by_answer: pd.DataFrame) -> "Figure":
    """`answer_location_table` as grouped bars: each model's perplexity per answer location (log scale; CDLM orange)."""
    import textwrap

    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter

    counts, models = by_answer.loc["masked tokens"], by_answer.drop(index="masked tokens")
    others = iter(plt.get_cmap("tab10")([0, 2, 3, 4, 5, 6, 7, 8, 9]))  # tab10 without its orange
    x, width = np.arange(len(models.columns)), 0.8 / max(1, len(models))
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for k, (model, row) in enumerate(models.iterrows()):
        ax.bar(x + (k - (len(models) - 1) / 2) * width, row.to_numpy(dtype=float), width, label=model,
               color="tab:orange" if model == display_name("cdlm") else next(others, "tab:gray"))
    ax.set_xticks(x, [f"{textwrap.fill(str(column), 18)}\n({int(counts[column])} tokens)" for column in models],
                  fontsize=8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    low, high = ax.get_ylim()
    if high < 10 * low:  # less than a decade: label the minor ticks too, or the axis has no numbers at all
        ax.yaxis.set_minor_formatter(FormatStrFormatter("%g"))
    ax.set(ylabel="perplexity (log scale)", title="Test perplexity by where the masked token's answer is visible")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_attention_reach(reach: pd.DataFrame) -> "Figure":
    """`attention_reach_table` as stacked horizontal bars, one per model and layer; a note when the table is empty."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 0.45 * max(3, len(reach)) + 1.2))
    if reach.empty:
        ax.text(0.5, 0.5, "No model here gives its masked tokens global attention.", ha="center", va="center")
        ax.set_axis_off()
        return fig
    rows, left = [f"{model}, {layer}" for model, layer in reach.index], np.zeros(len(reach))
    for column, values in reach.items():
        ax.barh(rows, values.to_numpy(dtype=float), left=left, label=column)
        left = left + values.to_numpy(dtype=float)
    ax.invert_yaxis()
    ax.set(xlim=(0, 100), xlabel="share of a masked token's global attention (%)",
           title="Where a global masked token looks")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def _leads(results: list["PerplexityResult"], reference: str, against: list[str] | tuple[str, ...],
           n_resamples: int, profile: str | None) -> tuple["PerplexityResult", dict[str, verdicts.Difference], bool]:
    """(`reference`'s result, per evaluated model of `against` its paired lead and seed band, whether a band exists)."""
    by_variant = {result.variant: result for result in results}
    if reference not in by_variant:
        raise DataError(f"no {reference!r} result among {sorted(by_variant)}")
    base, spread = by_variant[reference], verdicts.load_spread(profile) if profile else None
    leads = {}
    for variant in (v for v in against if v in by_variant):
        diff, low, high = paired_difference(base, by_variant[variant], n_resamples)
        leads[variant] = verdicts.Difference(-diff, -high, -low,
                                             verdicts.paired_band(spread, f"perplexity/paired/{variant}"))
    return base, leads, spread is not None


def perplexity_findings(results: list["PerplexityResult"], reference: str = "cdlm", n_resamples: int = 1000,
                        profile: str | None = None) -> list[str]:
    """Per other model: `reference` minus it with paired interval and seed band, and the verdict on its being lower."""
    others = [result.variant for result in results if result.variant != reference]
    base, leads, _ = _leads(results, reference, others, n_resamples, profile)
    name, ppl = display_name(reference), {result.variant: result.ppl for result in results}
    return [f"{name} {base.ppl:.3f} vs {display_name(v)} {ppl[v]:.3f}: {name} minus {display_name(v)} "
            f"{lower_reading(lead, digits=3)}." for v, lead in leads.items()]


def perplexity_verdict(results: list["PerplexityResult"], reference: str = "cdlm",
                       against: tuple[str, ...] = ("longformer", "local", "rand"), n_resamples: int = 1000,
                       profile: str | None = None) -> str:
    """Table 1's headline: the verdict on `reference` being lower than each of `against`: is the paper's seen?"""
    _, leads, measured = _leads(results, reference, against, n_resamples, profile)
    name, missing = display_name(reference), [display_name(v) for v in against if v not in leads]
    if not leads:
        return (f"The paper's ordering ({name} lower than {', '.join(missing)}) cannot be checked here: none of them "
                "was evaluated.")
    named = {verdict: [display_name(v) for v, lead in leads.items() if lead.verdict == verdict]
             for verdict in (verdicts.HOLDS, verdicts.REVERSED, verdicts.UNRESOLVED)}
    held = len(named[verdicts.HOLDS])
    extent = "" if held == len(leads) else "only partly " if held else "not "
    caveat = "" if measured else " (no pretraining seed spread measured for this profile: nothing can hold)"
    unread = f" among the models evaluated (not evaluated: {', '.join(missing)})" if missing else ""
    return (f"{name} has a lower perplexity than {held} of the {len(leads)} models beyond the "
            f"paired {verdicts.CONFIDENCE:.0%} interval and the pretraining seed band{caveat}: "
            + "; ".join(f"{verdict} for {', '.join(names)}" for verdict, names in named.items() if names)
            + f". The paper's ordering is {extent}reproduced here{unread}.")


def reach_readings(reach: pd.DataFrame) -> list[str]:
    """Per model, the last layer's shares within 2 tokens and on other documents (a description, no verdict)."""
    if reach.empty:
        return ["No model here gives its masked tokens global attention."]
    last = reach.groupby(level="model", sort=False).last()  # each model's last layer
    near, other, uniform = "within 2 tokens", "other documents", last.loc[UNIFORM]
    return [f"{model}: {row[near]:.1f} % of the last layer's attention within 2 tokens ({row[near] / uniform[near]:.1f}"
            f"× uniform attention's {uniform[near]:.1f} %), {row[other]:.1f} % on the other documents (uniform: "
            f"{uniform[other]:.1f} %)." for model, row in last.drop(UNIFORM).iterrows()]


def perplexity_metrics(scores: dict[str, list["PerplexityResult"]]) -> dict[str, float]:
    """`perplexity/<model>` with `/ci_low` and `/ci_high` on the test clusters, `perplexity/validation/<model>`."""
    return {f"perplexity/{r.variant}{suffix}": value for r in scores["test"]
            for suffix, value in (("", r.ppl), ("/ci_low", r.ci_low), ("/ci_high", r.ci_high))
            } | {f"perplexity/validation/{r.variant}": r.ppl for r in scores["validation"]}


def answer_location_metrics(by_answer: pd.DataFrame) -> dict[str, float]:
    """`perplexity/another_document_only/<model>`; empty when no masked token has its answer only there."""
    column = by_answer[CROSS_DOCUMENT]
    if column["masked tokens"] == 0:
        return {}
    return {f"perplexity/another_document_only/{_VARIANT_OF[model]}": float(value)
            for model, value in column.drop("masked tokens").items()}


def attention_reach_metrics(reach: pd.DataFrame) -> dict[str, float]:
    """`attention_reach/<model>/<where>` of each model's last layer (percent), `local_window` the whole local window."""
    last = reach.groupby(level="model", sort=False).last().iterrows() if len(reach) else ()
    return {f"attention_reach/{_VARIANT_OF[model]}/{name}": float(value) for model, row in last for name, value in (
        ("other_documents", row["other documents"]),
        ("local_window", row["within 2 tokens"] + row["rest of the local window"]),
        ("within_2_tokens", row["within 2 tokens"]))}
