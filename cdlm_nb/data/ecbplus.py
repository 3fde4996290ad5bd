"""ECB+ (Cybulska & Vossen, 2014): the cross-document event and entity coreference corpus, read from its
official XML release into the shared `COREF_FEATURES` schema, with the standard split and its statistics.

Layout expected (the LREC-2014 release, https://github.com/cltl/ecbPlus, folder `ECB+_LREC2014`):

    <root>/ECB+/<topic>/<topic>_<n>ecb.xml        ECB documents (one seminal event per topic)
    <root>/ECB+/<topic>/<topic>_<n>ecbplus.xml    ECB+ documents (a second, similar event: the other subtopic)
    <root>/ECBplus_coreference_sentences.csv      the validated sentences (`Topic,File,Sentence Number`)

Each XML file holds `<token t_id sentence number>` elements, then `<Markables>` (mentions, anchored to tokens
by `<token_anchor t_id>`; anchor-less markables with a TAG_DESCRIPTOR are cluster descriptors, not mentions),
then `<Relations>`: CROSS_DOC_COREF (its `note` is the corpus-wide instance id, our cluster id) and
INTRA_DOC_COREF (a chain inside one document).

Conventions (they reproduce the CDLM paper's Table 7 and the preprocessing it builds on, Cattan et al.):
- only sentences listed in the CSV count (`validated_only=True`); documents without any are left out
  (two of the 772 shared files: 20_10ecbplus, 34_5ecb), which gives 574 train / 196 dev documents;
- CSV values are whitespace-stripped: three rows carry a trailing space ("9,13ecbplus,14 "); reading
  them as numbers is what yields the reference counts (3,808/4,758 train mentions, not 3,796/4,743);
- every token-anchored markable in a kept sentence is a mention, nothing is de-duplicated (the release
  already removed double annotations); events are ACTION_* and NEG_ACTION_*, entities HUMAN_*,
  NON_HUMAN_*, LOC_*, TIME_*;
- a discontinuous markable ("checked ... into") becomes its covering span, as the CDLM cross-encoder does
  (it uses the first and last token); such widenings are counted in the report;
- cross-document cluster ids are the corpus' instance ids; a few are shared by two topics (e.g. a person
  who appears in topics 9 and 34), and they stay one cluster, as in the reference statistics.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import shutil
import urllib.error
import urllib.request
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from datasets import Dataset, DatasetDict
from lxml import etree

from ..errors import ConfigError, DataError, OfflineError
from ..runtime import progress
from .schemas import COREF_FEATURES
from .sources import log_skips

log = logging.getLogger(__name__)

#: The standard split (Cybulska & Vossen 2015; CDLM paper, Appendix A.2): everything else is train.
DEV_TOPICS: tuple[int, ...] = (2, 5, 12, 18, 21, 23, 34, 35)
TEST_TOPICS: tuple[int, ...] = tuple(range(36, 46))
SPLITS: tuple[str, ...] = ("train", "dev", "test")

SENTENCES_CSV = "ECBplus_coreference_sentences.csv"
XML_FOLDER = "ECB+"
ECBPLUS_ZIP_URL = "https://github.com/cltl/ecbPlus/raw/master/ECB%2B_LREC2014/ECB%2B.zip"
ECBPLUS_CSV_URL = "https://raw.githubusercontent.com/cltl/ecbPlus/master/ECB%2B_LREC2014/" + SENTENCES_CSV
WHERE_TO_GET = (
    "get the ECB+ release from https://github.com/cltl/ecbPlus (folder ECB+_LREC2014: ECB+.zip and "
    f"{SENTENCES_CSV}), unzip it so that <dir>/{XML_FOLDER}/<topic>/<topic>_<n>ecb.xml exists with the CSV "
    "beside the ECB+ folder, or call cdlm_nb.data.ecbplus.download_ecbplus(<dir>)"
)

EVENT_TAG_PREFIXES = ("ACTION_", "NEG_ACTION_")
ENTITY_TAG_PREFIXES = ("HUMAN_", "NON_HUMAN_", "LOC_", "TIME_")
_DOC_ID = re.compile(r"^(?P<topic>\d+)_(?P<number>\d+)(?P<corpus>ecb|ecbplus)$")


@dataclass
class EcbPlusReport:
    """What reading the corpus left out or changed, so that nothing is dropped silently."""

    files_read: int = 0
    documents_kept: int = 0
    documents_without_validated_sentences: list[str] = field(default_factory=list)
    validated_sentences_not_in_document: list[str] = field(default_factory=list)  # "doc_id:sentence"
    validated_documents_not_found: list[str] = field(default_factory=list)  # in the CSV, no XML file
    mentions_kept: int = 0
    mentions_outside_kept_sentences: int = 0  # by design when validated_only: not gold there
    mentions_crossing_sentences: list[str] = field(default_factory=list)  # "doc_id:m_id", skipped
    mentions_with_unknown_tag: list[str] = field(default_factory=list)  # "doc_id:m_id:TAG", skipped
    markables_without_tokens: list[str] = field(default_factory=list)  # not descriptors, skipped
    mentions_in_several_relations: list[str] = field(default_factory=list)  # first relation kept
    discontinuous_mentions_widened: list[str] = field(default_factory=list)  # kept as covering span
    relations_of_other_types: int = 0  # neither CROSS_DOC_COREF nor INTRA_DOC_COREF, ignored
    clusters_mixing_kinds: list[str] = field(default_factory=list)  # kept; statistics count them per kind

    def problems(self) -> dict[str, int]:
        """Counts of what could not be read as annotated (not the by-design validated-sentence filter)."""
        return {
            "mentions crossing sentences": len(self.mentions_crossing_sentences),
            "mentions with a tag that is neither event nor entity": len(self.mentions_with_unknown_tag),
            "markables without tokens": len(self.markables_without_tokens),
            "validated sentences missing from their document": len(self.validated_sentences_not_in_document),
            "validated documents without an XML file": len(self.validated_documents_not_found),
        }

    def lines(self) -> list[str]:
        """A human-readable summary, one line per non-empty item."""
        out = [f"{self.files_read} files read, {self.documents_kept} documents and {self.mentions_kept} mentions kept"]
        items = {
            "documents without validated sentences (left out)": self.documents_without_validated_sentences,
            "validated sentences missing from their document": self.validated_sentences_not_in_document,
            "validated documents without an XML file": self.validated_documents_not_found,
            "mentions crossing sentences (skipped)": self.mentions_crossing_sentences,
            "mentions with a tag that is neither event nor entity (skipped)": self.mentions_with_unknown_tag,
            "markables without tokens (skipped)": self.markables_without_tokens,
            "mentions in several relations (first kept)": self.mentions_in_several_relations,
            "discontinuous mentions (widened to their covering span)": self.discontinuous_mentions_widened,
            "clusters linking events and entities (counted per kind)": self.clusters_mixing_kinds,
        }
        for label, values in items.items():
            if values:
                shown = ", ".join(values[:5]) + (", ..." if len(values) > 5 else "")
                out.append(f"{len(values)} {label}: {shown}")
        if self.mentions_outside_kept_sentences:
            out.append(f"{self.mentions_outside_kept_sentences} mentions outside the kept sentences (not gold there)")
        if self.relations_of_other_types:
            out.append(f"{self.relations_of_other_types} relations of other types ignored")
        return out


# ----------------------------------------------------------------------------------------------- split


def split_of_topic(topic: int | str) -> str:
    """The standard split a topic belongs to: "dev" for 2 5 12 18 21 23 34 35, "test" for 36-45, else "train"."""
    number = int(topic)
    return "dev" if number in DEV_TOPICS else "test" if number in TEST_TOPICS else "train"


def mention_kind(tag: str) -> str | None:
    """The mention kind of a corpus tag: event for ACTION_* and NEG_ACTION_*, entity for HUMAN_*, NON_HUMAN_*,
    LOC_* and TIME_*; None for anything else."""
    if tag.startswith(EVENT_TAG_PREFIXES):
        return "event"
    if tag.startswith(ENTITY_TAG_PREFIXES):
        return "entity"
    return None


def mention_tokens(row: Mapping, mention: Mapping) -> list[str]:
    """The tokens of one mention of a document row (`sentences[sentence][start:end]`)."""
    return list(row["sentences"][mention["sentence"]][mention["start"] : mention["end"]])


# ---------------------------------------------------------------------------------------------- layout


def _locate(path: str | Path) -> tuple[Path, Path | None]:
    """The folder holding the topic folders, and the validated-sentences CSV (None if absent)."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise DataError(f"ECB+ corpus not found at {root}: {WHERE_TO_GET}.")
    xml_dir = root / XML_FOLDER if (root / XML_FOLDER).is_dir() else root
    for candidate in (root / SENTENCES_CSV, xml_dir / SENTENCES_CSV, xml_dir.parent / SENTENCES_CSV):
        if candidate.is_file():
            return xml_dir, candidate
    return xml_dir, None


