"""One pretraining run with the Hugging Face `Trainer`, with the CDLM preprint (v1)'s Appendix B recipe: AdamW with
RoBERTa's betas, weight decay 0.01, linear warm-up then power-3 polynomial decay, fp16 on CUDA. An interrupted run
resumes from `<run_dir>/checkpoints/<model>/`; a finished one is saved in `<run_dir>/models/<model>/`."""

from __future__ import annotations

import copy
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.compute as pc
import torch
import torch.nn.functional as F
from transformers import LongformerForMaskedLM, PrinterCallback, Trainer, TrainerCallback, TrainingArguments, set_seed
from transformers.modeling_outputs import MaskedLMOutput

from ..batching import length_grouped_order
from ..encoders import max_input_length
from ..longformer_attention import implementation, use_fast_attention, uses_fast_attention
from ..masking import IGNORE_INDEX, CrossDocumentMLMCollator
from ..support.artefacts import check_artefact, record_manifest, write_text_atomic
from ..support.errors import ConfigError
from ..support.precision import precision
from ..support.progress import is_headless
from ..variants import (
    PretrainResult,
    attention_pattern_of,
    check_variant,
    model_dir,
    model_name,
    run_setup,
    save_model_folder,
)
from .curve import copy_probe_points, curve_points
from .inputs import pretraining_inputs

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..profiles import PretrainConfig

#: RoBERTa's optimizer settings (Liu et al., 2019), which CDLM keeps (the CDLM preprint (v1), Appendix B).
ADAM_BETAS = (0.9, 0.98)
ADAM_EPSILON = 1e-6
SETUP_FILE = "pretrain_setup.json"  # beside an interrupted run's checkpoints: its `variants.run_setup`
#: What a Trainer checkpoint must hold to resume from, checked even where no manifest recorded it.
CHECKPOINT_FILES = ("model.safetensors", "optimizer.pt", "scheduler.pt", "trainer_state.json")


class MaskedPositionsLongformer(LongformerForMaskedLM):
    """A LongformerForMaskedLM whose LM head, given labels, runs on predicted positions only; saved as a plain one."""

    accepts_loss_kwargs = False  # the Trainer must scale the loss for gradient accumulation and processes itself

    @classmethod
    def from_plain(cls, model: "PreTrainedModel") -> "MaskedPositionsLongformer":
        """A copy of `model`'s configuration, weights and attention implementation."""
        masked = cls(copy.deepcopy(model.config))
        masked.load_state_dict(model.state_dict())
        return use_fast_attention(masked) if uses_fast_attention(model) else masked

    def to_plain(self, weights: dict[str, torch.Tensor] | None = None) -> LongformerForMaskedLM:
        """A plain LongformerForMaskedLM with these weights (or `weights`, the state dict a sharded run gathers)."""
        plain = LongformerForMaskedLM(self.config)
        plain.load_state_dict(self.state_dict() if weights is None else weights)
        return use_fast_attention(plain) if uses_fast_attention(self) else plain

    def forward(self, input_ids: torch.Tensor | None = None, *, labels: torch.Tensor | None = None,
                **kwargs) -> MaskedLMOutput:
        """The usual forward without labels; with them, logits (n predicted, vocabulary) and loss."""
        if labels is None:
            return super().forward(input_ids=input_ids, **kwargs)
        logits, loss = masked_positions_loss(self.lm_head, self.longformer(input_ids, **kwargs)[0], labels)
        return MaskedLMOutput(loss=loss, logits=logits)


