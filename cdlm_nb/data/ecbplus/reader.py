"""ECB+'s XML documents as rows of the shared `COREF_FEATURES` schema (`read_ecbplus`), the standard topic split
(Cybulska & Vossen 2015, as the CDLM preprint (v1), Appendix A.2 uses it) as Datasets (`load_ecbplus`), and its
statistics per split (the preprint's Table 7: `ecbplus_stats`).

Each XML file holds `<token t_id sentence number>` elements, then `<Markables>` (mentions, anchored to tokens by
`<token_anchor t_id>`; anchor-less markables with a TAG_DESCRIPTOR are cluster descriptors), then `<Relations>`:
CROSS_DOC_COREF (its `note`, the corpus-wide instance id, is our cluster id) and INTRA_DOC_COREF (a chain inside one
document). Conventions, which reproduce the CDLM preprint (v1)'s Table 7 and Cattan et al.'s preprocessing:
- only the CSV's validated sentences count (`validated_only=True`); documents without any are left out (20_10ecbplus
  and 34_5ecb of the 772 shared files), giving 574 train / 196 dev documents;
- CSV values are whitespace-stripped (three rows end in a space): that yields the reference counts (3,808/4,758
  train mentions, not 3,796/4,743);
- every token-anchored markable in a kept sentence is a mention, none de-duplicated (the release already removed
  double annotations); a discontinuous one ("checked ... into") becomes its covering span, as the CDLM cross-encoder
  does (first and last token), counted in the report;
- a few instance ids are shared by two topics (a person in topics 9 and 34): they stay one cluster, as in the
  reference statistics.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from datasets import Dataset, DatasetDict
from lxml import etree

from ...support.errors import ConfigError, DataError
from ...support.progress import progress
from ..schemas import COREF_FEATURES
from ..sources import log_skips
from .download import SENTENCES_CSV, WHERE_TO_GET, locate_corpus, read_validated_sentences, topic_folders

log = logging.getLogger(__name__)

DEV_TOPICS: tuple[int, ...] = (2, 5, 12, 18, 21, 23, 34, 35)
TEST_TOPICS: tuple[int, ...] = tuple(range(36, 46))  # every other topic is train
SPLITS: tuple[str, ...] = ("train", "dev", "test")
_SPLIT_TOPICS = {"dev": " ".join(map(str, DEV_TOPICS)), "test": f"{TEST_TOPICS[0]}-{TEST_TOPICS[-1]}",
                 "train": "every topic that is neither dev nor test"}
EVENT_TAG_PREFIXES = ("ACTION_", "NEG_ACTION_")
ENTITY_TAG_PREFIXES = ("HUMAN_", "NON_HUMAN_", "LOC_", "TIME_")
_DOC_ID = re.compile(r"^(?P<topic>\d+)_(?P<number>\d+)(?P<corpus>ecb|ecbplus)$")


def _items(label: str):
    """A report field listing items, and its label in `EcbPlusReport.lines` (the part before " (" in `problems`)."""
    return field(default_factory=list, metadata={"label": label})


#: What could not be read as annotated (not the by-design validated-sentence filter), in the order it is logged.
_PROBLEMS = ("mentions_crossing_sentences", "mentions_with_unknown_tag", "markables_without_tokens",
             "validated_sentences_not_in_document", "validated_documents_not_found")


@dataclass
class EcbPlusReport:
    """What reading the corpus left out or changed; the lists hold "doc_id:m_id" (or "doc_id:sentence") items."""

    files_read: int = 0
    documents_kept: int = 0
    documents_without_validated_sentences: list[str] = _items("documents without validated sentences (left out)")
    validated_sentences_not_in_document: list[str] = _items("validated sentences missing from their document")
    validated_documents_not_found: list[str] = _items("validated documents without an XML file")
    mentions_kept: int = 0
    mentions_outside_kept_sentences: int = 0  # by design when validated_only: not gold there
    mentions_crossing_sentences: list[str] = _items("mentions crossing sentences (skipped)")
    mentions_with_unknown_tag: list[str] = _items("mentions with a tag that is neither event nor entity (skipped)")
    markables_without_tokens: list[str] = _items("markables without tokens (skipped)")  # not descriptors
    mentions_in_several_relations: list[str] = _items("mentions in several relations (first kept)")
    discontinuous_mentions_widened: list[str] = _items("discontinuous mentions (widened to their covering span)")
    relations_of_other_types: int = 0  # neither CROSS_DOC_COREF nor INTRA_DOC_COREF, ignored
    clusters_mixing_kinds: list[str] = _items("clusters linking events and entities (counted per kind)")

    def problems(self) -> dict[str, int]:
        """Counts of what could not be read as annotated, by label."""
        labels = {item.name: item.metadata.get("label", "") for item in fields(self)}
        return {labels[name].split(" (")[0]: len(getattr(self, name)) for name in _PROBLEMS}

    def lines(self) -> list[str]:
        """A human-readable summary, one line per non-empty item (the first five of each list shown)."""
        out = [f"{self.files_read} files read, {self.documents_kept} documents and {self.mentions_kept} mentions kept"]
        for item in fields(self):
            if "label" in item.metadata and (values := getattr(self, item.name)):
                out.append(f"{len(values)} {item.metadata['label']}: {', '.join(values[:5])}"
                           f"{', ...' if len(values) > 5 else ''}")
        if self.mentions_outside_kept_sentences:
            out.append(f"{self.mentions_outside_kept_sentences} mentions outside the kept sentences (not gold there)")
        if self.relations_of_other_types:
            out.append(f"{self.relations_of_other_types} relations of other types ignored")
        return out


def mention_kind(tag: str) -> str | None:
    """The mention kind of a corpus tag: "event", "entity" (`EVENT_TAG_PREFIXES`, `ENTITY_TAG_PREFIXES`) or None."""
    return "event" if tag.startswith(EVENT_TAG_PREFIXES) else "entity" if tag.startswith(ENTITY_TAG_PREFIXES) else None


def _cluster_of_mentions(path: Path, doc_id: str, root: etree._Element, report: EcbPlusReport) -> dict[str, str]:
    """m_id -> cluster id from the document's coreference relations (sources only; targets are descriptors)."""
    markable_ids = {m.get("m_id") for m in root.xpath("Markables/*")}
    clusters: dict[str, str] = {}
    for relation in root.xpath("Relations/*"):  # elements only, no comments
        if relation.tag == "CROSS_DOC_COREF":
            cluster = relation.get("note")
        elif relation.tag == "INTRA_DOC_COREF":
            cluster = f"{doc_id}_intra_{relation.get('r_id')}"
        else:
            report.relations_of_other_types += 1
            continue
        if not cluster:
            raise DataError(f"{path}: CROSS_DOC_COREF r_id={relation.get('r_id')} has no note (instance id)")
        for source in relation.iterchildren("source"):
            m_id = source.get("m_id")
            if m_id not in markable_ids:
                raise DataError(f"{path}: {relation.tag} r_id={relation.get('r_id')} refers to markable m_id={m_id}, "
                                "which the document does not have")
            if m_id in clusters:
                report.mentions_in_several_relations.append(f"{doc_id}:{m_id}")
            else:
                clusters[m_id] = cluster
    return clusters


