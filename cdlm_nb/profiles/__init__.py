"""Run profiles, each whole in one module: `smoke` (CI, seconds), `cpu` (the offline default, minutes), `gpu` (the
papers' setting: Longformer-base, 4,096 tokens, the real corpora from the hub), and `gpu-rehearsal`, gpu with only its
sizes shrunk (`rehearsal.py`) that `cdlm-nb rehearse` runs offline. Each section is a frozen dataclass of
`sections.py`, which says what each field means (a typo fails loudly).

A notebook calls `setup(PROFILE, ...)` and reads the sections it needs (`session.profile.world`). Import every name
from `cdlm_nb.profiles`."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from types import ModuleType
from typing import Any

from ..support.errors import ConfigError
from . import cpu, gpu, smoke
from .rehearsal import REHEARSAL_MINUTES, REHEARSAL_SIZES
from .sections import (
    BASELINE_SYSTEMS,
    CDA_MODELS,
    COMPARISON_SYSTEMS,
    PAPER_MODELS,
    RELEASED_MODELS,
    SEED,
    AttentionConfig,
    CDAConfig,
    ClassificationConfig,
    ComparisonConfig,
    CorefConfig,
    EncoderConfig,
    MatchIgnitionConfig,
    MatchingConfig,
    MultihopConfig,
    PretrainConfig,
    SearchSpace,
    WorldConfig,
)

PROFILE_NAMES = ("smoke", "cpu", "gpu", "gpu-rehearsal")


@dataclass(frozen=True)
class Profile:
    """Everything that changes between a CI check, a laptop run and the papers' setting."""

    name: str
    description: str
    data_source: str  # "embedded" (generated offline) or "hub" (the real corpora, downloaded)
    wants_gpu: bool  # sized for a GPU: setup() says how to get one when it runs on a CPU
    seed: int
    minutes_budget: float  # wall-clock budget for the whole suite on its target machine (0: not budgeted)
    pretrain: PretrainConfig
    attention: AttentionConfig
    encoder: EncoderConfig
    coref: CorefConfig
    matching: MatchingConfig
    multihop: MultihopConfig
    match_ignition: MatchIgnitionConfig
    classification: ClassificationConfig
    cda: CDAConfig
    comparison: ComparisonConfig
    world: WorldConfig

    def override(self, **changes: Any) -> "Profile":
        """A copy with some fields replaced; unknown names raise ConfigError."""
        return override(self, changes, "profile")


def override(section: Any, changes: dict | None, where: str) -> Any:
    """A copy of a config section with `changes` (lists become tuples); an unknown field raises a ConfigError naming
    `where` it came from and the valid ones."""
    changes = dict(changes or {})
    known = {f.name for f in fields(section)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown {type(section).__name__} field(s) {unknown}; valid: {sorted(known)}")
    return replace(section, **{k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()})


def with_parameters(section: Any, where: str, **parameters: Any) -> Any:
    """`section` with a notebook's parameters put in, each None ("the profile's value") left out:
    `with_parameters(profile.matching, "notebook 05", epochs=EPOCHS)`."""
    return override(section, {name: value for name, value in parameters.items() if value is not None}, where)


def _build(name: str, values: ModuleType) -> Profile:
    """The profile of a values module (`smoke`, `cpu`, `gpu`), each field its upper-case name there."""
    given = {f.name: getattr(values, f.name.upper()) for f in fields(Profile)
             if f.name not in ("name", "wants_gpu", "seed")}
    return Profile(name=name, wants_gpu=values.DATA_SOURCE == "hub", seed=SEED, **given)


def shrunk(section: Any, sizes: dict, where: str) -> Any:
    """A config section with some sizes replaced; a nested dict shrinks a nested section."""
    changes = {name: shrunk(getattr(section, name), value, f"{where}.{name}") if isinstance(value, dict) else value
               for name, value in sizes.items()}
    return override(section, changes, where)


PROFILES: dict[str, Profile] = {"smoke": _build("smoke", smoke), "cpu": _build("cpu", cpu), "gpu": _build("gpu", gpu)}
#: gpu at the rehearsal's sizes (`REHEARSAL_SIZES`), every other field unchanged
PROFILES["gpu-rehearsal"] = replace(
    PROFILES["gpu"], name="gpu-rehearsal", minutes_budget=REHEARSAL_MINUTES,
    description="gpu with only its sizes shrunk: walks that path in minutes on a CPU, from local stand-ins of the "
                "downloads (`cdlm-nb rehearse`)",
    **{name: shrunk(getattr(PROFILES["gpu"], name), sizes, f"rehearsal sizes [{name!r}]")
       for name, sizes in REHEARSAL_SIZES.items()})


def profile_names() -> list[str]:
    """The valid profile names, in increasing size."""
    return list(PROFILE_NAMES)


def get_profile(name: str) -> Profile:
    """The profile called `name`; an unknown name raises ConfigError listing the valid ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"unknown profile {name!r}; choose one of {profile_names()}") from None


__all__ = ["BASELINE_SYSTEMS", "CDA_MODELS", "COMPARISON_SYSTEMS", "PAPER_MODELS", "PROFILES", "PROFILE_NAMES",
           "REHEARSAL_MINUTES", "REHEARSAL_SIZES", "RELEASED_MODELS", "SEED", "AttentionConfig", "CDAConfig",
           "ClassificationConfig", "ComparisonConfig", "CorefConfig", "EncoderConfig", "MatchIgnitionConfig",
           "MatchingConfig", "MultihopConfig", "PretrainConfig", "Profile", "SearchSpace", "WorldConfig",
           "get_profile", "override", "profile_names", "shrunk", "with_parameters"]
