"""The official file formats the CLI scores (`cdlm-nb score-coref`, `cdlm-nb hotpot-eval`): CoNLL-2012 coreference
files (`read_conll`, `score_conll_files`, `format_scores`) and HotpotQA prediction files (`evaluate_files`).

Layout: `#begin document (NAME); part 000` (or `#begin document NAME`) ... `#end document`, one token per line, the
LAST column the coreference annotation: `(7` opens a mention of cluster 7, `7)` closes one, `(7)` is a one-token
mention, `|` joins several, `-` means none; blank lines separate sentences. Cluster ids are shared across ALL blocks
of a file, the cross-document practice (ECB+) (`shared_ids=False`: local to a block, as in within-document files).
A mention is `(document key, start, end)`, token offsets over the whole block (end exclusive; the key is NAME for
part 000, else "NAME; part NNN"): the scheme `coref.mentions.coref_clusters` uses with doc_id as the key."""

from __future__ import annotations

import os
import re
from collections.abc import Hashable, Iterable
from dataclasses import astuple, dataclass
from pathlib import Path

from ..coref.metrics import METRIC_NAMES, CorefScores, MentionKey, score_coreference
from ..data.hotpotqa import load_hotpotqa
from ..data.sources import read_json, require_path
from ..multihop.metric import HotpotScores, evaluate
from ..support.errors import DataError

_BEGIN = "#begin document"
_END = "#end document"
_HEADER = re.compile(r"^\((?P<name>.*)\); part (?P<part>\d+)$")
_ID = r"[\w.:/+-]+"  # cluster ids: digits in CoNLL-2012 files; letters and a few separators are accepted too
_PART = re.compile(rf"^(?:\((?P<single>{_ID})\)|\((?P<open>{_ID})|(?P<close>{_ID})\))$")


@dataclass
class ConllFile:
    """A parsed file: documents (key -> sentences of token columns but the last) and clusters (id -> mentions)."""

    path: str
    documents: dict[str, list[list[tuple[str, ...]]]]
    clusters: dict[Hashable, list[MentionKey]]


def document_key(header: str) -> str:
    """The key of a block from the text after `#begin document`: NAME for `(NAME); part 000`, else the text."""
    match = _HEADER.match(header)
    if match is None or int(match["part"]) == 0:
        return header if match is None else match["name"]
    return f"{match['name']}; part {match['part']}"


def _parse_annotation(column: str, where: str) -> list[tuple[str, str]]:
    """`(1|2)|(3)` -> [("open", "1"), ("close", "2"), ("single", "3")], in written order."""
    parts = [] if column == "-" else [_PART.match(part) for part in column.split("|")]
    if None in parts:
        raise DataError(f"{where}: malformed coreference annotation {column!r} (each '|'-separated part must be "
                        "'(ID', 'ID)' or '(ID)'; '-' for none)")
    return [(match.lastgroup, match[match.lastgroup]) for match in parts]


