"""The learning curves of notebook 02's runs (validation perplexity against steps, `pretraining.curve`): the paper
trains 25,000 steps from Longformer-base, the cpu profile 1,000 from a tiny base, so where the variants' orderings
cross, not only the last point, says whether the paper's ordering is on its way."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..support.paths import repo_root
from ..variants import display_name, load_result

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def learning_curves(run_dir: str | os.PathLike, variants: tuple[str, ...]) -> pd.DataFrame:
    """Validation perplexity (rows: steps, columns: variants) from each model's saved `perplexity_history`."""
    return curve_frame({v: load_result(run_dir, v).perplexity_history for v in variants})


def curve_frame(points: Mapping[str, Iterable[Sequence[float]]]) -> pd.DataFrame:
    """(step, perplexity) points per variant as a table (rows: steps, columns: variants); empty curves left out."""
    columns = {variant: {int(step): value for step, value in curve} for variant, curve in points.items()}
    return pd.DataFrame({v: column for v, column in columns.items() if column}).rename_axis("step").sort_index()


def plot_learning_curves(curves: pd.DataFrame, reference: str = "cdlm", ours: pd.DataFrame | None = None) -> "Figure":
    """Validation perplexity against steps per variant; with `ours`, `curves` are measured and this run's dashed."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for variant in curves:
        name = display_name(variant)
        (line,) = ax.plot(curves.index, curves[variant], marker="o", markersize=3,
                          linewidth=2.5 if variant == reference else 1.2,
                          label=name if ours is None else f"{name} (measured once)")
        if ours is not None and variant in ours:
            ax.plot(ours.index, ours[variant], linestyle="--", color=line.get_color(), label=f"{name} (this run)")
    title = (f"{curves.index[-1]:,} steps from the same start" if ours is not None else
             "Learning curves from the shared starting model")
    ax.set(yscale="log", xlabel="pretraining step", ylabel="validation perplexity (log scale)",
           title=f"{title} (lower is better)")
    ax.legend(**({"fontsize": 8} if ours is None else {"fontsize": 7, "ncol": 2}))
    fig.tight_layout()
    return fig


def below_from(curves: pd.DataFrame, reference: str, other: str) -> int | None:
    """The first step from which `reference` stays below `other` at every later measured step, or None."""
    stays = (curves[reference] < curves[other])[::-1].cummin()[::-1]  # below here and at every later step
    return int(stays.idxmax()) if stays.iloc[-1] else None


#: Said under every set of curves: one run on the validation clusters, no interval (docs/reading_rule.md).
DESCRIBED = ("One run without an interval: the curves describe training; only the test table's verdicts compare "
             "the models.")


def curve_readings(curves: pd.DataFrame, reference: str = "cdlm") -> list[str]:
    """Per other variant, a sentence describing (never ranking) where `reference`'s curve stands to it, its trend."""
    if reference not in curves or curves[reference].count() < 2:
        return [f"No learning curve of {display_name(reference)} with two points or more: notebook 02 measures one "
                "when PretrainConfig.curve_steps > 0 and the model is pretrained here (not loaded unchanged)."]
    name, last, half = display_name(reference), curves.index[-1], curves.index[len(curves) // 2]
    sentences = []
    for other in (v for v in curves if v != reference):
        ratio = (curves[reference] / curves[other]).round(2)
        start, ends = below_from(curves, reference, other), [f"{curves.at[last, v]:.3g}" for v in (reference, other)]
        where = (f"level with {display_name(other)}'s at step {last}" if ends[0] == ends[1] else
                 f"under {display_name(other)}'s from step {start} on" if start is not None else
                 f"over {display_name(other)}'s at step {last}")
        trend = "level" if ratio[last] == ratio[half] else "falling" if ratio[last] < ratio[half] else "rising"
        sentences.append(f"{name}'s curve is {where} ({ends[0]} vs {ends[1]}); the ratio {name}/{display_name(other)} "
                         f"went from {ratio[half]:.2f} at step {half} to {ratio[last]:.2f} at step {last} ({trend}).")
    return [*sentences, DESCRIBED]


def curve_metrics(curves: pd.DataFrame) -> dict[str, float]:
    """`learning_curve/<variant>/<step>`: every point of every curve."""
    return {f"learning_curve/{variant}/{step}": float(value)
            for variant in curves for step, value in curves[variant].dropna().items()}


#: The longer-budget curves measured once on `cpu` (`tools/budget_curve.py`; the command is in the file).
BUDGET_CURVE_FILE = Path("benchmarks") / "measured" / "budget_curve_cpu.json"


def measured_budget_curves() -> tuple[pd.DataFrame, dict] | None:
    """The committed longer-budget curves and the file's other fields; None without the repository (a pip install)."""
    file = (repo_root() or Path("/nonexistent")) / BUDGET_CURVE_FILE
    if not file.is_file():
        return None
    data = json.loads(file.read_text())
    return curve_frame(data["curves"]), {key: value for key, value in data.items() if key != "curves"}


def plot_budget_curves(measured: pd.DataFrame, ours: pd.DataFrame, reference: str = "cdlm") -> "Figure":
    """The measured longer-budget curves (solid) with this run's (dashed): where the lines go after this budget."""
    return plot_learning_curves(measured, reference, ours)
