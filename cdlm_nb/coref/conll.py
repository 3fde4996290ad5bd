"""CoNLL-2012 coreference files: read, write, and turn COREF_FEATURES rows into key/response clusterings.

Layout: `#begin document (NAME); part 000` ... `#end document`; one token per line, whitespace-separated
columns, the LAST column holding the coreference annotation: `(7` opens a mention of cluster 7 on this token,
`7)` closes one, `(7)` is a one-token mention, several are joined with `|`, `-` means none. Blank lines separate
sentences. `#begin document NAME` (no part) is accepted too.

Cross-document practice (ECB+; Barhom et al. 2019, Cattan et al. 2021): cluster ids are shared by ALL
documents of a file, so `(7` in two blocks is the same entity. The whole corpus is often one block; it may also
be one block per document. (`shared_ids=False` reads ids as local to their block, as in within-document
CoNLL-2012 files.)

Mention identity (`metrics.MentionKey`): `(document key, start, end)`, with start/end token offsets counted over the
whole block (sentence breaks ignored, end exclusive). The document key is NAME for part 000 (or no part) and "NAME;
part NNN" otherwise. Counting tokens over the block makes the identity independent of how sentences are split, and
the in-memory mentions of `coref_clusters` use the same scheme with doc_id as the key, so a file written with one
block per document reads back to exactly those mentions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError
from .metrics import CorefScores, MentionKey, score_coreference

_BEGIN = "#begin document"
_END = "#end document"
_HEADER = re.compile(r"^\((?P<name>.*)\); part (?P<part>\d+)$")
_ID = r"[\w.:/+-]+"  # cluster ids: digits in CoNLL-2012 files; letters and a few separators are accepted too
_PART = re.compile(rf"^(?:\((?P<single>{_ID})\)|\((?P<open>{_ID})|(?P<close>{_ID})\))$")
MENTION_KINDS = ("event", "entity")


@dataclass
class ConllDocument:
    """One `#begin document` block: its key and, per sentence, each token's columns except the last."""

    key: str
    sentences: list[list[tuple[str, ...]]] = field(default_factory=list)

    @property
    def num_tokens(self) -> int:
        return sum(len(sentence) for sentence in self.sentences)


@dataclass
class ConllFile:
    """A parsed CoNLL file: its documents in file order and its clusters (cluster id -> mentions)."""

    path: str
    documents: list[ConllDocument]
    clusters: dict[Hashable, list[MentionKey]]

    def clustering(self) -> list[list[MentionKey]]:
        """The clusters as a list of mention lists, the scorer's input."""
        return list(self.clusters.values())


def document_key(header: str) -> str:
    """The key of a block from the text after `#begin document`: NAME for `(NAME); part 000`, else the text."""
    match = _HEADER.match(header)
    if match is None:
        return header
    part = match["part"]
    return match["name"] if int(part) == 0 else f"{match['name']}; part {part}"


def _parse_annotation(column: str, where: str) -> list[tuple[str, str]]:
    """`(1|2)|(3)` -> [("open", "1"), ("close", "2"), ("single", "3")], in written order."""
    if column == "-":
        return []
    parsed = []
    for part in column.split("|"):
        match = _PART.match(part)
        if match is None:
            raise DataError(
                f"{where}: malformed coreference annotation {column!r} (each '|'-separated part must be "
                "'(ID', 'ID)' or '(ID)'; '-' for none)"
            )
        kind = match.lastgroup
        parsed.append((kind, match[kind]))
    return parsed