def masked_positions_loss(lm_head: torch.nn.Module, hidden: torch.Tensor,
                          labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits, loss) of masked-LM training, only the predicted positions projected onto the vocabulary."""
    predicted = labels != IGNORE_INDEX
    logits = lm_head(hidden[predicted])
    return logits, F.cross_entropy(logits.float(), labels[predicted])


def process_batch(config: "PretrainConfig", world_size: int) -> tuple[int, int]:
    """(per-device batch, accumulation) on `world_size` processes keeping the effective batch (1 GPU or 8 alike);
    accumulation is divided first, so no device holds more than before."""
    effective = config.per_device_batch_size * config.gradient_accumulation_steps
    per_process, rest = divmod(effective, world_size)
    if rest or not per_process:
        raise ConfigError(f"the effective batch {effective} (pretrain.per_device_batch_size x "
                          f"gradient_accumulation_steps) does not split over {world_size} processes: choose a "
                          f"process count that divides it, or an effective batch that {world_size} divides")
    accumulation = -(-per_process // config.per_device_batch_size)
    while per_process % accumulation:
        accumulation += 1
    return per_process // accumulation, accumulation


def training_arguments(config: "PretrainConfig", variant: str, output_dir: str | os.PathLike, seed: int,
                       headless: bool | None = None) -> TrainingArguments:
    """`TrainingArguments` for one run: the paper's optimizer and schedule, examples read in the order given."""
    if config.warmup_steps >= config.max_steps:  # the polynomial decay would divide by zero at its last step
        raise ConfigError(f"{variant}: warmup_steps={config.warmup_steps} must be below max_steps={config.max_steps} "
                          "(the decay needs steps after the warm-up): lower warmup_steps or raise max_steps")
    cuda = torch.cuda.is_available()
    mixed = precision("cuda" if cuda else "cpu") if config.fp16 else None
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    distributed = world_size > 1
    batch, accumulation = process_batch(config, world_size)
    return TrainingArguments(
        output_dir=str(output_dir), max_steps=config.max_steps, per_device_train_batch_size=batch,
        gradient_accumulation_steps=accumulation, learning_rate=config.learning_rate, warmup_steps=config.warmup_steps,
        lr_scheduler_type="polynomial", lr_scheduler_kwargs={"power": config.lr_power},
        weight_decay=config.weight_decay, adam_beta1=ADAM_BETAS[0], adam_beta2=ADAM_BETAS[1], adam_epsilon=ADAM_EPSILON,
        fp16=mixed == "fp16", bf16=mixed == "bf16", activation_checkpointing=config.gradient_checkpointing,
        logging_steps=config.logging_steps, save_strategy="steps", save_steps=config.save_steps, save_total_limit=2,
        seed=seed, data_seed=seed, train_sampling_strategy="sequential", report_to="none",
        disable_tqdm=is_headless() if headless is None else headless, include_num_input_tokens_seen="non_padding",
        remove_unused_columns=False, dataloader_num_workers=0, dataloader_pin_memory=cuda,
        use_cpu=distributed and not cuda,  # without it a CPU job of several processes would not use DDP at all
        ddp_backend="gloo" if distributed and not cuda else None,
        # local-attention models never use Longformer's global projections: DDP must not wait for their gradients
        ddp_find_unused_parameters=attention_pattern_of(variant) == "local" if distributed else None,
    )


