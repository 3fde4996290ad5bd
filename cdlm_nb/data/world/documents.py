"""Documents: which facts each one states, a plan of sentences that states exactly those, then the words.

A cluster has 3-10 documents (skewed small like Multi-News's: `more_docs`). Every document states the anchor
facts and each other fact with probability `fact_overlap` (each at least once per cluster); `noise` turns some
statements wrong or into filler, and filler sentences are added or dropped until the length fits `words_per_doc`.
While writing, every trigger and entity filled in becomes a gold mention with its cluster (ECB+ schema: one event
or entity cluster per subtopic, across its documents) and every fact a statement span, so the `coref` and `facts`
datasets are exact by construction.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from ...profiles import WorldConfig
from ...support.errors import ConfigError
from . import lexicon as lx
from .facts import Document, NameBook, Sentence, Span, Subtopic, wrong_number
from .lexicon import EventType, Maybe, Slot, indefinite_article, parse_template, required_roles, role_slots

#: A sentence to write: its template and which optional segments (by position) to include.
Planned = tuple[str, frozenset[int]]


class Writer:
    """Writes the sentences of one document in order, remembering who was already mentioned."""

    def __init__(self, subtopic: Subtopic, rng: random.Random, wrong: dict[str, str], book: NameBook) -> None:
        self.subtopic, self.rng, self.wrong, self.book = subtopic, rng, wrong, book
        self.events = lx.template_events(subtopic.etype)
        self.mentioned: set[str] = set()
        self.previous: set[str] = set()  # roles in the previous sentence: pronoun antecedents

    def write(self, template: str, include: frozenset[int] = frozenset()) -> Sentence:
        """Fill the template's slots (and the optional segments in `include`) and capitalise the first word."""
        sentence = Sentence([], [], [])
        current: set[str] = set()
        for index, part in enumerate(parse_template(template)):
            if not isinstance(part, Maybe):
                self._write_part(part, sentence, current)
            elif index in include:
                for inner in part.parts:
                    self._write_part(inner, sentence, current)
        if sentence.tokens:
            sentence.tokens[0] = sentence.tokens[0][0].upper() + sentence.tokens[0][1:]
        self.previous = current
        return sentence

    def _write_part(self, part: str | Slot, sentence: Sentence, current: set[str]) -> None:
        if isinstance(part, str):
            sentence.tokens.extend(lx.tokenize(part))
            return
        start = len(sentence.tokens)
        words, mention, statement = self._fill(part, at_start=start == 0)
        if start and sentence.tokens[-1].lower() in ("a", "an"):  # "a quake" but "an earthquake"
            article = indefinite_article(words)
            sentence.tokens[-1] = article.capitalize() if sentence.tokens[-1][0].isupper() else article
        sentence.tokens.extend(lx.tokenize(words))
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
                name = f"{rng.choice(lx.FIRST_NAMES[pronoun])} {rng.choice(lx.SURNAMES)}"
            return name, ("", "entity", lx.ENTITY_TAGS["person"]), None
        if slot.name == "n":
            return str(rng.randint(12, 95)), None, None
        if slot.name in self.events:
            event = self.events[slot.name]
            cluster = "" if event.reporting else f"{self.subtopic.id}/event/{event.name}"
            return rng.choice(event.forms[slot.form]), (cluster, "event", event.tag), None
        fact = self.subtopic.facts[slot.name]
        kind = fact.role.kind
        if kind not in lx.ENTITY_KINDS:  # a value: stated, possibly wrong
            words = self.wrong.get(slot.name, fact.name)
            return words, None, (slot.name, "wrong" if slot.name in self.wrong else "")
        mention = (f"{self.subtopic.id}/entity/{slot.name}", "entity", lx.ENTITY_TAGS[kind])
        if slot.name not in self.mentioned:
            self.mentioned.add(slot.name)
            return rng.choice(fact.full), mention, (slot.name, "")
        if fact.pronoun and at_start and slot.name in self.previous and rng.random() < 0.35:
            return fact.pronoun, mention, None
        return rng.choice(fact.aliases or fact.full), mention, None


def _value_role(etype: EventType, name: str) -> bool:
    """Numbers, texts and times are stated once per document; entities may be mentioned again."""
    return etype.role_by_name[name].kind in ("number", "text", "time")


