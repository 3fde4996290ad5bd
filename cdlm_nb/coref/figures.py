"""Notebook 04's figure: dev CoNLL F1 per clustering threshold and the fine-tuning loss, one line per run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .experiment import CorefRuns
from .report import row_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def threshold_and_loss_figure(runs: CorefRuns) -> "Figure":
    """Left: dev CoNLL F1 per distance threshold, a dot on the chosen one. Right: the BCE loss (rolling mean of 3)."""
    import matplotlib.pyplot as plt
    import pandas as pd

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
