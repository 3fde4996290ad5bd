"""Cross-document MLM pretraining with the Hugging Face `Trainer`: CDLM and the ablations of seed 003, Section 3.

Every model starts from the *same* initial weights and trains for the same number of steps on the same training
clusters; they differ only in their inputs and in which tokens get global attention (`cdlm_nb.masking`):

| model        | inputs (`cdlm_nb.inputs`)                          | global attention      |
|--------------|----------------------------------------------------|-----------------------|
| `longformer` | one document per example (single-document MLM)     | none                  |
| `local`      | related documents of one cluster, concatenated     | none                  |
| `rand`       | unrelated documents, each from a different cluster | the masked tokens     |
| `prefix`     | related documents                                   | the first 15 % tokens |
| `cdlm`       | related documents                                   | the masked tokens     |
| `release`    | related documents                                   | the released code's   |

Where the models start. In the paper every ablation continues from Longformer-base, itself pretrained (by
Beltagy et al.) with single-document MLM and local attention. Tiny models get the same history in small: a shared
`base` model trained once by single-document MLM from random weights (`base_stage_config`), whose trained positions
are then copied out to the full length and whose global Q/K/V are copied from its local ones
(`experiments.pretrain_base`), as Longformer-base was made from RoBERTa. From random weights, none of the tiny variants
learned to use context within a CPU budget (all ended near a unigram model). "Longformer" is then the base trained
for the same number of further steps by its own objective (single documents, local attention): the paper's
Longformer row without extra pretraining would otherwise have seen fewer steps than the others. "local" isolates
the effect of concatenating related documents, "rand" that of relatedness, "cdlm" vs "prefix" that of *which*
tokens are global.

Hyper-parameters follow seed 000 Appendix B (Beltagy et al.'s setting): AdamW with RoBERTa's betas (0.9, 0.98),
epsilon 1e-6 and weight decay 0.01, linear warm-up then power-3 polynomial decay, fp16 on CUDA (the cpu profile:
peak 1e-3 and a linear decay, for runs of minutes from a tiny base). An interrupted run
resumes from its last checkpoint (`<run_dir>/checkpoints/<model>/`); a finished one is saved as
`<run_dir>/models/<model>/` (safetensors, with its tokenizer and `pretraining.json`) and its checkpoints removed.
"""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ConfigError, DataError
from .inputs import pack_clusters, pack_random_documents
from .masking import IGNORE_INDEX, CrossDocumentMLMCollator
from .variants import (DISPLAY_NAMES, MODEL_VARIANTS, RESULT_FILE, SINGLE_DOCUMENT_VARIANTS, PretrainResult,
                       check_variant, load_pretrained, load_result, model_dir, model_name)
from .variants import attention_pattern_of as collator_variant

LABELS = DISPLAY_NAMES

if TYPE_CHECKING:
    from datasets import Dataset
    from matplotlib.figure import Figure
    from transformers import PreTrainedModel, PreTrainedTokenizerBase, TrainingArguments

    from .profiles import PretrainConfig

#: RoBERTa's optimizer settings (Liu et al., 2019), which CDLM keeps (seed 000, Appendix B).
ADAM_BETAS = (0.9, 0.98)
ADAM_EPSILON = 1e-6
#: At most this many different random packings per cluster are materialised; the Trainer cycles over them.
MAX_PACKINGS_PER_CLUSTER = 4
SETUP_FILE = "pretrain_setup.json"


# ---------------------------------------------------------------------------------------------------------------
def predict_masked_positions_only(model: "PreTrainedModel") -> "PreTrainedModel":
    """Make a LongformerForMaskedLM run its LM head on the predicted (labelled) positions only when given labels.

    The loss is the same; the vocabulary projection of the other 85 % of the tokens is skipped, which is most of
    a tiny model's cost (~1.7x faster training on CPU). Only this instance changes; it saves and loads as usual.
    """
    import types

    model.forward = types.MethodType(_forward_on_predicted_positions, model)
    return model