def _topic_folders(xml_dir: Path) -> dict[str, Path]:
    """The numeric topic folders that hold XML files, keyed by topic number as a string."""
    folders = {
        str(int(p.name)): p
        for p in xml_dir.iterdir()
        if p.is_dir() and p.name.isdigit() and any(p.glob("*.xml"))
    }
    if not folders:
        raise DataError(f"no ECB+ topic folders (<topic>/<topic>_<n>ecb.xml) in {xml_dir}: {WHERE_TO_GET}.")
    return dict(sorted(folders.items(), key=lambda item: int(item[0])))


def _select_topics(present: dict[str, Path], topics: Iterable[int | str] | None, split: str | None) -> list[str]:
    """The requested topics (all present by default), restricted to one split if asked."""
    if split is not None and split not in SPLITS:
        raise ConfigError(f"split must be one of {', '.join(SPLITS)} or None, not {split!r}")
    if topics is None:
        chosen = list(present)
    else:
        topics = [topics] if isinstance(topics, (int, str)) else topics
        try:
            chosen = [str(int(t)) for t in topics]
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"topics must be topic numbers such as 1 or '36', got {topics!r}") from exc
        missing = [t for t in chosen if t not in present]
        if missing:
            raise DataError(
                f"topic(s) {', '.join(missing)} not in the corpus at {next(iter(present.values())).parent}; "
                f"present topics: {', '.join(present)}"
            )
    if split is not None:
        chosen = [t for t in chosen if split_of_topic(t) == split]
        if not chosen:
            raise DataError(
                f"no topic of the {split} split is present (present topics: {', '.join(present)}); "
                f"the {split} topics are {_split_topics_text(split)}"
            )
    return chosen