def _read_document(path: Path, topic: str, validated: dict[str, set[int]] | None, keep_all_sentences: bool,
                   report: EcbPlusReport) -> dict | None:
    """One document row in COREF_FEATURES layout (singleton flags still unset), or None if nothing is kept."""
    try:
        root = etree.parse(str(path)).getroot()
    except etree.XMLSyntaxError as exc:
        raise DataError(f"{path}: line {exc.lineno}: malformed XML ({exc.msg}); re-extract this file") from exc
    report.files_read += 1
    doc_id = (root.get("doc_name") or path.name).removesuffix(".xml")
    match = _DOC_ID.match(doc_id)
    if match is None:
        raise DataError(f"{path}: document name {doc_id!r} is not of the form <topic>_<n>ecb or <topic>_<n>ecbplus")
    if str(int(match["topic"])) != topic:
        raise DataError(f"{path}: document {doc_id} belongs to topic {match['topic']} but lies in folder {topic}")

    # token t_id -> (corpus sentence number, position within the sentence)
    sentences: dict[int, list[str]] = {}
    where: dict[str, tuple[int, int]] = {}
    for token in root.iterchildren("token"):
        try:
            sentence = int(token.get("sentence"))
        except (TypeError, ValueError) as exc:
            raise DataError(f"{path}: line {token.sourceline}: token t_id={token.get('t_id')} has no numeric "
                            "sentence") from exc
        words = sentences.setdefault(sentence, [])
        where[token.get("t_id")] = (sentence, len(words))
        words.append(token.text or "")

    gold = set(sentences) if validated is None else validated.get(doc_id, set())
    if not gold:
        report.documents_without_validated_sentences.append(doc_id)
        return None
    report.validated_sentences_not_in_document += [f"{doc_id}:{s}" for s in sorted(gold - set(sentences))]
    kept = sorted(sentences) if keep_all_sentences else sorted(gold & set(sentences))
    row_of = {number: index for index, number in enumerate(kept)}

    clusters = _cluster_of_mentions(path, doc_id, root, report)
    mentions = []
    for markable in root.xpath("Markables/*"):
        m_id = markable.get("m_id")
        anchors = [anchor.get("t_id") for anchor in markable.iterchildren("token_anchor")]
        if not anchors:
            if markable.get("TAG_DESCRIPTOR") is None and markable.get("RELATED_TO") is None:
                report.markables_without_tokens.append(f"{doc_id}:{m_id}")
            continue  # a cluster descriptor (instance), not a mention
        if unknown := [t_id for t_id in anchors if t_id not in where]:
            raise DataError(f"{path}: markable {markable.tag} m_id={m_id} (line {markable.sourceline}) anchors token "
                            f"t_id={unknown[0]}, which the document does not have")
        kind = mention_kind(markable.tag)
        if kind is None:
            report.mentions_with_unknown_tag.append(f"{doc_id}:{m_id}:{markable.tag}")
            continue
        sentence, *others = {where[t][0] for t in anchors}
        if others:
            report.mentions_crossing_sentences.append(f"{doc_id}:{m_id}")
            continue
        if sentence not in gold:
            report.mentions_outside_kept_sentences += 1
            continue
        positions = sorted(where[t][1] for t in anchors)
        start, end = positions[0], positions[-1] + 1
        if positions != list(range(start, end)):
            report.discontinuous_mentions_widened.append(f"{doc_id}:{m_id}")
        mentions.append({"mention_id": f"{doc_id}_{m_id}", "kind": kind, "type": markable.tag,
                         "sentence": row_of[sentence], "start": start, "end": end,
                         "text": " ".join(sentences[sentence][start:end]),
                         "cluster_id": clusters.get(m_id, f"{doc_id}_singleton_{m_id}"), "singleton": False})
    mentions.sort(key=lambda m: (m["sentence"], m["start"], m["end"], m["mention_id"]))
    report.documents_kept += 1
    report.mentions_kept += len(mentions)
    return {"doc_id": doc_id, "topic": topic, "subtopic": f"{topic}_{match['corpus']}", "sentence_ids": kept,
            "sentences": [sentences[number] for number in kept], "mentions": mentions}


