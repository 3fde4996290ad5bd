"""Facts: what a subtopic is about (who, where, when, how many), drawn at random from the lexicon's pools, and the
documents written about it (sentences of tokens with their gold mentions and fact statements). Siblings never share
a year, place or number, and names of people, companies, products and awards are unique in a world (`NameBook`).
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from ...support.errors import ConfigError
from . import lexicon as lx
from .lexicon import EventType, Role, detokenize, indefinite_article


@dataclass(frozen=True)
class Span:
    """A stretch of tokens in a sentence: a gold mention or a fact statement."""

    start: int
    end: int
    label: str  # mention: its cluster key ("" = singleton); statement: the role
    kind: str = ""  # mention: "event"/"entity"
    tag: str = ""  # mention: ECB+ type; statement: "" if correct, else "wrong"


@dataclass
class Sentence:
    """A written sentence: its tokens, its gold mentions and the facts it states."""

    tokens: list[str]
    mentions: list[Span]
    statements: list[Span]

    @cached_property
    def text(self) -> str:
        return detokenize(self.tokens)[0]


@dataclass
class Document:
    """A written document: sentences in reading order, and which facts it states (correctly or not)."""

    id: str
    sentences: list[Sentence]
    stated: dict[str, bool]  # role -> stated correctly?

    @cached_property
    def text(self) -> str:
        return " ".join(sentence.text for sentence in self.sentences)


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
    documents: list[Document] = field(default_factory=list)
    article: Document | None = None  # a clean report stating every fact once (QA paragraphs, summary)


@dataclass
class NameBook:
    """Hands out names no other participant of the world has (people, companies, products, ...)."""

    used: set[str] = field(default_factory=set)

    def unique(self, rng: random.Random, make: Callable[[random.Random], str]) -> str:
        """A name from `make(rng)` that nobody in the world has yet (it is then taken)."""
        for _ in range(1000):
            name = make(rng)
            if name not in self.used:
                self.used.add(name)
                return name
        raise ConfigError("the embedded world ran out of unique names: lower WorldConfig.topics")


def wrong_number(fact: Fact, rng: random.Random) -> str:
    """A plausible but wrong value for a number fact (a misreport): within 15% and the role's range, never true."""
    role, unit = fact.role, 10 ** -fact.role.decimals
    step = max(unit, abs(fact.amount) * 0.15)
    low, high = max(role.low, fact.amount - step), min(role.high, fact.amount + step)
    for _ in range(100):
        text = f"{round(rng.uniform(low, high), role.decimals):,.{role.decimals}f}"
        if text != fact.name:
            return text
    return f"{fact.amount + unit:,.{role.decimals}f}"  # a range too narrow to miss by less


def _brand(rng: random.Random) -> str:
    return rng.choice(lx.NAME_HEADS) + rng.choice(lx.NAME_TAILS)


#: How a name of the other named pools is made (each unique in a world).
_NAMED_POOLS = {"club": lambda r: f"{r.choice(lx.PLACES)[0]} {r.choice(lx.CLUB_SUFFIXES)}",
                "union": lambda r: f"{r.choice(lx.UNION_HEADS)} {r.choice(lx.UNION_TRADES)} Workers Union",
                "product": lambda r: f"{_brand(r)} {r.choice(lx.PRODUCT_MODELS)}",
                "award": lambda r: f"{r.choice(lx.SURNAMES)} {r.choice(lx.AWARD_KINDS)}"}


def draw_fact(role: Role, rng: random.Random, book: NameBook, year: int, sibling: dict[str, Fact]) -> Fact:
    """Draw a fresh value for `role`; `sibling` holds the other subtopic's facts, which it must not repeat."""
    descriptions = role.descriptions
    if role.kind == "person":
        pronoun = rng.choice(("he", "she"))
        name = book.unique(rng, lambda r: f"{r.choice(lx.FIRST_NAMES[pronoun])} {r.choice(lx.SURNAMES)}")
        (city, country), (other_city, _) = rng.sample(lx.PLACES, 2)
        born, job = year - rng.randint(25, 65), role.occupation
        profile = EntityProfile(name, (
            f"{name} (born {born}) is {indefinite_article(job)} {job}.",
            f"{pronoun.capitalize()} was born in {city}, {country}.",
            f"{name.split()[-1]} began {'her' if pronoun == 'she' else 'his'} career in {other_city}.",
        ), {"birth_city": (1, city)})
        return Fact(role, name, (name,), (name.split()[-1], *descriptions), pronoun=pronoun, profile=profile)
    if role.kind == "place":
        taken = {sibling[role.name].name} if role.name in sibling else set()
        city, country = rng.choice([p for p in lx.PLACES if p[0] not in taken])
        return Fact(role, city, (f"{city}, {country}",), (city, *descriptions))
    if role.kind == "time":
        date = datetime.date(year, 1, 1) + datetime.timedelta(days=rng.randrange(365))
        weekday, month = date.strftime("%A"), date.strftime("%B")
        day = f"{month} {date.day}"
        full = (weekday, day, f"{weekday}, {day}", f"{day}, {year}")
        return Fact(role, f"{weekday}, {day}, {year}", full, ("that day",))
    if role.kind == "number":
        while True:
            amount = round(rng.uniform(role.low, role.high), role.decimals)
            text = f"{amount:,.{role.decimals}f}"
            if role.name not in sibling or text != sibling[role.name].name:
                return Fact(role, name=text, full=(text,), amount=amount)
    if role.kind == "text":
        value = rng.choice(lx.TEXT_POOLS[role.pool])
        return Fact(role, value, (value,))
    if role.pool == "company":
        suffix = rng.choice(sorted(lx.COMPANY_KINDS))
        short = book.unique(rng, _brand)
        name, industry = f"{short} {suffix}", lx.COMPANY_KINDS[suffix]
        city, country = rng.choice(lx.PLACES)
        founded = rng.randint(1850, 2012)
        profile = EntityProfile(name, (
            f"{name} is {indefinite_article(industry)} {industry} company founded in {founded}.",
            f"It is headquartered in {city}, {country}.",
            f"{short} employs about {rng.randint(200, 90000):,} people.",
        ), {"founded": (0, str(founded)), "headquarters": (1, city)})
        return Fact(role, name, (name,), (short, *descriptions), profile=profile)
    if role.pool in _NAMED_POOLS:
        name = book.unique(rng, _NAMED_POOLS[role.pool])
        return Fact(role, name, (f"the {name}" if role.pool == "award" else name,), descriptions)
    if role.pool == "building":
        kind = rng.choice(lx.BUILDINGS)
        return Fact(role, kind, (f"{indefinite_article(kind)} {kind}",), (f"the {kind}", *descriptions))
    raise ConfigError(f"role {role.name!r}: unknown kind/pool {role.kind}/{role.pool}")


def draw_subtopic(etype: EventType, topic: str, half: str, rng: random.Random, book: NameBook,
                  sibling: Subtopic | None) -> Subtopic:
    """An event of type `etype` with all its facts; differs from its sibling in year, place and values."""
    year = rng.choice([y for y in range(2005, 2024) if sibling is None or y != sibling.year])
    others = sibling.facts if sibling else {}
    facts = {role.name: draw_fact(role, rng, book, year, others) for role in etype.roles}
    subtopic = Subtopic(f"{topic}_{half}", topic, etype, year, facts)
    subtopic.title = etype.title.format(year=year, **{name: fact.name for name, fact in facts.items()})
    return subtopic
