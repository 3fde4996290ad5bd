"""Gold mentions of a COREF_FEATURES corpus: the units coreference resolves and attention analysis ranks.

`collect_mentions` reads and checks them, `tokenize_documents` gives every word its subword ids (so a mention's
tokens are known exactly), `group_mentions` forms the groups pairs are drawn from, `MentionPair` is one pair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, DataError
from .conll import MENTION_KINDS

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase


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


def check_mention(row: Mapping[str, Any], mention: Mapping[str, Any]) -> None:
    """Raise DataError naming the document and mention when the mention's sentence or span is not in the document."""
    doc_id, mention_id = row["doc_id"], mention["mention_id"]
    sentences = row["sentences"]
    index, start, end = mention["sentence"], mention["start"], mention["end"]
    if not 0 <= index < len(sentences):
        raise DataError(
            f"document {doc_id!r}, mention {mention_id!r}: sentence index {index} is out of range (the document "
            f"has {len(sentences)} sentences); fix the loader or the corpus file"
        )
    length = len(sentences[index])
    if not 0 <= start < end <= length:
        raise DataError(
            f"document {doc_id!r}, mention {mention_id!r}: span [{start}, {end}) lies outside sentence {index} "
            f"({length} tokens); spans are end-exclusive token offsets within the sentence"
        )


def collect_mentions(dataset: Iterable[Mapping[str, Any]], kind: str) -> list[Mention]:
    """All gold mentions of one kind ("event" / "entity") in a COREF_FEATURES dataset, checked, in corpus order."""
    if kind not in MENTION_KINDS:
        raise ConfigError(f"mention kind {kind!r} is unknown; use one of {MENTION_KINDS}")
    mentions = []
    for row in dataset:
        for mention in row["mentions"]:
            check_mention(row, mention)
            if mention["kind"] == kind:
                mentions.append(Mention(
                    mention_id=mention["mention_id"], doc_id=row["doc_id"], topic=row["topic"],
                    subtopic=row["subtopic"], kind=kind, cluster_id=mention["cluster_id"],
                    sentence=mention["sentence"], start=mention["start"], end=mention["end"], text=mention["text"],
                ))
    return mentions


def gold_clusters(mentions: Iterable[Mention]) -> list[list[str]]:
    """The gold (key) clusters as lists of mention ids, singletons included."""
    clusters: dict[str, list[str]] = defaultdict(list)
    for mention in mentions:
        clusters[mention.cluster_id].append(mention.mention_id)
    return list(clusters.values())


#: A document as subword ids: sentences -> words -> the word's subword ids.
WordIds = list[list[list[int]]]


def tokenize_documents(dataset: Iterable[Mapping[str, Any]],
                       tokenizer: "PreTrainedTokenizerBase") -> dict[str, WordIds]:
    """Subword ids of every word of every document, keyed by doc_id (one tokenizer call per document).

    Words are encoded with a leading space (" word"), as in fine-tuning on running text, so a word's ids do
    not depend on its neighbours and a mention's tokens are known exactly.
    """
    documents = {}
    for row in dataset:
        words = [word for sentence in row["sentences"] for word in sentence]
        ids = tokenizer([" " + word for word in words], add_special_tokens=False)["input_ids"] if words else []
        flat = iter(ids)
        documents[row["doc_id"]] = [[next(flat) for _ in sentence] for sentence in row["sentences"]]
    return documents


@dataclass(frozen=True)
class MentionPair:
    """Two mentions of one group; `first` comes before `second` in corpus order."""

    first: Mention
    second: Mention

    @property
    def label(self) -> int:
        """1 when both mentions are in the same gold cluster."""
        return int(self.first.cluster_id == self.second.cluster_id)



#: Mention attributes that mentions can be grouped by.
GROUP_KEYS = ("topic", "subtopic", "cluster_id", "doc_id")


def group_mentions(mentions: Iterable[Mention], by: str) -> dict[str, list[Mention]]:
    """Mentions grouped by one attribute (`GROUP_KEYS`), groups and members in corpus order: candidate pairs come
    from one topic or subtopic, positives from one gold cluster."""
    if by not in GROUP_KEYS:
        raise ConfigError(f"group_by={by!r} is unknown; use one of {GROUP_KEYS}")
    groups: dict[str, list[Mention]] = defaultdict(list)
    for mention in mentions:
        groups[getattr(mention, by)].append(mention)
    return dict(groups)
