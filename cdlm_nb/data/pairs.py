"""Document pairs for matching (`PAIR_FEATURES`) drawn at run time inside one split from real grouped documents,
and the PAN-like plagiarism stand-in. The rule, as the embedded world's (`data.world.rows.pair_rows`): positive, two
documents of one subtopic (the same event); hard negative, a document of the *sibling* subtopic of the same topic
(same kind of event, another instance); easy negative, a document of another topic.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class GroupedDocument:
    """A document as a list of sentences, with the topic and subtopic (event) it belongs to."""

    topic: str
    subtopic: str
    sentences: list[str]
    sentence_clusters: tuple[frozenset[str], ...] = ()  # gold coreference clusters mentioned in each sentence


def _by_subtopic(documents: Sequence[GroupedDocument]) -> dict[str, list[GroupedDocument]]:
    groups: dict[str, list[GroupedDocument]] = defaultdict(list)
    for document in documents:
        groups[document.subtopic].append(document)
    return groups


def grouped_pairs(documents: Sequence[GroupedDocument], per_kind: int, seed: int,
                  prefix: str = "") -> tuple[list[dict], Counter]:
    """`per_kind` pairs of each kind per subtopic, and what could not be drawn ("positive": a subtopic with one
    document; "hard_negative": no sibling subtopic; "easy_negative": the split holds one topic). A related pair from
    a coreference corpus (ECB+) gets sentence-to-document gold: the sentences of doc_a holding a mention coreferent
    with one in doc_b."""
    rng, by_subtopic = random.Random(seed), _by_subtopic(documents)
    rows, missing = [], Counter()
    for name, members in by_subtopic.items():
        topic = members[0].topic
        siblings = [d for s, others in by_subtopic.items() if s != name and others[0].topic == topic for d in others]
        strangers = [d for d in documents if d.topic != topic]
        for k in range(per_kind):
            first, *rest = rng.sample(members, min(2, len(members)))
            candidates = (("positive", rest[0] if rest else None, 1),
                          ("hard_negative", rng.choice(siblings) if siblings else None, 0),
                          ("easy_negative", rng.choice(strangers) if strangers else None, 0))
            for kind, other, label in candidates:
                if other is None:
                    missing[kind] += 1
                    continue
                theirs = frozenset().union(*other.sentence_clusters)
                aligned = [i for i, clusters in enumerate(first.sentence_clusters) if clusters & theirs]
                rows.append({"pair_id": f"{prefix}{name}/{kind}/{k}", "doc_a": first.sentences,
                             "doc_b": other.sentences, "label": label, "kind": kind,
                             "positive_sentences": aligned if label else []})
    return rows, missing


def ecbplus_documents(rows: Sequence[Mapping]) -> list[GroupedDocument]:
    """ECB+ documents (`COREF_FEATURES` rows) with their topic and subtopic (ECB vs ECB+ half of a topic) and the
    non-singleton gold clusters (event and entity) each sentence mentions."""
    documents = []
    for row in rows:
        clusters = [set() for _ in row["sentences"]]
        for mention in row["mentions"]:
            if not mention["singleton"]:
                clusters[mention["sentence"]].add(f"{mention['kind']}:{mention['cluster_id']}")
        documents.append(GroupedDocument(row["topic"], row["subtopic"], [" ".join(t) for t in row["sentences"]],
                                         tuple(map(frozenset, clusters))))
    return documents


def cluster_documents(rows: Sequence[Mapping]) -> list[GroupedDocument]:
    """Multi-News-like clusters (`CLUSTER_FEATURES` rows): each cluster is its own topic, so no hard negatives."""
    from .text import split_sentences

    return [GroupedDocument(row["cluster_id"], row["cluster_id"], split_sentences(text))
            for row in rows for text in row["documents"]]


@dataclass(frozen=True)
class PanLikeConfig:
    """The plagiarism stand-in: a segment of a source document hidden in a longer suspicious document."""

    host_documents: int = 2  # documents of one subtopic joined into the suspicious document
    segment: tuple[int, int] = (2, 4)  # fewest, most sentences copied from the source
    word_drop: float = 0.1  # each copied word is dropped with this probability (light obfuscation, as in PAN)


def pan_like_pairs(documents: Sequence[GroupedDocument], n_pairs: int, seed: int, config: PanLikeConfig,
                   prefix: str = "") -> list[dict]:
    """`n_pairs` positive and `n_pairs` negative plagiarism pairs (doc_a: the suspicious document, doc_b: the
    source). Positive: consecutive sentences of the source, lightly obfuscated, inserted into the suspicious
    document at a sentence boundary (`positive_sentences`). Negative: a segment of another document of another
    topic in their place, so that both kinds are equally long and both hold a foreign segment."""
    rng = random.Random(seed)
    hosts = [members for members in _by_subtopic(documents).values() if len(members) >= config.host_documents]
    rows = []
    for k in range(n_pairs if hosts else 0):
        members = rng.choice(hosts)
        topic = members[0].topic
        host = [s for d in rng.sample(members, config.host_documents) for s in d.sentences]
        strangers = [d for d in documents if d.topic != topic and len(d.sentences) >= config.segment[0]]
        source, decoy = rng.sample(strangers, 2)
        at = rng.randint(0, len(host))
        for kind, donor, label in (("positive", source, 1), ("hard_negative", decoy, 0)):
            size = min(rng.randint(*config.segment), len(donor.sentences))
            start = rng.randint(0, len(donor.sentences) - size)
            segment = []  # consecutive sentences, each word kept with P = 1 - word_drop (at least one)
            for sentence in donor.sentences[start:start + size]:
                words = sentence.split()
                segment.append(" ".join([w for w in words if rng.random() >= config.word_drop] or words[:1]))
            rows.append({"pair_id": f"{prefix}pan/{k}/{kind}", "doc_a": host[:at] + segment + host[at:],
                         "doc_b": source.sentences, "label": label, "kind": kind,
                         "positive_sentences": list(range(at, at + len(segment))) if label else []})
    return rows


def pair_stats(rows: Sequence[Mapping]) -> dict[str, float]:
    """Pairs, positives, hard and easy negatives, and document length in words (mean, max) of a split."""
    kinds = Counter(row["kind"] or ("positive" if row["label"] else "negative") for row in rows)
    lengths = [sum(len(s.split()) for s in row[side]) for row in rows for side in ("doc_a", "doc_b")]
    return {"pairs": len(rows), "positive": sum(row["label"] == 1 for row in rows),
            "hard_negative": kinds["hard_negative"], "easy_negative": kinds["easy_negative"],
            "words_mean": sum(lengths) / len(lengths) if lengths else 0.0, "words_max": max(lengths, default=0)}
