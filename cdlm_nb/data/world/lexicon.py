"""The vocabulary of the embedded world (name pools, event types and their sentence templates) and its template
language.

The data lives in `lexicon.toml` (its comments list the fields), read once at import into upper-case constants
(`first_names` -> `FIRST_NAMES`; every `[event_types.<key>]` table, in file order -> `EVENT_TYPES`); arrays become
tuples, tables stay dicts in file order. Order matters: the generator draws from these by position, so reordering
anything in the file changes every generated world. To add an event type, copy one `[event_types.<key>]` table
with its sub-tables and give it a new key and `name` (the classification label); `generate_world` runs
`check_lexicon` on every type and names any template that cannot state a fact.

Template language (`leads`, `facts`, `fillers`; sentences are tokenised on words and punctuation, ECB+-style):
- `{role}` names a fact: entities are written in full at their first mention in a document and by an alias later
  (surname, short name, description, pronoun); numbers and texts are stated as values.
- `{event:form}` names an event and its surface form (`{core:n}` "quake", `{core:v}` "struck"); every type has a
  `core` event (what the cluster is about); `{say:v}` and `{announce:v}` are reporting verbs (singleton events).
- `{stranger}` is a random bystander and `{n}` a random small number: filler noise no other document repeats.
- `[ ... ]` is optional: written only when the document states every fact inside (one level, no nesting).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from ...support.errors import ConfigError


@dataclass(frozen=True)
class Role:
    """One fact slot of an event type: who/what/where/when or a number, drawn afresh for every subtopic."""

    name: str
    kind: str  # one of ENTITY_KINDS + VALUE_KINDS
    pool: str = ""  # org: company/club/union; thing: product/award/building; text: a TEXT_POOLS key
    descriptions: tuple[str, ...] = ()  # later-mention aliases, e.g. ("the official",)
    occupation: str = ""  # persons: shown in their profile paragraph (bridge questions)
    low: float = 0.0  # numbers: range and decimals
    high: float = 0.0
    decimals: int = 0


@dataclass(frozen=True)
class Event:
    """An event and its trigger words per surface form; `reporting` events are singletons (each 'said')."""

    name: str
    forms: dict[str, tuple[str, ...]]
    tag: str = "ACTION_OCCURRENCE"
    reporting: bool = False


@dataclass(frozen=True)
class Bridge:
    """A two-hop question: the article names `key`, whose profile paragraph holds the answer."""

    key: str  # role whose profile answers
    attribute: str  # "birth_city", "founded" or "headquarters"
    question: str  # format string over role names, filled with their names


@dataclass(frozen=True)
class Comparison:
    """A comparison question between the two sibling subtopics of a topic on one number."""

    number: str  # the compared number role; the larger value wins
    handle: str  # the role whose name identifies each side (and is the answer)
    question: str  # format string with {a} and {b}
    yes_no: str  # the same comparison asked as a yes/no question: "yes" when {a} has the larger number


@dataclass(frozen=True)
class EventType:
    """Everything needed to write news about one kind of event (earthquake, acquisition, ...)."""

    name: str  # also the classification label
    title: str  # article title, format string over role names and {year}
    roles: tuple[Role, ...]
    anchors: tuple[str, ...]  # roles every document states (who/where the story is about)
    events: tuple[Event, ...]
    leads: tuple[str, ...]  # opening sentences; one of them starts each document
    facts: tuple[str, ...]  # sentences stating one or more facts
    fillers: tuple[str, ...]  # type-specific sentences that state no fact
    comparison: Comparison
    bridge: Bridge | None = None
    role_by_name: dict[str, Role] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "role_by_name", {role.name: role for role in self.roles})


def _frozen(value: Any) -> Any:
    """TOML arrays as tuples at every depth; tables stay dicts, in file order."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    return value


def _event_type(table: dict[str, Any]) -> EventType:
    """One `[event_types.<key>]` table; an unknown field raises (a TypeError naming it)."""
    fields = dict(table)  # what the keywords below pop, the rest are EventType's own fields
    bridge = fields.pop("bridge", None)
    return EventType(
        roles=tuple(Role(name, **role) for name, role in fields.pop("roles").items()),
        events=(tuple(Event(name, forms) for name, forms in fields.pop("events").items())
                + tuple(_SHARED_EVENTS[name] for name in fields.pop("shared_events", ()))),
        comparison=Comparison(**fields.pop("comparison")),
        bridge=Bridge(**bridge) if bridge else None,
        **fields,
    )


_DATA: dict[str, Any] = _frozen(tomllib.loads(files(__package__).joinpath("lexicon.toml").read_text(encoding="utf-8")))

ENTITY_KINDS: tuple[str, ...] = _DATA["entity_kinds"]  # get gold mentions (ECB+ entity tags below)
VALUE_KINDS: tuple[str, ...] = _DATA["value_kinds"]  # stated as values, no mention
ENTITY_TAGS: dict[str, str] = _DATA["entity_tags"]  # ECB+ tag per entity kind (the `type` of a gold mention)
_SHARED_EVENTS = {name: Event(name, forms) for name, forms in _DATA["shared_events"].items()}  # several types use
#: Events every type may use: reporting verbs, one singleton event per mention as in ECB+.
REPORTING: dict[str, Event] = {name: Event(name, forms, tag="ACTION_REPORTING", reporting=True)
                               for name, forms in _DATA["reporting"].items()}