class _OpenBlock:
    """A `#begin document` block being read: its document, the position of the next token, and the mentions
    opened but not yet closed (a stack per cluster id, so nested mentions of one cluster pair up last-in first-out)."""

    def __init__(self, key: str, begin_line: int):
        self.doc = ConllDocument(key)
        self.begin_line = begin_line
        self.position = 0
        self.open_spans: dict[str, list[tuple[int, int]]] = {}  # cluster id -> [(start token, line number)]

    def add_token(self, columns: list[str], line: int, where: str) -> list[tuple[str, MentionKey]]:
        """Store one token line; return the (cluster id, mention) pairs it completes."""
        if not self.doc.sentences:
            self.doc.sentences.append([])
        self.doc.sentences[-1].append(tuple(columns[:-1]))
        done = []
        for kind, cid in _parse_annotation(columns[-1], where):
            if kind == "open":
                self.open_spans.setdefault(cid, []).append((self.position, line))
                continue
            if kind == "single":
                start = self.position
            elif self.open_spans.get(cid):
                start, _ = self.open_spans[cid].pop()
                if not self.open_spans[cid]:
                    del self.open_spans[cid]
            else:
                raise DataError(f"{where}: '{cid})' closes a mention of cluster {cid} that was never opened in "
                                f"document {self.doc.key!r} (unbalanced brackets)")
            done.append((cid, (self.doc.key, start, self.position + 1)))
        self.position += 1
        return done

    def end_sentence(self) -> None:
        if self.doc.sentences and self.doc.sentences[-1]:
            self.doc.sentences.append([])

    def close(self, path: Path, end_line: int) -> ConllDocument:
        """Check every opened mention was closed; return the finished document."""
        unclosed = sorted((line, cid) for cid, stack in self.open_spans.items() for _, line in stack)
        if unclosed:
            line, cid = unclosed[0]
            raise DataError(f"{path}, line {line}: mention '({cid}' of document {self.doc.key!r} is never closed "
                            f"(unbalanced brackets; the document ends on line {end_line})")
        if self.doc.sentences and not self.doc.sentences[-1]:
            self.doc.sentences.pop()
        return self.doc


