"""`cdlm-nb pretrain --config FILE`: notebook 02's pretraining as a script that scales out (torchrun, accelerate).

Every process of a `torchrun` / `accelerate launch` job runs `pretrain_from_config`; the Trainer splits the
batches, and `trainer.process_batch` divides the accumulation by the process count, so the effective batch (the
profile's per-device batch x gradient accumulation) is the same on 1 GPU or 8.
`cdlm-nb pretrain-base` (`build_shipped_base`) trains a profile's base stages alone, to ship with the package.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..pretraining.shipped_base import shipped_base_dir
from ..pretraining.stages import initial_encoder, pretrain_base, save_released, train_variant
from ..support.artefacts import copy_folder, record_manifest, write_text_atomic
from ..support.errors import ConfigError
from ..support.processes import is_main_process, main_process_first
from ..variants import RESULT_FILE, PretrainResult, check_variant, load_result, model_dir

if TYPE_CHECKING:
    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..profiles import Profile, WorldConfig

#: The fields of a `cdlm-nb pretrain --config FILE` JSON file (all optional).
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


def training_clusters(source: str, world_config: "WorldConfig",
                      multinews_path: str | None = None) -> PretrainingClusters:
    """The clusters of a `cdlm-nb pretrain` config: the `world` (with its held-out topics, so the runs record
    learning curves as notebook 02's do) or Multi-News train (file or hub; no held-out clusters)."""
    from ..data import corpora

    if source == "world":
        return corpora.world_clusters(world_config)
    if source == "multinews":
        from ..data.multinews import CDLM_MIN_DOCUMENTS, load_multinews

        train = load_multinews(multinews_path, split="train", min_documents=CDLM_MIN_DOCUMENTS)
        return corpora.PretrainingClusters(f"Multi-News train ({multinews_path or 'hub'})", train, {})
    raise ConfigError(f"data.source must be 'world' or 'multinews', got {source!r}")


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


def pretrain_from_config(path: str | os.PathLike) -> list[PretrainResult]:
    """Run `pretrain` for each variant of a JSON config file. Like notebook 02, a random tiny encoder first gets
    the shared base stages (`stages.pretrain_base`), Longformer is that start saved unchanged, and runs on the world
    record their learning curves on its validation topics (`stages.train_variant`); progress goes to stderr."""
    from transformers import set_seed

    from ..encoders import load_encoder
    from ..profiles import get_profile, override
    from ..support.paths import run_dir as default_run_dir

    settings = read_script_config(path)
    profile = get_profile(settings.get("profile", "cpu"))
    config = override(profile.pretrain, settings.get("pretrain"), f"{path} 'pretrain'")
    encoder = override(profile.encoder, settings.get("encoder"), f"{path} 'encoder'")
    world = override(profile.world, settings.get("world"), f"{path} 'world'")
    variants = settings.get("variants") or list(config.variants)
    for variant in variants:
        check_variant(variant)
    seed = settings.get("seed", config.seeds[0])
    output = default_run_dir(profile.name, settings.get("output_dir"))
    data = settings.get("data") or {"source": "world"}
    try:
        with main_process_first():  # one download of Multi-News per job; the others read the hub's cache
            clusters = training_clusters(data.get("source", "world"), world, data.get("path"))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None

    set_seed(seed)
    initial = load_encoder(encoder, texts=[doc for docs in clusters.train["documents"] for doc in docs])
    profile = replace(profile, pretrain=config, encoder=encoder)
    resume = settings.get("resume", True)
    start, _ = pretrain_base(profile, initial, clusters, output, resume=resume, echo=to_stderr)
    return [saved_once(profile, start, output, seed) if variant == "longformer" else
            train_variant(variant, config, profile, start, clusters, output, resume=resume, seed=seed)
            for variant in variants]


def saved_once(profile: "Profile", start: "Encoder", output: Path, seed: int) -> PretrainResult:
    """Longformer (the start, unchanged) saved by the main process of a multi-process job; the others read its
    result once it is written (two processes saving one folder would remove each other's unfinished files)."""
    with main_process_first():
        if is_main_process():
            return save_released("longformer", profile, start, output, to_stderr, seed)
    return load_result(output, "longformer", seed, profile.pretrain)


def to_stderr(message: str) -> None:
    """Progress of a script run: on stderr, so that stdout holds only its results."""
    print(message, file=sys.stderr)


def build_shipped_base(profile_name: str, run_dir: str | os.PathLike | None = None,
                       output: str | os.PathLike | None = None,
                       echo: Callable[[str], object] = print) -> list[tuple[Path, PretrainResult]]:
    """`cdlm-nb pretrain-base`: train the profile's base stages as notebook 02 would (resumable, in `run_dir`,
    default `runs/<profile>-base`), never from a shipped model, and copy each to `output/<profile>-<stage>`
    (default: the package's checkpoints, where notebook 02 looks: `shipped_base.shipped_base_dir`)."""
    from ..data.corpora import pretraining_clusters
    from ..profiles import get_profile
    from ..support.paths import run_dir as default_run_dir

    profile = get_profile(profile_name)
    folder = default_run_dir(f"{profile.name}-base", run_dir)
    clusters = pretraining_clusters(profile)
    _, results = pretrain_base(profile, initial_encoder(profile, clusters), clusters, folder, shipped=False,
                               echo=echo)
    if not results:
        raise ConfigError(f"profile {profile.name!r} has no base stage (pretrain.base_steps is 0 or its encoder is "
                          "already pretrained); nothing to ship")
    shipped = []
    for result in results:
        target = shipped_base_dir(profile.name, result.variant, Path(output) if output else None)
        shutil.rmtree(target, ignore_errors=True)
        copy_folder(model_dir(folder, result.variant), target)
        data = json.loads((target / RESULT_FILE).read_text())  # no path of this machine in the shipped files
        write_text_atomic(target / RESULT_FILE, json.dumps({**data, "model_dir": target.name}, indent=2))
        record_manifest(target)
        shipped.append((target, result))
    return shipped
