"""The `qa` dataset in HotpotQA's layout: bridge and comparison questions over clean articles and entity profiles.

A bridge question names an event (the article of a subtopic) and asks about a participant, whose entity profile
paragraph holds the answer; a comparison question asks which of a topic's two events has the larger number
(answered by a name, or yes/no).
Distractor paragraphs come from the same split: the sibling's article (bridge) or a same-type event
(comparison) first, the rest at random.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from .facts import EntityProfile, Subtopic


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


def profile_paragraph(profile: EntityProfile) -> Paragraph:
    """A participant's entity profile as a QA paragraph, with where each attribute is stated."""
    return Paragraph(profile.title, profile.sentences, {a: i for a, (i, _) in profile.answers.items()})


def _qa_row(qid: str, question: str, answer: str, qtype: str, support: list[tuple[Paragraph, str]],
            gold: list[Paragraph], distractors: list[Paragraph], rng: random.Random) -> dict[str, Any]:
    """One QA_FEATURES row: supporting facts as (title, sentence) pairs, the context paragraphs shuffled."""
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
    """Bridge questions (article -> profile) per subtopic; per topic, one comparison question whose answer is a
    name and the same comparison as a yes/no question (HotpotQA types both "comparison")."""
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