def read_conll(path: str | os.PathLike, *, shared_ids: bool = True) -> ConllFile:
    """Parse a CoNLL-2012 coreference file; raise DataError naming the file and line on any malformed input."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"CoNLL file {str(path)!r} does not exist")
    documents: list[ConllDocument] = []
    clusters: dict[Hashable, list[MentionKey]] = {}
    block: _OpenBlock | None = None
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            where = f"{path}, line {number}"
            if line.startswith(_BEGIN):
                if block is not None:
                    raise DataError(f"{where}: '#begin document' inside document {block.doc.key!r} (begun on "
                                    f"line {block.begin_line}), which has no '#end document'")
                key = document_key(line[len(_BEGIN):].strip())
                if not key:
                    raise DataError(f"{where}: '#begin document' without a document name")
                if key in {doc.key for doc in documents}:
                    raise DataError(f"{where}: document {key!r} appears twice in the file; merge its blocks")
                block = _OpenBlock(key, number)
            elif line.startswith(_END):
                if block is None:
                    raise DataError(f"{where}: '#end document' without a matching '#begin document'")
                documents.append(block.close(path, number))
                block = None
            elif not line:
                if block is not None:
                    block.end_sentence()
            elif block is None:
                raise DataError(f"{where}: token line outside any '#begin document' ... '#end document' block")
            else:
                columns = line.split()
                if len(columns) < 2 or line.startswith("#"):
                    raise DataError(f"{where}: malformed line {line!r}: expected token columns followed by a "
                                    "coreference column ('-' when the token starts or ends no mention)")
                for cid, mention in block.add_token(columns, number, where):
                    clusters.setdefault(cid if shared_ids else (block.doc.key, cid), []).append(mention)
    if block is not None:
        raise DataError(f"{path}: document {block.doc.key!r} (begun on line {block.begin_line}) has no "
                        "'#end document'")
    if not documents:
        raise DataError(f"{path}: no '#begin document' line; is this a CoNLL-2012 coreference file?")
    return ConllFile(str(path), documents, clusters)


def check_same_documents(key: ConllFile, response: ConllFile) -> None:
    """Raise DataError naming the documents when key and response differ in documents or token counts."""
    key_tokens = {doc.key: doc.num_tokens for doc in key.documents}
    response_tokens = {doc.key: doc.num_tokens for doc in response.documents}

    def names(keys: Iterable[str]) -> str:
        keys = sorted(keys)
        return ", ".join(repr(k) for k in keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")

    missing = key_tokens.keys() - response_tokens.keys()
    extra = response_tokens.keys() - key_tokens.keys()
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"documents in the key but not in the response: {names(missing)}")
        if extra:
            parts.append(f"documents in the response but not in the key: {names(extra)}")
        raise DataError(f"key {key.path!r} and response {response.path!r} differ: " + "; ".join(parts))
    differing = [k for k in key_tokens if key_tokens[k] != response_tokens[k]]
    if differing:
        detail = ", ".join(f"{k!r} ({key_tokens[k]} vs {response_tokens[k]} tokens)" for k in sorted(differing)[:5])
        raise DataError(f"key {key.path!r} and response {response.path!r} have different token counts in "
                        f"{len(differing)} document(s): {detail}; both must be written from the same tokenisation")


def score_conll_files(
    key_path: str | os.PathLike, response_path: str | os.PathLike, *, remove_singletons: bool = False,
    shared_ids: bool = True,
) -> CorefScores:
    """Read a key and a response CoNLL file, check they cover the same documents, and score the response."""
    key, response = read_conll(key_path, shared_ids=shared_ids), read_conll(response_path, shared_ids=shared_ids)
    check_same_documents(key, response)
    return score_coreference(key.clustering(), response.clustering(), remove_singletons=remove_singletons)


def _annotations(
    clusters: Sequence[Iterable[MentionKey]], documents: Sequence[ConllDocument]
) -> dict[str, list[list[str]]]:
    """Per document and token, the coreference parts to write: closings first, then one-token mentions, then
    openings, so that reading left to right pairs every closing with the right opening. (Two mentions of one
    cluster that cross, like [0, 3) and [1, 4), cannot be told apart from nested ones in this format.)"""
    sizes = {doc.key: doc.num_tokens for doc in documents}
    parts = {key: [[] for _ in range(size)] for key, size in sizes.items()}
    order = {"close": 0, "single": 1, "open": 2}
    for cid, cluster in enumerate(clusters):
        for mention in cluster:
            doc_key, start, end = mention
            if doc_key not in sizes or not 0 <= start < end <= sizes[doc_key]:
                raise DataError(f"mention {mention!r} of cluster {cid} lies outside the documents being written "
                                f"(document {doc_key!r} has {sizes.get(doc_key, 0)} tokens)")
            if end - start == 1:
                parts[doc_key][start].append((order["single"], -start, f"({cid})"))
            else:
                parts[doc_key][start].append((order["open"], -end, f"({cid}"))
                parts[doc_key][end - 1].append((order["close"], -start, f"{cid})"))
    return {key: [[text for *_, text in sorted(token)] for token in tokens] for key, tokens in parts.items()}


def write_conll(path: str | os.PathLike, documents: Sequence[ConllDocument],
                clusters: Iterable[Iterable[MentionKey]]) -> Path:
    """Write documents with `clusters` (mentions as (document key, start, end)) as CoNLL-2012; ids are 0, 1, ...
    in cluster order and shared across the file's documents."""
    clusters = [list(cluster) for cluster in clusters]
    annotations = _annotations(clusters, documents)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for doc in documents:
            handle.write(f"{_BEGIN} ({doc.key}); part 000\n")
            token = 0
            for sentence in doc.sentences:
                for columns in sentence:
                    coref = "|".join(annotations[doc.key][token]) or "-"
                    handle.write("\t".join((*columns, coref)) + "\n")
                    token += 1
                handle.write("\n")
            handle.write(f"{_END}\n")
    return path


# ---------------------------------------------------------------------------------------------------------
# From COREF_FEATURES rows (cdlm_nb.data.schemas) to clusterings and CoNLL files
# ---------------------------------------------------------------------------------------------------------


def _sentence_offsets(row: Mapping[str, Any]) -> list[int]:
    offsets, total = [], 0
    for sentence in row["sentences"]:
        offsets.append(total)
        total += len(sentence)
    return offsets


