"""Notebook 02's order of work: the starting encoder, the shared base stage, then every variant from it, reusing
finished models whose run setup is unchanged (`variants.run_setup`).

Where the models start. In the CDLM paper every ablation continues from Longformer-base, which Beltagy et al. made
from RoBERTa: heads trained with full attention over 512 tokens, positions copied out to 4,096, global Q/K/V
copied from the local ones. Tiny models get the same history in small: a shared `base` model trained once from
random weights by single-document MLM with full attention over `base_max_length` tokens (`base_stage_config`,
`base_window`), then the same recipe (`longformer_recipe`). From random weights, none of the tiny variants learned
to use context within a CPU budget (all ended near a unigram model); a base that reads inside a window only gives
heads that find a token's neighbours because the window cuts off everything else, so CDLM's global masked tokens
started position-blind.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import ConfigError
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
    from .curve import PerplexityCurve

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
    """The settings of the base stage: `config`'s optimizer and schedule, with its base steps, batch and length
    (no learning curve: the start's perplexity is step 0 of every variant's curve)."""
    return replace(config, variants=("base",), max_steps=config.base_steps,
                   per_device_batch_size=config.base_batch_size, gradient_accumulation_steps=1,
                   max_length=config.base_max_length, curve_steps=0,
                   warmup_steps=min(config.warmup_steps, config.base_steps))


def base_window(config: "PretrainConfig") -> int:
    """The base stage's local window (both sides together): wide enough for full attention over its inputs."""
    return 2 * config.base_max_length


def pretrain_base(profile: "Profile", encoder: "Encoder", clusters: "PretrainingClusters",
                  run_dir: str | os.PathLike, resume: bool = True, shipped: bool = True,
                  echo: Echo = print) -> tuple["Encoder", PretrainResult | None]:
    """The model every variant starts from, and the base-stage run that made it (None when there is none).

    A pretrained encoder (Longformer-base) is returned as it is. A random tiny one is first trained by
    single-document MLM with full attention (`base_stage_config`, `base_window`; trained once, then reused, or
    with `shipped` and `resume` taken from the package when the same base ships with it: `shipped_base`), then
    given the Longformer recipe (`longformer_recipe`), so every variant starts from heads that already attend by
    position, as in the paper.
    """
    from ..encoders import Encoder, with_attention_window
    from .shipped_base import install_shipped_base

    config = profile.pretrain
    if starts_pretrained(profile) or config.base_steps <= 0:
        return encoder, None
    base = base_stage_config(config)
    if shipped and resume and finished_result(run_dir, "base", base, len(clusters.train)) is None:
        install_shipped_base(profile.name, base, encoder, len(clusters.train), run_dir, echo)
    wide = Encoder(with_attention_window(encoder.model, base_window(config)), encoder.tokenizer)
    result = reuse_or_pretrain("base", base, profile, wide, clusters, run_dir, resume, echo,
                               inputs=f" on single documents of up to {base.max_length} tokens, full attention")
    return longformer_recipe(load_pretrained(run_dir, "base"), profile), result


def longformer_recipe(base: "Encoder", profile: "Profile") -> "Encoder":
    """The base-stage model under the profile's local window, with its `base_max_length` trained positions copied
    out to the full length and its global Q/K/V copied from the local ones, as Beltagy et al. made Longformer-base
    from RoBERTa."""
    from ..encoders import Encoder, copy_global_from_local, copy_positions_out, with_attention_window

    model = with_attention_window(base.model, profile.encoder.attention_window)
    copy_positions_out(model, trained=profile.pretrain.base_max_length)
    copy_global_from_local(model)
    return Encoder(model, base.tokenizer)


def starting_model(profile: "Profile", run_dir: str | os.PathLike) -> "Encoder | None":
    """The model every variant of notebook 02 started from: the saved base-stage model after the Longformer recipe,
    or the pretrained encoder itself (Longformer-base); None for a random tiny start with no base stage."""
    from ..encoders import load_encoder

    if starts_pretrained(profile):
        return load_encoder(profile.encoder)
    if profile.pretrain.base_steps <= 0:
        return None
    base = load_pretrained_models(run_dir, ("base",), profile.name)["base"]
    return longformer_recipe(base, profile)


def finished_result(run_dir: str | os.PathLike, variant: str, config: "PretrainConfig", n_train: int,
                    echo: Echo | None = None) -> PretrainResult | None:
    """The saved result of a finished run of `variant` with exactly this setup (`variants.run_setup` with the
    config's first seed), or None (not run, run with another setup, or damaged: said with `echo`, naming the
    files, as the caller then rebuilds it)."""
    folder = model_dir(run_dir, variant)
    problems = model_problems(folder) if is_saved(folder) else []
    if problems:
        if echo is not None:
            echo(f"{display_name(variant)}: the saved model in {folder} is damaged, rebuilding it: "
                 + "; ".join(problems))
        return None
    if saved_setup(run_dir, variant) != run_setup(variant, config.seeds[0], config, n_train):
        return None
    return load_result(run_dir, variant)