# Pools: facts are drawn from these per subtopic, so a model cannot memorise "earthquake -> Chile".
FIRST_NAMES: dict[str, tuple[str, ...]] = _DATA["first_names"]  # by pronoun
SURNAMES: tuple[str, ...] = _DATA["surnames"]
PLACES: tuple[tuple[str, str], ...] = _DATA["places"]  # (city, country)
NAME_HEADS: tuple[str, ...] = _DATA["name_heads"]  # invented company names: a head and a tail
NAME_TAILS: tuple[str, ...] = _DATA["name_tails"]
COMPANY_KINDS: dict[str, str] = _DATA["company_kinds"]  # company suffix -> industry
CLUB_SUFFIXES: tuple[str, ...] = _DATA["club_suffixes"]
UNION_HEADS: tuple[str, ...] = _DATA["union_heads"]
UNION_TRADES: tuple[str, ...] = _DATA["union_trades"]
PRODUCT_MODELS: tuple[str, ...] = _DATA["product_models"]
AWARD_KINDS: tuple[str, ...] = _DATA["award_kinds"]
BUILDINGS: tuple[str, ...] = _DATA["buildings"]
TEXT_POOLS: dict[str, tuple[str, ...]] = _DATA["text_pools"]  # a text role's pool -> its values
GENERIC_FILLERS: tuple[str, ...] = _DATA["generic_fillers"]  # sentences any report may contain; they state no fact

#: All event types, in label order (the classification labels are their names): their order in lexicon.toml.
EVENT_TYPES: tuple[EventType, ...] = tuple(_event_type(table) for table in _DATA["event_types"].values())

# --- the template language ---------------------------------------------------------------------------------

FILLER_SLOTS = ("stranger", "n")  # slots every template may use besides its roles and events
_TEMPLATE_PIECE = re.compile(r"\{(\w+)(?::(\w+))?\}|\[|\]")
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:-\w+)*(?:'(?!s\b)\w+)?|'s\b|[^\w\s]")
_NO_SPACE_BEFORE = {",", ".", ":", ";", "?", "!", "%", ")", "'s"}
_NO_SPACE_AFTER = {"$", "("}


@dataclass(frozen=True)
class Slot:
    """A "{name}" or "{name:form}" slot: a role, an event (with its surface form) or a filler slot."""

    name: str
    form: str = ""  # events: which surface form ("n", "v", ...)


@dataclass(frozen=True)
class Maybe:
    """An optional segment: written only when the document states all the facts inside."""

    parts: tuple[str | Slot, ...]


@cache
def parse_template(template: str) -> tuple[str | Slot | Maybe, ...]:
    """Split a template into literal text, slots and optional segments (one level, no nesting)."""
    top: list = []
    current, position = top, 0
    for match in _TEMPLATE_PIECE.finditer(template):
        if match.start() > position:
            current.append(template[position:match.start()])
        piece = match.group(0)
        if piece == "[":
            if current is not top:
                raise ConfigError(f"template {template!r}: optional segments cannot nest")
            current = []
        elif piece == "]":
            if current is top:
                raise ConfigError(f"template {template!r}: ']' without '['")
            top.append(Maybe(tuple(current)))
            current = top
        else:
            current.append(Slot(match.group(1), match.group(2) or ""))
        position = match.end()
    if current is not top:
        raise ConfigError(f"template {template!r}: '[' is never closed")
    if position < len(template):
        top.append(template[position:])
    return tuple(top)


def template_events(etype: EventType) -> dict[str, Event]:
    """The events an event type's templates may name: its own and the reporting events."""
    return {event.name: event for event in etype.events} | REPORTING


def role_slots(parts: tuple, etype: EventType) -> set[str]:
    """The roles (facts) that these template parts name directly (not inside optional segments)."""
    return {part.name for part in parts if isinstance(part, Slot) and part.name in etype.role_by_name}


def required_roles(template: str, etype: EventType) -> set[str]:
    """The facts a template states outside its optional segments (a document must state them all)."""
    return role_slots(parse_template(template), etype)


def tokenize(text: str) -> list[str]:
    """Words, numbers ("6.1", "1,200") and punctuation; "'s" is its own token, as in ECB+."""
    return _TOKEN.findall(text)


def detokenize(tokens: list[str]) -> tuple[str, list[int]]:
    """Plain text from tokens, and the character offset of every token in it (gold spans map to text exactly)."""
    text, offsets = "", []
    for i, token in enumerate(tokens):
        if i > 0 and token not in _NO_SPACE_BEFORE and tokens[i - 1] not in _NO_SPACE_AFTER:
            text += " "
        offsets.append(len(text))
        text += token
    return text, offsets


def indefinite_article(noun: str) -> str:
    """The indefinite article for a noun, by its first letter: "an earthquake", "a quake"."""
    return "an" if noun[0].lower() in "aeiou" else "a"


def check_lexicon(etype: EventType) -> list[str]:
    """Problems with an event type's templates (empty when every fact can be written in every document), named by
    template, so a new event type fails at once instead of deep inside the writer."""
    problems = [f"role {role.name!r}: kind {role.kind!r} is not one of {ENTITY_KINDS + VALUE_KINDS}"
                for role in etype.roles if role.kind not in ENTITY_KINDS + VALUE_KINDS]
    events = template_events(etype)
    for template in etype.leads + etype.facts + etype.fillers:
        slots = [p for part in parse_template(template) for p in (part.parts if isinstance(part, Maybe) else (part,))
                 if isinstance(p, Slot)]
        for slot in slots:
            if slot.name in events:
                if slot.form not in events[slot.name].forms:
                    problems.append(f"{template!r}: event {slot.name!r} has no form {slot.form!r}")
            elif slot.name not in etype.role_by_name and slot.name not in FILLER_SLOTS:
                problems.append(f"{template!r}: unknown slot {slot.name!r}")
    problems += [f"filler {t!r} states a fact" for t in etype.fillers if required_roles(t, etype)]
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
