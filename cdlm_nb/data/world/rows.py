"""Rows of the world's datasets, built from written subtopics (`coref_row`, `pair_rows`, `fact_rows`, ...).

`qa` (HotpotQA layout): a bridge question names an event (a subtopic's clean article) and asks about a participant,
whose entity profile paragraph holds the answer; a comparison question asks which of a topic's two events has the
larger number (answered by a name, or yes/no). Distractor paragraphs come from the same split: the sibling's
article (bridge) or a same-type event (comparison) first, the rest at random.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from datasets import Features, Value

from ...profiles import WorldConfig
from .documents import Writer
from .facts import Document, NameBook, Subtopic
from .lexicon import GENERIC_FILLERS, detokenize

#: Generic filler that does not name the event ("{core...}"): background that carries no label evidence.
NEUTRAL_FILLERS = tuple(template for template in GENERIC_FILLERS if "{core" not in template)


def coref_row(subtopic: Subtopic, document: Document) -> dict[str, Any]:
    """One COREF_FEATURES row; singleton flags are filled in once the whole corpus is known (`generate_world`)."""
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


def pair_rows(subtopics: list[Subtopic], pool: list[Subtopic], per_kind: int, rng: random.Random) -> list[dict]:
    """Positive (same subtopic), hard negative (sibling subtopic) and easy negative (other topic) pairs, drawn from
    `pool` (the same split, or the whole world when the split has a single topic). `positive_sentences`: those of
    doc_a that mention the core event, what any other report of the same event is about."""
    rows = []
    for subtopic in subtopics:
        sibling = next(s for s in pool if s.topic == subtopic.topic and s is not subtopic)
        strangers = [s for s in pool if s.topic != subtopic.topic]
        for k in range(per_kind):
            a, b = rng.sample(subtopic.documents, 2)
            hard = rng.choice(sibling.documents)
            easy = rng.choice(rng.choice(strangers).documents)
            core = [i for i, s in enumerate(a.sentences) if any(m.label.endswith("/event/core") for m in s.mentions)]
            for kind, other, label in (("positive", b, 1), ("hard_negative", hard, 0), ("easy_negative", easy, 0)):
                rows.append({
                    "pair_id": f"{subtopic.id}/{kind}/{k}",
                    "doc_a": [s.text for s in a.sentences], "doc_b": [s.text for s in other.sentences],
                    "label": label, "kind": kind, "positive_sentences": core if label else [],
                })
    return rows


#: Where each document states each fact (character offsets into the `clusters` document text).
FACT_FEATURES = Features({
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
})


def fact_rows(subtopic: Subtopic) -> list[dict[str, Any]]:
    """Where each document of the cluster states each fact, and how many other documents state it too."""
    rows = []
    for d, document in enumerate(subtopic.documents):
        base = 0  # where the sentence starts in the document's text (sentences joined by spaces)
        for sentence in document.sentences:
            offsets = detokenize(sentence.tokens)[1]
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
            base += len(sentence.text) + 1
    return rows


def classification_row(subtopic: Subtopic, label: int, config: WorldConfig, rng: random.Random,
                       book: NameBook) -> dict[str, Any]:
    """The cluster's documents as one long text; with probability `preamble_share` it opens with
    `preamble_words` words of neutral background, so a reader of its first 512 tokens cannot tell the label."""
    parts = [document.text for document in subtopic.documents]
    if rng.random() < config.preamble_share:
        writer, wanted, words = Writer(subtopic, rng, {}, book), rng.randint(*config.preamble_words), []
        while len(words) < wanted:
            words.extend(writer.write(rng.choice(NEUTRAL_FILLERS)).text.split())
        parts.insert(0, " ".join(words))
    return {"text": "\n\n".join(parts), "label": label}


@dataclass(frozen=True)
class Paragraph:
    """A titled paragraph of a QA context, and where each fact (or profile attribute) is stated in it."""

    title: str
    sentences: tuple[str, ...]
    where: dict[str, int]  # role or attribute -> sentence index


def article_paragraph(subtopic: Subtopic) -> Paragraph:
    """The subtopic's clean article as a QA paragraph, titled by the event, with where each fact is stated."""
    document = subtopic.article
    where = {}
    for i, sentence in enumerate(document.sentences):
        for span in sentence.statements:
            where.setdefault(span.label, i)
    return Paragraph(subtopic.title, tuple(s.text for s in document.sentences), where)


def _qa_row(qid: str, question: str, answer: str, qtype: str, support: list[tuple[Paragraph, str]],
            gold: list[Paragraph], distractors: list[Paragraph], rng: random.Random) -> dict[str, Any]:
    """One QA_FEATURES row: supporting facts as (title, sentence) pairs, the context paragraphs shuffled."""
    facts = list(dict.fromkeys((p.title, p.where[key]) for p, key in support))
    context = rng.sample(gold + distractors, len(gold) + len(distractors))
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
    """Bridge questions (article -> profile) per subtopic; per topic, one comparison question whose answer is a
    name and the same comparison as a yes/no question (HotpotQA types both "comparison")."""
    articles = {s.id: article_paragraph(s) for s in subtopics}
    profiles = {(s.id, s.etype.bridge.key): Paragraph(p.title, p.sentences, {a: i for a, (i, _) in p.answers.items()})
                for s in subtopics if s.etype.bridge for p in [s.facts[s.etype.bridge.key].profile]}
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
    comparisons = []
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
        amounts = {s.id: s.facts[comparison.number].amount for s in (a, b)}
        comparisons.append((topic, comparison, names, amounts, support, gold, same_type))
    for topic, comparison, names, amounts, support, gold, same_type in comparisons:  # drawn last: rows above unchanged
        a, b = rng.sample(list(names), 2)
        answer = "yes" if amounts[a] > amounts[b] else "no"
        question = comparison.yes_no.format(a=names[a], b=names[b])
        rows.append(_qa_row(f"{topic}/yes_no", question, answer, "comparison", support, gold,
                            distractors(gold, same_type[:1]), rng))
    return rows
