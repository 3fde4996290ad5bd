"""Multi-News (Fabbri et al., 2019): clusters of news articles with a human summary, CDLM's pretraining corpus.

`load_multinews(path)` reads any of three layouts into `CLUSTER_FEATURES` rows (`cluster_id`, `documents`,
`summary`):
- the LongBench JSON-lines copy (`*.jsonl`): `context` = "Passage 1:\\n...\\nPassage 2:\\n...", `answers` = [summary];
- the original release (`train.txt.src` + optional `train.txt.tgt`, or a folder holding them): one cluster per
  line, documents separated by `story_separator_special_tag` (preprocessed files) or `|||||` (raw files); the
  summaries file is the source file's name with ".src" replaced by ".tgt";
- `path=None`: the hub copy (`document` with documents separated by `|||||`), or OfflineError when offline.
In every layout `NEWLINE_CHAR` markers become line breaks and a summary's leading "– " is dropped.

What is skipped is counted and logged as a warning, never dropped silently: empty documents inside a cluster,
clusters left with no document, and (with `min_documents`) clusters that are too small. CDLM pretrains only on
clusters with at least `CDLM_MIN_DOCUMENTS` = 3 documents; call `filter_min_documents` yourself to get the
count of what that removes as a number.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
from datasets import Dataset

from ..errors import ConfigError, DataError
from .schemas import CLUSTER_FEATURES
from .sources import load_hub_split, log_skips, read_json_lines, require_path, require_unique

log = logging.getLogger(__name__)

#: The hub repository that the old short name `multi_news` now redirects to. Its main branch still holds a
#: loading script, so `load_hub_split` reads the hub's Parquet export of it instead.
MULTINEWS_HUB_ID = "alexfabbri/multi_news"
#: Where to get the files by hand, for the error raised offline.
MULTINEWS_MANUAL = (
    "Download the preprocessed Multi-News files (train.txt.src and train.txt.tgt, linked from "
    "https://github.com/Alex-Fabbri/Multi-News), put them in a folder such as data/multinews/ and call "
    "load_multinews('data/multinews', split='train'); a LongBench multi_news.jsonl file works too."
)

CDLM_MIN_DOCUMENTS = 3  # CDLM pretraining keeps clusters with >= 3 documents
STORY_SEPARATOR = "story_separator_special_tag"  # between documents in the preprocessed .src files
RAW_SEPARATOR = "|||||"  # between documents in the raw .src files and in the hub copy
_DOCUMENT_SEPARATOR = re.compile(f"{re.escape(STORY_SEPARATOR)}|{re.escape(RAW_SEPARATOR)}")
_EMPTY_DOCUMENTS = "empty documents"  # reasons for a skip, as counted and logged
_EMPTY_CLUSTERS = "clusters without documents"
_NEWLINE_MARKER = re.compile(r"[ \t]*NEWLINE_CHAR[ \t]*")
_PASSAGE_HEADER = re.compile(r"(?:^|\n)Passage (\d+):\n")


def clean_multinews_text(text: str) -> str:
    """Turn `NEWLINE_CHAR` markers into line breaks and trim the text."""
    return _NEWLINE_MARKER.sub("\n", text).strip()


def clean_summary(text: str) -> str:
    """A summary without markers and without the "– " that starts every Multi-News summary."""
    return clean_multinews_text(text).removeprefix("–").strip()


def split_longbench_passages(context: str) -> list[str]:
    """The documents of a LongBench context: the text after each "Passage k:" header numbered 1, 2, 3, ...

    Only the next expected number counts as a header, so a line that happens to start with "Passage 7:" inside
    an article does not split it.
    """
    starts, ends, expected = [], [], 1
    for match in _PASSAGE_HEADER.finditer(context):
        if int(match.group(1)) == expected:
            ends.append(match.start())
            starts.append(match.end())
            expected += 1
    return [context[start:end] for start, end in zip(starts, ends[1:] + [len(context)])]


def _cluster(cluster_id: str, raw_documents: list[str], summary: str, skipped: Counter) -> dict | None:
    """One schema row from raw document texts; counts empty documents and empty clusters in `skipped`."""
    documents = [clean_multinews_text(text) for text in raw_documents]
    kept = [text for text in documents if text]
    skipped[_EMPTY_DOCUMENTS] += len(documents) - len(kept)
    if not kept:
        skipped[_EMPTY_CLUSTERS] += 1
        return None
    return {"cluster_id": cluster_id, "documents": kept, "summary": clean_summary(summary)}


def _read_longbench(path: Path, skipped: Counter) -> list[dict]:
    """Rows from the LongBench JSON-lines layout (`_id`, `context`, `answers`)."""
    rows = []
    for line_number, record in read_json_lines(path):
        where = f"{path}, line {line_number}"
        context, answers = record.get("context"), record.get("answers")
        if not isinstance(context, str):
            raise DataError(f"{where}: field `context` (the passages) is missing or not a string.")
        if not isinstance(answers, list) or not answers or not isinstance(answers[0], str):
            raise DataError(f"{where}: field `answers` should be a list holding the summary.")
        cluster_id = str(record.get("_id") or f"{path.name}:{line_number}")
        row = _cluster(cluster_id, split_longbench_passages(context), answers[0], skipped)
        if row is not None:
            rows.append(row)
    return rows


def _read_lines(path: Path) -> list[str]:
    """The lines of a text file, split on "\\n" only (articles may contain other line-separator characters)."""
    with path.open(encoding="utf-8", newline="\n") as handle:
        return [line.removesuffix("\n") for line in handle]


def _read_src(src: Path, skipped: Counter) -> list[dict]:
    """Rows from an original `.src` file and, when it exists beside it, the matching `.tgt` summaries."""
    sources = _read_lines(src)
    tgt = src.with_name(src.name.replace(".src", ".tgt", 1))
    has_summaries = tgt != src and tgt.is_file()
    summaries = _read_lines(tgt) if has_summaries else [""] * len(sources)
    if not has_summaries:
        log.warning("Multi-News %s: no summaries file %s beside it; summaries are left empty.", src, tgt.name)
    if len(summaries) != len(sources):
        raise DataError(
            f"{src} has {len(sources)} clusters but {tgt} has {len(summaries)} summaries; "
            "they must have one line per cluster, in the same order."
        )
    rows = []
    for line_number, (source, summary) in enumerate(zip(sources, summaries), start=1):
        row = _cluster(f"{src.name}:{line_number}", _DOCUMENT_SEPARATOR.split(source), summary, skipped)
        if row is not None:
            rows.append(row)
    return rows


def _read_hub(split: str, skipped: Counter) -> list[dict]:
    """Rows from the hub copy (`document`, `summary`); ids are `<split>-<index>`."""
    raw = load_hub_split(MULTINEWS_HUB_ID, split=split, manual=MULTINEWS_MANUAL)
    rows = []
    for index, record in enumerate(raw):
        row = _cluster(f"{split}-{index}", _DOCUMENT_SEPARATOR.split(record["document"]), record["summary"], skipped)
        if row is not None:
            rows.append(row)
    return rows


def _resolve_local(path: Path, split: str) -> Path:
    """The file to read: `path` itself, or inside a folder `<split>.txt.src`, `<split>.src` or its only `*.jsonl`."""
    if path.is_file():
        return path
    candidates = [path / f"{split}.txt.src", path / f"{split}.src"]
    found = [candidate for candidate in candidates if candidate.is_file()] or sorted(path.glob("*.jsonl"))
    if len(found) != 1:
        raise DataError(
            f"{path} should hold {candidates[0].name} (original layout) or exactly one *.jsonl file (LongBench "
            f"layout); found {[item.name for item in found] or 'neither'}. Pass the file itself instead."
        )
    return found[0]


def filter_min_documents(dataset: Dataset, min_documents: int) -> tuple[Dataset, int]:
    """Keep the clusters with at least `min_documents` documents; return them and how many were dropped."""
    if min_documents < 1:
        raise ConfigError(f"min_documents must be >= 1, got {min_documents}.")
    sizes = pc.list_value_length(dataset.with_format("arrow")["documents"]).to_numpy()
    kept = dataset.select(np.flatnonzero(sizes >= min_documents))
    return kept, len(dataset) - len(kept)


def load_multinews(path: str | Path | None = None, *, split: str = "train", min_documents: int = 1) -> Dataset:
    """Multi-News clusters as `CLUSTER_FEATURES`: from a local file or folder, or from the hub when `path` is None.

    `split` picks the hub split or, for a folder in the original layout, `<split>.txt.src`. Skips are logged.
    """
    skipped = Counter()
    if path is None:
        source, rows = f"hub:{MULTINEWS_HUB_ID}/{split}", _read_hub(split, skipped)
    else:
        fix = "Pass a LongBench multi_news .jsonl file, an original .src file, or a folder holding one."
        source = _resolve_local(require_path(path, what="Multi-News data", fix=fix), split)
        rows = _read_longbench(source, skipped) if source.suffix == ".jsonl" else _read_src(source, skipped)
    require_unique((row["cluster_id"] for row in rows), source=source, field="cluster_id")
    dataset = Dataset.from_list(rows, features=CLUSTER_FEATURES)
    if min_documents != 1:
        dataset, dropped = filter_min_documents(dataset, min_documents)
        skipped[f"clusters with < {min_documents} documents"] = dropped
    log_skips(log, "Multi-News", source, len(dataset), skipped)
    return dataset
