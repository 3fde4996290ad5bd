"""Run profiles, each in one module a reader opens to see it whole: `smoke` (CI, seconds), `cpu` (the offline
default, minutes) and `gpu` (the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub), and
`gpu-rehearsal`: gpu with only its sizes shrunk (`rehearsal.py`), which `cdlm-nb rehearse` runs offline from
stand-ins of the downloads. What each field means, and the papers' value: `sections.py`.

A notebook's `parameters` cell holds only `PROFILE = "cpu"`; the next cell calls `setup(PROFILE, ...)` and reads the
sections it needs (e.g. `session.profile.world`). Each section is a frozen dataclass, so a typo fails loudly.
Import every name from `cdlm_nb.profiles`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from types import ModuleType
from typing import Any

from ..errors import ConfigError
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
    """A copy of a frozen config dataclass with `changes` (JSON lists become tuples); unknown field names raise a
    ConfigError that says `where` they came from and lists the valid ones."""
    changes = dict(changes or {})
    known = {f.name for f in fields(section)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown {type(section).__name__} field(s) {unknown}; valid: {sorted(known)}")
    return replace(section, **{k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()})


def with_parameters(section: Any, where: str, **parameters: Any) -> Any:
    """`section` with a notebook's parameters put in (`override`), each None (the parameters cell's "the profile's
    value") left out: `with_parameters(profile.matching, "notebook 05", epochs=EPOCHS)`."""
    return override(section, {name: value for name, value in parameters.items() if value is not None}, where)


def _build(name: str, values: ModuleType) -> Profile:
    """The profile whose values module is `values` (`smoke`, `cpu`, `gpu`)."""
    return Profile(
        name=name,
        description=values.DESCRIPTION,
        data_source=values.DATA_SOURCE,
        wants_gpu=values.DATA_SOURCE == "hub",
        seed=SEED,
        minutes_budget=values.MINUTES_BUDGET,
        pretrain=values.PRETRAIN,
        attention=values.ATTENTION,
        encoder=values.ENCODER,
        coref=values.COREF,
        matching=values.MATCHING,
        multihop=values.MULTIHOP,
        match_ignition=values.MATCH_IGNITION,
        classification=values.CLASSIFICATION,
        cda=values.CDA,
        comparison=values.COMPARISON,
        world=values.WORLD,
    )


def shrunk(section: Any, sizes: dict, where: str) -> Any:
    """A copy of a config section with some of its sizes replaced; a nested dict shrinks a nested section."""
    changes = {name: shrunk(getattr(section, name), value, f"{where}.{name}") if isinstance(value, dict) else value
               for name, value in sizes.items()}
    return override(section, changes, where)


def rehearsal_of(profile: Profile) -> Profile:
    """`profile` at the rehearsal's sizes (`rehearsal.REHEARSAL_SIZES`), every other field unchanged."""
    sections = {name: shrunk(getattr(profile, name), sizes, f"rehearsal sizes [{name!r}]")
                for name, sizes in REHEARSAL_SIZES.items()}
    return replace(profile, name=f"{profile.name}-rehearsal", minutes_budget=REHEARSAL_MINUTES,
                   description=f"{profile.name} with only its sizes shrunk: walks that path in minutes on a CPU, "
                               "from local stand-ins of the downloads (`cdlm-nb rehearse`)", **sections)


PROFILES: dict[str, Profile] = {"smoke": _build("smoke", smoke), "cpu": _build("cpu", cpu), "gpu": _build("gpu", gpu)}
PROFILES["gpu-rehearsal"] = rehearsal_of(PROFILES["gpu"])


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
           "get_profile", "override", "profile_names", "rehearsal_of", "shrunk", "with_parameters"]
