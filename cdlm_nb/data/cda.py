"""The CDA benchmark (the CDA paper: Zhou, Pappas, Smith, EMNLP 2020) for document matching, as CDLM evaluates it.

Each benchmark file (AAN, OC, S2ORC, PAN; train / dev / test) is a CSV without a header and with three columns:
`label` (1 = related, 0 = not), `doc1`, `doc2`. `load_cda(path)` reads one into `PAIR_FEATURES` rows:
`doc_a` / `doc_b` are the two documents split into sentences (`cdlm_nb.data.text.split_sentences`), `pair_id`
is "<file name>:<line the row starts on>", `kind` is "positive" for label 1 and "" for label 0 (the benchmark does
not say how a negative was drawn).

Sentence-to-document labels (S2ORC, PAN): inside `doc1` (the citing section in S2ORC, the suspicious text in
PAN) the character `\\001` marks where the citation was cut out, i.e. the sentence that cites or copies `doc2`.
The marker is removed from the text and the index of every sentence that held one goes to `positive_sentences`
(a marker in the gap between two sentences belongs to the sentence before it, where a citation usually sits).
Markers found in `doc2` are removed too and counted in the log. Note: the released readers delete the marker
before they look for it, so their lists of positive sentences come out empty; this loader does not.
The benchmark is not on the hub: download it from https://xuhuizhou.github.io/Multilevel-Text-Alignment/.
"""

from __future__ import annotations

import bisect
import logging
from pathlib import Path

from datasets import Dataset

from ..errors import DataError
from .schemas import PAIR_FEATURES
from .sources import read_csv_rows, require_path
from .text import sentence_spans

log = logging.getLogger(__name__)

MARKER = "\001"  # marks the positive sentence of doc1 in S2ORC and PAN
CDA_MANUAL = (
    "Download the CDA benchmark from https://xuhuizhou.github.io/Multilevel-Text-Alignment/, unpack it under "
    "data/cda/ and pass the path of one of its CSV files (label, doc1, doc2; no header) to load_cda."
)


def split_marked_document(text: str) -> tuple[list[str], list[int]]:
    """A document's sentences without markers, and the sorted indices of the sentences that held a marker."""
    clean, marker_offsets = [], []
    for piece in text.split(MARKER):
        clean.append(piece)
        marker_offsets.append(sum(map(len, clean)))
    text, marker_offsets = "".join(clean), marker_offsets[:-1]
    spans = sentence_spans(text)
    starts = [start for start, _ in spans]
    positives = {max(bisect.bisect_right(starts, offset) - 1, 0) for offset in marker_offsets} if spans else set()
    return [text[start:end] for start, end in spans], sorted(positives)


def _label(value: str, where: str) -> int:
    """The 0/1 label of a row ("1", "0", also "1.0"); anything else names the row."""
    try:
        label = int(float(value))
    except ValueError:
        label = -1
    if label not in (0, 1):
        raise DataError(f"{where}: label {value!r} is not 0 or 1. Columns must be label, doc1, doc2 (no header).")
    return label


def _pair(path: Path, line: int, row: list[str]) -> tuple[dict, int]:
    """One schema row from a CSV row, and the number of markers found in doc2."""
    where = f"{path}, row starting on line {line}"
    label = _label(row[0], where)
    doc_a, positives = split_marked_document(row[1])
    doc_b, _ = split_marked_document(row[2])
    for column, sentences in (("doc1", doc_a), ("doc2", doc_b)):
        if not sentences:
            raise DataError(f"{where}: {column} is empty. Remove the row or fill in the document.")
    pair = {
        "pair_id": f"{path.name}:{line}",
        "doc_a": doc_a,
        "doc_b": doc_b,
        "label": label,
        "kind": "positive" if label == 1 else "",
        "positive_sentences": positives,
    }
    return pair, row[2].count(MARKER)


def load_cda(path: str | Path) -> Dataset:
    """One CDA benchmark CSV as `PAIR_FEATURES` rows, with marked sentences of doc1 as `positive_sentences`."""
    source = require_path(path, what="CDA benchmark CSV", fix=CDA_MANUAL)
    rows, doc2_markers = [], 0
    for line, row in read_csv_rows(source, columns=3, header=False):
        pair, markers = _pair(source, line, row)
        rows.append(pair)
        doc2_markers += markers
    if doc2_markers:
        log.warning("CDA %s: removed %d %r markers from doc2 (only doc1's are used).", source, doc2_markers, MARKER)
    return Dataset.from_list(rows, features=PAIR_FEATURES)


def write_cda(rows, path: str | Path) -> Path:
    """Pairs as one CDA benchmark CSV (label, doc1, doc2; no header), `\\001` after each positive sentence of doc1,
    one sentence per line (a line break always ends a sentence for the splitter, so `load_cda` gives the same
    sentences back unless one of them holds several)."""
    import csv

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        for row in rows:
            positives = set(row["positive_sentences"])
            doc1 = "\n".join(s + MARKER if i in positives else s for i, s in enumerate(row["doc_a"]))
            writer.writerow([int(row["label"]), doc1, "\n".join(row["doc_b"])])
    return path
