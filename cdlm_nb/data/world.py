"""The embedded world: a deterministic generator of related news, the offline data of every notebook.

How a document is made, in one read:

1. A **topic** is an event type (earthquake, acquisition, ...; see `world_lexicon.EVENT_TYPES`) with two sibling
   **subtopics**, like ECB+'s "ecb"/"ecbplus" halves: the same kind of event with different participants,
   place, time and numbers. Each subtopic draws its **facts** (who, where, when, how many) at random from
   large pools, so they are predictable only from the other documents about the same event.
2. Each subtopic is a **cluster** of 3-10 documents (skewed to the small end, like Multi-News). Every document
   states the anchor facts (who/where the story is about) and each other fact with probability `fact_overlap`;
   each fact is stated by at least one document of the cluster.
3. A document is a **lead** sentence followed, in random order, by **fact sentences** that state the remaining
   facts and **filler** sentences that state none. Sentences come from templates with synonyms for the event
   triggers; entities get their full name at their first mention and an alias later (surname, short name,
   description, pronoun).
4. While writing, every trigger and entity becomes a gold **mention** with its cluster (ECB+ schema): one event
   or entity cluster per subtopic, across its documents; siblings never share a cluster.

The datasets built from it: `clusters` (pretraining), `coref`, `pairs`, `qa` (HotpotQA layout: bridge and
comparison questions over clean "articles" and entity profiles), `classification` (a cluster's documents
concatenated, labelled with the event type) and `facts` (where each document states each fact, for
masked-fact probes). All are `DatasetDict`s split by **topic** into train/dev/test, so evaluation is on unseen
events.

Entity clusters are scoped to a subtopic, as ECB+ annotates instances: a city that two unrelated topics
happen to draw gets two clusters. Names of people, companies, products and awards are unique in a world.

The knobs (`WorldConfig`, defaults in `profiles.WORLD`) decide whether cross-document context can help. The
effect column is `describe()["recoverable_fact_share"]`, the share of non-anchor fact statements that another
document of the same cluster also states correctly, and the mean words per document (measured on the cpu
profile with 60 topics, the other knobs at their defaults: overlap 0.7, noise 0.05, filler 0.3).

| knob               | what it does                                                  | value: recoverable, words |
|--------------------|---------------------------------------------------------------|---------------------------|
| `fact_overlap`     | P(a document states a given non-anchor fact); each fact is    | 0.0: 0.00, 55             |
|                    | still stated by at least one document of its cluster          | 0.3: 0.59, 57             |
|                    |                                                               | 0.7: 0.95, 70             |
|                    |                                                               | 1.0: 1.00, 85             |
| `noise`            | P(a stated non-anchor fact goes wrong in a document: another  | 0.0: 0.97, 69             |
|                    | number for numbers; a filler sentence instead for the others) | 0.2: 0.93, 69             |
|                    |                                                               | 0.5: 0.74, 68             |
| `filler`           | target share of filler sentences (stating no fact)            | 0.0: 0.96, 59             |
|                    |                                                               | 0.6: 0.96, 101            |
| `words_per_doc`    | fewest/most words; fillers are added or dropped to fit (fact  | length only               |
|                    | sentences never are)                                          |                           |
| `docs_per_cluster` | fewest/most documents per cluster (skewed small: Multi-News)  | more witnesses per fact   |

At `fact_overlap=0` a masked fact can only be recovered from its own document (or guessed); at 1.0 every
other document of the cluster states it: the contrast a cross-document model should show.

Use: `world = generate_world(session.profile.world)`, then `world.clusters["train"]`, `world.describe()`,
`highlight_mentions(world.coref["dev"][0])`.
"""

from __future__ import annotations

import datetime
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from datasets import Dataset, DatasetDict, Features, Value

from ..errors import ConfigError
from ..profiles import WorldConfig
from .schemas import CLUSTER_FEATURES, COREF_FEATURES, PAIR_FEATURES, QA_FEATURES, classification_features
from .world_lexicon import (
    AWARD_KINDS, BUILDINGS, CLUB_SUFFIXES, COMPANY_KINDS, ENTITY_KINDS, ENTITY_TAGS, EVENT_TYPES, FIRST_NAMES,
    GENERIC_FILLERS, NAME_HEADS, NAME_TAILS, PLACES, PRODUCT_MODELS, REPORTING, SURNAMES, TEXT_POOLS,
    UNION_HEADS, UNION_TRADES, EventType, Role,
)

SPLITS = ("train", "dev", "test")
LABEL_NAMES = [etype.name for etype in EVENT_TYPES]

