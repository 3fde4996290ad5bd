"""Figures of notebook 01 (reused later): a cluster's facts highlighted (`facts_html`), a packed input as wrapped text
(`plot_packed_input`) and the attention patterns side by side (`plot_patterns`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .attention_pattern import GLOBAL_ATTENTION, LOCAL_ATTENTION, attention_kinds, global_fraction
from .support.errors import ConfigError

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from transformers import PreTrainedTokenizerBase

#: Heatmap colours: no attention, sliding window, through a global token.
PATTERN_COLOURS = ("#ffffff", "#9ecae1", "#e6550d")
PATTERN_LABELS = ("no attention", "local window", "via global attention")
MASKED_EDGE = "#cb181d"
GLOBAL_MARK = "#08306b"
NO_DOCUMENT_COLOUR = "#d9d9d9"
_MONO_ADVANCE = 0.602  # width of one DejaVu Sans Mono glyph, in ems


def readable_tokens(tokenizer: "PreTrainedTokenizerBase", input_ids: Sequence[int]) -> list[str]:
    """Each token id decoded on its own (a leading space marks a word start), special tokens as written."""
    return [tokenizer.decode([int(i)], clean_up_tokenization_spaces=False) for i in input_ids]


def document_palette(n_documents: int) -> list[str]:
    """One light colour per document, repeating after ten: tab20's light half, yellow for its grey (no document)."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    light = [to_hex(colormaps["tab20"](2 * k + 1)) for k in range(10) if k != 7] + ["#ffffb3"]  # no grey
    return [light[k % len(light)] for k in range(max(n_documents, 1))]


def facts_html(documents: Sequence[str], facts: Iterable[Mapping], fact: str) -> str:
    """A cluster's documents as HTML paragraphs, each statement of `fact` (the world's `facts` rows) highlighted
    (yellow: the true value, red: a wrong one)."""
    import html

    spans: dict[int, list[tuple[int, int, bool]]] = {}
    for row in facts:
        if row["fact"] == fact:
            spans.setdefault(row["doc_index"], []).append((row["char_start"], row["char_end"], row["correct"]))
    if not spans:
        raise ConfigError(f"no statement of fact {fact!r} in these documents")
    paragraphs = []
    for index, text in enumerate(documents):
        pieces, cursor = [], 0
        for start, end, correct in sorted(spans.get(index, [])):
            colour = "#fff3a0" if correct else "#fcbba1"
            pieces += [html.escape(text[cursor:start]),
                       f'<mark style="background:{colour}">{html.escape(text[start:end])}</mark>']
            cursor = end
        pieces.append(html.escape(text[cursor:]))
        paragraphs.append(f"<p><b>document {index + 1}</b> ({len(spans.get(index, []))} statement(s)): "
                          + "".join(pieces) + "</p>")
    return "\n".join(paragraphs)


class _Placed(NamedTuple):  # where one token goes in the wrapped text
    line: int
    column: int
    text: str


def _layout(tokens: Sequence[str], line_chars: int) -> list[_Placed]:
    """Wrap tokens into lines of `line_chars` characters a word at a time (a token with a leading space or a special
    token, then the subwords that continue it)."""
    words: list[list[str]] = []
    for token in tokens:
        text = token.replace("\n", "↵")
        starts_word = text.startswith(" ") or (text.startswith("<") and text.endswith(">"))
        text = (text.strip(" ") or "·")[:line_chars]
        if starts_word or not words:
            words.append([text])
        else:
            words[-1].append(text)
    placed, line, column = [], 0, 0
    for word in words:
        gap = 1 if column > 0 else 0
        if column + gap + len("".join(word)) > line_chars and column > 0:
            line, column, gap = line + 1, 0, 0
        column += gap
        for text in word:
            if column + len(text) > line_chars:  # a word longer than a line: break inside it
                line, column = line + 1, 0
            placed.append(_Placed(line, column, text))
            column += len(text)
    return placed


