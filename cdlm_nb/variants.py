"""The model registry: which models the tutorial compares, what they are called, where they are saved, how they load
(every later notebook reads notebook 02's models through it, so evaluation never depends on training code). The
start's two stages, `base` (one document per input) and `base-long` (unrelated documents packed), run with full
attention; `pretraining.stages` then gives them the profile's window.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING

from .profiles import PAPER_MODELS, RELEASED_MODELS
from .support.artefacts import check_artefact, manifest_path, save_folder
from .support.errors import ConfigError, DataError

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from .encoders import Encoder
    from .profiles import PretrainConfig, Profile

#: Every model name the registry knows (`release`: the released code's pattern; `base`: the shared start).
MODEL_VARIANTS = (*PAPER_MODELS, "release", "base", "base-copy", "base-long")
SINGLE_DOCUMENT_VARIANTS = ("longformer", "base", "base-copy")  # one document per input
UNRELATED_DOCUMENT_VARIANTS = ("rand", "base-long")  # documents of different clusters packed together
LOCAL_ONLY_VARIANTS = (*SINGLE_DOCUMENT_VARIANTS, "local", "base-long")  # trained without global attention
DISPLAY_NAMES = {
    "longformer": "Longformer", "local": "Local CDLM", "rand": "Rand CDLM", "prefix": "Prefix CDLM", "cdlm": "CDLM",
    "release": "CDLM (released pattern)", "base": "Base (single-document MLM)",
    "base-copy": "Base, repeated spans (single documents, some with a span written twice)",
    "base-long": "Base, long inputs (unrelated documents packed)", "start": "Start (before CD-MLM)",
}
#: What each model was trained on after the start (a table cell).
TRAINED_ON = {
    "longformer": "nothing further (the start)", "local": "related documents, local attention",
    "rand": "unrelated documents, global masked tokens", "prefix": "related documents, global first 15 %",
    "cdlm": "related documents, global masked tokens",
    "release": "related documents, the released code's global tokens",
}
RESULT_FILE = "pretraining.json"  # beside each saved model: its loss curve, throughput and run setup
#: What a saved model folder must hold to load, checked even where no manifest recorded it (an older run folder).
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")


def display_name(variant: str) -> str:
    """The readable name of a model (`cdlm` -> `CDLM`); unknown names are returned as they are."""
    return DISPLAY_NAMES.get(variant, variant)


def run_label(run_name: str, labels: Mapping[str, str]) -> str:
    """The table row of a run: its label in `labels` (a task's own runs), else the model's display name."""
    return labels.get(run_name) or display_name(run_name)


def check_variant(variant: str) -> None:
    """Raise a ConfigError naming the valid models."""
    if variant not in MODEL_VARIANTS:
        raise ConfigError(f"unknown model {variant!r}; choose one of {list(MODEL_VARIANTS)}")


def attention_pattern_of(variant: str) -> str:
    """The masking pattern (`cdlm_nb.masking`) a model is trained with: `local` for those without global attention."""
    check_variant(variant)
    return "local" if variant in LOCAL_ONLY_VARIANTS else variant


@dataclass
class PretrainResult:
    """What one pretraining run produced: the model folder, its loss curve and its throughput."""

    variant: str
    seed: int
    model_dir: Path
    steps: int  # optimizer steps reached
    loss_history: list[tuple[int, float]] = field(default_factory=list)  # (step, mean training loss since last log)
    lr_history: list[tuple[int, float]] = field(default_factory=list)  # (step, learning rate): warm-up, then decay
    seconds: float = 0.0  # wall-clock training time of this session (a resumed run counts only its own part)
    tokens: int = 0  # non-padding input tokens of this session, all processes together (`release`: with padding)
    resumed_from_step: int = 0  # 0 for a fresh run
    attention: str = ""  # self-attention implementation trained with (`longformer_attention.IMPLEMENTATIONS`)
    perplexity_history: list[tuple[int, float]] = field(default_factory=list)  # (step, validation perplexity)
    #: (step, tokens trained, within-reach copy gain as repeated, with halves swapped): `curve.CopyProbeCurve`
    copy_probe_history: list[tuple[int, int, float, float]] = field(default_factory=list)

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else float("nan")

    @property
    def final_loss(self) -> float:
        return self.loss_history[-1][1] if self.loss_history else float("nan")

    def to_json(self) -> dict:
        return asdict(self) | {"model_dir": str(self.model_dir), "tokens_per_second": self.tokens_per_second}


#: PretrainConfig fields that change neither the trained weights nor the data: left out of a run's fingerprint.
NOT_IN_SETUP = ("gradient_checkpointing", "heldout_clusters", "copy_probe_steps")


def run_setup(variant: str, seed: int, config: "PretrainConfig", n_examples: int, processes: int = 1) -> dict:
    """The fingerprint of a pretraining run: a saved model or checkpoint is reused only when it matches (as JSON).
    Settings at their default are left out, so a model saved before a setting existed keeps matching; several
    processes add their count (each draws its own masks, so a checkpoint resumes only on as many)."""
    defaults = {f.name: f.default for f in fields(config) if f.default is not MISSING}
    settings = {name: value for name, value in asdict(config).items()
                if name not in NOT_IN_SETUP and not (name in defaults and value == defaults[name])}
    setup = {"variant": variant, "seed": seed, "config": settings, "examples": n_examples}
    return json.loads(json.dumps(setup | ({"processes": processes} if processes > 1 else {})))


def model_name(variant: str, seed: int | None = None, config: "PretrainConfig | None" = None) -> str:
    """Folder name of a model: the variant for the default (first) seed, `<variant>-seed<seed>` for others."""
    check_variant(variant)
    default_seed = config.seeds[0] if config is not None else None
    return variant if seed is None or seed == default_seed else f"{variant}-seed{seed}"


def model_dir(run_dir: str | os.PathLike, variant: str, seed: int | None = None,
              config: "PretrainConfig | None" = None) -> Path:
    """`<run_dir>/models/<model name>`: where pretraining saves and `load_pretrained` looks."""
    return Path(run_dir) / "models" / model_name(variant, seed, config)


def notebook_02_command(run_dir: str | os.PathLike, profile: str | None) -> str:
    """The command that (re)makes notebook 02's models in `run_dir` (by default for the profile it is named after)."""
    from .profiles import PROFILE_NAMES

    name = Path(run_dir).name
    profile = profile or (name if name in PROFILE_NAMES else "PROFILE")
    return f"cdlm-nb run --profile {profile} --only 02 --output {run_dir}"


def _missing_models_error(run_dir: str | os.PathLike, missing: list[str], profile: str | None) -> DataError:
    return DataError(f"notebook 02 has not saved the pretrained model(s) {missing} under {Path(run_dir) / 'models'}. "
                     "Run notebook 02 first with the same profile and run folder, e.g. "
                     f"`{notebook_02_command(run_dir, profile)}`")


def _damaged_model_error(run_dir: str | os.PathLike, problems: list[str], profile: str | None) -> DataError:
    return DataError("a model saved by notebook 02 is damaged: " + "; ".join(problems) + ". Rebuild it: run notebook "
                     f"02 again with RESUME = True (it rebuilds damaged models), e.g. "
                     f"`{notebook_02_command(run_dir, profile)}`")


def is_saved(folder: Path) -> bool:
    """Whether a model was (at least partly) saved in `folder`: its weights or its manifest are there."""
    return (folder / "model.safetensors").is_file() or manifest_path(folder).is_file()


def model_problems(folder: Path) -> list[str]:
    """Why the model saved in `folder` cannot be trusted, one line per damaged file ([] if intact; `artefacts`)."""
    return check_artefact(folder, MODEL_FILES)


def save_model_folder(folder: Path, model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                      result: dict) -> Path:
    """A model, its tokenizer and `pretraining.json`, saved atomically with a manifest (a cut save is never taken)."""
    def write(temporary: Path) -> None:
        model.save_pretrained(temporary)
        tokenizer.save_pretrained(temporary)
        (temporary / RESULT_FILE).write_text(json.dumps(result, indent=2))

    return save_folder(folder, write)


def load_pretrained(run_dir: str | os.PathLike, variant: str, seed: int | None = None,
                    config: "PretrainConfig | None" = None, profile: str | None = None) -> "Encoder":
    """The `Encoder` notebook 02 saved as `variant`, with the fast attention; a DataError when missing or damaged."""
    from transformers import AutoTokenizer, LongformerForMaskedLM

    from .encoders import Encoder
    from .longformer_attention import use_fast_attention

    folder = model_dir(run_dir, variant, seed, config)
    if not is_saved(folder):
        raise _missing_models_error(run_dir, [folder.name], profile)
    if problems := model_problems(folder):
        raise _damaged_model_error(run_dir, problems, profile)
    return Encoder(use_fast_attention(LongformerForMaskedLM.from_pretrained(folder, use_safetensors=True)),
                   AutoTokenizer.from_pretrained(folder))


def load_pretrained_models(run_dir: str | os.PathLike, variants: tuple[str, ...],
                           profile: str | None = None) -> dict[str, "Encoder"]:
    """Notebook 02's models (variant -> Encoder); one DataError naming every missing one and the command to run."""
    if missing := [v for v in variants if not is_saved(model_dir(run_dir, v))]:
        raise _missing_models_error(run_dir, missing, profile)
    return {variant: load_pretrained(run_dir, variant, profile=profile) for variant in variants}


def load_result(run_dir: str | os.PathLike, variant: str, seed: int | None = None,
                config: "PretrainConfig | None" = None) -> PretrainResult:
    """The `PretrainResult` saved beside a pretrained model (loss curve, time, tokens)."""
    path = model_dir(run_dir, variant, seed, config) / RESULT_FILE
    if not path.is_file():
        raise DataError(f"{path} is missing: run notebook 02 to pretrain {variant!r}")
    try:
        data = json.loads(path.read_text())
    except ValueError as error:
        raise _damaged_model_error(run_dir, [f"{path} does not parse ({error})"], None) from None
    data.pop("tokens_per_second", None)
    data.pop("setup", None)
    data["model_dir"] = path.parent  # where the model is now, whatever folder it was saved from
    for key in ("loss_history", "lr_history", "perplexity_history", "copy_probe_history"):
        data[key] = [tuple(point) for point in data.get(key, [])]
    return PretrainResult(**data)


def saved_setup(run_dir: str | os.PathLike, variant: str) -> dict | None:
    """The run setup saved beside a finished model (`run_setup`), or None when there is none."""
    path = model_dir(run_dir, variant) / RESULT_FILE
    if not path.is_file() or not (path.parent / "model.safetensors").is_file():
        return None
    return json.loads(path.read_text()).get("setup", {})


def shared_tokenizer(models: dict[str, "Encoder"]) -> "PreTrainedTokenizerBase":
    """The tokenizer all models share; a DataError if their vocabularies differ (the masks would not be shared)."""
    first_variant, first = next((variant, encoder.tokenizer) for variant, encoder in models.items())
    if differ := [variant for variant, encoder in models.items() if encoder.tokenizer.get_vocab() != first.get_vocab()]:
        raise DataError(f"the models {differ} use another vocabulary than {first_variant!r}: re-run notebook 02 "
                        "with resume off (RESUME = False) so every model starts from the same tokenizer")
    return first


@dataclass
class PretrainedShelf:
    """Notebook 02's models, loaded fresh per run (fine-tuning changes them); a missing one is skipped, said once."""

    run_dir: Path
    profile: str
    missing: list[str] = field(default_factory=list)

    def load(self, variant: str) -> "Encoder | None":
        """The saved model, or None (after printing how to get it) when it is missing."""
        if is_saved(model_dir(self.run_dir, variant)):
            return load_pretrained(self.run_dir, variant, profile=self.profile)
        if variant not in self.missing:
            self.missing.append(variant)
            why = (_missing_models_error(self.run_dir, [variant], self.profile)
                   if variant in notebook_02_makes(self.profile) else how_to_get(variant, self.profile))
            print(f"skipping {display_name(variant)}: {why}")
        return None

    def load_all(self, variants: Sequence[str]) -> dict[str, "Encoder"]:
        """Every saved model of `variants` (variant -> Encoder), the missing ones skipped; a DataError when none is."""
        models = {variant: encoder for variant in variants if (encoder := self.load(variant)) is not None}
        if not models:
            raise _missing_models_error(self.run_dir, list(variants), self.profile)
        return models

    def last_available(self, variants: Sequence[str]) -> "Encoder | None":
        """The model of the last of `variants` that exists (the example of the pair preview)."""
        return next((encoder for encoder in map(self.load, variants[::-1]) if encoder is not None), None)

    def missing_notes(self) -> dict[str, str]:
        """Each missing model (by display name) -> how to get it."""
        return {display_name(variant): how_to_get(variant, self.profile) for variant in self.missing}

    def missing_note(self) -> str:
        """What to run to fill the gaps ('' when nothing is missing)."""
        return "".join(f"missing {name}: {how}\n" for name, how in self.missing_notes().items()).rstrip()


def starts_pretrained(profile: "Profile") -> bool:
    """Whether the profile starts from Longformer-base (the paper's setting): the released checkpoints then count."""
    return profile.encoder.kind != "tiny"


def notebook_02_makes(profile: str) -> tuple[str, ...]:
    """The models notebook 02 makes by default on `profile`: all from a tiny start, else the two released ones."""
    from .profiles import get_profile

    return RELEASED_MODELS if starts_pretrained(get_profile(profile)) else MODEL_VARIANTS


def how_to_get(variant: str, profile: str) -> str:
    """How a missing model is made: by notebook 02 (with PRETRAIN_STEPS where the authors released none)."""
    if variant not in notebook_02_makes(profile):
        return ("not released by the authors: notebook 02 with PRETRAIN_STEPS = N pretrains it (`cdlm-nb plan` gives "
                "the minutes per variant), same RUN_DIR")
    return f"run notebook 02 first (`cdlm-nb run --only 02 --profile {profile}`), same RUN_DIR"