def _split_topics_text(split: str) -> str:
    if split == "dev":
        return " ".join(map(str, DEV_TOPICS))
    if split == "test":
        return f"{TEST_TOPICS[0]}-{TEST_TOPICS[-1]}"
    return "every topic that is neither dev nor test"


def read_validated_sentences(csv_path: str | Path) -> dict[str, set[int]]:
    """The validated sentence numbers per document id ("1_10ecbplus") from ECBplus_coreference_sentences.csv."""
    csv_path = Path(csv_path)
    validated: dict[str, set[int]] = defaultdict(set)
    with csv_path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = [cell.strip() for cell in next(reader, [])]
        if header != ["Topic", "File", "Sentence Number"]:
            raise DataError(f"{csv_path}: line 1: expected the header 'Topic,File,Sentence Number', got {header}")
        for line, cells in enumerate(reader, start=2):
            if not any(cell.strip() for cell in cells):
                continue
            try:
                topic, name, sentence = (cell.strip() for cell in cells)
                validated[f"{int(topic)}_{name}"].add(int(sentence))
            except ValueError as exc:
                raise DataError(
                    f"{csv_path}: line {line}: expected 'topic,file,sentence number' "
                    f"such as '1,10ecbplus,3', got {','.join(cells)!r}"
                ) from exc
    return dict(validated)


# --------------------------------------------------------------------------------------------- parsing


def _parse_xml(path: Path) -> etree._Element:
    try:
        return etree.parse(str(path)).getroot()
    except etree.XMLSyntaxError as exc:
        raise DataError(f"{path}: line {exc.lineno}: malformed XML ({exc.msg}); re-extract this file") from exc