def read_conll(path: str | os.PathLike, *, shared_ids: bool = True) -> ConllFile:
    """Parse a CoNLL-2012 coreference file; a DataError names the file and line of any malformed input. Open mentions
    wait on a stack per cluster id: nested mentions of one cluster pair up last-in first-out."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"CoNLL file {str(path)!r} does not exist")
    documents: dict[str, list[list[tuple[str, ...]]]] = {}
    clusters: dict[Hashable, list[MentionKey]] = {}
    key, begun, position, opened = None, 0, 0, {}  # the block being read: key, first line, next token, open mentions
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line, where = raw.strip(), f"{path}, line {number}"
            if line.startswith(_BEGIN):
                if key is not None:
                    raise DataError(f"{where}: '#begin document' inside document {key!r} (begun on line "
                                    f"{begun}), which has no '#end document'")
                key = document_key(line[len(_BEGIN):].strip())
                if not key:
                    raise DataError(f"{where}: '#begin document' without a document name")
                if key in documents:
                    raise DataError(f"{where}: document {key!r} appears twice in the file; merge its blocks")
                documents[key], begun, position, opened = [[]], number, 0, {}
            elif line.startswith(_END):
                if key is None:
                    raise DataError(f"{where}: '#end document' without a matching '#begin document'")
                if unclosed := min(((at, cid) for cid, stack in opened.items() for _, at in stack), default=None):
                    raise DataError(f"{path}, line {unclosed[0]}: mention '({unclosed[1]}' of document {key!r} is "
                                    f"never closed (unbalanced brackets; the document ends on line {number})")
                if not documents[key][-1]:
                    documents[key].pop()
                key = None
            elif not line:
                if key is not None and documents[key][-1]:
                    documents[key].append([])
            elif key is None:
                raise DataError(f"{where}: token line outside any '#begin document' ... '#end document' block")
            else:
                columns = line.split()
                if len(columns) < 2 or line.startswith("#"):
                    raise DataError(f"{where}: malformed line {line!r}: expected token columns followed by a "
                                    "coreference column ('-' when the token starts or ends no mention)")
                documents[key][-1].append(tuple(columns[:-1]))
                for kind, cid in _parse_annotation(columns[-1], where):
                    if kind == "open":
                        opened.setdefault(cid, []).append((position, number))
                        continue
                    if kind == "close" and not opened.get(cid):
                        raise DataError(f"{where}: '{cid})' closes a mention of cluster {cid} that was never opened "
                                        f"in document {key!r} (unbalanced brackets)")
                    start = position if kind == "single" else opened[cid].pop()[0]
                    clusters.setdefault(cid if shared_ids else (key, cid), []).append((key, start, position + 1))
                position += 1
    if key is not None:
        raise DataError(f"{path}: document {key!r} (begun on line {begun}) has no '#end document'")
    if not documents:
        raise DataError(f"{path}: no '#begin document' line; is this a CoNLL-2012 coreference file?")
    return ConllFile(str(path), documents, clusters)


def _names(keys: Iterable[str]) -> str:
    keys = sorted(keys)
    return ", ".join(map(repr, keys[:5])) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


def check_same_documents(key: ConllFile, response: ConllFile) -> None:
    """Raise DataError naming the documents when key and response differ in documents or token counts."""
    ours, theirs = ({name: sum(map(len, s)) for name, s in file.documents.items()} for file in (key, response))
    both = f"key {key.path!r} and response {response.path!r}"
    sides = (("key", "response", ours, theirs), ("response", "key", theirs, ours))
    if extra := [f"documents in the {a} but not in the {b}: {_names(x.keys() - y.keys())}"
                 for a, b, x, y in sides if x.keys() - y.keys()]:
        raise DataError(f"{both} differ: " + "; ".join(extra))
    if differing := sorted(k for k in ours if ours[k] != theirs[k]):
        detail = ", ".join(f"{k!r} ({ours[k]} vs {theirs[k]} tokens)" for k in differing[:5])
        raise DataError(f"{both} have different token counts in {len(differing)} document(s): {detail}; both must be "
                        "written from the same tokenisation")


def score_conll_files(key_path: str | os.PathLike, response_path: str | os.PathLike, *,
                      remove_singletons: bool = False, shared_ids: bool = True) -> CorefScores:
    """Read a key and a response CoNLL file, check they cover the same documents, and score the response."""
    key, response = read_conll(key_path, shared_ids=shared_ids), read_conll(response_path, shared_ids=shared_ids)
    check_same_documents(key, response)
    return score_coreference(key.clusters.values(), response.clusters.values(), remove_singletons=remove_singletons)


def format_scores(scores: CorefScores, title: str = "") -> str:
    """A plain-text table: one row per metric with R, P and F1 in percent, then the CoNLL F1."""
    lines = [*([title] if title else []), f"{'metric':<8}{'R':>8}{'P':>8}{'F1':>8}"]
    lines += [f"{label:<8}" + "".join(f"{100 * value:>8.2f}" for value in astuple(getattr(scores, name)))
              for name, label in METRIC_NAMES.items()]
    return "\n".join([*lines, f"{'CoNLL':<8}{'':>8}{'':>8}{100 * scores.conll:>8.2f}"])


def check_prediction(prediction: object, where: str) -> dict[str, dict]:
    """The official prediction format, checked; a DataError names `where` (the file) and the first offending id."""
    if not isinstance(prediction, dict) or not isinstance(prediction.get("answer"), dict) \
            or not isinstance(prediction.get("sp"), dict):
        raise DataError(f"{where}: expected a JSON object {{\"answer\": {{id: answer}}, \"sp\": {{id: [[title, "
                        "sent_id], ...]}}}} (hotpot_evaluate_v1's prediction format).")
    for qid, answer in prediction["answer"].items():
        if not isinstance(answer, str):
            raise DataError(f"{where}, answer of id {qid}: expected a string, got {type(answer).__name__}.")
    for qid, facts in prediction["sp"].items():
        if not isinstance(facts, list) or not all(
                isinstance(f, list | tuple) and len(f) == 2 and isinstance(f[0], str) and isinstance(f[1], int)
                for f in facts):
            raise DataError(f"{where}, sp of id {qid}: expected a list of [title, sentence id] pairs, "
                            f"got {facts!r:.80}.")
    return prediction


def evaluate_files(prediction_file: str | Path, gold_file: str | Path) -> HotpotScores:
    """`evaluate` on a prediction file and a gold file in either HotpotQA layout (original `_id`, or Hugging Face)."""
    path = require_path(prediction_file, what="HotpotQA prediction file",
                        fix="write {\"answer\": {...}, \"sp\": {...}} as JSON")
    prediction = check_prediction(read_json(path), str(path))
    return evaluate(prediction, load_hotpotqa(gold_file))