def _includes(template: str, etype: EventType, stated: set[str], covered: set[str],
              rng: random.Random) -> frozenset[int]:
    """Optional segments to write: all their facts stated, no value repeated, something new (or a re-mention)."""
    include = set()
    for index, part in enumerate(parse_template(template)):
        if isinstance(part, Maybe):
            roles = role_slots(part.parts, etype)
            if (roles <= stated and not any(_value_role(etype, r) for r in roles & covered)
                    and (roles - covered or rng.random() < 0.5)):
                include.add(index)
                covered |= roles
    return frozenset(include)


def plan_document(etype: EventType, stated: set[str], rng: random.Random) -> tuple[Planned, list[Planned]]:
    """A lead sentence and fact sentences that together state exactly the facts in `stated`."""
    lead_template = rng.choice([t for t in etype.leads if required_roles(t, etype) <= stated])
    covered = required_roles(lead_template, etype)
    lead = (lead_template, _includes(lead_template, etype, stated, covered, rng))
    body = []
    for name in rng.sample(sorted(stated), len(stated)):
        if name in covered:
            continue
        candidates = [t for t in etype.facts if name in (needed := required_roles(t, etype)) and needed <= stated
                      and not any(_value_role(etype, r) for r in needed & covered)]
        if not candidates:
            raise ConfigError(f"event type {etype.name!r}: no fact sentence can state {name!r}; see check_lexicon()")
        template = rng.choice(candidates)
        covered |= required_roles(template, etype)
        body.append((template, _includes(template, etype, stated, covered, rng)))
    return lead, body


def filler_deck(etype: EventType, rng: random.Random) -> Iterator[Planned]:
    """Filler sentences dealt without repetition within a cluster, so each document gets its own; the deck is
    reshuffled once every template was dealt."""
    templates = list(etype.fillers) + list(lx.GENERIC_FILLERS)
    while True:
        yield from ((template, frozenset()) for template in reversed(rng.sample(templates, len(templates))))


def write_document(subtopic: Subtopic, doc_id: str, stated: set[str], config: WorldConfig, rng: random.Random,
                   deck: Iterator[Planned] | None, book: NameBook) -> Document:
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
        fillers = [next(deck) for _ in range(int(expected) + (rng.random() < expected % 1) + extra_fillers)]
    seed = rng.random()
    low, high = config.words_per_doc
    grown = False
    while True:  # add or drop fillers until the length fits (fact sentences are never dropped)
        order_rng = random.Random(seed)
        rest = body + fillers
        order = [lead] + order_rng.sample(rest, len(rest))
        writer = Writer(subtopic, order_rng, wrong, book)
        document = Document(doc_id, [writer.write(*p) for p in order], {})
        if deck is None:
            break
        words = len(document.text.split())  # what `WorldConfig.words_per_doc` bounds
        if words < low and len(fillers) < 20:
            fillers.append(next(deck))
            grown = True
        elif words > high and fillers and not grown:
            fillers.pop()
        else:
            break
    document.stated = {span.label: span.tag != "wrong" for sentence in document.sentences
                       for span in sentence.statements}
    return document


def write_cluster(subtopic: Subtopic, config: WorldConfig, rng: random.Random, book: NameBook) -> None:
    """Write the subtopic's documents and its clean article."""
    n_docs, most = config.docs_per_cluster
    while n_docs < most and rng.random() < config.more_docs:  # mostly small clusters, as in Multi-News
        n_docs += 1
    etype, deck = subtopic.etype, filler_deck(subtopic.etype, rng)
    statements = [set(etype.anchors) for _ in range(n_docs)]  # the anchors, the others with P=fact_overlap, >= once
    for role in etype.roles:
        if role.name not in etype.anchors:
            for d in [d for d in range(n_docs) if rng.random() < config.fact_overlap] or [rng.randrange(n_docs)]:
                statements[d].add(role.name)
    subtopic.documents = [
        write_document(subtopic, f"{subtopic.id}_{i}", stated, config, rng, deck, book)
        for i, stated in enumerate(statements)
    ]
    everything = {role.name for role in etype.roles}
    subtopic.article = write_document(subtopic, f"{subtopic.id}_article", everything, config, rng, None, book)
