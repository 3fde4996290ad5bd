"""Checks run before generating: a `WorldConfig` that can work, and lexicon templates that can state every fact.

Both name what is wrong (the config field, or the event type and template), so a bad knob or a new event type
fails at once with a readable error instead of deep inside the writer.
"""

from __future__ import annotations

from ...errors import ConfigError
from ...profiles import WorldConfig
from .lexicon import EventType, Role
from .templates import FILLER_SLOTS, Maybe, Slot, parse_template, required_roles, role_slots, template_events


def check_config(config: WorldConfig) -> None:
    """Raise ConfigError naming the WorldConfig field that cannot work."""
    if config.topics < config.dev_topics + config.test_topics + 1 or min(config.dev_topics, config.test_topics) < 1:
        raise ConfigError(f"WorldConfig: topics={config.topics} must exceed dev_topics + test_topics "
                          f"({config.dev_topics} + {config.test_topics}), each >= 1")
    low, high = config.docs_per_cluster
    if not 2 <= low <= high:
        raise ConfigError(f"WorldConfig.docs_per_cluster={config.docs_per_cluster}: need 2 <= fewest <= most")
    for name in ("words_per_doc", "preamble_words"):
        low, high = getattr(config, name)
        if not 1 <= low <= high:
            raise ConfigError(f"WorldConfig.{name}={getattr(config, name)}: need 1 <= fewest <= most")
    for name in ("more_docs", "fact_overlap", "noise", "filler", "preamble_share"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ConfigError(f"WorldConfig.{name}={getattr(config, name)} must be a probability in [0, 1]")
    if config.task_topics < 1 or config.pairs_per_kind < 0 or config.qa_distractors < 0:
        raise ConfigError("WorldConfig: task_topics must be >= 1; pairs_per_kind and qa_distractors >= 0")


def check_lexicon(etype: EventType) -> list[str]:
    """Problems with an event type's templates (empty when every fact can be written in every document)."""
    problems = []
    events = template_events(etype)
    for template in etype.leads + etype.facts + etype.fillers:
        parts = parse_template(template)
        slots = [p for part in parts for p in (part.parts if isinstance(part, Maybe) else (part,))
                 if isinstance(p, Slot)]
        for slot in slots:
            if slot.name in events:
                if slot.form not in events[slot.name].forms:
                    problems.append(f"{template!r}: event {slot.name!r} has no form {slot.form!r}")
            elif slot.name not in etype.role_by_name and slot.name not in FILLER_SLOTS:
                problems.append(f"{template!r}: unknown slot {slot.name!r}")
    for template in etype.fillers:
        if role_slots(parse_template(template), etype):
            problems.append(f"filler {template!r} states a fact")
    anchors = set(etype.anchors)
    if not any(required_roles(t, etype) <= anchors for t in etype.leads):
        problems.append("no lead sentence needs only the anchors")
    for role in etype.roles:
        if role.name not in anchors and not any(
            role.name in (needed := required_roles(t, etype)) and needed <= anchors | {role.name} for t in etype.facts
        ):
            problems.append(f"no fact sentence states {role.name!r} with only the anchors")
    if etype.role_by_name.get(etype.comparison.number, Role("", "")).kind != "number":
        problems.append(f"comparison number {etype.comparison.number!r} is not a number role")
    if etype.bridge and etype.role_by_name[etype.bridge.key].kind not in ("person", "org"):
        problems.append(f"bridge key {etype.bridge.key!r} has no profile")
    return problems
