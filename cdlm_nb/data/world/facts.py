"""Facts: what a subtopic is about (who, where, when, how many), drawn at random from the lexicon's pools.

Sibling subtopics of a topic share the event type but never a year, place or number, and names of people,
companies, products and awards are unique in a world (`NameBook`), so a fact is predictable only from other
documents about the same event.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...errors import ConfigError
from .lexicon import (
    AWARD_KINDS,
    BUILDINGS,
    CLUB_SUFFIXES,
    COMPANY_KINDS,
    FIRST_NAMES,
    NAME_HEADS,
    NAME_TAILS,
    PLACES,
    PRODUCT_MODELS,
    SURNAMES,
    TEXT_POOLS,
    UNION_HEADS,
    UNION_TRADES,
    EventType,
    Role,
)
from .templates import indefinite_article

if TYPE_CHECKING:
    from .written import Document


@dataclass(frozen=True)
class EntityProfile:
    """An encyclopedia paragraph about a participant (the second hop of bridge questions)."""

    title: str
    sentences: tuple[str, ...]
    answers: dict[str, tuple[int, str]]  # attribute -> (sentence index, answer)


@dataclass(frozen=True)
class Fact:
    """One drawn fact: an entity with its surfaces, or a value (number or text)."""

    role: Role
    name: str  # bare name or value, used in titles, questions and answers ("Valparaiso", "12")
    full: tuple[str, ...]  # first-mention surfaces; a document picks one ("Valparaiso, Chile")
    aliases: tuple[str, ...] = ()  # later mentions ("Valparaiso", "the city")
    pronoun: str = ""  # persons
    amount: float = 0.0  # numbers
    profile: EntityProfile | None = None  # persons and companies


@dataclass
class Subtopic:
    """One event: its type, its facts and the documents written about it."""

    id: str  # "7_a"
    topic: str  # "7"
    etype: EventType
    year: int
    facts: dict[str, Fact]
    title: str = ""
    documents: list["Document"] = field(default_factory=list)
    article: "Document | None" = None  # a clean report stating every fact once (QA paragraphs, summary)


class NameBook:
    """Hands out names no other participant of the world has (people, companies, products, ...)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def unique(self, rng: random.Random, make: Callable[[random.Random], str]) -> str:
        """A name from `make(rng)` that nobody in the world has yet (it is then taken)."""
        for _ in range(1000):
            name = make(rng)
            if name not in self.used:
                self.used.add(name)
                return name
        raise ConfigError("the embedded world ran out of unique names: lower WorldConfig.topics")