def _forward_on_predicted_positions(self, input_ids=None, attention_mask=None, global_attention_mask=None,
                                    labels=None, **kwargs):
    import torch.nn.functional as F
    from transformers.modeling_outputs import MaskedLMOutput

    if labels is None:  # no labels: the usual forward, logits for every position
        return type(self).forward(self, input_ids=input_ids, attention_mask=attention_mask,
                                  global_attention_mask=global_attention_mask, **kwargs)
    hidden = self.longformer(input_ids, attention_mask=attention_mask, global_attention_mask=global_attention_mask,
                             **kwargs)[0]
    predicted = labels != IGNORE_INDEX
    logits = self.lm_head(hidden[predicted])  # (n predicted, vocabulary)
    return MaskedLMOutput(loss=F.cross_entropy(logits.float(), labels[predicted]), logits=logits)


def single_document_clusters(clusters: "Dataset") -> "Dataset":
    """Every document of every cluster as a cluster of its own: the inputs of single-document MLM (Longformer)."""
    from datasets import Dataset

    ids, documents = [], []
    for cluster_id, docs in zip(clusters["cluster_id"], clusters["documents"]):
        for index, doc in enumerate(docs):
            ids.append(f"{cluster_id}/{index}")
            documents.append([doc])
    return Dataset.from_dict({"cluster_id": ids, "documents": documents, "summary": [""] * len(ids)},
                             features=clusters.features)


def pretraining_inputs(variant: str, clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int,
                       n_examples: int, seed: int, sentence_markers: bool = False) -> "Dataset":
    """The packed training examples of one variant, about `n_examples` of them (fewer distinct ones are cycled).

    Related clusters for cdlm/local/prefix/release, unrelated documents for rand, one document per example for
    longformer. The packing summary (skipped clusters, truncated documents) is in `result.info.description`.
    """
    check_variant(variant)
    options = {"seed": seed, "sentence_markers": sentence_markers}
    if variant in SINGLE_DOCUMENT_VARIANTS:
        source, pack, options["min_documents"] = single_document_clusters(clusters), pack_clusters, 1
    else:
        source, pack = clusters, pack_random_documents if variant == "rand" else pack_clusters
    packings = math.ceil(n_examples / max(1, len(source)))
    options["examples_per_cluster"] = min(MAX_PACKINGS_PER_CLUSTER, max(1, packings))
    examples = pack(source, tokenizer, max_length, **options)
    if len(examples) == 0:
        raise DataError(f"no {variant} pretraining examples: {examples.info.description}")
    return examples


def base_stage_config(config: "PretrainConfig") -> "PretrainConfig":
    """The settings of the base stage: `config`'s optimizer and schedule, with its base steps, batch and length."""
    from dataclasses import replace

    return replace(config, variants=("base",), max_steps=config.base_steps,
                   per_device_batch_size=config.base_batch_size, gradient_accumulation_steps=1,
                   max_length=config.base_max_length,
                   warmup_steps=min(config.warmup_steps, config.base_steps))


def training_arguments(config: "PretrainConfig", variant: str, output_dir: str | os.PathLike, seed: int,
                       headless: bool | None = None) -> "TrainingArguments":
    """`TrainingArguments` for one run: the paper's optimizer and schedule, fp16 only on CUDA, gloo on CPU."""
    import torch
    from transformers import TrainingArguments

    from .runtime import is_headless

    cuda = torch.cuda.is_available()
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    return TrainingArguments(
        output_dir=str(output_dir),
        max_steps=config.max_steps,
        per_device_train_batch_size=config.per_device_batch_size,
        gradient_accumulation_steps=config.gradient_accumulation_steps,
        learning_rate=config.learning_rate,
        warmup_steps=config.warmup_steps,
        lr_scheduler_type="polynomial",
        lr_scheduler_kwargs={"power": config.lr_power},
        weight_decay=config.weight_decay,
        adam_beta1=ADAM_BETAS[0],
        adam_beta2=ADAM_BETAS[1],
        adam_epsilon=ADAM_EPSILON,
        fp16=config.fp16 and cuda,
        logging_steps=config.logging_steps,
        save_strategy="steps",
        save_steps=config.save_steps,
        save_total_limit=2,
        seed=seed,
        data_seed=seed,
        report_to="none",
        disable_tqdm=is_headless() if headless is None else headless,
        include_num_input_tokens_seen="non_padding",
        remove_unused_columns=False,
        dataloader_num_workers=0,
        dataloader_pin_memory=cuda,
        use_cpu=distributed and not cuda,  # without it a CPU job of several processes would not use DDP at all
        ddp_backend="gloo" if distributed and not cuda else None,
        # local-attention models never use Longformer's global projections: DDP must not wait for their gradients
        ddp_find_unused_parameters=collator_variant(variant) == "local" if distributed else None,
    )


