"""The `cpu` profile's base stages shipped in `cdlm_nb/checkpoints/` (`cdlm-nb pretrain-base --profile cpu`), as the
paper starts from a released Longformer-base; notebook 02 copies one only when its run setup, architecture and
tokenizer are exactly those it would train with, else trains it and says why."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from transformers import AutoConfig, AutoTokenizer

from ..support.artefacts import copy_folder
from ..variants import (
    RESULT_FILE,
    PretrainResult,
    display_name,
    is_saved,
    load_result,
    model_dir,
    model_problems,
    run_setup,
)

if TYPE_CHECKING:
    from ..encoders import Encoder
    from ..profiles import PretrainConfig

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"
#: The model-config fields a shipped base must share with the encoder it stands in for.
ARCHITECTURE = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                "max_position_embeddings", "hidden_dropout_prob", "attention_probs_dropout_prob")


def shipped_base_dir(profile_name: str, stage: str = "base", root: Path | None = None) -> Path:
    """Where a profile's shipped base stage lives: `<root>/<profile>-<stage>` (default root: the package's)."""
    return (root or CHECKPOINTS) / f"{profile_name}-{stage}"


def _flat(setup: dict) -> dict:
    """A run setup (`variants.run_setup`) in one level: its PretrainConfig fields beside variant, seed, examples."""
    return {**{key: value for key, value in setup.items() if key != "config"}, **setup.get("config", {})}


def mismatch(folder: Path, setup: dict, encoder: "Encoder") -> str | None:
    """Why the base model in `folder` cannot stand in for one trained from `encoder` with `setup`; None if it can."""
    if not (folder / RESULT_FILE).is_file() or not (folder / "model.safetensors").is_file():
        return f"{folder} holds no model.safetensors with its {RESULT_FILE}"
    if problems := model_problems(folder):
        return "it is damaged: " + "; ".join(problems)
    config = AutoConfig.from_pretrained(folder)
    if architecture := [key for key in ARCHITECTURE if getattr(config, key) != getattr(encoder.model.config, key)]:
        return f"it has another architecture ({', '.join(architecture)} differ)"
    saved, wanted = _flat(json.loads((folder / RESULT_FILE).read_text()).get("setup", {})), _flat(setup)
    if saved != wanted:
        differ = sorted(key for key in {*saved, *wanted} if saved.get(key) != wanted.get(key))
        return f"it was trained with another run setup ({', '.join(differ)} differ)"
    if AutoTokenizer.from_pretrained(folder).get_vocab() != encoder.tokenizer.get_vocab():
        return "its tokenizer differs from the one trained on these documents (another world?)"
    return None


def install_shipped_base(profile_name: str, stage: str, config: "PretrainConfig", encoder: "Encoder", n_train: int,
                         run_dir: str | os.PathLike, echo: Callable[[str], object] = print) -> PretrainResult | None:
    """The shipped base `stage`, copied into `run_dir` if it matches `encoder` and `config`; else None (said)."""
    folder = shipped_base_dir(profile_name, stage)
    if not folder.is_dir():
        return None
    if (why := mismatch(folder, run_setup(stage, config.seeds[0], config, n_train), encoder)) is not None:
        echo(f"The shipped {display_name(stage)} model ({folder}) is not used: {why}. Training it here instead.")
        return None
    target = model_dir(run_dir, stage)
    damaged = model_problems(target) if is_saved(target) else []
    copy_folder(folder, target)
    result = load_result(run_dir, stage)
    replacing = f", replacing a damaged copy ({'; '.join(damaged)})" if damaged else ""
    echo(f"{display_name(stage)}: the model shipped with the package ({result.steps} steps, trained in "
         f"{result.seconds:.0f} s by `cdlm-nb pretrain-base --profile {profile_name}`), copied to "
         f"{result.model_dir}{replacing}")
    return result