def _format_number(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


def _draw_number(role: Role, rng: random.Random, avoid: set[str] = frozenset()) -> Fact:
    while True:
        amount = round(rng.uniform(role.low, role.high), role.decimals)
        text = _format_number(amount, role.decimals)
        if text not in avoid:
            return Fact(role, name=text, full=(text,), amount=amount)


def wrong_number(fact: Fact, rng: random.Random) -> str:
    """A plausible but wrong value for a number fact (a misreport): within 15% and the role's range, never true."""
    role, unit = fact.role, 10 ** -fact.role.decimals
    step = max(unit, abs(fact.amount) * 0.15)
    low, high = max(role.low, fact.amount - step), min(role.high, fact.amount + step)
    for _ in range(100):
        text = _format_number(round(rng.uniform(low, high), role.decimals), role.decimals)
        if text != fact.name:
            return text
    return _format_number(fact.amount + unit, role.decimals)  # a range too narrow to miss by less


def _person_profile(name: str, pronoun: str, occupation: str, year: int, rng: random.Random) -> EntityProfile:
    (city, country), (other_city, _) = rng.sample(PLACES, 2)
    born = year - rng.randint(25, 65)
    sentences = (
        f"{name} (born {born}) is {indefinite_article(occupation)} {occupation}.",
        f"{pronoun.capitalize()} was born in {city}, {country}.",
        f"{name.split()[-1]} began {'her' if pronoun == 'she' else 'his'} career in {other_city}.",
    )
    return EntityProfile(name, sentences, {"birth_city": (1, city)})


def _company_profile(name: str, short: str, industry: str, rng: random.Random) -> EntityProfile:
    city, country = rng.choice(PLACES)
    founded = rng.randint(1850, 2012)
    sentences = (
        f"{name} is {indefinite_article(industry)} {industry} company founded in {founded}.",
        f"It is headquartered in {city}, {country}.",
        f"{short} employs about {rng.randint(200, 90000):,} people.",
    )
    return EntityProfile(name, sentences, {"founded": (0, str(founded)), "headquarters": (1, city)})


def _brand(rng: random.Random) -> str:
    return rng.choice(NAME_HEADS) + rng.choice(NAME_TAILS)
def draw_fact(role: Role, rng: random.Random, book: NameBook, year: int, sibling: dict[str, Fact]) -> Fact:
    """Draw a fresh value for `role`; `sibling` holds the other subtopic's facts, which it must not repeat."""
    descriptions = role.descriptions
    if role.kind == "person":
        pronoun = rng.choice(("he", "she"))
        name = book.unique(rng, lambda r: f"{r.choice(FIRST_NAMES[pronoun])} {r.choice(SURNAMES)}")
        profile = _person_profile(name, pronoun, role.occupation, year, rng)
        return Fact(role, name, (name,), (name.split()[-1], *descriptions), pronoun=pronoun, profile=profile)
    if role.kind == "place":
        taken = {sibling[role.name].name} if role.name in sibling else set()
        city, country = rng.choice([p for p in PLACES if p[0] not in taken])
        return Fact(role, city, (f"{city}, {country}",), (city, *descriptions))
    if role.kind == "time":
        date = datetime.date(year, 1, 1) + datetime.timedelta(days=rng.randrange(365))
        weekday, month = date.strftime("%A"), date.strftime("%B")
        day = f"{month} {date.day}"
        full = (weekday, day, f"{weekday}, {day}", f"{day}, {year}")
        return Fact(role, f"{weekday}, {day}, {year}", full, ("that day",))
    if role.kind == "number":
        taken = {sibling[role.name].name} if role.name in sibling else set()
        return _draw_number(role, rng, taken)
    if role.kind == "text":
        value = rng.choice(TEXT_POOLS[role.pool])
        return Fact(role, value, (value,))
    if role.pool == "company":
        suffix = rng.choice(sorted(COMPANY_KINDS))
        short = book.unique(rng, _brand)
        name = f"{short} {suffix}"
        profile = _company_profile(name, short, COMPANY_KINDS[suffix], rng)
        return Fact(role, name, (name,), (short, *descriptions), profile=profile)
    if role.pool == "club":
        name = book.unique(rng, lambda r: f"{r.choice(PLACES)[0]} {r.choice(CLUB_SUFFIXES)}")
        return Fact(role, name, (name,), descriptions)
    if role.pool == "union":
        name = book.unique(rng, lambda r: f"{r.choice(UNION_HEADS)} {r.choice(UNION_TRADES)} Workers Union")
        return Fact(role, name, (name,), descriptions)
    if role.pool == "product":
        name = book.unique(rng, lambda r: f"{_brand(r)} {r.choice(PRODUCT_MODELS)}")
        return Fact(role, name, (name,), descriptions)
    if role.pool == "award":
        name = book.unique(rng, lambda r: f"{r.choice(SURNAMES)} {r.choice(AWARD_KINDS)}")
        return Fact(role, name, (f"the {name}",), descriptions)
    if role.pool == "building":
        kind = rng.choice(BUILDINGS)
        return Fact(role, kind, (f"{indefinite_article(kind)} {kind}",), (f"the {kind}", *descriptions))
    raise ConfigError(f"role {role.name!r}: unknown kind/pool {role.kind}/{role.pool}")


def draw_subtopic(etype: EventType, topic: str, half: str, rng: random.Random, book: NameBook,
                  sibling: Subtopic | None) -> Subtopic:
    """An event of type `etype` with all its facts; differs from its sibling in year, place and values."""
    years = [y for y in range(2005, 2024) if sibling is None or y != sibling.year]
    year = rng.choice(years)
    others = sibling.facts if sibling else {}
    facts = {role.name: draw_fact(role, rng, book, year, others) for role in etype.roles}
    subtopic = Subtopic(f"{topic}_{half}", topic, etype, year, facts)
    subtopic.title = etype.title.format(year=year, **{name: fact.name for name, fact in facts.items()})
    return subtopic
