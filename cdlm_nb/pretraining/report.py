"""Notebook 02's tables, figures, readings and recorded metrics: the settings, what each variant sees, how fast
each trained, the loss and copy-probe curves, and where the models were saved."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow.compute as pc

from ..support.precision import precision
from ..variants import PretrainResult, display_name, model_dir, starts_pretrained
from ..verdicts import flat
from .inputs import pretraining_inputs
from .stages import base_stages

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from transformers import PreTrainedTokenizerBase

    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..profiles import Profile


def settings_summary(profile: "Profile", device: str) -> str:
    """The variants and the training recipe of a profile in two lines (steps, batch, length, schedule, precision)."""
    c = profile.pretrain
    checkpointing = ", gradient checkpointing" if c.gradient_checkpointing else ""
    return (f"variants: {', '.join(display_name(v) for v in c.variants)}\n{c.max_steps} steps x effective batch "
            f"{c.per_device_batch_size * c.gradient_accumulation_steps} ({c.per_device_batch_size} per device x "
            f"{c.gradient_accumulation_steps} accumulation{checkpointing}) x up to {c.max_length} tokens; peak lr "
            f"{c.learning_rate}, {c.warmup_steps} warm-up steps, power-{c.lr_power:g} decay; "
            f"{precision(device) if c.fp16 else 'fp32'}")


def starting_model_summary(profile: "Profile", encoder: "Encoder") -> str:
    """The starting model in a line: its kind, size, vocabulary and local window."""
    n_parameters = sum(p.numel() for p in encoder.model.parameters())
    return (f"starting model: {profile.encoder.kind}, {n_parameters / 1e6:.2f} M parameters, vocabulary "
            f"{len(encoder.tokenizer)}, local window {profile.encoder.attention_window} tokens")


def trained_models(profile: "Profile") -> list[tuple[str, int]]:
    """(model, input length) of every model notebook 02 trains: the base stages, then the CD-MLM variants."""
    config = profile.pretrain
    bases = [] if starts_pretrained(profile) or config.base_steps <= 0 else [
        (name, stage.max_length) for name, stage, _ in base_stages(config)]
    return bases + [(variant, config.max_length) for variant in config.variants if variant != "longformer"]


def input_summary(profile: "Profile", clusters: "PretrainingClusters", tokenizer: "PreTrainedTokenizerBase",
                  run_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """Per trained model, its inputs: how many, how long, how many documents each (built once in `run_dir`)."""
    rows = []
    for variant, length in trained_models(profile):
        examples = pretraining_inputs(variant, clusters.train, tokenizer, length, n_examples=1, seed=profile.seed,
                                      sentence_markers=profile.encoder.sentence_markers, run_dir=run_dir)
        table = examples.with_format("arrow")[:]
        lengths, documents = (pc.list_value_length(table[column]) for column in ("input_ids", "sources"))
        rows.append({"model": display_name(variant), "inputs": len(examples), "mean tokens": pc.mean(lengths).as_py(),
                     "max tokens": pc.max(lengths).as_py(), "mean documents": pc.mean(documents).as_py()})
    return pd.DataFrame(rows).set_index("model")


def rand_reading(inputs: pd.DataFrame) -> str:
    """Does a Rand CDLM input hold as many tokens as a CDLM one (the paper's "equivalent amount" of data)?"""
    rand, cdlm = display_name("rand"), display_name("cdlm")
    if not {rand, cdlm} <= set(inputs.index):
        return ""
    ratio = inputs.loc[rand, "mean tokens"] / inputs.loc[cdlm, "mean tokens"]
    amount = "about as many tokens as" if 0.9 <= ratio <= 1.1 else f"{ratio:.1f} x the tokens of"
    return f"Per input (and so per step), {rand} reads {amount} {cdlm}."


def throughput_table(results: list[PretrainResult]) -> pd.DataFrame:
    """Each run's steps, time, tokens, tokens/s (in its session), last loss and attention implementation."""
    rows = [{"model": display_name(r.variant), "attention": r.attention or "-", "steps": r.steps,
             "seconds": r.seconds, "tokens": r.tokens, "tokens_per_s": r.tokens_per_second,
             "final_loss": r.final_loss} for r in results]
    return pd.DataFrame(rows).set_index("model")


def pretraining_metrics(results: list[PretrainResult], bases: Sequence[PretrainResult] = ()) -> dict[str, float]:
    """Each base stage's last loss and copy probe (if traced), each variant's tokens/s (if trained here) and loss."""
    metrics = {f"pretrain/{base.variant}_final_loss": base.final_loss for base in bases}
    probes = {base.variant: dict(zip(("same", "swapped"), base.copy_probe_history[-1][2:]))
              for base in bases if base.copy_probe_history}
    metrics |= flat("pretrain/copy_probe", probes)
    for result in results:
        if result.steps and result.seconds > 0:
            metrics[f"pretrain/tokens_per_s/{result.variant}"] = result.tokens_per_second
        if result.loss_history:
            metrics[f"pretrain/final_loss/{result.variant}"] = result.final_loss
    return metrics


def plot_loss_curves(results: list[PretrainResult], bases: Sequence[PretrainResult] = ()) -> "Figure":
    """Training loss against step: the base stages first (grey), the variants continuing from their last step."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    start = 0
    for k, result in enumerate([*bases, *results]):
        grey = k < len(bases)
        if result.loss_history:
            steps, losses = zip(*result.loss_history)
            style = {"color": ("0.3", "0.5", "0.7")[k]} if grey else {"marker": "." if len(steps) < 30 else None}
            ax.plot([start + step for step in steps], losses, label=display_name(result.variant), **style)
        start += result.steps if grey else 0
    ax.set(xlabel="optimizer step", ylabel="training MLM loss", title="Cross-document MLM pretraining")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def copy_probe_curve(bases: Sequence[PretrainResult]) -> pd.DataFrame:
    """The copy probe's points along the base stages, tokens counted from the first traced stage's start."""
    rows, before = [], 0
    for base in bases:
        rows += [(display_name(base.variant), step, before + tokens, same, swapped)
                 for step, tokens, same, swapped in base.copy_probe_history]
        before += base.tokens if base.copy_probe_history else 0
    return pd.DataFrame(rows, columns=["stage", "step", "tokens", "as repeated", "halves swapped"])


def plot_copy_probe(curve: pd.DataFrame) -> "Figure":
    """The copy probe against the tokens trained, both forms, a colour per stage: a copy circuit forming jumps."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    for (stage, points), colour in zip(curve.groupby("stage", sort=False), ("C0", "C1", "C2")):
        ax.plot(points["tokens"], points["as repeated"], color=colour, marker=".", label=f"{stage}: as repeated")
        ax.plot(points["tokens"], points["halves swapped"], color=colour, linestyle="--", label="halves swapped")
    ax.axhline(0, color="0.6", linewidth=0.8)
    ax.set(xlabel="tokens trained since the copy stage began", ylabel="within-reach copy gain (nats/token)",
           title="Does the start copy? The copy probe along the base stages")
    ax.legend(frameon=False, fontsize=7)
    fig.tight_layout()
    return fig


def model_folders(run_dir: str | os.PathLike, results: list[PretrainResult]) -> pd.DataFrame:
    """Where each model was saved (relative to the run folder) and its size in MB."""
    folders = [(display_name(result.variant), model_dir(run_dir, result.variant)) for result in results]
    rows = [{"model": model, "folder": str(folder.relative_to(run_dir)),
             "MB": sum(f.stat().st_size for f in folder.iterdir()) / 1e6} for model, folder in folders]
    return pd.DataFrame(rows).set_index("model")
