"""Run profiles, defined in one place: `smoke` (CI, seconds), `cpu` (offline default, minutes) and `gpu`
(the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub).

A notebook's `parameters` cell holds only `PROFILE = "cpu"`; the next cell calls `setup(PROFILE, ...)` and
reads the sections it needs (e.g. `session.profile.world`). Each section is a frozen dataclass with one value
per profile, so a typo fails loudly and the three settings sit side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import ConfigError

PROFILE_NAMES = ("smoke", "cpu", "gpu")

# ---------------------------------------------------------------------------------------------------------
# Sections: one frozen dataclass per concept, and a dict {profile name: value} beside it.
# ---------------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """Everything that changes between a CI check, a laptop run and the papers' setting."""

    name: str
    description: str
    data_source: str  # "embedded" (generated offline) or "hub" (the real corpora, downloaded)
    seed: int
    minutes_budget: float  # wall-clock budget for the whole suite on its target machine (0: not budgeted)

    def override(self, **changes: Any) -> "Profile":
        """A copy with some fields replaced; unknown names raise ConfigError."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ConfigError(f"unknown profile field(s) {unknown}; valid: {sorted(known)}")
        return replace(self, **changes)


def _build(name: str, description: str, data_source: str, minutes_budget: float) -> Profile:
    return Profile(
        name=name,
        description=description,
        data_source=data_source,
        seed=13,
        minutes_budget=minutes_budget,
    )


PROFILES: dict[str, Profile] = {
    "smoke": _build("smoke", "tiny models and data; checks that every notebook executes (CI)", "embedded", 8),
    "cpu": _build("cpu", "the offline default: embedded world, tiny Longformer, minutes on a 2-core CPU",
                  "embedded", 20),
    "gpu": _build("gpu", "the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub, one GPU",
                  "hub", 0),
}


def profile_names() -> list[str]:
    """The valid profile names, in increasing size."""
    return list(PROFILE_NAMES)


def get_profile(name: str) -> Profile:
    """The profile called `name`; an unknown name raises ConfigError listing the valid ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"unknown profile {name!r}; choose one of {profile_names()}") from None