# ---------------------------------------------------------------------------------------------------------------
def pretrain(
    variant: str,
    config: "PretrainConfig",
    initial_model: "PreTrainedModel",
    tokenizer: "PreTrainedTokenizerBase",
    train_clusters: "Dataset",
    run_dir: str | os.PathLike,
    resume: bool = True,
    seed: int | None = None,
    sentence_markers: bool = False,
    callbacks: list | None = None,
) -> PretrainResult:
    """Pretrain a copy of `initial_model` as `variant` on CLUSTER_FEATURES `train_clusters`; save it under run_dir.

    `initial_model` is left untouched, so every variant can start from the same weights. With `resume=True` a run
    that was interrupted continues from its last checkpoint (step count, data order, optimizer and scheduler restored;
    the masks drawn after the restart differ, because `Trainer` restores the RNG one batch late).
    `callbacks` are extra `TrainerCallback`s (e.g. early stopping or custom logging).
    """
    from transformers import PrinterCallback, Trainer, set_seed

    check_variant(variant)
    seed = config.seeds[0] if seed is None else seed
    capacity = initial_model.config.max_position_embeddings - tokenizer.pad_token_id - 1
    if config.max_length > capacity:
        raise ConfigError(f"PretrainConfig.max_length={config.max_length} exceeds the model's {capacity} positions: "
                          "lower max_length or build the encoder with a larger EncoderConfig.max_length")
    name = model_name(variant, seed, config)
    checkpoints = Path(run_dir) / "checkpoints" / name
    final_dir = model_dir(run_dir, variant, seed, config)
    setup = {"variant": variant, "seed": seed, "config": asdict(config), "examples": len(train_clusters)}
    resume_from = _checkpoint_to_resume(checkpoints, setup) if resume else None

    set_seed(seed)
    args = training_arguments(config, variant, checkpoints, seed)
    with args.main_process_first(desc="clearing old checkpoints"):
        if not resume and checkpoints.exists():
            shutil.rmtree(checkpoints)
    effective_batch = config.per_device_batch_size * config.gradient_accumulation_steps * args.world_size
    with args.main_process_first(desc=f"packing {variant} inputs"):
        examples = pretraining_inputs(variant, train_clusters, tokenizer, config.max_length,
                                      config.max_steps * effective_batch, seed, sentence_markers)
    model = predict_masked_positions_only(copy.deepcopy(initial_model))
    model.train()
    # Longformer's MLM head takes **kwargs but ignores `num_items_in_batch`: without this the Trainer would neither
    # divide the loss by the accumulation steps nor stop multiplying it by the number of processes
    model.accepts_loss_kwargs = False
    trainer = Trainer(
        model=model,
        args=args,
        data_collator=CrossDocumentMLMCollator(tokenizer, pattern=collator_variant(variant)),
        train_dataset=examples.select_columns(["input_ids"]),
        processing_class=tokenizer,
        callbacks=callbacks,
    )
    if args.disable_tqdm:
        trainer.remove_callback(PrinterCallback)  # headless: no log dict printed every logging step
    if trainer.is_world_process_zero():
        checkpoints.mkdir(parents=True, exist_ok=True)
        (checkpoints / SETUP_FILE).write_text(json.dumps(setup, indent=2, sort_keys=True))
    resumed_step = _checkpoint_step(resume_from)
    start = time.perf_counter()
    trainer.train(resume_from_checkpoint=resume_from)
    seconds = time.perf_counter() - start
    state = trainer.state
    result = PretrainResult(
        variant=variant,
        seed=seed,
        model_dir=final_dir,
        steps=state.global_step,
        loss_history=[(entry["step"], entry["loss"]) for entry in state.log_history if "loss" in entry],
        lr_history=[(entry["step"], entry["learning_rate"]) for entry in state.log_history if "learning_rate" in entry],
        seconds=seconds,
        tokens=state.num_input_tokens_seen - _tokens_at(resume_from),
        resumed_from_step=resumed_step,
    )
    trainer.save_model(str(final_dir))  # every process calls it; only the main one writes
    with args.main_process_first(desc="saving the model"):  # the others return once the model is complete
        if trainer.is_world_process_zero():
            (final_dir / "training_args.bin").unlink(missing_ok=True)  # a pickle; the setup is in pretraining.json
            (final_dir / RESULT_FILE).write_text(json.dumps({**result.to_json(), "setup": setup}, indent=2))
            shutil.rmtree(checkpoints)
    return result