def save_unchanged(variant: str, encoder: "Encoder", run_dir: str | os.PathLike, source: str,
                   seed: int) -> PretrainResult:
    """Save a model that is not further pretrained (Longformer-base, or the `biu-nlp/cdlm` release) as `variant`,
    in the same layout as `pretrain`'s models, so the later notebooks load it the same way."""
    folder = model_dir(run_dir, variant)
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
    return replace(config, max_steps=steps, warmup_steps=min(config.warmup_steps, steps // 10))


def save_released(variant: str, profile: "Profile", encoder: "Encoder", run_dir: str | os.PathLike,
                  echo: Echo = print) -> PretrainResult:
    """A released checkpoint saved unchanged (`save_unchanged`): `longformer` is the starting checkpoint `encoder`
    (Longformer-base), `cdlm` the authors' `biu-nlp/cdlm` (`RELEASED_MODELS`; no corpus needed)."""
    if variant == "longformer":
        echo(f"{display_name(variant)}: the starting checkpoint ({profile.encoder.kind}), saved without "
             "further training")
        return save_unchanged(variant, encoder, run_dir, profile.encoder.kind, profile.seed)
    if variant != "cdlm":
        raise ConfigError(f"{variant!r} was not released by the authors: pretrain it (PRETRAIN_STEPS = N)")
    from ..encoders import from_hub

    echo(f"{display_name(variant)}: the released biu-nlp/cdlm checkpoint, saved without further training")
    release = from_hub("cdlm-release", head_from=encoder.model)  # its head, should the release hold none
    return save_unchanged(variant, release, run_dir, "biu-nlp/cdlm", profile.seed)


def pretrain_variants(profile: "Profile", encoder: "Encoder", clusters: "PretrainingClusters",
                      run_dir: str | os.PathLike, resume: bool = True, pretrain_steps: int | None = None,
                      echo: Echo = print, only: Collection[str] | None = None) -> list[PretrainResult]:
    """Notebook 02: every variant of `profile.pretrain.variants` (those in `only`, if given: a later notebook
    building what it lacks, `on_demand`), each from `encoder`'s weights, for `notebook_steps` steps.

    With `resume`, a finished model with the same setup is reused and an interrupted one continues from its last
    checkpoint; `resume=False` retrains all. When the encoder is already pretrained (gpu profile), `longformer`
    is the starting checkpoint itself (the paper's "without additional pretraining"); at 0 steps (the gpu default)
    `cdlm` is the released `biu-nlp/cdlm` and the ablations the authors did not release are skipped (a finished one
    is still reused), so Longformer and CDLM are ready in minutes (`save_released`).
    """
    steps = notebook_steps(profile, pretrain_steps)
    config = with_steps(profile.pretrain, steps) if steps else profile.pretrain
    results = []
    for variant in (v for v in config.variants if only is None or v in only):
        if (variant == "longformer" and starts_pretrained(profile)) or (steps == 0 and variant == "cdlm"):
            results.append(save_released(variant, profile, encoder, run_dir, echo))
        elif steps == 0:
            done = reused(variant, config, clusters, run_dir, resume, echo)
            if done is not None:
                results.append(done)
            else:
                echo(f"{display_name(variant)}: skipped (not released by the authors; PRETRAIN_STEPS = N pretrains "
                     f"it and the other ablations N steps each: `cdlm-nb plan` gives the time per variant)")
        else:
            results.append(reuse_or_pretrain(variant, config, profile, encoder, clusters, run_dir, resume, echo))
    return results


def learning_curve(variant: str, config: "PretrainConfig", profile: "Profile", tokenizer: "PreTrainedTokenizerBase",
                   clusters: "PretrainingClusters") -> list["PerplexityCurve"]:
    """The callback measuring `variant`'s validation perplexity every `config.curve_steps` steps, or none (no
    curve asked, or no validation clusters)."""
    from ..perplexity.evaluate import heldout_examples
    from .curve import PerplexityCurve

    if config.curve_steps <= 0 or "validation" not in clusters.heldout:
        return []
    examples = heldout_examples(clusters.heldout["validation"], tokenizer, profile)
    return [PerplexityCurve(tokenizer, examples, variant, config.curve_steps, config.eval_batch_size)]


def train_variant(variant: str, config: "PretrainConfig", profile: "Profile", encoder: "Encoder",
                  clusters: "PretrainingClusters", run_dir: str | os.PathLike, resume: bool = True,
                  seed: int | None = None, echo: Echo = print) -> PretrainResult:
    """`pretrain` of `variant` from `encoder` on the training clusters, recording its learning curve on the
    validation clusters (`learning_curve`): one rule for notebook 02 and `cdlm-nb pretrain`."""
    return pretrain(variant, config, encoder.model, encoder.tokenizer, clusters.train, run_dir, resume=resume,
                    seed=seed, sentence_markers=profile.encoder.sentence_markers,
                    callbacks=learning_curve(variant, config, profile, encoder.tokenizer, clusters), echo=echo)


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