#: Where each document states each fact (character offsets into the `clusters` document text).
FACT_FEATURES = Features(
    {
        "cluster_id": Value("string"),  # the subtopic, as in `clusters`
        "doc_index": Value("int32"),  # index into the cluster's `documents`
        "doc_id": Value("string"),  # as in `coref`
        "fact": Value("string"),  # the role, e.g. "deaths", "place"
        "kind": Value("string"),  # person / org / place / time / thing / number / text
        "value": Value("string"),  # the true value (bare name or number)
        "text": Value("string"),  # what this document wrote (a wrong number when `correct` is false)
        "char_start": Value("int32"),
        "char_end": Value("int32"),
        "correct": Value("bool"),
        "anchor": Value("bool"),  # an anchor fact (who/where the story is about): every document states it
        "support": Value("int32"),  # other documents of the cluster that state the fact correctly
    }
)

# ---------------------------------------------------------------------------------------------------------
# Templates: "{slot}", "{event:form}" and "[optional ...]"
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    name: str
    form: str = ""  # events: which surface form ("n", "v", ...)


@dataclass(frozen=True)
class Maybe:
    """An optional segment: written only when the document states all the facts inside."""

    parts: tuple[str | Slot, ...]


_TEMPLATE_PIECE = re.compile(r"\{(\w+)(?::(\w+))?\}|\[|\]")
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:-\w+)*(?:'(?!s\b)\w+)?|'s\b|[^\w\s]")
_NO_SPACE_BEFORE = {",", ".", ":", ";", "?", "!", "%", ")", "'s"}
_NO_SPACE_AFTER = {"$", "("}
FILLER_SLOTS = ("stranger", "n")  # a random bystander and a random small number


@lru_cache(maxsize=None)
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


def _role_slots(parts: tuple, etype: EventType) -> set[str]:
    return {part.name for part in parts if isinstance(part, Slot) and part.name in etype.role_by_name}


def required_roles(template: str, etype: EventType) -> set[str]:
    """The facts a template states outside its optional segments (a document must state them all)."""
    return _role_slots(parse_template(template), etype)


# ---------------------------------------------------------------------------------------------------------
# Facts: what a subtopic is about, drawn from the pools
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
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
    profile: Profile | None = None


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

    def unique(self, rng: random.Random, make) -> str:
        for _ in range(1000):
            name = make(rng)
            if name not in self.used:
                self.used.add(name)
                return name
        raise ConfigError("the embedded world ran out of unique names: lower WorldConfig.topics")


def _article(noun: str) -> str:
    return "an" if noun[0].lower() in "aeiou" else "a"


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


def _person_profile(name: str, pronoun: str, occupation: str, year: int, rng: random.Random) -> Profile:
    (city, country), (other_city, _) = rng.sample(PLACES, 2)
    born = year - rng.randint(25, 65)
    sentences = (
        f"{name} (born {born}) is {_article(occupation)} {occupation}.",
        f"{pronoun.capitalize()} was born in {city}, {country}.",
        f"{name.split()[-1]} began {'her' if pronoun == 'she' else 'his'} career in {other_city}.",
    )
    return Profile(name, sentences, {"birth_city": (1, city)})


def _company_profile(name: str, short: str, industry: str, rng: random.Random) -> Profile:
    city, country = rng.choice(PLACES)
    founded = rng.randint(1850, 2012)
    sentences = (
        f"{name} is {_article(industry)} {industry} company founded in {founded}.",
        f"It is headquartered in {city}, {country}.",
        f"{short} employs about {rng.randint(200, 90000):,} people.",
    )
    return Profile(name, sentences, {"founded": (0, str(founded)), "headquarters": (1, city)})


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
        return Fact(role, kind, (f"{_article(kind)} {kind}",), (f"the {kind}", *descriptions))
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


# ---------------------------------------------------------------------------------------------------------
# Writing: templates -> tokenised sentences with gold mentions and fact statements
# ---------------------------------------------------------------------------------------------------------


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

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass(frozen=True)
class Planned:
    """A sentence to write: its template and which optional segments (by position) to include."""

    template: str
    include: frozenset[int] = frozenset()


REPORTING_EVENTS = {event.name: event for event in REPORTING}  # usable in every event type's templates


class Writer:
    """Writes the sentences of one document in order, remembering who was already mentioned."""

    def __init__(self, subtopic: Subtopic, rng: random.Random, wrong: dict[str, str], book: NameBook) -> None:
        self.subtopic, self.rng, self.wrong, self.book = subtopic, rng, wrong, book
        self.events = {event.name: event for event in subtopic.etype.events} | REPORTING_EVENTS
        self.mentioned: set[str] = set()
        self.previous: set[str] = set()  # roles in the previous sentence: pronoun antecedents

    def write(self, planned: Planned) -> Sentence:
        """Fill the template's slots (and the chosen optional segments) and capitalise the first word."""
        sentence = Sentence([], [], [])
        current: set[str] = set()
        for index, part in enumerate(parse_template(planned.template)):
            if isinstance(part, Maybe):
                if index in planned.include:
                    for inner in part.parts:
                        self._write_part(inner, sentence, current)
            else:
                self._write_part(part, sentence, current)
        if sentence.tokens:
            sentence.tokens[0] = sentence.tokens[0][0].upper() + sentence.tokens[0][1:]
        self.previous = current
        return sentence

    def _write_part(self, part: str | Slot, sentence: Sentence, current: set[str]) -> None:
        if isinstance(part, str):
            sentence.tokens.extend(tokenize(part))
            return
        start = len(sentence.tokens)
        words, mention, statement = self._fill(part, at_start=start == 0)
        if start and sentence.tokens[-1].lower() in ("a", "an"):  # "a quake" but "an earthquake"
            article = _article(words)
            sentence.tokens[-1] = article.capitalize() if sentence.tokens[-1][0].isupper() else article
        sentence.tokens.extend(tokenize(words))
        end = len(sentence.tokens)
        if mention is not None:
            sentence.mentions.append(Span(start, end, *mention))
        if statement is not None:
            sentence.statements.append(Span(start, end, statement[0], tag=statement[1]))
        if part.name in self.subtopic.facts:
            current.add(part.name)

    def _fill(self, slot: Slot, at_start: bool) -> tuple[str, tuple | None, tuple | None]:
        """(words, mention (cluster, kind, tag) or None, statement (role, "" or "wrong") or None) for a slot."""
        rng = self.rng
        if slot.name == "stranger":  # a bystander, never one of the world's participants
            pronoun, name = rng.choice(("he", "she")), ""
            while not name or name in self.book.used:
                name = f"{rng.choice(FIRST_NAMES[pronoun])} {rng.choice(SURNAMES)}"
            return name, ("", "entity", ENTITY_TAGS["person"]), None
        if slot.name == "n":
            return str(rng.randint(12, 95)), None, None
        if slot.name in self.events:
            event = self.events[slot.name]
            cluster = "" if event.reporting else f"{self.subtopic.id}/event/{event.name}"
            return rng.choice(event.forms[slot.form]), (cluster, "event", event.tag), None
        fact = self.subtopic.facts[slot.name]
        kind = fact.role.kind
        if kind not in ENTITY_KINDS:  # a value: stated, possibly wrong
            words = self.wrong.get(slot.name, fact.name)
            return words, None, (slot.name, "wrong" if slot.name in self.wrong else "")
        mention = (f"{self.subtopic.id}/entity/{slot.name}", "entity", ENTITY_TAGS[kind])
        if slot.name not in self.mentioned:
            self.mentioned.add(slot.name)
            return rng.choice(fact.full), mention, (slot.name, "")
        if fact.pronoun and at_start and slot.name in self.previous and rng.random() < 0.35:
            return fact.pronoun, mention, None
        return rng.choice(fact.aliases or fact.full), mention, None


# ---------------------------------------------------------------------------------------------------------
# Documents: which facts each one states, then a plan of sentences, then the words
# ---------------------------------------------------------------------------------------------------------


def choose_statements(etype: EventType, n_docs: int, overlap: float, rng: random.Random) -> list[set[str]]:
    """Which facts each document of a cluster states: anchors always, others with P=overlap, each >= once."""
    stated = [set(etype.anchors) for _ in range(n_docs)]
    for role in etype.roles:
        if role.name in etype.anchors:
            continue
        holders = [i for i in range(n_docs) if rng.random() < overlap] or [rng.randrange(n_docs)]
        for i in holders:
            stated[i].add(role.name)
    return stated


def _value_role(etype: EventType, name: str) -> bool:
    """Numbers, texts and times are stated once per document; entities may be mentioned again."""
    return etype.role_by_name[name].kind in ("number", "text", "time")


def _includes(template: str, etype: EventType, stated: set[str], covered: set[str],
              rng: random.Random) -> frozenset[int]:
    """Optional segments to write: all their facts stated, no value repeated, something new (or a re-mention)."""
    include = set()
    for index, part in enumerate(parse_template(template)):
        if not isinstance(part, Maybe):
            continue
        roles = _role_slots(part.parts, etype)
        if not roles <= stated or any(_value_role(etype, r) for r in roles & covered):
            continue
        if roles - covered or rng.random() < 0.5:
            include.add(index)
            covered |= roles
    return frozenset(include)


def plan_document(etype: EventType, stated: set[str], rng: random.Random) -> tuple[Planned, list[Planned]]:
    """A lead sentence and fact sentences that together state exactly the facts in `stated`."""
    covered: set[str] = set()
    leads = [t for t in etype.leads if required_roles(t, etype) <= stated]
    lead_template = rng.choice(leads)
    covered |= required_roles(lead_template, etype)
    lead = Planned(lead_template, _includes(lead_template, etype, stated, covered, rng))
    body = []
    for name in rng.sample(sorted(stated), len(stated)):
        if name in covered:
            continue
        candidates = [
            t for t in etype.facts
            if name in (needed := required_roles(t, etype)) and needed <= stated
            and not any(_value_role(etype, r) for r in needed & covered)
        ]
        if not candidates:
            raise ConfigError(f"event type {etype.name!r}: no fact sentence can state {name!r}; see check_lexicon()")
        template = rng.choice(candidates)
        covered |= required_roles(template, etype)
        body.append(Planned(template, _includes(template, etype, stated, covered, rng)))
    return lead, body


class FillerDeck:
    """Filler sentences dealt without repetition within a cluster, so each document gets its own."""

    def __init__(self, etype: EventType, rng: random.Random) -> None:
        self.templates, self.rng, self.cards = list(etype.fillers) + list(GENERIC_FILLERS), rng, []

    def deal(self) -> Planned:
        if not self.cards:
            self.cards = self.rng.sample(self.templates, len(self.templates))
        return Planned(self.cards.pop())


def write_document(subtopic: Subtopic, doc_id: str, stated: set[str], config: WorldConfig, rng: random.Random,
                   deck: FillerDeck | None, book: NameBook) -> Document:
    """Plan and write one document; `deck=None` writes a clean article (no noise, no filler)."""
    etype = subtopic.etype
    stated, wrong, extra_fillers = set(stated), {}, 0
    if deck is not None:
        for role in etype.roles:
            if role.name in stated and role.name not in etype.anchors and rng.random() < config.noise:
                if role.kind == "number":
                    wrong[role.name] = wrong_number(subtopic.facts[role.name], rng)
                else:
                    stated.discard(role.name)
                    extra_fillers += 1
    lead, body = plan_document(etype, stated, rng)
    fillers: list[Planned] = []
    if deck is not None:
        share = min(config.filler, 0.95)
        expected = (1 + len(body)) * share / (1 - share)
        fillers = [deck.deal() for _ in range(int(expected) + (rng.random() < expected % 1) + extra_fillers)]
    seed = rng.random()
    low, high = config.words_per_doc
    grown = False
    while True:  # add or drop fillers until the length fits (fact sentences are never dropped)
        order_rng = random.Random(seed)
        rest = body + fillers
        order = [lead] + order_rng.sample(rest, len(rest))
        writer = Writer(subtopic, order_rng, wrong, book)
        document = Document(doc_id, [writer.write(p) for p in order], {})
        if deck is None:
            break
        if document.words < low and len(fillers) < 20:
            fillers.append(deck.deal())
            grown = True
        elif document.words > high and fillers and not grown:
            fillers.pop()
        else:
            break
    document.stated = {
        span.label: span.tag != "wrong" for sentence in document.sentences for span in sentence.statements
    }
    return document


def docs_in_cluster(low: int, high: int, rng: random.Random) -> int:
    """A Multi-News-like skew: mostly small clusters, a long tail up to `high`."""
    n = low
    while n < high and rng.random() < 0.6:
        n += 1
    return n


def write_cluster(subtopic: Subtopic, config: WorldConfig, rng: random.Random, book: NameBook) -> None:
    """Write the subtopic's documents and its clean article."""
    n_docs = docs_in_cluster(*config.docs_per_cluster, rng)
    deck = FillerDeck(subtopic.etype, rng)
    statements = choose_statements(subtopic.etype, n_docs, config.fact_overlap, rng)
    subtopic.documents = [
        write_document(subtopic, f"{subtopic.id}_{i}", stated, config, rng, deck, book)
        for i, stated in enumerate(statements)
    ]
    everything = {role.name for role in subtopic.etype.roles}
    subtopic.article = write_document(subtopic, f"{subtopic.id}_article", everything, config, rng, None, book)


# ---------------------------------------------------------------------------------------------------------
# Datasets built from the subtopics
# ---------------------------------------------------------------------------------------------------------


def coref_row(subtopic: Subtopic, document: Document) -> dict[str, Any]:
    """One COREF_FEATURES row; singleton flags are filled in once the whole corpus is known."""
    mentions = []
    for s, sentence in enumerate(document.sentences):
        for span in sentence.mentions:
            k = len(mentions)
            mentions.append({
                "mention_id": f"{document.id}/m{k}", "kind": span.kind, "type": span.tag, "sentence": s,
                "start": span.start, "end": span.end, "text": " ".join(sentence.tokens[span.start:span.end]),
                "cluster_id": span.label or f"{document.id}/single{k}", "singleton": False,
            })
    return {
        "doc_id": document.id, "topic": subtopic.topic, "subtopic": subtopic.id,
        "sentence_ids": list(range(len(document.sentences))),
        "sentences": [sentence.tokens for sentence in document.sentences], "mentions": mentions,
    }


def mark_singletons(rows: list[dict[str, Any]]) -> None:
    """Set each mention's `singleton` flag: no other mention in the corpus shares its cluster."""
    sizes = Counter(m["cluster_id"] for row in rows for m in row["mentions"])
    for row in rows:
        for mention in row["mentions"]:
            mention["singleton"] = sizes[mention["cluster_id"]] == 1


def core_sentences(document: Document) -> list[int]:
    """Sentences that mention the core event: what any other report of the same event is about."""
    return [i for i, sentence in enumerate(document.sentences)
            if any(span.label.endswith("/event/core") for span in sentence.mentions)]


def pair_rows(subtopics: list[Subtopic], pool: list[Subtopic], per_kind: int, rng: random.Random) -> list[dict]:
    """Positive (same subtopic), hard negative (sibling subtopic) and easy negative (other topic) pairs.

    `pool` holds the siblings and the other topics to draw from (the same split, or the whole world when the
    split has a single topic). `positive_sentences` are the sentences of doc_a that mention the core event.
    """
    by_topic: dict[str, list[Subtopic]] = {}
    for subtopic in pool:
        by_topic.setdefault(subtopic.topic, []).append(subtopic)
    rows = []
    for subtopic in subtopics:
        sibling = next(s for s in by_topic[subtopic.topic] if s is not subtopic)
        strangers = [s for s in pool if s.topic != subtopic.topic]
        for k in range(per_kind):
            a, b = rng.sample(subtopic.documents, 2)
            hard = rng.choice(sibling.documents)
            easy = rng.choice(rng.choice(strangers).documents)
            for kind, other, label in (("positive", b, 1), ("hard_negative", hard, 0), ("easy_negative", easy, 0)):
                rows.append({
                    "pair_id": f"{subtopic.id}/{kind}/{k}",
                    "doc_a": [s.text for s in a.sentences], "doc_b": [s.text for s in other.sentences],
                    "label": label, "kind": kind, "positive_sentences": core_sentences(a) if label else [],
                })
    return rows


@dataclass(frozen=True)
class Paragraph:
    """A titled paragraph of a QA context, and where each fact (or profile attribute) is stated in it."""

    title: str
    sentences: tuple[str, ...]
    where: dict[str, int]  # role or attribute -> sentence index


def article_paragraph(subtopic: Subtopic) -> Paragraph:
    document = subtopic.article
    where = {}
    for i, sentence in enumerate(document.sentences):
        for span in sentence.statements:
            where.setdefault(span.label, i)
    return Paragraph(subtopic.title, tuple(s.text for s in document.sentences), where)


def profile_paragraph(profile: Profile) -> Paragraph:
    return Paragraph(profile.title, profile.sentences, {a: i for a, (i, _) in profile.answers.items()})


def _qa_row(qid: str, question: str, answer: str, qtype: str, support: list[tuple[Paragraph, str]],
            gold: list[Paragraph], distractors: list[Paragraph], rng: random.Random) -> dict[str, Any]:
    facts = list(dict.fromkeys((p.title, p.where[key]) for p, key in support))
    context = gold + distractors
    context = rng.sample(context, len(context))
    return {
        "id": qid, "question": question, "answer": answer, "type": qtype, "level": "",
        "supporting_facts": {"title": [t for t, _ in facts], "sent_id": [i for _, i in facts]},
        "context": {"title": [p.title for p in context], "sentences": [list(p.sentences) for p in context]},
    }


def bridge_question(subtopic: Subtopic) -> tuple[str, str, str, str] | None:
    """(question, answer, key role, attribute) for the subtopic's bridge question, if its type has one."""
    bridge = subtopic.etype.bridge
    if bridge is None:
        return None
    names = {name: fact.name for name, fact in subtopic.facts.items()}
    _, answer = subtopic.facts[bridge.key].profile.answers[bridge.attribute]
    return bridge.question.format(**names), answer, bridge.key, bridge.attribute


def qa_rows(subtopics: list[Subtopic], n_distractors: int, rng: random.Random,
            ambiguous: set[str]) -> list[dict[str, Any]]:
    """Bridge questions (article -> profile) per subtopic and one comparison question per topic."""
    articles = {s.id: article_paragraph(s) for s in subtopics}
    profiles = {(s.id, s.etype.bridge.key): profile_paragraph(s.facts[s.etype.bridge.key].profile)
                for s in subtopics if s.etype.bridge}
    every = list(articles.values()) + list(profiles.values())

    def distractors(gold: list[Paragraph], first: list[Paragraph]) -> list[Paragraph]:
        titles = {p.title for p in gold}
        rest = [p for p in every if p.title not in titles and p not in first]
        chosen = [p for p in first if p.title not in titles][:n_distractors]
        return chosen + rng.sample(rest, min(len(rest), n_distractors - len(chosen)))

    rows = []
    by_topic: dict[str, list[Subtopic]] = {}
    for subtopic in subtopics:
        by_topic.setdefault(subtopic.topic, []).append(subtopic)
        made = bridge_question(subtopic)
        if made is None or made[0] in ambiguous:
            continue
        question, answer, key, attribute = made
        article, profile = articles[subtopic.id], profiles[(subtopic.id, key)]
        fields = re.findall(r"\{(\w+)\}", subtopic.etype.bridge.question)
        support = [(article, key)] + [(article, f) for f in fields] + [(profile, attribute)]
        siblings = [articles[s.id] for s in subtopics if s.topic == subtopic.topic and s is not subtopic]
        rows.append(_qa_row(f"{subtopic.id}/bridge", question, answer, "bridge", support, [article, profile],
                            distractors([article, profile], siblings), rng))
    for topic, (first, second) in by_topic.items():
        comparison = first.etype.comparison
        a, b = rng.sample([first, second], 2)
        winner = max((a, b), key=lambda s: s.facts[comparison.number].amount)
        names = {s.id: s.facts[comparison.handle].name for s in (a, b)}
        question = comparison.question.format(a=names[a.id], b=names[b.id])
        gold = [articles[a.id], articles[b.id]]
        support = [(articles[s.id], role) for s in (a, b) for role in (comparison.handle, comparison.number)]
        same_type = [articles[s.id] for s in subtopics if s.etype is first.etype and s.topic != topic]
        rows.append(_qa_row(f"{topic}/comparison", question, names[winner.id], "comparison", support, gold,
                            distractors(gold, same_type[:1]), rng))
    return rows


def fact_rows(subtopic: Subtopic) -> list[dict[str, Any]]:
    """Where each document of the cluster states each fact, and how many other documents state it too."""
    rows = []
    for d, document in enumerate(subtopic.documents):
        text = ""
        for sentence in document.sentences:
            sentence_text, offsets = detokenize(sentence.tokens)
            base = len(text) + (1 if text else 0)
            for span in sentence.statements:
                role = span.label
                support = sum(other.stated.get(role, False) for o, other in enumerate(subtopic.documents) if o != d)
                start = base + offsets[span.start]
                end = base + offsets[span.end - 1] + len(sentence.tokens[span.end - 1])
                rows.append({
                    "cluster_id": subtopic.id, "doc_index": d, "doc_id": document.id, "fact": role,
                    "kind": subtopic.facts[role].role.kind, "value": subtopic.facts[role].name,
                    "text": detokenize(sentence.tokens[span.start:span.end])[0],
                    "char_start": start, "char_end": end, "correct": span.tag != "wrong",
                    "anchor": role in subtopic.etype.anchors, "support": support,
                })
            text = f"{text} {sentence_text}" if text else sentence_text
    return rows


# ---------------------------------------------------------------------------------------------------------
# The world
# ---------------------------------------------------------------------------------------------------------


@dataclass
class World:
    """The generated world: every dataset as a train/dev/test `DatasetDict` split by topic."""

    config: WorldConfig
    topics: dict[str, list[str]]  # split -> topic ids
    clusters: DatasetDict  # CLUSTER_FEATURES: pretraining clusters (every topic)
    coref: DatasetDict  # COREF_FEATURES (task topics)
    pairs: DatasetDict  # PAIR_FEATURES (task topics)
    qa: DatasetDict  # QA_FEATURES (task topics)
    classification: DatasetDict  # classification_features(LABEL_NAMES): a cluster's documents, long
    facts: DatasetDict  # FACT_FEATURES: fact statements per document (every topic)
    seconds: float  # generation time
    skipped_questions: int  # bridge questions dropped because two events would share the question text

    def describe(self) -> dict[str, Any]:
        """Sizes and statistics a notebook can print or plot."""
        documents = [docs for split in self.clusters.values() for docs in split["documents"]]
        words = [len(text.split()) for docs in documents for text in docs]
        mentions = [m for split in self.coref.values() for ms in split["mentions"] for m in ms]
        docs_of: dict[tuple[str, str], set[str]] = {}
        for split in self.coref.values():
            for doc_id, ms in zip(split["doc_id"], split["mentions"]):
                for m in ms:
                    docs_of.setdefault((m["kind"], m["cluster_id"]), set()).add(doc_id)
        cross_doc = Counter(kind for (kind, _), docs in docs_of.items() if len(docs) > 1)
        correct = [c for split in self.facts.values() for c in split["correct"]]
        support = [n for split in self.facts.values() for n, anchor in zip(split["support"], split["anchor"])
                   if not anchor]
        n_coref_docs = sum(len(split) for split in self.coref.values())
        return {
            "seed": self.config.seed,
            "seconds": round(self.seconds, 2),
            "topics": {split: len(ids) for split, ids in self.topics.items()},
            "clusters": {split: len(ds) for split, ds in self.clusters.items()},
            "documents": len(words),
            "docs_per_cluster": dict(sorted(Counter(len(docs) for docs in documents).items())),
            "words_per_doc": {"min": min(words), "mean": round(sum(words) / len(words), 1), "max": max(words)},
            "coref_documents": {split: len(ds) for split, ds in self.coref.items()},
            "mentions_per_doc": round(len(mentions) / max(n_coref_docs, 1), 1),
            "mentions_by_kind": dict(Counter(m["kind"] for m in mentions)),
            "cross_doc_clusters": dict(cross_doc),
            "singleton_mentions": sum(m["singleton"] for m in mentions),
            "pairs": {split: dict(Counter(ds["kind"])) for split, ds in self.pairs.items()},
            "qa": {split: dict(Counter(ds["type"])) for split, ds in self.qa.items()},
            "qa_skipped_ambiguous": self.skipped_questions,
            "classification": {split: len(ds) for split, ds in self.classification.items()},
            "fact_statements": len(correct),
            "fact_wrong_share": round(correct.count(False) / max(len(correct), 1), 3),
            # non-anchor fact statements that another document of the cluster states correctly too
            "recoverable_fact_share": round(sum(n > 0 for n in support) / max(len(support), 1), 3),
        }


def check_config(config: WorldConfig) -> None:
    """Raise ConfigError naming the WorldConfig field that cannot work."""
    if config.topics < config.dev_topics + config.test_topics + 1 or min(config.dev_topics, config.test_topics) < 1:
        raise ConfigError(f"WorldConfig: topics={config.topics} must exceed dev_topics + test_topics "
                          f"({config.dev_topics} + {config.test_topics}), each >= 1")
    low, high = config.docs_per_cluster
    if not 2 <= low <= high:
        raise ConfigError(f"WorldConfig.docs_per_cluster={config.docs_per_cluster}: need 2 <= fewest <= most")
    low, high = config.words_per_doc
    if not 1 <= low <= high:
        raise ConfigError(f"WorldConfig.words_per_doc={config.words_per_doc}: need 1 <= fewest <= most")
    for name in ("fact_overlap", "noise", "filler"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ConfigError(f"WorldConfig.{name}={getattr(config, name)} must be a probability in [0, 1]")
    if config.task_topics < 1 or config.pairs_per_kind < 0 or config.qa_distractors < 0:
        raise ConfigError("WorldConfig: task_topics must be >= 1; pairs_per_kind and qa_distractors >= 0")


def check_lexicon(etype: EventType) -> list[str]:
    """Problems with an event type's templates (empty when every fact can be written in every document)."""
    problems = []
    events = {event.name: event for event in etype.events} | REPORTING_EVENTS
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
        if _role_slots(parse_template(template), etype):
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


def _split_topics(config: WorldConfig) -> dict[str, list[str]]:
    ids = [str(i) for i in range(1, config.topics + 1)]
    n_train = config.topics - config.dev_topics - config.test_topics
    return {"train": ids[:n_train], "dev": ids[n_train:n_train + config.dev_topics],
            "test": ids[n_train + config.dev_topics:]}


def generate_world(config: WorldConfig) -> World:
    """Generate every dataset of the embedded world; a pure function of `config` (seed included)."""
    started = time.perf_counter()
    check_config(config)
    problems = [f"{etype.name}: {p}" for etype in EVENT_TYPES for p in check_lexicon(etype)]
    if problems:
        raise ConfigError("world_lexicon has template problems:\n" + "\n".join(problems))
    rng = random.Random(config.seed)
    book = NameBook()
    type_order = rng.sample(EVENT_TYPES, len(EVENT_TYPES))
    topics = _split_topics(config)
    subtopics: dict[str, list[Subtopic]] = {split: [] for split in SPLITS}
    titles: Counter[str] = Counter()
    for split in SPLITS:
        for topic in topics[split]:
            etype = type_order[(int(topic) - 1) % len(type_order)]
            first = draw_subtopic(etype, topic, "a", rng, book, None)
            second = draw_subtopic(etype, topic, "b", rng, book, first)
            for subtopic in (first, second):
                titles[subtopic.title] += 1  # QA supporting facts point at titles: keep them unique
                if titles[subtopic.title] > 1:
                    subtopic.title += f" ({titles[subtopic.title]})"
                write_cluster(subtopic, config, rng, book)
                subtopics[split].append(subtopic)

    # bridge questions are only fair when their text names one event
    texts = Counter(q[0] for split in subtopics.values() for s in split if (q := bridge_question(s)))
    ambiguous = {text for text, count in texts.items() if count > 1}

    task_topics = set(topics["train"][:config.task_topics]) | set(topics["dev"]) | set(topics["test"])
    label_features = classification_features(LABEL_NAMES)
    datasets: dict[str, dict[str, Dataset]] = {name: {} for name in
                                               ("clusters", "coref", "pairs", "qa", "classification", "facts")}
    every = [s for split in SPLITS for s in subtopics[split]]
    for split in SPLITS:
        everyone = subtopics[split]
        task = [s for s in everyone if s.topic in task_topics]
        split_rng = random.Random(f"{config.seed}/{split}")
        coref = [coref_row(s, d) for s in task for d in s.documents]
        mark_singletons(coref)
        pool = everyone if len({s.topic for s in everyone}) > 1 else every
        datasets["clusters"][split] = Dataset.from_list(
            [{"cluster_id": s.id, "documents": [d.text for d in s.documents], "summary": s.article.text}
             for s in everyone], features=CLUSTER_FEATURES)
        datasets["coref"][split] = Dataset.from_list(coref, features=COREF_FEATURES)
        datasets["pairs"][split] = Dataset.from_list(
            pair_rows(task, pool, config.pairs_per_kind, split_rng), features=PAIR_FEATURES)
        datasets["qa"][split] = Dataset.from_list(
            qa_rows(task, config.qa_distractors, split_rng, ambiguous), features=QA_FEATURES)
        datasets["classification"][split] = Dataset.from_list(
            [{"text": "\n\n".join(d.text for d in s.documents), "label": LABEL_NAMES.index(s.etype.name)}
             for s in everyone], features=label_features)
        datasets["facts"][split] = Dataset.from_list(
            [row for s in everyone for row in fact_rows(s)], features=FACT_FEATURES)
    return World(
        config=config, topics=topics, **{name: DatasetDict(parts) for name, parts in datasets.items()},
        seconds=time.perf_counter() - started,
        skipped_questions=sum(1 for s in every if s.topic in task_topics and (q := bridge_question(s))
                              and q[0] in ambiguous),
    )


def highlight_mentions(row: dict[str, Any], clusters: bool = True) -> str:
    """A coref row as plain text with every gold mention in brackets, e.g. "[quake|7_a/event/core] struck"."""
    lines = []
    for s, tokens in enumerate(row["sentences"]):
        opens: dict[int, list[str]] = {}
        closes: dict[int, list[str]] = {}
        spans = sorted((m for m in row["mentions"] if m["sentence"] == s), key=lambda m: (m["start"], -m["end"]))
        for m in spans:
            opens.setdefault(m["start"], []).append("[")
            closes.setdefault(m["end"] - 1, []).insert(0, f"|{m['cluster_id']}]" if clusters else "]")
        words = ["".join(opens.get(i, [])) + token + "".join(closes.get(i, [])) for i, token in enumerate(tokens)]
        lines.append(detokenize(words)[0])
    return "\n".join(lines)
