"""Notebook 07's figures: the MPR bars beside the paper's Table 6, and Figure 3 (a target document's tokens shaded
by their score s(i|S)) as a matplotlib figure or HTML for the browser."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..coref.mentions import MentionPair
from ..plots import readable_tokens
from ..support.errors import DataError
from ..variants import display_name
from .pairs import pair_label
from .ranking import PairAttention
from .report import PAPER_TABLE6_MPR, mpr_metrics

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure
    from transformers import PreTrainedTokenizerBase

    from .experiment import ModelAnalyses

UNRANKED = "#dddddd"  # the colour of a token that is not a candidate (punctuation, separators)


def plot_mpr(results: "pd.DataFrame", models: Sequence[str]) -> "Figure":
    """Our MPR of positive and negative pairs per model (events and entities pooled) as bars, the paper's Table 6
    (mean of its event and entity columns) as black marks, and chance's 50 %."""
    import matplotlib.pyplot as plt

    keys = mpr_metrics(results)
    shown = [m for m in models if f"mpr/pos/{m}" in keys or f"mpr/neg/{m}" in keys]
    fig, ax = plt.subplots(figsize=(1.3 * len(shown) + 2, 3.5))
    for offset, label, color, name in ((-0.2, "pos", "tab:red", "coreferring pairs"),
                                       (0.2, "neg", "tab:blue", "non-coreferring pairs")):
        xs = [i + offset for i in range(len(shown))]
        ax.bar(xs, [keys.get(f"mpr/{label}/{m}", np.nan) for m in shown], width=0.4, color=color, label=name)
        paper = [np.mean([PAPER_TABLE6_MPR[m][(label, k)] for k in ("event", "entity")]) if m in PAPER_TABLE6_MPR
                 else np.nan for m in shown]
        ax.scatter(xs, paper, marker="_", s=400, color="black", zorder=3, label="paper" if label == "pos" else None)
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(range(len(shown)), [display_name(m) for m in shown])
    ax.set(ylabel="mean percentile rank (%)", ylim=(0, 100))
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def token_shades(explained: PairAttention) -> dict[int, float]:
    """Each candidate's rank (0-1) among the candidates: a colour scale that reads the same whatever the softmax's
    absolute values (which shrink with the input's length)."""
    order = explained.scores[explained.candidates].argsort().argsort()
    return {p: float(r) / max(len(order) - 1, 1) for p, r in zip(explained.candidates, order)}


def document_tokens(explained: PairAttention, tokenizer: "PreTrainedTokenizerBase") -> list[tuple[str, object, bool]]:
    """(text, colour, in T?) for every token of the target document: `Reds` at 0.1 + 0.8 × its shade, or grey."""
    import matplotlib.pyplot as plt

    shades, target = token_shades(explained), set(explained.item.target_positions)
    document, cmap = explained.item.target_document, plt.get_cmap("Reds")
    texts = readable_tokens(tokenizer, explained.item.input_ids[document.start:document.stop])
    return [(text, cmap(0.1 + 0.8 * shades[p]) if p in shades else UNRANKED, p in target)
            for text, p in zip(texts, document)]