def _doc_id(path: Path, root: etree._Element, topic: str) -> tuple[str, str]:
    """The document id (the XML's doc_name without .xml) and its subtopic, checked against the topic folder."""
    doc_id = (root.get("doc_name") or path.name).removesuffix(".xml")
    match = _DOC_ID.match(doc_id)
    if match is None:
        raise DataError(f"{path}: document name {doc_id!r} is not of the form <topic>_<n>ecb or <topic>_<n>ecbplus")
    if str(int(match["topic"])) != topic:
        raise DataError(f"{path}: document {doc_id} belongs to topic {match['topic']} but lies in folder {topic}")
    return doc_id, f"{topic}_{match['corpus']}"


def _cluster_of_mentions(path: Path, doc_id: str, root: etree._Element, report: EcbPlusReport) -> dict[str, str]:
    """m_id -> cluster id from the document's coreference relations (sources only; targets are descriptors)."""
    markable_ids = {m.get("m_id") for m in _markables(root)}
    clusters: dict[str, str] = {}
    relations = root.find("Relations")
    for relation in relations if relations is not None else []:
        if not isinstance(relation.tag, str):
            continue  # comments
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
                raise DataError(
                    f"{path}: {relation.tag} r_id={relation.get('r_id')} refers to markable m_id={m_id}, "
                    "which the document does not have"
                )
            if m_id in clusters:
                report.mentions_in_several_relations.append(f"{doc_id}:{m_id}")
                continue
            clusters[m_id] = cluster
    return clusters


def _markables(root: etree._Element) -> list[etree._Element]:
    markables = root.find("Markables")
    return [] if markables is None else [m for m in markables if isinstance(m.tag, str)]


def _read_document(
    path: Path, topic: str, validated: dict[str, set[int]] | None, keep_all_sentences: bool, report: EcbPlusReport
) -> dict | None:
    """One document row in COREF_FEATURES layout (singleton flags still unset), or None if nothing is kept."""
    root = _parse_xml(path)
    report.files_read += 1
    doc_id, subtopic = _doc_id(path, root, topic)

    # token t_id -> (corpus sentence number, position within the sentence)
    sentences: dict[int, list[str]] = {}
    where: dict[str, tuple[int, int]] = {}
    for token in root.iterchildren("token"):
        try:
            sentence = int(token.get("sentence"))
        except (TypeError, ValueError) as exc:
            raise DataError(
                f"{path}: line {token.sourceline}: token t_id={token.get('t_id')} has no numeric sentence"
            ) from exc
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
    for markable in _markables(root):
        m_id = markable.get("m_id")
        anchors = [anchor.get("t_id") for anchor in markable.iterchildren("token_anchor")]
        if not anchors:
            if markable.get("TAG_DESCRIPTOR") is None and markable.get("RELATED_TO") is None:
                report.markables_without_tokens.append(f"{doc_id}:{m_id}")
            continue  # a cluster descriptor (instance), not a mention
        for t_id in anchors:
            if t_id not in where:
                raise DataError(
                    f"{path}: markable {markable.tag} m_id={m_id} (line {markable.sourceline}) anchors token "
                    f"t_id={t_id}, which the document does not have"
                )
        kind = mention_kind(markable.tag)
        if kind is None:
            report.mentions_with_unknown_tag.append(f"{doc_id}:{m_id}:{markable.tag}")
            continue
        sentence_numbers = {where[t][0] for t in anchors}
        if len(sentence_numbers) > 1:
            report.mentions_crossing_sentences.append(f"{doc_id}:{m_id}")
            continue
        sentence = sentence_numbers.pop()
        if sentence not in gold:
            report.mentions_outside_kept_sentences += 1
            continue
        positions = sorted(where[t][1] for t in anchors)
        start, end = positions[0], positions[-1] + 1
        if positions != list(range(start, end)):
            report.discontinuous_mentions_widened.append(f"{doc_id}:{m_id}")
        mentions.append(
            {
                "mention_id": f"{doc_id}_{m_id}",
                "kind": kind,
                "type": markable.tag,
                "sentence": row_of[sentence],
                "start": start,
                "end": end,
                "text": " ".join(sentences[sentence][start:end]),
                "cluster_id": clusters.get(m_id, f"{doc_id}_singleton_{m_id}"),
                "singleton": False,
            }
        )
    mentions.sort(key=lambda m: (m["sentence"], m["start"], m["end"], m["mention_id"]))
    report.documents_kept += 1
    report.mentions_kept += len(mentions)
    return {
        "doc_id": doc_id,
        "topic": topic,
        "subtopic": subtopic,
        "sentence_ids": kept,
        "sentences": [sentences[number] for number in kept],
        "mentions": mentions,
    }


