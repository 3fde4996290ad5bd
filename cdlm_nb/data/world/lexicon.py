"""The vocabulary of the embedded world: name pools and the event types with their sentence templates.

The data lives in `lexicon.toml` next to this module; this module holds the small dataclasses describing it and
reads the file once, at import, into the constants the other modules of `cdlm_nb.data.world` use (a key in upper
case: `first_names` -> `FIRST_NAMES`; every `[event_types.<key>]` table, in file order -> `EVENT_TYPES`). TOML
arrays become tuples and tables stay dicts in file order. Order matters: the generator draws from these by position,
so reordering anything in the file changes every generated world.

To add an event type, copy one `[event_types.<key>]` table of `lexicon.toml` with its `.roles`, `.events`,
`.comparison` (and optional `.bridge`) sub-tables, give it a new key and `name` (the classification label) and
edit it; the comment above the first event type lists the fields. `generate_world` runs `check_lexicon` on every
type and names any template that cannot state a fact. A new type changes every generated world (the labels and
the topics' types); only the twelve types below have a constant of their own.

Template language (used by `leads`, `facts` and `fillers`):

- `{role}` names a fact of the event type (a participant, place, time, number or text). Entities are written
  in full at their first mention in a document and by an alias later (surname, short name, description,
  pronoun); numbers and texts are stated as values.
- `{event:form}` names an event and the surface form to use, e.g. `{core:n}` = a noun such as "quake",
  `{core:v}` = a past-tense verb such as "struck". Every type has a `core` event (what the cluster is about);
  `{say:v}` and `{announce:v}` are reporting verbs (each mention its own event).
- `{stranger}` is a random bystander (a new person, mentioned once) and `{n}` a random small number: filler
  noise that no other document repeats.
- `[ ... ]` is optional: the writer includes it only when the document states every fact inside.

Sentences are tokenised on words and punctuation, so write them as plain English.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

# ---------------------------------------------------------------------------------------------------------
# Describing an event type
# ---------------------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------------------
# Reading lexicon.toml
# ---------------------------------------------------------------------------------------------------------


def _frozen(value: Any) -> Any:
    """TOML arrays as tuples at every depth; tables stay dicts, in file order."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    return value


def _event_type(key: str, table: dict[str, Any], shared_events: dict[str, Event]) -> EventType:
    """One `[event_types.<key>]` table; an unknown field raises (a TypeError naming it)."""
    fields = dict(table)
    roles = fields.pop("roles")
    for name, role in roles.items():
        if role.get("kind") not in ENTITY_KINDS + VALUE_KINDS:
            raise ValueError(f"lexicon.toml, event_types.{key}.roles.{name}: kind {role.get('kind')!r} is not one of "
                             f"{ENTITY_KINDS + VALUE_KINDS}")
    own = tuple(Event(name, forms) for name, forms in fields.pop("events").items())
    bridge = fields.pop("bridge", None)
    return EventType(
        roles=tuple(Role(name, **role) for name, role in roles.items()),
        events=own + tuple(shared_events[name] for name in fields.pop("shared_events", ())),
        comparison=Comparison(**fields.pop("comparison")),
        bridge=Bridge(**bridge) if bridge else None,
        **fields,
    )


_DATA: dict[str, Any] = _frozen(tomllib.loads(files(__package__).joinpath("lexicon.toml").read_text(encoding="utf-8")))

ENTITY_KINDS: tuple[str, ...] = _DATA["entity_kinds"]  # get gold mentions (ECB+ entity tags below)
VALUE_KINDS: tuple[str, ...] = _DATA["value_kinds"]  # stated as values, no mention
#: ECB+ tag per entity kind (the `type` of a gold mention).
ENTITY_TAGS: dict[str, str] = _DATA["entity_tags"]

_SHARED_EVENTS = {name: Event(name, forms) for name, forms in _DATA["shared_events"].items()}

#: Events every type may use: reporting verbs, one singleton event per mention as in ECB+.
REPORTING: tuple[Event, ...] = tuple(Event(name, forms, tag="ACTION_REPORTING", reporting=True)
                                     for name, forms in _DATA["reporting"].items())

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

#: Sentences any report may contain; they state no fact of the cluster.
GENERIC_FILLERS: tuple[str, ...] = _DATA["generic_fillers"]

#: All event types, in label order (the classification labels are their names): their order in lexicon.toml.
EVENT_TYPES: tuple[EventType, ...] = tuple(_event_type(key, table, _SHARED_EVENTS)
                                          for key, table in _DATA["event_types"].items())
