"""Can the starting model read its whole input? Its perplexity on held-out clusters packed to several lengths, under
each attention pattern a variant trains with: a start whose far positions were never trained is far worse once
attention reaches them, handicapping the variants with global attention (docs/experiments.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from ..encoders import with_attention_window
from ..variants import starts_pretrained
from .heldout import heldout_examples, heldout_perplexity
from .stages import base_stages, starting_model

if TYPE_CHECKING:
    from datasets import Dataset
    from matplotlib.figure import Figure

    from ..encoders import Encoder
    from ..profiles import Profile

START_PATTERNS = ("local", "cdlm", "prefix", "full")
#: Held-out clusters scored per length: enough for that gap to show, few enough to score in seconds on a CPU.
START_CHECK_CLUSTERS = 20
#: The start the first base stage alone makes (its positions copied out, not trained), and the one used.
FIRST_STAGE_ONLY, START = "first base stage only", "start"

Scores = dict[tuple[str, int], float]


def start_lengths(profile: "Profile") -> tuple[int, ...]:
    """The packed lengths checked: an eighth, a quarter and all of the pretraining length (cpu: 128, 256, 1,024)."""
    length = profile.pretrain.max_length
    return (length // 8, length // 4, length)


def starts_to_check(profile: "Profile", run_dir: str | os.PathLike) -> "dict[str, Encoder]":
    """The start and, after a second base stage, the start the first stage alone would have made; {} without one."""
    start = starting_model(profile, run_dir)
    if start is None:
        return {}
    if starts_pretrained(profile) or len(base_stages(profile.pretrain)) == 1:
        return {START: start}
    return {FIRST_STAGE_ONLY: starting_model(profile, run_dir, stages=1), START: start}


def start_perplexity(start: "Encoder", clusters: "Dataset", profile: "Profile", lengths: Sequence[int] | None = None,
                     n_clusters: int = START_CHECK_CLUSTERS) -> Scores:
    """(pattern, packed length) -> `start`'s perplexity on the first `n_clusters` (notebook 03's packing, masks)."""
    subset = clusters.select(range(min(n_clusters, len(clusters))))
    scores = {}
    for length in lengths or start_lengths(profile):
        examples = heldout_examples(subset, start.tokenizer, profile, max_length=length)
        for pattern in START_PATTERNS:
            model = with_attention_window(start.model, 2 * length) if pattern == "full" else start.model
            variant = "local" if pattern == "full" else pattern
            scores[pattern, length] = heldout_perplexity(model, start.tokenizer, examples, variant,
                                                         profile.pretrain.eval_batch_size, desc=f"perplexity {variant}")
    return scores


def start_metrics(scores: Scores) -> dict[str, float]:
    """The start's scores as recorded metrics: `start/<pattern>/<length>`."""
    return {f"start/{pattern}/{length}": value for (pattern, length), value in scores.items()}


def start_table(checked: Mapping[str, Scores]) -> pd.DataFrame:
    """One row per (start, pattern), one column per packed length: the perplexities of `start_perplexity`."""
    table = pd.concat({name: pd.Series(scores).unstack().reindex(START_PATTERNS) for name, scores in checked.items()},
                      names=["start", "pattern"])
    return table.rename_axis(columns="packed length")


def start_reading(checked: Mapping[str, Scores]) -> str:
    """At the longest length, each start's cdlm and full-attention perplexity as a multiple of its local one."""
    lines = []
    for name, scores in checked.items():
        length = max(length for _, length in scores)
        local, cdlm, full = (scores[pattern, length] for pattern in ("local", "cdlm", "full"))
        lines.append(f"{name}, {length:,} tokens: local {local:.2f}; with global masked tokens (cdlm) {cdlm:.2f} "
                     f"({cdlm / local:.1f}x local); full attention {full:.2f} ({full / local:.1f}x local)")
    return "\n".join(lines)


def plot_start_perplexity(checked: Mapping[str, Scores]) -> "Figure":
    """Perplexity (log scale) against packed length, one line per pattern, one panel per start."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(checked), figsize=(4.2 * len(checked), 3.4), sharey=True, squeeze=False)
    for ax, (name, scores) in zip(axes[0], checked.items()):
        for pattern in START_PATTERNS:
            points = sorted((length, value) for (p, length), value in scores.items() if p == pattern)
            ax.plot(*zip(*points), marker="o", label=pattern)
        ax.set_xscale("log", base=2)
        ax.set(yscale="log", xlabel="packed length (tokens)", title=name)
    axes[0][0].set_ylabel("validation perplexity")
    axes[0][-1].legend(frameon=False, title="attention pattern")
    fig.tight_layout()
    return fig
