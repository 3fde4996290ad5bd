"""The template language of `lexicon.toml`: "{slot}", "{event:form}" and "[optional ...]", and tokens <-> text.

The writer fills templates slot by slot into tokens (ECB+-style, "'s" its own token); `detokenize` turns tokens
back into plain text and says where each token starts, so gold spans map to character offsets exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ...errors import ConfigError
from .lexicon import REPORTING, Event, EventType

#: Slots every template may use besides its roles and events: a random bystander and a random small number.
FILLER_SLOTS = ("stranger", "n")
#: Reporting events ("said", "announced"), usable in every event type's templates.
REPORTING_EVENTS: dict[str, Event] = {event.name: event for event in REPORTING}

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
    current = top
    position = 0
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
    return {event.name: event for event in etype.events} | REPORTING_EVENTS


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
    """Plain text from tokens, and the character offset of every token in it."""
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
