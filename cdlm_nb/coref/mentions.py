"""Gold mentions of a COREF_FEATURES corpus (the units coreference resolves and attention analysis ranks), the
groups pairs are drawn from, and each word's subword ids (so a mention's tokens are known exactly)."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..support.errors import ConfigError, DataError
from .metrics import MentionKey

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

MENTION_KINDS = ("event", "entity")
GROUP_KEYS = ("topic", "subtopic", "cluster_id", "doc_id")  # the attributes mentions can be grouped by
#: A document as subword ids: sentences -> words -> the word's subword ids.
WordIds = list[list[list[int]]]
T = TypeVar("T")


@dataclass(frozen=True)
class Mention:
    """A gold mention, located in its document and its topic/subtopic (the groups pairs are drawn from)."""

    mention_id: str
    doc_id: str
    topic: str
    subtopic: str
    kind: str  # "event" or "entity"
    cluster_id: str
    sentence: int  # index into the document's sentences
    start: int  # first token within the sentence
    end: int  # one past the last token
    text: str


@dataclass(frozen=True)
class MentionPair:
    """Two mentions of one group; `first` comes before `second` in corpus order."""

    first: Mention
    second: Mention

    @property
    def label(self) -> int:
        """1 when both mentions are in the same gold cluster."""
        return int(self.first.cluster_id == self.second.cluster_id)


def check_kind(kind: str) -> None:
    """Raise ConfigError unless `kind` is one of `MENTION_KINDS`."""
    if kind not in MENTION_KINDS:
        raise ConfigError(f"mention kind {kind!r} is unknown; use one of {MENTION_KINDS}")


def check_mention(row: Mapping[str, Any], mention: Mapping[str, Any]) -> None:
    """Raise DataError naming the document and mention when the mention's sentence or span is not in the document."""
    where = f"document {row['doc_id']!r}, mention {mention['mention_id']!r}"
    sentences, index, start, end = row["sentences"], mention["sentence"], mention["start"], mention["end"]
    if not 0 <= index < len(sentences):
        raise DataError(f"{where}: sentence index {index} is out of range (the document has {len(sentences)} "
                        "sentences); fix the loader or the corpus file")
    if not 0 <= start < end <= len(sentences[index]):
        raise DataError(f"{where}: span [{start}, {end}) lies outside sentence {index} ({len(sentences[index])} "
                        "tokens); spans are end-exclusive token offsets within the sentence")


def collect_mentions(dataset: Iterable[Mapping[str, Any]], kind: str) -> list[Mention]:
    """All gold mentions of one kind ("event" / "entity") in a COREF_FEATURES dataset, checked, in corpus order."""
    check_kind(kind)
    mentions = []
    for row in dataset:
        for m in row["mentions"]:
            check_mention(row, m)
            if m["kind"] == kind:
                mentions.append(Mention(m["mention_id"], row["doc_id"], row["topic"], row["subtopic"], kind,
                                        m["cluster_id"], m["sentence"], m["start"], m["end"], m["text"]))
    return mentions


def group_mentions(mentions: Iterable[Mention], by: str) -> dict[str, list[Mention]]:
    """Mentions grouped by one attribute (`GROUP_KEYS`), groups and members in corpus order."""
    if by not in GROUP_KEYS:
        raise ConfigError(f"group_by={by!r} is unknown; use one of {GROUP_KEYS}")
    return grouped(mentions, operator.attrgetter(by))


def grouped(items: Iterable[T], key: Callable[[T], Hashable]) -> dict[Any, list[T]]:
    """`items` grouped by `key(item)`, groups and members in first-seen order."""
    groups: dict[Any, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def gold_clusters(mentions: Iterable[Mention]) -> list[list[str]]:
    """The gold (key) clusters as lists of mention ids, singletons included."""
    return [[m.mention_id for m in cluster] for cluster in group_mentions(mentions, "cluster_id").values()]


def tokenize_documents(dataset: Iterable[Mapping[str, Any]],
                       tokenizer: "PreTrainedTokenizerBase") -> dict[str, WordIds]:
    """Subword ids of every word of every document, keyed by doc_id (one tokenizer call per document); each word
    with a leading space (" word"), as in running text, so that its ids do not depend on its neighbours."""
    documents = {}
    for row in dataset:
        words = [word for sentence in row["sentences"] for word in sentence]
        flat = iter(tokenizer([" " + word for word in words], add_special_tokens=False)["input_ids"] if words else [])
        documents[row["doc_id"]] = [[next(flat) for _ in sentence] for sentence in row["sentences"]]
    return documents


def coref_clusters(rows: Iterable[Mapping[str, Any]], kind: str,
                   assignment: Mapping[str, Hashable] | None = None) -> list[list[MentionKey]]:
    """The `kind` mention clusters of COREF_FEATURES rows, mentions as `(doc_id, start, end)` over the whole document:
    the gold key, or with `assignment` (mention_id -> predicted cluster label, for every mention) the response."""
    check_kind(kind)
    clusters: dict[Hashable, list[MentionKey]] = {}
    unassigned, seen = [], set()
    for row in rows:
        starts = [0, *itertools.accumulate(len(sentence) for sentence in row["sentences"])]
        for mention in row["mentions"]:
            if mention["kind"] != kind:
                continue
            check_mention(row, mention)
            mention_id = mention["mention_id"]
            seen.add(mention_id)
            if assignment is not None and mention_id not in assignment:
                unassigned.append(mention_id)
                continue
            offset = starts[mention["sentence"]]
            clusters.setdefault(mention["cluster_id"] if assignment is None else assignment[mention_id], []).append(
                (row["doc_id"], offset + mention["start"], offset + mention["end"]))
    if unassigned:
        raise DataError(f"{len(unassigned)} {kind} mention(s) have no predicted cluster in the assignment, e.g. "
                        f"{unassigned[:3]}; assign every mention (a singleton gets a label of its own)")
    if unknown := [m for m in assignment or () if m not in seen]:
        raise DataError(f"{len(unknown)} assigned mention id(s) are not {kind} mentions of these documents, e.g. "
                        f"{unknown[:3]}")
    return list(clusters.values())
