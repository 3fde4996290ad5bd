"""The CDA benchmark (Zhou, Pappas, Smith, EMNLP 2020) for document matching, as CDLM evaluates it.

Each file (AAN, OC, S2ORC, PAN; train / dev / test) is a CSV without a header: `label` (1 = related, 0 = not),
`doc1`, `doc2`, read into `PAIR_FEATURES` rows: `pair_id` "<file name>:<line the row starts on>", `kind`
"positive" for label 1 and "" for 0 (the benchmark does not say how a negative was drawn).

Sentence-to-document labels (S2ORC, PAN): inside `doc1` the character `\\001` marks where the citation was cut out,
i.e. the sentence that cites or copies `doc2`; it is removed and that sentence goes to `positive_sentences` (a
marker between two sentences belongs to the one before, where a citation usually sits). The released readers
delete the marker before they look for it, so their positive sentences come out empty; this loader does not. Not
on the hub: https://xuhuizhou.github.io/Multilevel-Text-Alignment/.
"""

from __future__ import annotations

import bisect
import csv
import itertools
import logging
from pathlib import Path

from datasets import Dataset

from ..support.errors import DataError
from .schemas import PAIR_FEATURES
from .sources import read_csv_rows, require_path
from .text import sentence_spans

log = logging.getLogger(__name__)

MARKER = "\001"  # marks the positive sentence of doc1 in S2ORC and PAN
CDA_MANUAL = ("Download the CDA benchmark from https://xuhuizhou.github.io/Multilevel-Text-Alignment/, unpack it "
              "under data/cda/ and pass the path of one of its CSV files (label, doc1, doc2; no header) to load_cda.")


def split_marked_document(text: str) -> tuple[list[str], list[int]]:
    """A document's sentences without markers, and the sorted indices of the sentences that held a marker."""
    pieces = text.split(MARKER)
    marker_offsets, text = list(itertools.accumulate(map(len, pieces)))[:-1], "".join(pieces)
    spans = sentence_spans(text)
    starts = [start for start, _ in spans]
    positives = {max(bisect.bisect_right(starts, offset) - 1, 0) for offset in marker_offsets} if spans else set()
    return [text[start:end] for start, end in spans], sorted(positives)


def load_cda(path: str | Path) -> Dataset:
    """One CDA benchmark CSV as `PAIR_FEATURES` rows; markers in doc2 are removed and counted in the log."""
    source = require_path(path, what="CDA benchmark CSV", fix=CDA_MANUAL)
    rows, doc2_markers = [], 0
    for line, row in read_csv_rows(source, columns=3, header=False):
        where = f"{source}, row starting on line {line}"
        try:
            label = int(float(row[0]))  # "1", "0", also "1.0"
        except ValueError:
            label = -1
        if label not in (0, 1):
            raise DataError(f"{where}: label {row[0]!r} is not 0 or 1. Columns must be label, doc1, doc2 (no header).")
        (doc_a, positives), (doc_b, _) = split_marked_document(row[1]), split_marked_document(row[2])
        for column, sentences in (("doc1", doc_a), ("doc2", doc_b)):
            if not sentences:
                raise DataError(f"{where}: {column} is empty. Remove the row or fill in the document.")
        rows.append({"pair_id": f"{source.name}:{line}", "doc_a": doc_a, "doc_b": doc_b, "label": label,
                     "kind": "positive" if label == 1 else "", "positive_sentences": positives})
        doc2_markers += row[2].count(MARKER)
    if doc2_markers:
        log.warning("CDA %s: removed %d %r markers from doc2 (only doc1's are used).", source, doc2_markers, MARKER)
    return Dataset.from_list(rows, features=PAIR_FEATURES)


def write_cda(rows, path: str | Path) -> Path:
    """Pairs as one CDA benchmark CSV (label, doc1, doc2; no header), `\\001` after each positive sentence of doc1,
    one sentence per line (a line break always ends a sentence for the splitter, so `load_cda` gives the same
    sentences back unless one of them holds several)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        for row in rows:
            doc1 = "\n".join(s + MARKER if i in row["positive_sentences"] else s for i, s in enumerate(row["doc_a"]))
            writer.writerow([int(row["label"]), doc1, "\n".join(row["doc_b"])])
    return path