def _document_order(path: Path) -> tuple[int, int, str]:
    """ECB documents before ECB+ ones, then by number: 1_1ecb, 1_2ecb, ..., 1_1ecbplus, ..."""
    match = _DOC_ID.match(path.stem)
    return (0, 0, path.name) if match is None else (len(match["corpus"]), int(match["number"]), path.name)


def read_ecbplus(
    path: str | Path,
    topics: Iterable[int | str] | None = None,
    validated_only: bool = True,
    keep_all_sentences: bool = False,
    split: str | None = None,
) -> tuple[list[dict], EcbPlusReport]:
    """Read the XML release into document rows (COREF_FEATURES layout) plus a report of what was left out.

    `validated_only` keeps only the mentions (and documents) of the CSV's validated sentences, the gold standard;
    `keep_all_sentences` keeps every sentence as context even then (the CDLM cross-encoder reads whole documents).
    """
    xml_dir, csv_path = _locate(path)
    present = _topic_folders(xml_dir)
    chosen = _select_topics(present, topics, split)
    validated = None
    if validated_only:
        if csv_path is None:
            raise DataError(
                f"{SENTENCES_CSV} not found beside {xml_dir} (needed for validated_only=True; pass "
                f"validated_only=False to keep every sentence): {WHERE_TO_GET}."
            )
        validated = read_validated_sentences(csv_path)

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
        report.validated_documents_not_found = sorted(
            doc for doc in validated if doc.split("_")[0] in chosen and doc not in origin
        )

    # A singleton shares its cluster with no other mention of its kind in its topic. Coreference is resolved per
    # kind and within a topic; a handful of instance ids recur in a second topic (see the module docstring) and
    # two INTRA_DOC_COREF chains link an event to an entity (31_9ecb r_id 35769, 34_13ecb r_id 36268). Counting
    # this way keeps the flag independent of which other topics were loaded and matches the reference statistics
    # (Cattan et al.'s preprocessing: 1,116/814 train and 280/205 dev singleton event/entity mentions).
    sizes = Counter((row["topic"], m["kind"], m["cluster_id"]) for row in rows for m in row["mentions"])
    kinds = defaultdict(set)
    for row in rows:
        for mention in row["mentions"]:
            mention["singleton"] = sizes[row["topic"], mention["kind"], mention["cluster_id"]] == 1
            kinds[mention["cluster_id"]].add(mention["kind"])
    report.clusters_mixing_kinds = sorted(cluster for cluster, found in kinds.items() if len(found) > 1)
    return rows, report


def load_ecbplus(
    path: str | Path,
    topics: Iterable[int | str] | None = None,
    validated_only: bool = True,
    split: str | None = None,
    keep_all_sentences: bool = False,
) -> DatasetDict | Dataset:
    """ECB+ as a `DatasetDict` of the standard splits present (train/dev/test), or one split's `Dataset`.

    Rows follow `cdlm_nb.data.schemas.COREF_FEATURES`; see `read_ecbplus` for the options. Mentions that cannot be
    represented (crossing sentences, unknown tags) are counted and logged as a warning; `read_ecbplus` also
    returns the full report.
    """
    rows, report = read_ecbplus(path, topics, validated_only, keep_all_sentences, split)
    log_skips(log, "ECB+", path, report.mentions_kept, report.problems())
    dataset = rows_to_datasets(rows)
    return dataset[split] if split is not None else dataset


def rows_to_datasets(rows: list[dict]) -> DatasetDict:
    """Group document rows by the standard split of their topic into a `DatasetDict` (only splits present)."""
    by_split: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_split[split_of_topic(row["topic"])].append(row)
    return DatasetDict(
        {name: Dataset.from_list(by_split[name], features=COREF_FEATURES) for name in SPLITS if by_split[name]}
    )