def _document_order(path: Path) -> tuple[int, int, str]:
    """ECB documents before ECB+ ones, then by number: 1_1ecb, 1_2ecb, ..., 1_1ecbplus, ..."""
    match = _DOC_ID.match(path.stem)
    return (0, 0, path.name) if match is None else (len(match["corpus"]), int(match["number"]), path.name)


def read_ecbplus(path: str | Path, topics: Iterable[int | str] | None = None, validated_only: bool = True,
                 keep_all_sentences: bool = False, split: str | None = None) -> tuple[list[dict], EcbPlusReport]:
    """The XML release as document rows (COREF_FEATURES layout) and a report of what was left out.
    `validated_only` keeps only the mentions (and documents) of the CSV's validated sentences, the gold standard;
    `keep_all_sentences` keeps every sentence as context even then (the CDLM cross-encoder reads whole documents)."""
    xml_dir, csv_path = locate_corpus(path)
    present = topic_folders(xml_dir)
    chosen = select_topics(present, topics, split)
    if validated_only and csv_path is None:
        raise DataError(f"{SENTENCES_CSV} not found beside {xml_dir} (needed for validated_only=True; pass "
                        f"validated_only=False to keep every sentence): {WHERE_TO_GET}.")
    validated = read_validated_sentences(csv_path) if validated_only else None

    report = EcbPlusReport()
    files = [(topic, file) for topic in chosen for file in sorted(present[topic].glob("*.xml"), key=_document_order)]
    rows, origin = [], {}
    for topic, file in progress(files, desc="ECB+ documents", unit="doc"):
        row = _read_document(file, topic, validated, keep_all_sentences, report)
        if row is None:
            continue
        if row["doc_id"] in origin:
            raise DataError(f"duplicate document id {row['doc_id']}: in {origin[row['doc_id']]} and in {file}")
        origin[row["doc_id"]] = file
        rows.append(row)
    if validated is not None:
        report.validated_documents_not_found = sorted(doc for doc in validated
                                                      if doc.split("_")[0] in chosen and doc not in origin)

    # A singleton shares its cluster with no other mention of its kind in its topic: coreference is resolved per kind
    # within a topic; a few instance ids recur in a second topic and two INTRA_DOC_COREF chains link an event to an
    # entity (31_9ecb r_id 35769, 34_13ecb r_id 36268). So the flag does not depend on which other topics were loaded,
    # and matches Cattan et al.'s statistics (1,116/814 train, 280/205 dev singleton event/entity mentions).
    sizes = Counter((row["topic"], m["kind"], m["cluster_id"]) for row in rows for m in row["mentions"])
    kinds = defaultdict(set)
    for row in rows:
        for mention in row["mentions"]:
            mention["singleton"] = sizes[row["topic"], mention["kind"], mention["cluster_id"]] == 1
            kinds[mention["cluster_id"]].add(mention["kind"])
    report.clusters_mixing_kinds = sorted(cluster for cluster, found in kinds.items() if len(found) > 1)
    return rows, report