def _checkpoint_to_resume(checkpoints: Path, setup: dict) -> str | None:
    """The last checkpoint of an interrupted run with the same setup; a ConfigError if the setup changed."""
    from transformers.trainer_utils import get_last_checkpoint

    if not checkpoints.is_dir():
        return None
    last = get_last_checkpoint(str(checkpoints))
    if last is None:
        return None
    saved = checkpoints / SETUP_FILE
    if saved.exists() and json.loads(saved.read_text()) != json.loads(json.dumps(setup)):
        raise ConfigError(f"{checkpoints} holds an interrupted run with a different setup ({saved}); delete the "
                          "folder or call pretrain(..., resume=False) to start afresh")
    return last


def _checkpoint_step(checkpoint: str | None) -> int:
    return int(Path(checkpoint).name.rsplit("-", 1)[1]) if checkpoint else 0


def _tokens_at(checkpoint: str | None) -> int:
    """Tokens already counted when the checkpoint was written (0 for a fresh run)."""
    if not checkpoint:
        return 0
    state = json.loads((Path(checkpoint) / "trainer_state.json").read_text())
    return int(state.get("num_input_tokens_seen", 0))


# ---------------------------------------------------------------------------------------------------------------
def plot_loss_curves(results: list[PretrainResult], base: PretrainResult | None = None) -> "Figure":
    """Training loss against step, one line per model: do the variants learn at the same pace? With `base`, its
    curve comes first (grey) and the variants continue from its last step, as they continue from its weights."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    start = 0
    if base is not None and base.loss_history:
        steps, losses = zip(*base.loss_history)
        ax.plot(steps, losses, color="0.6", label=LABELS[base.variant])
        start = base.steps
    for result in results:
        if result.loss_history:
            steps, losses = zip(*result.loss_history)
            ax.plot([start + step for step in steps], losses, label=LABELS[result.variant],
                    marker="." if len(steps) < 30 else None)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("training MLM loss")
    ax.set_title("Cross-document MLM pretraining")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------------------------
#: The fields of a `cdlm-nb pretrain --config FILE` JSON file (all optional except where noted).
SCRIPT_FIELDS = {
    "profile": "profile whose sections are the defaults (smoke / cpu / gpu; default cpu)",
    "output_dir": "run folder: models go to <output_dir>/models/<variant>/ (default runs/<profile>)",
    "variants": "models to pretrain, e.g. [\"cdlm\", \"local\"] (default: the profile's pretrain.variants)",
    "seed": "pretraining seed (default: the first of pretrain.seeds)",
    "resume": "continue an interrupted run from its last checkpoint (default true)",
    "pretrain": "overrides of PretrainConfig fields, e.g. {\"max_steps\": 1000}",
    "encoder": "overrides of EncoderConfig fields (model kind and size)",
    "data": "{\"source\": \"world\"} (embedded world, train split; default) or "
            "{\"source\": \"multinews\", \"path\": FILE or null for the hub}",
    "world": "overrides of WorldConfig fields when data.source is world",
}


def read_script_config(path: str | os.PathLike) -> dict:
    """A `cdlm-nb pretrain` config file as a dict, with unknown top-level fields refused."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"pretraining config {file} does not exist; fields: {sorted(SCRIPT_FIELDS)}")
    try:
        settings = json.loads(file.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{file} is not valid JSON: {exc}") from None
    if not isinstance(settings, dict):
        raise ConfigError(f"{file} must hold a JSON object with fields {sorted(SCRIPT_FIELDS)}")
    unknown = sorted(set(settings) - set(SCRIPT_FIELDS))
    if unknown:
        raise ConfigError(f"{file}: unknown field(s) {unknown}; valid: {sorted(SCRIPT_FIELDS)}")
    return settings


def _override(section, changes: dict | None, where: str):
    """A copy of a frozen config section with `changes`; unknown field names raise ConfigError."""
    from dataclasses import fields, replace

    changes = dict(changes or {})
    unknown = sorted(set(changes) - {f.name for f in fields(section)})
    if unknown:
        raise ConfigError(f"{where}: unknown {type(section).__name__} field(s) {unknown}")
    for name, value in changes.items():
        if isinstance(value, list):
            changes[name] = tuple(value)  # JSON has no tuples
    return replace(section, **changes)


def pretrain_from_config(path: str | os.PathLike) -> list[PretrainResult]:
    """Run `pretrain` for each variant of a JSON config file: the script behind `cdlm-nb pretrain`. Like notebook 02,
    a random tiny encoder first gets the shared base stage (`experiments.pretrain_base`).

    Every process of a `torchrun` / `accelerate launch` job runs this same function; the Trainer splits the
    batches. The effective batch is per-device batch x gradient accumulation x number of processes.
    """
    import sys
    from dataclasses import replace

    from transformers import set_seed

    from .encoders import load_encoder
    from .experiments import PretrainingClusters, pretrain_base
    from .paths import run_dir as default_run_dir
    from .profiles import get_profile

    settings = read_script_config(path)
    profile = get_profile(settings.get("profile", "cpu"))
    config = _override(profile.pretrain, settings.get("pretrain"), f"{path} 'pretrain'")
    encoder = _override(profile.encoder, settings.get("encoder"), f"{path} 'encoder'")
    variants = settings.get("variants") or list(config.variants)
    for variant in variants:
        check_variant(variant)
    seed = settings.get("seed", config.seeds[0])
    output = default_run_dir(profile.name, settings.get("output_dir"))

    clusters = _training_clusters(settings, profile, path)
    set_seed(seed)
    initial = load_encoder(encoder, texts=[doc for docs in clusters["documents"] for doc in docs])
    profile = replace(profile, pretrain=config, encoder=encoder)
    resume = settings.get("resume", True)
    start, _ = pretrain_base(profile, initial, PretrainingClusters(str(path), clusters, {}), output, resume=resume,
                             echo=lambda message: print(message, file=sys.stderr))
    return [pretrain(variant, config, start.model, start.tokenizer, clusters, output, resume=resume, seed=seed,
                     sentence_markers=encoder.sentence_markers)
            for variant in variants]


def _training_clusters(settings: dict, profile, path) -> "Dataset":
    """The CLUSTER_FEATURES training clusters a config file asks for (embedded world or Multi-News)."""
    data = settings.get("data") or {"source": "world"}
    source = data.get("source", "world")
    if source == "world":
        from .data.world import generate_world

        world = _override(profile.world, settings.get("world"), f"{path} 'world'")
        return generate_world(world).clusters["train"]
    if source == "multinews":
        from .data.multinews import load_multinews

        return load_multinews(data.get("path"), split="train", min_documents=3)
    raise ConfigError(f"{path}: data.source must be 'world' or 'multinews', got {source!r}")
