"""Run profiles, defined in one place: `smoke` (CI, seconds), `cpu` (offline default, minutes) and `gpu`
(the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub).

A notebook's `parameters` cell holds only `PROFILE = "cpu"`; the next cell calls `get_profile(PROFILE)` and
reads its section (e.g. `profile.world`). Each section is a frozen dataclass so a typo fails loudly.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import ConfigError


@dataclass(frozen=True)
class Profile:
    """Everything that changes between a CI check, a laptop run and the papers' setting."""

    name: str
    description: str
    data_source: str  # "embedded" (generated offline) or "hub" (the real corpora, downloaded)
    seed: int = 13
    minutes_budget: float = 0.0  # wall-clock budget for the whole suite on its target machine

    def override(self, **changes: Any) -> "Profile":
        """A copy with some top-level fields replaced; unknown names raise ConfigError."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ConfigError(f"unknown profile field(s) {unknown}; valid: {sorted(known)}")
        return replace(self, **changes)


PROFILES: dict[str, Profile] = {
    "smoke": Profile(
        name="smoke",
        description="tiny models and data; checks every notebook executes (CI, about a minute each)",
        data_source="embedded",
        minutes_budget=8,
    ),
    "cpu": Profile(
        name="cpu",
        description="the offline default: embedded world, tiny Longformer, minutes on a 2-core CPU",
        data_source="embedded",
        minutes_budget=20,
    ),
    "gpu": Profile(
        name="gpu",
        description="the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub, one GPU",
        data_source="hub",
        minutes_budget=0,  # hours; not budgeted
    ),
}


def profile_names() -> list[str]:
    """The valid profile names, in increasing size."""
    return list(PROFILES)


def get_profile(name: str) -> Profile:
    """The profile called `name`; an unknown name raises ConfigError listing the valid ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"unknown profile {name!r}; choose one of {profile_names()}") from None