def plot_target_document(explained: PairAttention, tokenizer: "PreTrainedTokenizerBase", title: str = "",
                         max_tokens: int = 160, line_chars: int = 90, ax=None) -> "Figure":
    """Figure 3: the target document's first `max_tokens` tokens shaded by their rank of s(i|S) (darker: more
    attention to and from the source span), the target span boxed, unranked tokens in grey."""
    import matplotlib.pyplot as plt

    lines, width = [[]], 0
    for text, color, in_target in document_tokens(explained, tokenizer)[:max_tokens]:
        shown = text.replace("\n", " ")
        if width + len(shown) > line_chars and lines[-1]:
            lines.append([])
            width = 0
        lines[-1].append((shown, color, in_target, width))
        width += len(shown)
    if ax is None:
        _, ax = plt.subplots(figsize=(line_chars * 0.11, 0.35 * len(lines) + 0.8))
    for row, items in enumerate(lines):
        for shown, color, in_target, column in items:
            ax.text(column / line_chars, 1 - (row + 0.5) / len(lines), shown, family="monospace", fontsize=9,
                    va="center", ha="left", bbox={"facecolor": color, "edgecolor": "black" if in_target else color,
                                                  "linewidth": 1.5 if in_target else 0, "pad": 1.5})
    ax.set_axis_off()
    ax.set_title(title or f"target {explained.pair.second.text!r} | source {explained.pair.first.text!r}: "
                          f"PR {explained.percentile:.0f} %", fontsize=10, loc="left")
    shading = plt.cm.ScalarMappable(norm=plt.Normalize(-0.125, 1.125), cmap="Reds")  # shade s is drawn at 0.1 + 0.8 s
    bar = ax.figure.colorbar(shading, ax=ax, fraction=0.025, pad=0.01, ticks=[0, 0.5, 1])
    bar.ax.set_ylim(0, 1)
    bar.set_label("rank of s(i|S)\n(0 lowest, 1 highest)", fontsize=8)
    return ax.figure


def figure3(analyses: "ModelAnalyses", shown: Sequence[MentionPair],
            models: Sequence[str] = ("longformer", "cdlm")) -> "Figure":
    """Figure 3: the first kept coreferring pair every compared model scored (`models`, else the first two run),
    its target document once per model; models that shade it alike share one panel."""
    import matplotlib.pyplot as plt

    examples = analyses.examples
    compared = [m for m in models if m in examples] or list(examples)[:2]
    first = next((i for i, p in enumerate(shown)
                  if p.label == 1 and not any(isinstance(examples[m][i], str) for m in compared)), None)
    if first is None:
        raise DataError("no kept coreferring pair was scored by every compared model: nothing to draw")
    pair, panels = shown[first], {}
    for variant in compared:
        panels.setdefault(tuple(sorted(token_shades(examples[variant][first]).items())), []).append(variant)
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.2 * len(panels)))
    for ax, variants in zip(np.atleast_1d(axes), panels.values()):
        explained = examples[variants[0]][first]
        names = " and ".join(display_name(v) for v in variants) + (" (the same shading)" if len(variants) > 1 else "")
        plot_target_document(explained, analyses.tokenizers[variants[0]], ax=ax,
                             title=f"{names}: target {pair.second.text!r} ({pair.second.doc_id}) | source "
                                   f"{pair.first.text!r} ({pair.first.doc_id}): PR {explained.percentile:.0f} %")
    return fig


def html_target_document(explained: PairAttention, tokenizer: "PreTrainedTokenizerBase") -> str:
    """`plot_target_document`'s view as HTML spans (for the interactive browser)."""
    import html

    from matplotlib.colors import to_hex

    spans = "".join(f'<span style="background:{to_hex(color)};{"border:2px solid black;" if in_target else ""}'
                    f'white-space:pre">{html.escape(text)}</span>'
                    for text, color, in_target in document_tokens(explained, tokenizer))
    pair = explained.pair
    return (f"<p><b>source</b> {html.escape(pair.first.text)} ({pair.first.doc_id}) → <b>target</b> "
            f"{html.escape(pair.second.text)} ({pair.second.doc_id}), "
            f"{'coreferring' if pair.label else 'not coreferring'}"
            f": s(T|S) = {explained.target_score:.3g}, PR = {explained.percentile:.1f} %</p>"
            f'<div style="font-family:monospace;line-height:1.8">{spans}</div>')


def example_pages(analyses: "ModelAnalyses", shown: Sequence[MentionPair]) -> dict[str, str]:
    """`{"<model> | <kind> <label> | source → target": HTML}` for every kept example a model scored."""
    return {f"{display_name(model)} | {p.first.kind} {pair_label(p)} | {p.first.text} → {p.second.text}":
            html_target_document(kept[i], analyses.tokenizers[model])
            for model, kept in analyses.examples.items() for i, p in enumerate(shown) if not isinstance(kept[i], str)}