def pretrain(variant: str, config: "PretrainConfig", initial_model: "PreTrainedModel",
             tokenizer: "PreTrainedTokenizerBase", train_clusters: "Dataset", run_dir: str | os.PathLike,
             resume: bool = True, seed: int | None = None, sentence_markers: bool = False,
             callbacks: list[TrainerCallback] | None = None, echo: Callable[[str], object] = print,
             collator: CrossDocumentMLMCollator | None = None) -> PretrainResult:
    """Pretrain a copy of `initial_model` as `variant` and save it under `run_dir`; with `resume`, an interrupted run
    continues from its last intact checkpoint (the masks drawn after differ: the Trainer restores the RNG late)."""
    check_variant(variant)
    seed = config.seeds[0] if seed is None else seed
    capacity = max_input_length(initial_model)
    if config.max_length > capacity:
        raise ConfigError(f"PretrainConfig.max_length={config.max_length} exceeds the model's {capacity} positions: "
                          "lower max_length or build the encoder with a larger EncoderConfig.max_length")
    checkpoints = Path(run_dir) / "checkpoints" / model_name(variant, seed, config)
    final_dir = model_dir(run_dir, variant, seed, config)
    args = training_arguments(config, variant, checkpoints, seed)
    setup = run_setup(variant, seed, config, len(train_clusters), args.world_size)
    # the job's first process (of all nodes, sharing one run folder) checks, removes and packs first; the others read
    with args.main_process_first(local=False, desc="checking checkpoints"):
        resume_from = _checkpoint_to_resume(checkpoints, setup, echo) if resume else None
        if not resume and checkpoints.exists():
            shutil.rmtree(checkpoints)

    set_seed(seed)
    effective_batch = config.per_device_batch_size * config.gradient_accumulation_steps  # on any process count
    with args.main_process_first(local=False, desc=f"packing {variant} inputs"):
        examples = training_examples(variant, config, tokenizer, train_clusters, run_dir, seed, sentence_markers, echo)
    # each example's tokens, from the Arrow column: on gpu the token lists would not fit in memory as Python lists
    lengths = pc.list_value_length(examples.with_format("arrow")["input_ids"]).to_pylist()
    order = length_grouped_order(lengths, effective_batch, config.max_steps, seed)
    model = MaskedPositionsLongformer.from_plain(initial_model).train()
    collator = collator or CrossDocumentMLMCollator(tokenizer, pattern=attention_pattern_of(variant))
    train = examples.select_columns(["input_ids"]).select(order, keep_in_memory=True)  # no file beside it
    # the Trainer seeds again (args.seed): the copy above draws nothing the run depends on
    trainer = Trainer(model=model, args=args, data_collator=collator, train_dataset=train, processing_class=tokenizer,
                      callbacks=[CheckpointManifest(), *(callbacks or [])])
    if args.disable_tqdm:
        trainer.remove_callback(PrinterCallback)  # headless: no log dict printed every logging step
    if trainer.is_world_process_zero():
        checkpoints.mkdir(parents=True, exist_ok=True)
        write_text_atomic(checkpoints / SETUP_FILE, json.dumps(setup, indent=2, sort_keys=True))
    step_before = tokens_before = 0  # read now, if resuming: checkpoint rotation may delete that folder
    if resume_from:
        step_before = int(Path(resume_from).name.rsplit("-", 1)[1])
        state = json.loads((Path(resume_from) / "trainer_state.json").read_text())
        tokens_before = int(state.get("num_input_tokens_seen", 0))
    start = time.perf_counter()
    trainer.train(resume_from_checkpoint=resume_from)
    state, log = trainer.state, trainer.state.log_history
    result = PretrainResult(
        variant, seed, final_dir, state.global_step, loss_history=[(e["step"], e["loss"]) for e in log if "loss" in e],
        lr_history=[(e["step"], e["learning_rate"]) for e in log if "learning_rate" in e],
        perplexity_history=curve_points(log), copy_probe_history=copy_probe_points(log),
        seconds=time.perf_counter() - start, tokens=state.num_input_tokens_seen - tokens_before,
        resumed_from_step=step_before, attention=implementation(model))
    # Every process takes part: a sharded model (FSDP, DeepSpeed ZeRO-3) is gathered whole onto the main process.
    weights = trainer.accelerator.get_state_dict(trainer.model_wrapped)
    with args.main_process_first(desc="saving the model"):  # the others return once the model is complete
        if trainer.is_world_process_zero():
            save_model_folder(final_dir, model.to_plain(weights), tokenizer, {**result.to_json(), "setup": setup})
            shutil.rmtree(checkpoints)
    return result


def training_examples(variant: str, config: "PretrainConfig", tokenizer: "PreTrainedTokenizerBase",
                      train_clusters: "Dataset", run_dir: str | os.PathLike, seed: int, sentence_markers: bool = False,
                      echo: Callable[[str], object] = print) -> "Dataset":
    """The packed examples `pretrain` trains on: enough for `config.max_steps` effective batches."""
    effective_batch = config.per_device_batch_size * config.gradient_accumulation_steps
    return pretraining_inputs(variant, train_clusters, tokenizer, config.max_length, config.max_steps * effective_batch,
                              seed, sentence_markers, run_dir, echo)


class CheckpointManifest(TrainerCallback):
    """Records each checkpoint's files in its manifest once the Trainer has written it (`artefacts`)."""

    def on_save(self, args: TrainingArguments, state, control, **kwargs):
        folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if state.is_world_process_zero and folder.is_dir():
            record_manifest(folder)


def _checkpoint_to_resume(checkpoints: Path, setup: dict, echo: Callable[[str], object] = print) -> str | None:
    """The last intact checkpoint of an interrupted run (damaged later ones said, removed); another setup: an error."""
    found = sorted((p for p in checkpoints.glob("checkpoint-*") if p.is_dir() and p.name.rsplit("-", 1)[1].isdigit()),
                   key=lambda p: int(p.name.rsplit("-", 1)[1]), reverse=True)
    if not found:
        return None
    saved = checkpoints / SETUP_FILE
    if saved.exists() and json.loads(saved.read_text()) != setup:
        raise ConfigError(f"{checkpoints} holds an interrupted run with a different setup ({saved}); delete the "
                          "folder or call pretrain(..., resume=False) to start afresh")
    for checkpoint in found:
        problems = check_artefact(checkpoint, CHECKPOINT_FILES, echo)
        if not problems:
            return str(checkpoint)
        shutil.rmtree(checkpoint, ignore_errors=True)  # by the job's first process (`pretrain`): the others wait
        echo(f"checkpoint {checkpoint} is damaged, removed; falling back to the previous checkpoint: "
             + "; ".join(problems))
    echo(f"no intact checkpoint left in {checkpoints}: pretraining from the start")
    return None
