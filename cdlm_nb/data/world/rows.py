"""Rows of the `coref`, `pairs`, `classification` and `facts` datasets, built from written subtopics (and a coref
row shown to a reader).

- `coref`: one COREF_FEATURES row per document, every gold mention with its cluster (ECB+ schema).
- `pairs`: positive (same subtopic), hard negative (sibling subtopic) and easy negative (other topic) pairs.
- `classification`: a cluster's documents concatenated, labelled with the event type; some open with background
  that names no event (`WorldConfig.preamble_share`), so their label evidence starts past 512 tokens.
- `facts`: where each document states each fact, and how many other documents of its cluster state it too.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from datasets import Features, Value

from ...profiles import WorldConfig
from .facts import NameBook, Subtopic
from .lexicon import GENERIC_FILLERS
from .templates import detokenize
from .writing import Planned, Writer
from .written import Document

#: Generic filler that does not name the event ("{core...}"): background that carries no label evidence.
NEUTRAL_FILLERS = tuple(template for template in GENERIC_FILLERS if "{core" not in template)


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


def classification_row(subtopic: Subtopic, label: int, config: WorldConfig, rng: random.Random,
                       book: NameBook) -> dict[str, Any]:
    """The cluster's documents as one long text; with probability `preamble_share` it opens with
    `preamble_words` words of neutral background, so a reader of its first 512 tokens cannot tell the label."""
    parts = [document.text for document in subtopic.documents]
    if rng.random() < config.preamble_share:
        writer, wanted, words = Writer(subtopic, rng, {}, book), rng.randint(*config.preamble_words), []
        while len(words) < wanted:
            words.extend(writer.write(Planned(rng.choice(NEUTRAL_FILLERS))).text.split())
        parts.insert(0, " ".join(words))
    return {"text": "\n\n".join(parts), "label": label}