def plot_packed_input(tokens: Sequence[str], doc_index: Sequence[int], masked: Sequence[bool] | None = None,
                      global_mask: Sequence[bool] | None = None, title: str = "", line_chars: int = 110,
                      fontsize: float = 7.5) -> "Figure":
    """A packed input as wrapped text: background colour = document (grey: no document, e.g. `<s>`), red outline
    = predicted (masked) token, dark underline = token with global attention."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Patch, Rectangle

    n = len(tokens)
    masked = np.zeros(n, bool) if masked is None else np.asarray(masked, dtype=bool)
    global_mask = np.zeros(n, bool) if global_mask is None else np.asarray(global_mask, dtype=bool)
    doc_index = np.asarray(doc_index)
    for name, values in (("doc_index", doc_index), ("masked", masked), ("global_mask", global_mask)):
        if len(values) != n:
            raise ConfigError(f"plot_packed_input: {name} has {len(values)} entries for {n} tokens")
    placed = _layout(tokens, line_chars)
    n_lines = (placed[-1].line + 1) if placed else 1
    n_documents = int(doc_index.max()) + 1 if n and doc_index.max() >= 0 else 0
    colours = document_palette(n_documents)
    height, header = n_lines * (fontsize * 1.9 / 72), 0.75
    fig = plt.figure(figsize=(line_chars * fontsize * _MONO_ADVANCE / 72, height + header))
    ax = fig.add_axes((0, 0, 1, height / (height + header)))
    ax.set(xlim=(0, line_chars), ylim=(n_lines, 0))
    ax.axis("off")
    boxes = [Rectangle((spot.column, spot.line + 0.08), len(spot.text), 0.84) for spot in placed]
    ax.add_collection(PatchCollection(
        boxes, facecolors=[colours[d] if d >= 0 else NO_DOCUMENT_COLOUR for d in doc_index],
        edgecolors=[MASKED_EDGE if m else "none" for m in masked], linewidths=1.0, zorder=1))
    underlines = [[(spot.column, spot.line + 0.9), (spot.column + len(spot.text), spot.line + 0.9)]
                  for spot, is_global in zip(placed, global_mask) if is_global]
    if underlines:
        ax.add_collection(LineCollection(underlines, colors=GLOBAL_MARK, linewidths=1.6, capstyle="butt", zorder=3))
    # One text per run of a word's tokens of one weight: fewer artists draw faster, and anchoring each word at its
    # column keeps the text on its boxes whatever the font's rounded glyph width.
    runs: list[list] = []  # [line, column, text, bold]
    for spot, is_bold in zip(placed, masked):
        run = runs[-1] if runs else None
        if run and run[0] == spot.line and run[1] + len(run[2]) == spot.column and run[3] == bool(is_bold):
            run[2] += spot.text
        else:
            runs.append([spot.line, spot.column, spot.text, bool(is_bold)])
    for line, column, text, bold in runs:
        ax.text(column, line + 0.5, text, family="monospace", fontsize=fontsize, va="center", ha="left", zorder=2,
                fontweight="bold" if bold else "normal")
    handles = [Patch(facecolor=colours[d], label=f"document {d + 1}") for d in range(n_documents)]
    if masked.any():
        handles.append(Patch(facecolor="white", edgecolor=MASKED_EDGE, label=f"predicted ({int(masked.sum())})"))
    if global_mask.any():
        handles.append(Patch(facecolor=GLOBAL_MARK, label=f"global attention ({int(global_mask.sum())})"))
    fig.legend(handles=handles, loc="upper left", ncol=min(len(handles), 6), frameon=False, fontsize=8,
               bbox_to_anchor=(0, 1 - 0.3 / fig.get_figheight()))
    if title:
        fig.suptitle(title, x=0, y=1, ha="left", va="top", fontsize=10)
    return fig


def plot_patterns(batches: Mapping[str, Mapping], window: int, doc_ids: Sequence[int] | None = None) -> "Figure":
    """One attention heatmap per attention pattern, side by side, from `{pattern: collated batch}` (row 0 of
    each; rows: query token i, columns: key token j), document boundaries as lines."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if not batches:
        raise ConfigError("plot_patterns got no batches")
    cmap = ListedColormap(PATTERN_COLOURS)
    starts = [] if doc_ids is None else np.flatnonzero(np.diff(np.asarray(doc_ids))) + 1  # where a document begins
    fig, axes = plt.subplots(1, len(batches), figsize=(3.3 * len(batches), 3.9), squeeze=False)
    for ax, (pattern, batch) in zip(axes[0], batches.items()):
        attention, is_global = batch["attention_mask"][0], batch["global_attention_mask"][0]
        ax.imshow(attention_kinds(attention, is_global, window), cmap=cmap, interpolation="nearest",
                  norm=BoundaryNorm([-0.5, 0.5, 1.5, 2.5], cmap.N), interpolation_stage="data")
        for start in starts:
            ax.axhline(start - 0.5, color="#555555", linewidth=0.5)
            ax.axvline(start - 0.5, color="#555555", linewidth=0.5)
        ax.set_xlabel("key token j (is read)", fontsize=8)
        ax.set_ylabel("query token i (reads)", fontsize=8)
        ax.set_title(f"{pattern}: {global_fraction(is_global, attention):.0%} global", fontsize=10)
        ax.tick_params(labelsize=7)
    handles = [Patch(facecolor=PATTERN_COLOURS[k], edgecolor="#999999", label=PATTERN_LABELS[k])
               for k in (LOCAL_ATTENTION, GLOBAL_ATTENTION)]
    if doc_ids is not None:
        handles.append(Line2D([], [], color="#555555", linewidth=0.8, label="document boundary"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=8)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig
