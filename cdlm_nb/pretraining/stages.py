"""Notebook 02's order of work: the starting encoder, the base stages, then every variant, reusing finished models
whose run setup is unchanged. The paper's ablations start from Longformer-base; tiny models get its history in small
(`base_stages`, as from random weights none learned to use context: docs/experiments.md): single documents, unrelated
documents packed to `max_length` (else global attention reaches untrained positions), then inputs repeating a span
until the start copies (last: later stages undo it); then `longformer_recipe`."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import fields, replace
from typing import TYPE_CHECKING

from transformers import set_seed

from .. import encoders
from ..encoders import Encoder, copy_global_from_local, copy_positions_out, load_encoder, with_attention_window
from ..masking import CrossDocumentMLMCollator
from ..support.errors import ConfigError
from ..support.processes import main_process_first
from ..variants import (
    PretrainResult,
    display_name,
    is_saved,
    load_pretrained,
    load_pretrained_models,
    load_result,
    model_dir,
    model_problems,
    run_setup,
    save_model_folder,
    saved_setup,
    starts_pretrained,
)
from ..widgets import say
from .copy_task import within_reach_data
from .curve import CopyProbeCurve, PerplexityCurve
from .heldout import heldout_examples
from .repeated_spans import RepeatedSpanCollator
from .shipped_base import install_shipped_base
from .trainer import pretrain

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase, TrainerCallback

    from ..data.corpora import PretrainingClusters
    from ..profiles import PretrainConfig, Profile

Echo = Callable[[str], object]
COPY_STAGE = "base-copy"  # the base stage whose inputs repeat spans and whose copy probe is traced


def initial_encoder(profile: "Profile", clusters: "PretrainingClusters | None") -> Encoder:
    """The start of every variant, seeded: a tiny Longformer with a BPE trained on `clusters`, or Longformer-base."""
    set_seed(profile.seed)
    texts = None if starts_pretrained(profile) else [doc for docs in clusters.train["documents"] for doc in docs]
    return load_encoder(profile.encoder, texts)


def _stage(config: "PretrainConfig", variant: str, steps: int, **changes) -> "PretrainConfig":
    """`config` as a base stage; `copy_*` fields at their defaults before the copy stage (older shipped ones match)."""
    if variant != COPY_STAGE:
        changes |= {f.name: f.default for f in fields(config) if f.name.startswith("copy_")}
    return replace(config, variants=(variant,), max_steps=steps, gradient_accumulation_steps=1, curve_steps=0,
                   warmup_steps=warmup_for(config, steps), **changes)


def base_stage_config(config: "PretrainConfig") -> "PretrainConfig":
    """The first base stage: `base_steps` steps of `base_batch_size` inputs of `base_max_length` tokens."""
    return _stage(config, "base", config.base_steps, per_device_batch_size=config.base_batch_size,
                  max_length=config.base_max_length, base_long_steps=0)


def long_stage_config(config: "PretrainConfig") -> "PretrainConfig":
    """The second base stage: `config`'s batch and length for `base_long_steps` steps."""
    return _stage(config, "base-long", config.base_long_steps)


def copy_stage_config(config: "PretrainConfig") -> "PretrainConfig":
    """The copy stage: short documents repeating spans, at a constant rate (copy heads form late: experiments.md)."""
    return _stage(config, COPY_STAGE, config.copy_steps, per_device_batch_size=config.copy_batch_size,
                  max_length=2 * config.copy_span + 4, lr_power=0.0)


def base_stages(config: "PretrainConfig") -> "list[tuple[str, PretrainConfig, str]]":
    """The base stages of a tiny start, in order: (model name, its settings, what its inputs are)."""
    stages = [("base", base_stage_config(config),
               f" on single documents of up to {config.base_max_length} tokens, full attention")]
    if config.base_long_steps > 0:
        stages.append(("base-long", long_stage_config(config),
                       f" on unrelated documents packed to {config.max_length} tokens, full attention"))
    if config.copy_steps > 0:
        copy = copy_stage_config(config)
        stages.append((COPY_STAGE, copy, f" on single documents cut to {copy.max_length} tokens, "
                       f"{config.copy_batch_size} a step, {config.copy_share:.0%} with a span of up to "
                       f"{config.copy_span} tokens written again, full attention, constant rate"))
    return stages


def full_attention(encoder: Encoder, length: int, trained: int) -> Encoder:
    """`encoder` with full attention over `length` tokens, its first `trained` positions copied out over the rest."""
    model = with_attention_window(encoder.model, 2 * length)
    if trained < length:
        copy_positions_out(model, trained=trained)
    return Encoder(model, encoder.tokenizer)


def pretrain_base(profile: "Profile", encoder: Encoder, clusters: "PretrainingClusters",
                  run_dir: str | os.PathLike, resume: bool = True, shipped: bool = True,
                  echo: Echo = say) -> tuple[Encoder, list[PretrainResult]]:
    """The start of every variant and its base-stage runs, each trained once and reused, or copied from the package."""
    config = profile.pretrain
    if starts_pretrained(profile) or config.base_steps <= 0:
        return encoder, []
    results, model, trained = [], encoder, 0  # positions trained so far
    for variant, stage, inputs in base_stages(config):
        with main_process_first():  # one process copies the shipped stage; the others then find it finished
            if shipped and resume and finished_result(run_dir, variant, stage, len(clusters.train)) is None:
                install_shipped_base(profile.name, variant, stage, encoder, len(clusters.train), run_dir, echo)
        wide = full_attention(model, stage.max_length, trained or stage.max_length)  # random ones: none to copy
        results.append(reuse_or_pretrain(variant, stage, profile, wide, clusters, run_dir, resume, echo, inputs))
        model, trained = load_pretrained(run_dir, variant), max(trained, stage.max_length)
    return longformer_recipe(model, profile, trained), results


def longformer_recipe(base: Encoder, profile: "Profile", trained: int) -> Encoder:
    """`base` under the profile's window, `trained` positions and local Q/K/V copied out, as Longformer-base was."""
    model = with_attention_window(base.model, profile.encoder.attention_window)
    copy_positions_out(model, trained=trained)
    copy_global_from_local(model)
    return Encoder(model, base.tokenizer)


def starting_model(profile: "Profile", run_dir: str | os.PathLike, stages: int | None = None) -> Encoder | None:
    """The start of notebook 02's variants (None without a base stage); `stages=1`: the first base stage's alone."""
    if starts_pretrained(profile):
        return load_encoder(profile.encoder)
    if profile.pretrain.base_steps <= 0:
        return None
    made = base_stages(profile.pretrain)[:stages]
    variant = made[-1][0]
    base = load_pretrained_models(run_dir, (variant,), profile.name)[variant]
    return longformer_recipe(base, profile, max(stage.max_length for _, stage, _ in made))


def finished_result(run_dir: str | os.PathLike, variant: str, config: "PretrainConfig", n_train: int,
                    echo: Echo | None = None) -> PretrainResult | None:
    """The result of a finished run of `variant` with this setup, or None (not run, another setup, or damaged: said)."""
    folder = model_dir(run_dir, variant)
    problems = model_problems(folder) if is_saved(folder) else []
    if problems:
        if echo is not None:
            echo(f"{display_name(variant)}: the saved model in {folder} is damaged, rebuilding it: "
                 + "; ".join(problems))
        return None
    saved = saved_setup(run_dir, variant) or {}
    processes = saved.pop("processes", 1)
    if saved != run_setup(variant, config.seeds[0], config, n_train):
        return None
    if processes > 1 and echo is not None:
        echo(f"{display_name(variant)}: the saved model in {folder} was pretrained on {processes} processes")
    return load_result(run_dir, variant)


def save_unchanged(variant: str, encoder: Encoder, run_dir: str | os.PathLike, source: str,
                   seed: int, config: "PretrainConfig | None" = None) -> PretrainResult:
    """Save a model not further pretrained as `variant`, in `pretrain`'s layout (and seed folder, with `config`)."""
    folder = model_dir(run_dir, variant, seed if config is not None else None, config)
    result = PretrainResult(variant=variant, seed=seed, model_dir=folder, steps=0)
    save_model_folder(folder, encoder.model, encoder.tokenizer, {**result.to_json(), "setup": {"source": source}})
    return result


def notebook_steps(profile: "Profile", pretrain_steps: int | None) -> int:
    """Steps per variant: `PRETRAIN_STEPS`, else 0 from Longformer-base (its releases), else the profile's."""
    if pretrain_steps is None:
        return 0 if starts_pretrained(profile) else profile.pretrain.max_steps
    if pretrain_steps < 0 or (pretrain_steps == 0 and not starts_pretrained(profile)):
        raise ConfigError(f"PRETRAIN_STEPS={pretrain_steps}: use a positive number of steps"
                          + ("" if starts_pretrained(profile) else " (the tiny models have no released checkpoint)"))
    return pretrain_steps


def with_steps(config: "PretrainConfig", steps: int) -> "PretrainConfig":
    """`config` shortened to `steps` optimizer steps, its warm-up kept to at most a tenth of them."""
    if steps == config.max_steps:
        return config
    return replace(config, max_steps=steps, warmup_steps=warmup_for(config, steps))


def warmup_for(config: "PretrainConfig", steps: int) -> int:
    """`config`'s warm-up, at most a tenth of a run of `steps` steps (the decay needs steps after it)."""
    return min(config.warmup_steps, steps // 10)


def save_released(variant: str, profile: "Profile", encoder: Encoder, run_dir: str | os.PathLike,
                  echo: Echo = say, seed: int | None = None) -> PretrainResult:
    """`longformer`: the start (the paper's Longformer "is not further pretrained"); `cdlm`: `biu-nlp/cdlm`."""
    if variant == "longformer":
        source = profile.encoder.kind if starts_pretrained(profile) else "base stages and the Longformer recipe"
        echo(f"{display_name(variant)}: the starting model ({source}), saved without further training")
        return save_unchanged(variant, encoder, run_dir, source, profile.pretrain.seeds[0] if seed is None else seed,
                              profile.pretrain)
    if variant != "cdlm":
        raise ConfigError(f"{variant!r} was not released by the authors: pretrain it (PRETRAIN_STEPS = N)")
    echo(f"{display_name(variant)}: the released biu-nlp/cdlm checkpoint, saved without further training")
    release = encoders.from_hub("cdlm-release", head_from=encoder.model)  # its head, should the release hold none
    return save_unchanged(variant, release, run_dir, "biu-nlp/cdlm", profile.seed)


def without_pretraining(variant: str, config: "PretrainConfig", profile: "Profile", encoder: Encoder,
                        clusters: "PretrainingClusters", run_dir: str | os.PathLike, resume: bool = True,
                        echo: Echo = say) -> PretrainResult | None:
    """A variant not pretrained here: the start, its finished model, the release (`cdlm`), or None (skipped)."""
    done = None if variant == "longformer" else reused(variant, config, clusters, run_dir, resume, echo)
    if done is None and variant in ("longformer", "cdlm"):
        return save_released(variant, profile, encoder, run_dir, echo)
    if done is None:
        echo(f"{display_name(variant)}: skipped (not released by the authors; PRETRAIN_STEPS = N pretrains it and "
             f"the other ablations N steps each: `cdlm-nb plan` gives the time per variant)")
    return done


def curves(variant: str, config: "PretrainConfig", profile: "Profile", tokenizer: "PreTrainedTokenizerBase",
           clusters: "PretrainingClusters", echo: Echo | None = None) -> list["TrainerCallback"]:
    """Callbacks tracing a run on the validation clusters: perplexity; in the copy stage, the copy probe too."""
    if "validation" not in clusters.heldout:
        return []
    callbacks, validation = [], clusters.heldout["validation"]
    if config.curve_steps > 0:
        examples = heldout_examples(validation, tokenizer, profile)
        callbacks.append(PerplexityCurve(tokenizer, examples, variant, config.curve_steps, config.eval_batch_size))
    if variant == COPY_STAGE and config.copy_probe_steps > 0:
        texts = [doc for docs in validation["documents"] for doc in docs]
        callbacks.append(CopyProbeCurve(within_reach_data(tokenizer, texts),
                                        within_reach_data(tokenizer, texts, swap_halves=True),
                                        config.copy_probe_steps, echo))
    return callbacks


def train_variant(variant: str, config: "PretrainConfig", profile: "Profile", encoder: Encoder,
                  clusters: "PretrainingClusters", run_dir: str | os.PathLike, resume: bool = True,
                  seed: int | None = None, echo: Echo = say) -> PretrainResult:
    """`pretrain` from `encoder` with its `curves`, the copy stage's inputs repeating spans (`repeated_spans`)."""
    callbacks, collator = curves(variant, config, profile, encoder.tokenizer, clusters, echo), None
    if variant == COPY_STAGE and config.copy_share > 0:
        collator = RepeatedSpanCollator(CrossDocumentMLMCollator(encoder.tokenizer, pattern="local"),
                                        config.copy_share, config.copy_span, config.max_length, config.copy_positions)
    return pretrain(variant, config, encoder.model, encoder.tokenizer, clusters.train, run_dir, resume=resume,
                    seed=seed, sentence_markers=profile.encoder.sentence_markers, callbacks=callbacks, echo=echo,
                    collator=collator)


def reused(variant: str, config: "PretrainConfig", clusters: "PretrainingClusters", run_dir: str | os.PathLike,
           resume: bool, echo: Echo = say) -> PretrainResult | None:
    """With `resume`, the finished model of `variant` with this setup (said), else None."""
    done = finished_result(run_dir, variant, config, len(clusters.train), echo) if resume else None
    if done is not None:
        echo(f"{display_name(variant)}: finished model found in {done.model_dir}, reused ({done.steps} steps)")
    return done


def reuse_or_pretrain(variant: str, config: "PretrainConfig", profile: "Profile", encoder: Encoder,
                      clusters: "PretrainingClusters", run_dir: str | os.PathLike, resume: bool, echo: Echo = say,
                      inputs: str = "") -> PretrainResult:
    """One run of `pretrain`, or its finished model when `resume` finds one with the same setup; says which."""
    done = reused(variant, config, clusters, run_dir, resume, echo)
    if done is not None:
        return done
    echo(f"{display_name(variant)}: pretraining {config.max_steps} steps{inputs} ...")
    result = train_variant(variant, config, profile, encoder, clusters, run_dir, resume, echo=echo)
    resumed = f", resumed from step {result.resumed_from_step}" if result.resumed_from_step else ""
    echo(f"    {result.steps} steps in {result.seconds:.1f} s{resumed}; last logged loss {result.final_loss:.3f}")
    return result
