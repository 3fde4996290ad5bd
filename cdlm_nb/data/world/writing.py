"""Writing: a planned sentence (template + chosen optional segments) -> tokens with gold mentions and facts.

Every trigger and entity the writer fills in becomes a gold mention with its cluster (ECB+ schema: one event or
entity cluster per subtopic, across its documents); every fact it writes becomes a statement span, so the
`coref` and `facts` datasets are exact by construction. What it writes (`Span`, `Sentence`, `Document`) is in
`written`, which the facts' `Subtopic` names too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .facts import NameBook, Subtopic
from .lexicon import ENTITY_KINDS, ENTITY_TAGS, FIRST_NAMES, SURNAMES
from .templates import Maybe, Slot, indefinite_article, parse_template, template_events, tokenize
from .written import Sentence, Span


@dataclass(frozen=True)
class Planned:
    """A sentence to write: its template and which optional segments (by position) to include."""

    template: str
    include: frozenset[int] = frozenset()


class Writer:
    """Writes the sentences of one document in order, remembering who was already mentioned."""

    def __init__(self, subtopic: Subtopic, rng: random.Random, wrong: dict[str, str], book: NameBook) -> None:
        self.subtopic, self.rng, self.wrong, self.book = subtopic, rng, wrong, book
        self.events = template_events(subtopic.etype)
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
            article = indefinite_article(words)
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
