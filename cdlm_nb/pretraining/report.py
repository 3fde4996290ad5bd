"""Notebook 02's tables, figure, readings and recorded metrics: the settings in a sentence, what each variant sees
(input summary), how fast each trained (throughput), the loss curves and where the models were saved."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..variants import PretrainResult, display_name, model_dir
from .inputs import pretraining_inputs

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure
    from transformers import PreTrainedTokenizerBase

    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..profiles import Profile


def settings_summary(profile: "Profile", device: str) -> str:
    """The variants and the training recipe of a profile in two lines (steps, batch, length, schedule, precision)."""
    from ..precision import precision

    config = profile.pretrain
    mixed = precision(device) if config.fp16 and precision(device) != "fp32" else "fp32"
    batch = config.per_device_batch_size * config.gradient_accumulation_steps
    return (f"variants: {', '.join(display_name(v) for v in config.variants)}\n"
            f"{config.max_steps} steps x effective batch {batch}"
            f" ({config.per_device_batch_size} per device x {config.gradient_accumulation_steps} accumulation"
            f"{', gradient checkpointing' if config.gradient_checkpointing else ''}) x up to {config.max_length} "
            f"tokens; peak lr {config.learning_rate}, {config.warmup_steps} warm-up steps, power-{config.lr_power:g} "
            f"decay; {mixed}")


def starting_model_summary(profile: "Profile", encoder: "Encoder") -> str:
    """The starting model in a line: its kind, size, vocabulary and local window."""
    n_parameters = sum(p.numel() for p in encoder.model.parameters())
    return (f"starting model: {profile.encoder.kind}, {n_parameters / 1e6:.2f} M parameters, vocabulary "
            f"{len(encoder.tokenizer)}, local window {profile.encoder.attention_window} tokens")


def trained_models(profile: "Profile") -> list[tuple[str, int]]:
    """(model, input length) of every model notebook 02 trains on `profile`: the base stages of a tiny start,
    then the CD-MLM variants (Longformer is the start itself: `stages.save_released`)."""
    from ..variants import starts_pretrained
    from .stages import base_stages

    config = profile.pretrain
    bases = [] if starts_pretrained(profile) or config.base_steps <= 0 else [
        (name, stage.max_length) for name, stage, _ in base_stages(config)]
    return bases + [(variant, config.max_length) for variant in config.variants if variant != "longformer"]


def input_summary(profile: "Profile", clusters: "PretrainingClusters", tokenizer: "PreTrainedTokenizerBase",
                  run_dir: str | os.PathLike | None = None) -> "pd.DataFrame":
    """One packing of the training clusters per trained model (`trained_models`): how many inputs, how long, how
    many documents each, read from the packings' Arrow columns. With `run_dir`, each packing is built once there
    and reused by the speed cell and training (`inputs.pretraining_inputs`)."""
    import pandas as pd
    import pyarrow.compute as pc

    rows = []
    for variant, length in trained_models(profile):
        examples = pretraining_inputs(variant, clusters.train, tokenizer, length, n_examples=1, seed=profile.seed,
                                      sentence_markers=profile.encoder.sentence_markers, run_dir=run_dir)
        table = examples.with_format("arrow")[:]
        lengths, documents = (pc.list_value_length(table[column]) for column in ("input_ids", "sources"))
        rows.append({"model": display_name(variant), "inputs": len(examples),
                     "mean tokens": pc.mean(lengths).as_py(), "max tokens": pc.max(lengths).as_py(),
                     "mean documents": pc.mean(documents).as_py()})
    return pd.DataFrame(rows).set_index("model")


def rand_reading(inputs: "pd.DataFrame") -> str:
    """Does a Rand CDLM input hold as many tokens as a CDLM one (the paper's "equivalent amount" of data)? From
    `input_summary`; empty when either model is missing."""
    rand, cdlm = display_name("rand"), display_name("cdlm")
    if not {rand, cdlm} <= set(inputs.index):
        return ""
    ratio = inputs.loc[rand, "mean tokens"] / inputs.loc[cdlm, "mean tokens"]
    amount = "about as many tokens as" if 0.9 <= ratio <= 1.1 else f"{ratio:.1f} x the tokens of"
    return f"Per input (and so per step), {rand} reads {amount} {cdlm}."


def throughput_table(results: list[PretrainResult]) -> "pd.DataFrame":
    """Steps, time, tokens seen and training tokens per second of each run (of the session that trained it), and
    the self-attention implementation it ran ("hf" or "ours", `longformer_attention.IMPLEMENTATIONS`)."""
    import pandas as pd

    rows = [{"model": display_name(r.variant), "attention": r.attention or "-", "steps": r.steps,
             "seconds": r.seconds, "tokens": r.tokens, "tokens_per_s": r.tokens_per_second,
             "final_loss": r.final_loss} for r in results]
    return pd.DataFrame(rows).set_index("model")


def pretraining_metrics(results: list[PretrainResult], bases: Sequence[PretrainResult] = ()) -> dict[str, float]:
    """Notebook 02's recorded figures: each base stage's last loss (`pretrain/<stage>_final_loss`), and each
    variant's training tokens/s (when it was trained in a measured session) and last logged loss."""
    metrics = {f"pretrain/{base.variant}_final_loss": base.final_loss for base in bases}
    for base in bases:  # the within-reach copy probe at the end of each stage that traced it
        if base.copy_probe_history:
            _, _, same, swapped = base.copy_probe_history[-1]
            metrics |= {f"pretrain/copy_probe/{base.variant}/same": same,
                        f"pretrain/copy_probe/{base.variant}/swapped": swapped}
    for result in results:
        if result.steps and result.seconds > 0:
            metrics[f"pretrain/tokens_per_s/{result.variant}"] = result.tokens_per_second
        if result.loss_history:
            metrics[f"pretrain/final_loss/{result.variant}"] = result.final_loss
    return metrics


def plot_loss_curves(results: list[PretrainResult], bases: Sequence[PretrainResult] = ()) -> "Figure":
    """Training loss against step, one line per model: do the variants learn at the same pace? The base stages'
    curves come first (grey) and the variants continue from their last step, as they continue from their weights."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    start = 0
    for shade, base in zip(("0.3", "0.5", "0.7"), bases):
        if base.loss_history:
            steps, losses = zip(*base.loss_history)
            ax.plot([start + step for step in steps], losses, color=shade, label=display_name(base.variant))
        start += base.steps
    for result in results:
        if result.loss_history:
            steps, losses = zip(*result.loss_history)
            ax.plot([start + step for step in steps], losses, label=display_name(result.variant),
                    marker="." if len(steps) < 30 else None)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("training MLM loss")
    ax.set_title("Cross-document MLM pretraining")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def copy_probe_curve(bases: Sequence[PretrainResult]) -> "pd.DataFrame":
    """The within-reach copy probe traced along the base stages (`curve.CopyProbeCurve`), a row per point: the
    stage, its step, the tokens trained since the first traced stage began, and the gain (nats per token) with the
    span as repeated and with its halves swapped."""
    import pandas as pd

    rows, before = [], 0
    for base in bases:
        for step, tokens, same, swapped in base.copy_probe_history:
            rows.append({"stage": display_name(base.variant), "step": step, "tokens": before + tokens,
                         "as repeated": same, "halves swapped": swapped})
        before += base.tokens if base.copy_probe_history else 0
    return pd.DataFrame(rows, columns=["stage", "step", "tokens", "as repeated", "halves swapped"])


def plot_copy_probe(curve: "pd.DataFrame") -> "Figure":
    """The copy probe against the tokens trained, both forms, one colour per stage: a copy circuit forming shows as
    a jump."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    for (stage, points), colour in zip(curve.groupby("stage", sort=False), ("C0", "C1", "C2")):
        ax.plot(points["tokens"], points["as repeated"], color=colour, marker=".", label=f"{stage}: as repeated")
        ax.plot(points["tokens"], points["halves swapped"], color=colour, linestyle="--", label="halves swapped")
    ax.axhline(0, color="0.6", linewidth=0.8)
    ax.set_xlabel("tokens trained since the copy stage began")
    ax.set_ylabel("within-reach copy gain (nats/token)")
    ax.set_title("Does the start copy? The copy probe along the base stages")
    ax.legend(frameon=False, fontsize=7)
    fig.tight_layout()
    return fig


def model_folders(run_dir: str | os.PathLike, results: list[PretrainResult]) -> "pd.DataFrame":
    """Where each model was saved (relative to the run folder) and its size in MB."""
    import pandas as pd

    rows = []
    for result in results:
        folder = model_dir(run_dir, result.variant)
        rows.append({"model": display_name(result.variant), "folder": str(folder.relative_to(run_dir)),
                     "MB": sum(f.stat().st_size for f in folder.iterdir()) / 1e6})
    return pd.DataFrame(rows).set_index("model")
