"""Notebook 02's order of work: the starting encoder, the shared base stages, then every variant from them,
reusing finished models whose run setup is unchanged (`variants.run_setup`).

Where the models start. In the CDLM paper every ablation continues from Longformer-base, which Beltagy et al. made
from RoBERTa: heads trained with full attention over 512 tokens, positions copied out to 4,096 and trained there by
continued MLM, global Q/K/V copied from the local ones. Tiny models get the same history in small (`base_stages`):
single-document MLM with full attention over `base_max_length` tokens, then MLM on unrelated documents packed to
`max_length` with full attention, then (`copy_steps`) small batches of short inputs that repeat a span of their
own text (`repeated_spans`), until the start copies as RoBERTa's heads do; then the recipe (`longformer_recipe`).
The copy stage comes last: trained before the long stage, its copying was gone 1,000 long-stage steps later
(docs/experiments.md). From random weights, none of the tiny
variants learned to use context within a CPU budget; without the second stage, every position past
`base_max_length` was an untrained copy, and any attention reaching there (CDLM's global masked tokens) started
far worse than local attention (docs/experiments.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..processes import main_process_first
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
from .trainer import pretrain

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..profiles import PretrainConfig, Profile
    from .curve import CopyProbeCurve, PerplexityCurve
    from .repeated_spans import RepeatedSpanCollator

Echo = Callable[[str], object]


def initial_encoder(profile: "Profile", clusters: "PretrainingClusters | None") -> "Encoder":
    """The starting model of every variant: a tiny Longformer with a BPE trained on the training documents, or
    Longformer-base (`clusters` unused: None is fine); seeded, so a re-run (or another notebook) rebuilds exactly
    the same weights and vocabulary."""
    from transformers import set_seed

    from ..encoders import load_encoder

    set_seed(profile.seed)
    texts = None if starts_pretrained(profile) else [doc for docs in clusters.train["documents"] for doc in docs]
    return load_encoder(profile.encoder, texts)


def base_stage_config(config: "PretrainConfig") -> "PretrainConfig":
    """The settings of the first base stage: `config`'s optimizer and schedule, with its base steps, batch and
    length (no learning curve: the start's perplexity is step 0 of every variant's curve; no second stage in it)."""
    return replace(config, variants=("base",), max_steps=config.base_steps,
                   per_device_batch_size=config.base_batch_size, gradient_accumulation_steps=1,
                   max_length=config.base_max_length, curve_steps=0,
                   warmup_steps=warmup_for(config, config.base_steps), base_long_steps=0, **no_copy_stage())


def no_copy_stage() -> dict:
    """The copy stage's fields (`copy_*`) at their defaults: the stages before it do not depend on them (and their
    fingerprints, which leave defaults out, match those of stages trained before the copy stage existed)."""
    from dataclasses import fields

    from ..profiles import PretrainConfig

    return {f.name: f.default for f in fields(PretrainConfig) if f.name.startswith("copy_")}


def copy_stage_config(config: "PretrainConfig") -> "PretrainConfig":
    """The settings of the copy stage: `copy_batch_size` single documents a step for `copy_steps` steps, each cut
    to the room of a span and its repeat (`2 x copy_span + 4` tokens: `<s> <doc-s> span </s> span' </s>`, the
    copy task's shape), a `copy_share` of them repeated (`repeated_spans`); at a constant rate after the warm-up,
    since the copy heads form late and abruptly (a decayed rate had not formed them after 20,000 steps:
    docs/experiments.md)."""
    return replace(config, variants=("base-copy",), max_steps=config.copy_steps,
                   per_device_batch_size=config.copy_batch_size, gradient_accumulation_steps=1,
                   max_length=2 * config.copy_span + 4, curve_steps=0, lr_power=0.0,
                   warmup_steps=warmup_for(config, config.copy_steps))


def long_stage_config(config: "PretrainConfig") -> "PretrainConfig":
    """The settings of the second base stage: `config`'s batch, length and schedule for `base_long_steps` steps
    (the copy stage's fields reset: it comes after)."""
    return replace(config, variants=("base-long",), max_steps=config.base_long_steps, gradient_accumulation_steps=1,
                   curve_steps=0, warmup_steps=warmup_for(config, config.base_long_steps), **no_copy_stage())


def base_stages(config: "PretrainConfig") -> list[tuple[str, "PretrainConfig", str]]:
    """The base stages of a tiny start, in order: (model name, its settings, what its inputs are)."""
    stages = [("base", base_stage_config(config),
               f" on single documents of up to {config.base_max_length} tokens, full attention")]
    if config.base_long_steps > 0:
        stages.append(("base-long", long_stage_config(config),
                       f" on unrelated documents packed to {config.max_length} tokens, full attention"))
    if config.copy_steps > 0:
        copy = copy_stage_config(config)
        stages.append(("base-copy", copy,
                       f" on single documents cut to {copy.max_length} tokens, {config.copy_batch_size} a step, "
                       f"{config.copy_share:.0%} with a span of up to {config.copy_span} tokens written again, "
                       "full attention, constant rate"))
    return stages


def full_attention(encoder: "Encoder", length: int, trained: int) -> "Encoder":
    """`encoder` with a window of twice `length` (every token sees every other) and its first `trained` positions
    copied out over the rest: the input of a base stage over `length`-token inputs."""
    from ..encoders import Encoder, copy_positions_out, with_attention_window

    model = with_attention_window(encoder.model, 2 * length)
    if trained < length:
        copy_positions_out(model, trained=trained)
    return Encoder(model, encoder.tokenizer)


def pretrain_base(profile: "Profile", encoder: "Encoder", clusters: "PretrainingClusters",
                  run_dir: str | os.PathLike, resume: bool = True, shipped: bool = True,
                  echo: Echo = print) -> tuple["Encoder", list[PretrainResult]]:
    """The model every variant starts from, and the base-stage runs that made it ([] when there are none).

    A pretrained encoder (Longformer-base) is returned as it is. A random tiny one goes through `base_stages`, each
    with full attention: single-document MLM over `base_max_length` tokens (RoBERTa's part of Longformer-base's
    history), then, with those positions copied out, MLM on unrelated documents packed to `max_length` (Longformer's
    continued pretraining at 4,096 tokens), so every position a variant reads is trained. Each stage is trained once,
    then reused, or with `shipped` and `resume` taken from the package when the same stage ships with it
    (`shipped_base`). Then the Longformer recipe (`longformer_recipe`) gives it the profile's window.
    """
    from .shipped_base import install_shipped_base

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


def longformer_recipe(base: "Encoder", profile: "Profile", trained: int) -> "Encoder":
    """The base model under the profile's local window, with its `trained` positions copied out to the full length
    and its global Q/K/V copied from the local ones, as Beltagy et al. made Longformer-base from RoBERTa."""
    from ..encoders import Encoder, copy_global_from_local, copy_positions_out, with_attention_window

    model = with_attention_window(base.model, profile.encoder.attention_window)
    copy_positions_out(model, trained=trained)
    copy_global_from_local(model)
    return Encoder(model, base.tokenizer)


def starting_model(profile: "Profile", run_dir: str | os.PathLike, stages: int | None = None) -> "Encoder | None":
    """The model every variant of notebook 02 started from: its last saved base stage after the Longformer recipe,
    or the pretrained encoder itself (Longformer-base); None for a random tiny start with no base stage.
    `stages=1` gives the start the first base stage alone would have made (positions copied, not trained)."""
    from ..encoders import load_encoder

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
    """The saved result of a finished run of `variant` with exactly this setup (`variants.run_setup` with the
    config's first seed) on any number of processes (a `torchrun` job of `cdlm-nb pretrain` into this run folder
    keeps the effective batch: its model is the same experiment, said with `echo`), or None (not run, run with
    another setup, or damaged: said with `echo`, naming the files, as the caller then rebuilds it)."""
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


def save_unchanged(variant: str, encoder: "Encoder", run_dir: str | os.PathLike, source: str,
                   seed: int, config: "PretrainConfig | None" = None) -> PretrainResult:
    """Save a model that is not further pretrained (the start as Longformer, or the `biu-nlp/cdlm` release) as
    `variant`, in the same layout as `pretrain`'s models, so the later notebooks load it the same way (with
    `config`, in `seed`'s folder when it is not the config's first seed, as `pretrain` names them)."""
    folder = model_dir(run_dir, variant, seed if config is not None else None, config)
    result = PretrainResult(variant=variant, seed=seed, model_dir=folder, steps=0)
    save_model_folder(folder, encoder.model, encoder.tokenizer, {**result.to_json(), "setup": {"source": source}})
    return result


def notebook_steps(profile: "Profile", pretrain_steps: int | None) -> int:
    """Optimizer steps per variant in notebook 02 (`PRETRAIN_STEPS`): as given, else 0 for a profile that starts
    from Longformer-base (the released checkpoints, minutes; the paper's 25,000 steps take days per variant on one
    GPU), else the profile's `max_steps`. A tiny start has no released checkpoint, so 0 is refused there."""
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
    """The warm-up of a run of `steps` steps under `config`: its own, but at most a tenth of the run (the decay
    needs steps after it)."""
    return min(config.warmup_steps, steps // 10)


def save_released(variant: str, profile: "Profile", encoder: "Encoder", run_dir: str | os.PathLike,
                  echo: Echo = print, seed: int | None = None) -> PretrainResult:
    """A starting or released checkpoint saved unchanged (`save_unchanged`): `longformer` is the starting model
    `encoder` (Longformer-base, or a tiny start after its base stages), as the paper's Longformer "is not further
    pretrained"; `cdlm` is the authors' `biu-nlp/cdlm` (`RELEASED_MODELS`; no corpus needed). `seed`: the
    pretraining seed whose folder gets the start (`cdlm-nb pretrain` with another seed; default the first)."""
    if variant == "longformer":
        source = profile.encoder.kind if starts_pretrained(profile) else "base stages and the Longformer recipe"
        echo(f"{display_name(variant)}: the starting model ({source}), saved without further training")
        return save_unchanged(variant, encoder, run_dir, source, profile.pretrain.seeds[0] if seed is None else seed,
                              profile.pretrain)
    if variant != "cdlm":
        raise ConfigError(f"{variant!r} was not released by the authors: pretrain it (PRETRAIN_STEPS = N)")
    from ..encoders import from_hub

    echo(f"{display_name(variant)}: the released biu-nlp/cdlm checkpoint, saved without further training")
    release = from_hub("cdlm-release", head_from=encoder.model)  # its head, should the release hold none
    return save_unchanged(variant, release, run_dir, "biu-nlp/cdlm", profile.seed)


def pretrain_variants(profile: "Profile", encoder: "Encoder", clusters: "PretrainingClusters",
                      run_dir: str | os.PathLike, resume: bool = True, pretrain_steps: int | None = None,
                      echo: Echo = print, only: Collection[str] | None = None) -> list[PretrainResult]:
    """The loop notebook 02 writes out, for a later notebook building what it lacks (`on_demand`, with `only`):
    every variant of `profile.pretrain.variants` from `encoder`'s weights, for `notebook_steps` steps.

    With `resume`, a finished model with the same setup is reused and an interrupted one continues from its last
    checkpoint; `resume=False` retrains all. At 0 steps (the gpu default) no variant is pretrained
    (`without_pretraining`)."""
    steps = notebook_steps(profile, pretrain_steps)
    config = with_steps(profile.pretrain, steps) if steps else profile.pretrain
    results = []
    for variant in (v for v in config.variants if only is None or v in only):
        if variant == "longformer" or steps == 0:
            result = without_pretraining(variant, config, profile, encoder, clusters, run_dir, resume, echo)
        else:
            result = reuse_or_pretrain(variant, config, profile, encoder, clusters, run_dir, resume, echo)
        results += [result] if result is not None else []
    return results


def without_pretraining(variant: str, config: "PretrainConfig", profile: "Profile", encoder: "Encoder",
                        clusters: "PretrainingClusters", run_dir: str | os.PathLike, resume: bool = True,
                        echo: Echo = print) -> PretrainResult | None:
    """A variant that is not pretrained here: `longformer` is the starting model itself on every profile (the
    paper's "without additional pretraining"); at 0 steps any other is its finished model with the profile's setup
    (`resume`; e.g. from `torchrun ... cdlm_nb pretrain` into this run folder, docs/gpu.md), else `cdlm` is the
    released `biu-nlp/cdlm` (`save_released`) and an ablation the authors did not release is skipped (None, said)."""
    if variant == "longformer":
        return save_released(variant, profile, encoder, run_dir, echo)
    done = reused(variant, config, clusters, run_dir, resume, echo)
    if done is None and variant == "cdlm":
        return save_released(variant, profile, encoder, run_dir, echo)
    if done is None:
        echo(f"{display_name(variant)}: skipped (not released by the authors; PRETRAIN_STEPS = N pretrains it and "
             f"the other ablations N steps each: `cdlm-nb plan` gives the time per variant)")
    return done


def learning_curve(variant: str, config: "PretrainConfig", profile: "Profile", tokenizer: "PreTrainedTokenizerBase",
                   clusters: "PretrainingClusters") -> list["PerplexityCurve"]:
    """The callback measuring `variant`'s validation perplexity every `config.curve_steps` steps, or none (no
    curve asked, or no validation clusters)."""
    from .curve import PerplexityCurve
    from .heldout import heldout_examples

    if config.curve_steps <= 0 or "validation" not in clusters.heldout:
        return []
    examples = heldout_examples(clusters.heldout["validation"], tokenizer, profile)
    return [PerplexityCurve(tokenizer, examples, variant, config.curve_steps, config.eval_batch_size)]


def train_variant(variant: str, config: "PretrainConfig", profile: "Profile", encoder: "Encoder",
                  clusters: "PretrainingClusters", run_dir: str | os.PathLike, resume: bool = True,
                  seed: int | None = None, echo: Echo = print) -> PretrainResult:
    """`pretrain` of `variant` from `encoder` on the training clusters, recording its learning curve on the
    validation clusters (`learning_curve`, and for the copy stage `copy_curve`), with spans repeated in the copy
    stage (`stage_collator`): one rule for notebook 02 and `cdlm-nb pretrain`."""
    callbacks = [*learning_curve(variant, config, profile, encoder.tokenizer, clusters),
                 *copy_curve(variant, config, encoder.tokenizer, clusters, echo)]
    return pretrain(variant, config, encoder.model, encoder.tokenizer, clusters.train, run_dir, resume=resume,
                    seed=seed, sentence_markers=profile.encoder.sentence_markers, callbacks=callbacks, echo=echo,
                    collator=stage_collator(variant, config, encoder.tokenizer))


#: The base stage whose inputs repeat spans (`PretrainConfig.copy_share`) and whose copy probe is traced.
COPY_STAGES = ("base-copy",)


def stage_collator(variant: str, config: "PretrainConfig",
                   tokenizer: "PreTrainedTokenizerBase") -> "RepeatedSpanCollator | None":
    """The collator of the copy stage, with repeated spans; None (the variant's own) otherwise."""
    from ..masking import CrossDocumentMLMCollator
    from .repeated_spans import RepeatedSpanCollator

    if variant not in COPY_STAGES or config.copy_share <= 0:
        return None
    return RepeatedSpanCollator(CrossDocumentMLMCollator(tokenizer, pattern="local"), config.copy_share,
                                config.copy_span, config.max_length, config.copy_positions)


def copy_curve(variant: str, config: "PretrainConfig", tokenizer: "PreTrainedTokenizerBase",
               clusters: "PretrainingClusters", echo: Echo | None = None) -> list["CopyProbeCurve"]:
    """The callback tracing the within-reach copy probe on the validation documents every `copy_probe_steps`
    steps of the copy stage, or none."""
    from .copy_task import within_reach_data
    from .curve import CopyProbeCurve

    if variant not in COPY_STAGES or config.copy_probe_steps <= 0 or "validation" not in clusters.heldout:
        return []
    texts = [doc for docs in clusters.heldout["validation"]["documents"] for doc in docs]
    return [CopyProbeCurve(within_reach_data(tokenizer, texts), within_reach_data(tokenizer, texts, swap_halves=True),
                           config.copy_probe_steps, echo)]


def reused(variant: str, config: "PretrainConfig", clusters: "PretrainingClusters", run_dir: str | os.PathLike,
           resume: bool, echo: Echo = print) -> PretrainResult | None:
    """With `resume`, the finished model of `variant` with this setup (said), else None."""
    done = finished_result(run_dir, variant, config, len(clusters.train), echo) if resume else None
    if done is not None:
        echo(f"{display_name(variant)}: finished model found in {done.model_dir}, reused ({done.steps} steps)")
    return done


def reuse_or_pretrain(variant: str, config: "PretrainConfig", profile: "Profile", encoder: "Encoder",
                      clusters: "PretrainingClusters", run_dir: str | os.PathLike, resume: bool, echo: Echo = print,
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
