"""Documents: which facts each one states, a plan of sentences that states exactly those, then the words.

A cluster has 3-10 documents (skewed small like Multi-News's: `more_docs`). Every document states the anchor
facts and each other fact with probability `fact_overlap` (each at least once per cluster); `noise` turns some
statements wrong or into filler, and filler sentences are added or dropped until the length fits `words_per_doc`.
"""

from __future__ import annotations

import random

from ...errors import ConfigError
from ...profiles import WorldConfig
from .facts import NameBook, Subtopic, wrong_number
from .lexicon import GENERIC_FILLERS, EventType
from .templates import Maybe, parse_template, required_roles, role_slots
from .writing import Planned, Writer
from .written import Document


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
        roles = role_slots(part.parts, etype)
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
        """The next filler sentence; the deck is reshuffled once every template was dealt."""
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


def docs_in_cluster(low: int, high: int, more: float, rng: random.Random) -> int:
    """A Multi-News-like skew: mostly small clusters, one more document with probability `more`, up to `high`."""
    n = low
    while n < high and rng.random() < more:
        n += 1
    return n


def write_cluster(subtopic: Subtopic, config: WorldConfig, rng: random.Random, book: NameBook) -> None:
    """Write the subtopic's documents and its clean article."""
    n_docs = docs_in_cluster(*config.docs_per_cluster, config.more_docs, rng)
    deck = FillerDeck(subtopic.etype, rng)
    statements = choose_statements(subtopic.etype, n_docs, config.fact_overlap, rng)
    subtopic.documents = [
        write_document(subtopic, f"{subtopic.id}_{i}", stated, config, rng, deck, book)
        for i, stated in enumerate(statements)
    ]
    everything = {role.name for role in subtopic.etype.roles}
    subtopic.article = write_document(subtopic, f"{subtopic.id}_article", everything, config, rng, None, book)