def mention_key(row: Mapping[str, Any], mention: Mapping[str, Any], offsets: Sequence[int] | None = None) -> MentionKey:
    """A mention's identity for scoring: (doc_id, start, end) as token offsets within the whole document."""
    offsets = _sentence_offsets(row) if offsets is None else offsets
    sentence, start, end = mention["sentence"], mention["start"], mention["end"]
    if not 0 <= sentence < len(offsets) or not 0 <= start < end <= len(row["sentences"][sentence]):
        raise DataError(f"document {row['doc_id']!r}, mention {mention['mention_id']!r}: sentence {sentence} "
                        f"span [{start}, {end}) is outside the document; fix the loader or the corpus file")
    return (row["doc_id"], offsets[sentence] + start, offsets[sentence] + end)


def coref_clusters(
    rows: Iterable[Mapping[str, Any]], kind: str, assignment: Mapping[str, Hashable] | None = None,
) -> list[list[MentionKey]]:
    """The clusters of `kind` mentions: the gold key when `assignment` is None, else the response grouping
    mentions by `assignment[mention_id]` (a predicted cluster label). Every mention must be assigned."""
    if kind not in MENTION_KINDS:
        raise ConfigError(f"mention kind {kind!r} is unknown; use one of {MENTION_KINDS}")
    clusters: dict[Hashable, list[MentionKey]] = {}
    unassigned = []
    used = set()
    for row in rows:
        offsets = _sentence_offsets(row)
        for mention in row["mentions"]:
            if mention["kind"] != kind:
                continue
            if assignment is None:
                label = mention["cluster_id"]
            elif mention["mention_id"] in assignment:
                label = assignment[mention["mention_id"]]
                used.add(mention["mention_id"])
            else:
                unassigned.append(mention["mention_id"])
                continue
            clusters.setdefault(label, []).append(mention_key(row, mention, offsets))
    if unassigned:
        raise DataError(f"{len(unassigned)} {kind} mention(s) have no predicted cluster in the assignment, e.g. "
                        f"{unassigned[:3]}; assign every mention (a singleton gets a label of its own)")
    if assignment is not None and len(used) < len(assignment):
        unknown = [m for m in assignment if m not in used][:3]
        raise DataError(f"{len(assignment) - len(used)} assigned mention id(s) are not {kind} mentions of these "
                        f"documents, e.g. {unknown}")
    return list(clusters.values())


def conll_documents(rows: Iterable[Mapping[str, Any]]) -> list[ConllDocument]:
    """One ConllDocument per row, columns `doc_id sentence_id token_index token` (Cattan et al.'s layout)."""
    documents = []
    for row in rows:
        sentences = [
            [(row["doc_id"], str(sid), str(i), token) for i, token in enumerate(tokens)]
            for sid, tokens in zip(row["sentence_ids"], row["sentences"])
        ]
        documents.append(ConllDocument(row["doc_id"], sentences))
    return documents


def write_coref_conll(
    path: str | os.PathLike, rows: Iterable[Mapping[str, Any]], clusters: Iterable[Iterable[MentionKey]],
    *, block: str | None = None,
) -> Path:
    """Write a key or response clustering of COREF_FEATURES rows (from `coref_clusters`) as CoNLL.

    `block=None` writes one block per document (reads back to the same mentions); `block="NAME"` puts the whole
    corpus in one block, as the ECB+ gold files do, which is what coval needs to score cross-document links
    (coval scores each block on its own)."""
    documents = conll_documents(rows)
    clusters = [list(cluster) for cluster in clusters]
    if block is None:
        return write_conll(path, documents, clusters)
    starts, total = {}, 0
    for doc in documents:
        starts[doc.key] = total
        total += doc.num_tokens
    strays = [mention for cluster in clusters for mention in cluster if mention[0] not in starts]
    if strays:
        raise DataError(f"{len(strays)} mention(s) belong to documents not among the rows, e.g. {strays[:3]}")
    merged = ConllDocument(block, [sentence for doc in documents for sentence in doc.sentences])
    moved = [[(block, starts[d] + s, starts[d] + e) for d, s, e in cluster] for cluster in clusters]
    return write_conll(path, [merged], moved)