def load_ecbplus(path: str | Path, topics: Iterable[int | str] | None = None, validated_only: bool = True,
                 split: str | None = None, keep_all_sentences: bool = False) -> DatasetDict | Dataset:
    """ECB+ as a `DatasetDict` of the standard splits present, or one split's `Dataset` (options: `read_ecbplus`,
    which also returns the full report); what cannot be represented is counted in a logged warning."""
    rows, report = read_ecbplus(path, topics, validated_only, keep_all_sentences, split)
    log_skips(log, "ECB+", path, report.mentions_kept, report.problems())
    dataset = rows_to_datasets(rows)
    return dataset[split] if split is not None else dataset


def split_of_topic(topic: int | str) -> str:
    """The standard split a topic belongs to: "dev" for 2 5 12 18 21 23 34 35, "test" for 36-45, else "train"."""
    number = int(topic)
    return "dev" if number in DEV_TOPICS else "test" if number in TEST_TOPICS else "train"


def select_topics(present: dict[str, Path], topics: Iterable[int | str] | None, split: str | None) -> list[str]:
    """The requested topics (all present by default), restricted to one split if asked."""
    if split is not None and split not in SPLITS:
        raise ConfigError(f"split must be one of {', '.join(SPLITS)} or None, not {split!r}")
    chosen = list(present)
    if topics is not None:
        topics = [topics] if isinstance(topics, (int, str)) else topics
        try:
            chosen = [str(int(t)) for t in topics]
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"topics must be topic numbers such as 1 or '36', got {topics!r}") from exc
        if missing := [t for t in chosen if t not in present]:
            raise DataError(f"topic(s) {', '.join(missing)} not in the corpus at {next(iter(present.values())).parent}"
                            f"; present topics: {', '.join(present)}")
    if split is not None:
        chosen = [t for t in chosen if split_of_topic(t) == split]
        if not chosen:
            raise DataError(f"no topic of the {split} split is present (present topics: {', '.join(present)}); "
                            f"the {split} topics are {_SPLIT_TOPICS[split]}")
    return chosen


def rows_to_datasets(rows: list[dict]) -> DatasetDict:
    """Group document rows by the standard split of their topic into a `DatasetDict` (only splits present)."""
    return DatasetDict({name: Dataset.from_list(part, features=COREF_FEATURES) for name in SPLITS
                        if (part := [row for row in rows if split_of_topic(row["topic"]) == name])})


def split_stats(dataset: Dataset) -> dict[str, int]:
    """Topics, documents, sentences, mentions and clusters of one split, per kind within the split: all,
    "non-singleton" (>= 2 mentions there: the "Clusters" row of Table 7) and "cross-document" (in >= 2 documents)."""
    stats = {"topics": len(set(dataset["topic"])), "documents": len(dataset),
             "sentences": sum(map(len, dataset["sentence_ids"]))}
    members: dict[str, dict[str, list[str]]] = {"event": defaultdict(list), "entity": defaultdict(list)}
    singletons = Counter()
    for doc_id, mentions in zip(dataset["doc_id"], dataset["mentions"]):
        for mention in mentions:
            members[mention["kind"]][mention["cluster_id"]].append(doc_id)
            singletons[mention["kind"]] += mention["singleton"]
    for kind, clusters in members.items():
        stats[f"{kind}_mentions"] = sum(len(docs) for docs in clusters.values())
        stats[f"{kind}_singleton_mentions"] = singletons[kind]
        stats[f"{kind}_clusters"] = len(clusters)
        stats[f"{kind}_non_singleton_clusters"] = sum(len(docs) > 1 for docs in clusters.values())
        stats[f"{kind}_cross_document_clusters"] = sum(len(set(docs)) > 1 for docs in clusters.values())
    return stats


def ecbplus_stats(dataset_dict: Mapping) -> dict[str, dict[str, int]]:
    """`split_stats` for each split present, in train/dev/test order (as in Table 7)."""
    return {name: split_stats(dataset_dict[name]) for name in SPLITS if name in dataset_dict}


def format_stats(stats: Mapping[str, Mapping[str, int]]) -> str:
    """A plain-text table: one row per statistic, one column per split."""
    import pandas as pd

    return pd.DataFrame(stats).map("{:,}".format).to_string()