# ------------------------------------------------------------------------------------------ statistics


def split_stats(dataset: Dataset) -> dict[str, int]:
    """Topics, documents, sentences, mentions and clusters (all, non-singleton, cross-document) of one split.

    Clusters are counted per kind within the split: "non-singleton" have >= 2 mentions there (the CDLM paper's
    Table 7 "Clusters" row), "cross-document" have mentions in >= 2 documents.
    """
    stats = {"topics": 0, "documents": 0, "sentences": 0}
    topics = set()
    members: dict[str, dict[str, list[str]]] = {"event": defaultdict(list), "entity": defaultdict(list)}
    singletons = Counter()
    for row in dataset.select_columns(["doc_id", "topic", "sentence_ids", "mentions"]):
        topics.add(row["topic"])
        stats["documents"] += 1
        stats["sentences"] += len(row["sentence_ids"])
        for mention in row["mentions"]:
            members[mention["kind"]][mention["cluster_id"]].append(row["doc_id"])
            singletons[mention["kind"]] += mention["singleton"]
    stats["topics"] = len(topics)
    for kind in ("event", "entity"):
        clusters = members[kind]
        stats[f"{kind}_mentions"] = sum(len(docs) for docs in clusters.values())
        stats[f"{kind}_singleton_mentions"] = singletons[kind]
        stats[f"{kind}_clusters"] = len(clusters)
        stats[f"{kind}_non_singleton_clusters"] = sum(len(docs) > 1 for docs in clusters.values())
        stats[f"{kind}_cross_document_clusters"] = sum(len(set(docs)) > 1 for docs in clusters.values())
    return stats


def ecbplus_stats(dataset_dict: Mapping) -> dict[str, dict[str, int]]:
    """`split_stats` for each split present, in train/dev/test order (the layout of the paper's Table 7)."""
    return {name: split_stats(dataset_dict[name]) for name in SPLITS if name in dataset_dict}


def format_stats(stats: Mapping[str, Mapping[str, int]]) -> str:
    """A plain-text table: one row per statistic, one column per split."""
    splits = list(stats)
    keys = list(next(iter(stats.values()))) if stats else []
    width = max((len(k) for k in keys), default=10) + 2
    lines = [" " * width + "".join(f"{name:>10}" for name in splits)]
    lines += [f"{key:<{width}}" + "".join(f"{stats[name][key]:>10,}" for name in splits) for key in keys]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- download


def download_ecbplus(dest: str | Path, timeout: float = 60.0) -> Path:
    """Fetch the official ECB+ release (XML zip + validated-sentences CSV) into `dest` and return it.

    Does nothing when `dest` already holds the corpus; raises OfflineError when GitHub cannot be reached.
    """
    dest = Path(dest).expanduser()
    if (dest / XML_FOLDER).is_dir() and (dest / SENTENCES_CSV).is_file():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    archive = _fetch(ECBPLUS_ZIP_URL, timeout, dest)
    csv_bytes = _fetch(ECBPLUS_CSV_URL, timeout, dest)
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            _extract_topics(zipped, dest)
    except zipfile.BadZipFile as exc:
        raise DataError(f"{ECBPLUS_ZIP_URL} did not return a zip archive; download it by hand: {WHERE_TO_GET}") from exc
    (dest / SENTENCES_CSV).write_bytes(csv_bytes)
    return dest


def _fetch(url: str, timeout: float, dest: Path) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise OfflineError(
            f"could not download {url} ({exc}). Offline? Download it elsewhere and put the unzipped ECB+ folder "
            f"and {SENTENCES_CSV} in {dest}: {WHERE_TO_GET}."
        ) from exc


def _extract_topics(zipped: zipfile.ZipFile, dest: Path) -> None:
    """Extract ECB+/<topic>/<doc>.xml members only (no macOS metadata, nothing outside `dest`)."""
    for member in zipped.infolist():
        parts = Path(member.filename).parts
        if len(parts) != 3 or parts[0] != XML_FOLDER or not parts[1].isdigit() or not parts[2].endswith(".xml"):
            continue
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipped.open(member) as source, target.open("wb") as out:
            shutil.copyfileobj(source, out)
