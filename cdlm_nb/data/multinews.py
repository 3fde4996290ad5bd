"""Multi-News (Fabbri et al., 2019): clusters of news articles with a human summary, CDLM's pretraining corpus.

`load_multinews(path)` reads into `CLUSTER_FEATURES` rows (`cluster_id`, `documents`, `summary`):
- a LongBench JSON-lines copy: `context` = "Passage 1:\\n...\\nPassage 2:\\n...", `answers` = [summary];
- an original documents file, one cluster per line, or a folder of them: the raw release (`train.src.cleaned` +
  `train.tgt`, `val.*` for validation, documents separated by `|||||`, as the hub repository's `data/` holds them)
  or the preprocessed one (`train.txt.src` + `train.txt.tgt`, separated by `story_separator_special_tag`);
- `path=None`: the hub (`_read_hub`): its raw files, each checked against its published SHA-256 (a mismatch is a
  DataError, never a fallback), else its Parquet export, else an error that names a local copy, `MULTINEWS_DIR`.
Skips are counted in a logged warning, never silent: empty documents, clusters left without any, and
(`min_documents`) clusters too small. CDLM pretrains only on clusters with >= `CDLM_MIN_DOCUMENTS` = 3 documents.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
from datasets import Dataset
from datasets.exceptions import DataFilesNotFoundError
from huggingface_hub import hf_hub_download
from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

from ..support.artefacts import sha256
from ..support.errors import ConfigError, DataError, OfflineError
from . import sources
from .schemas import CLUSTER_FEATURES

log = logging.getLogger(__name__)

#: What the old short name `multi_news` redirects to: its main branch holds a loading script (which `datasets` >= 4
#: refuses) and the raw files that script reads, which route (a) downloads itself.
MULTINEWS_HUB_ID = "alexfabbri/multi_news"
FILE_PREFIXES = {"train": "train", "validation": "val", "test": "test"}  # of the split's raw files and hub `data/`
RAW_SUFFIX, SUMMARY_SUFFIX = ".src.cleaned", ".tgt"  # train.src.cleaned holds the documents, train.tgt the summaries
#: split -> (documents, summaries): the files of the repository's main branch its loading script (and tfds) read.
HUB_RAW_FILES = {split: (f"data/{prefix}{RAW_SUFFIX}", f"data/{prefix}{SUMMARY_SUFFIX}")
                 for split, prefix in FILE_PREFIXES.items()}
MULTINEWS_REVISION = "main"  # no source of `RAW_FILE_SHA256` names a commit: the checksums pin the content
#: Hub file name -> SHA-256 of route (a)'s raw files, as TensorFlow Datasets publishes them (tensorflow/datasets,
#: tensorflow_datasets/datasets/multi_news/checksums.tsv, commit cae85a2eb890ace00ffa6dc6cd473fb258b88c62); the same
#: in huggingface/datasets (datasets/multi_news/dataset_infos.json, commit 040102f100964a33fd334e2695f1c493fa6b92db).
RAW_FILE_SHA256 = {
    "data/train.src.cleaned": "627781c8ce55d528fcdacd495db45583a915e2d24b7983b0a5a6693ede933bb1",  # 547,512,283 B
    "data/train.tgt": "e9e82b8f413b0f1ed4eb7c883f93bb744f829c218c1608b6ba7615d687d07121",  # 58,793,912 B
    "data/val.src.cleaned": "f0a43902da366eea2b882e39ddd4c0975ad44aba6b61095a2ea90362e9e2bb65",  # 66,875,522 B
    "data/val.tgt": "bb08a078e0cb2b8ca9cc0fe3bfbe9d4098dee706bd00eb97449155e41b880157",  # 7,295,302 B
    "data/test.src.cleaned": "138d3ac2dc899cbcd2e3745aaa94d1c1db55fb7058d9df4ba3ef2dac05a3a186",  # 68,999,509 B
    "data/test.tgt": "fa97cf91a62ae82a0af6da88f2ddf8e06eb4e3b90f7971d8e0c516436518fae3",  # 7,309,099 B
}
#: Names a JSON file {hub file name: sha256} replacing `RAW_FILE_SHA256` (logged): for stand-in raw files (offline
#: rehearsal), never to silence a real mismatch.
CHECKSUMS_VARIABLE = "MULTINEWS_SHA256"
MULTINEWS_MANUAL = (  # the local copy that replaces the hub routes
    "For a local copy, download train.src.cleaned, train.tgt, val.src.cleaned, val.tgt, test.src.cleaned and "
    f"test.tgt from https://huggingface.co/datasets/{MULTINEWS_HUB_ID}/tree/main/data into one folder and set "
    "MULTINEWS_DIR to it (notebooks 02 and 03 read all three splits), or call load_multinews(folder, split='train'). "
    "The preprocessed release (train.txt.src, train.txt.tgt, ...: https://github.com/Alex-Fabbri/Multi-News) works "
    "too, and for one split a LongBench multi_news.jsonl file."
)
_LOCAL_FIX = "Pass a LongBench multi_news .jsonl file, an original .src/.src.cleaned file, or a folder holding one."
#: What moves route (a) on to route (b), besides `CONNECTION_ERRORS`: the hub lacks the repository, revision or file.
_MISSING_ON_HUB = (EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError)
#: Likewise for route (b): `load_hub_split`'s own errors (offline; dataset not found) and an export without the files.
_EXPORT_UNAVAILABLE = (OfflineError, DataError, DataFilesNotFoundError, *_MISSING_ON_HUB)

CDLM_MIN_DOCUMENTS = 3  # CDLM pretraining keeps clusters with >= 3 documents
STORY_SEPARATOR = "story_separator_special_tag"  # between documents in the preprocessed .src files
RAW_SEPARATOR = "|||||"  # between documents in the raw .src files and in the hub copy
_DOCUMENT_SEPARATOR = re.compile(f"{re.escape(STORY_SEPARATOR)}|{re.escape(RAW_SEPARATOR)}")
_EMPTY_DOCUMENTS, _EMPTY_CLUSTERS = "empty documents", "clusters without documents"  # skip reasons, as logged
_NEWLINE_MARKER = re.compile(r"[ \t]*NEWLINE_CHAR[ \t]*")
_PASSAGE_HEADER = re.compile(r"(?:^|\n)Passage (\d+):\n")
_SPACED_NEWLINE = re.compile(r"[ \t]*\n[ \t]*")


def clean_multinews_text(text: str) -> str:
    """Turn `NEWLINE_CHAR` markers into line breaks and trim the text."""
    return _NEWLINE_MARKER.sub("\n", text).strip()


def clean_summary(text: str) -> str:
    """A summary without markers and without the "– " that starts every Multi-News summary."""
    return clean_multinews_text(text).removeprefix("–").strip()


def split_longbench_passages(context: str) -> list[str]:
    """The documents of a LongBench context: the text after each "Passage k:" header numbered 1, 2, 3, ...; only the
    next expected number counts, so an article line that starts with "Passage 7:" does not split it."""
    starts, ends, expected = [], [], 1
    for match in _PASSAGE_HEADER.finditer(context):
        if int(match.group(1)) == expected:
            ends.append(match.start())
            starts.append(match.end())
            expected += 1
    return [context[start:end] for start, end in zip(starts, ends[1:] + [len(context)])]


def _clusters(items: Iterable[tuple[str, list[str], str]], skipped: Counter) -> list[dict]:
    """Schema rows from (cluster id, raw document texts, summary); empty documents and clusters are counted."""
    rows = []
    for cluster_id, raw_documents, summary in items:
        documents = [clean_multinews_text(text) for text in raw_documents]
        kept = [text for text in documents if text]
        skipped[_EMPTY_DOCUMENTS] += len(documents) - len(kept)
        if kept:
            rows.append({"cluster_id": cluster_id, "documents": kept, "summary": clean_summary(summary)})
        else:
            skipped[_EMPTY_CLUSTERS] += 1
    return rows


def _longbench_items(path: Path) -> Iterable[tuple[str, list[str], str]]:
    """The clusters of the LongBench JSON-lines layout (`_id`, `context`, `answers`)."""
    for line_number, record in sources.read_json_lines(path):
        where = f"{path}, line {line_number}"
        context, answers = record.get("context"), record.get("answers")
        if not isinstance(context, str):
            raise DataError(f"{where}: field `context` (the passages) is missing or not a string.")
        if not isinstance(answers, list) or not answers or not isinstance(answers[0], str):
            raise DataError(f"{where}: field `answers` should be a list holding the summary.")
        yield str(record.get("_id") or f"{path.name}:{line_number}"), split_longbench_passages(context), answers[0]


def _read_lines(path: Path) -> list[str]:
    """The lines of a file, split on "\\n" only (articles may contain other line-separator characters)."""
    with path.open(encoding="utf-8", newline="\n") as handle:
        return [line.removesuffix("\n") for line in handle]


def summaries_file(src: Path) -> Path:
    """The summaries file of a documents file: `train.src.cleaned` -> `train.tgt` (the raw release and the hub),
    else ".src" -> ".tgt" in the name (`train.txt.src` -> `train.txt.tgt`)."""
    if src.name.endswith(RAW_SUFFIX):
        return src.with_name(src.name.removesuffix(RAW_SUFFIX) + SUMMARY_SUFFIX)
    return src.with_name(src.name.replace(".src", SUMMARY_SUFFIX, 1))


def _src_items(src: Path, tgt: Path | None = None,
               cluster_id: Callable[[int], str] | None = None) -> list[tuple[str, list[str], str]]:
    """The clusters of an original documents file (one per line) with the summaries of `tgt`, else of
    `summaries_file(src)` when it exists; `cluster_id(line_number)` names them (default `<file name>:<line>`)."""
    sources = _read_lines(src)
    tgt = tgt or summaries_file(src)
    has_summaries = tgt != src and tgt.is_file()
    summaries = _read_lines(tgt) if has_summaries else [""] * len(sources)
    if not has_summaries:
        log.warning("Multi-News %s: no summaries file %s beside it; summaries are left empty.", src, tgt.name)
    if len(summaries) != len(sources):
        raise DataError(f"{src} has {len(sources)} clusters but {tgt} has {len(summaries)} summaries; "
                        "they must have one line per cluster, in the same order.")
    cluster_id = cluster_id or (lambda line_number: f"{src.name}:{line_number}")
    return [(cluster_id(line_number), _DOCUMENT_SEPARATOR.split(source), summary)
            for line_number, (source, summary) in enumerate(zip(sources, summaries), start=1)]


@functools.cache
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    """`artefacts.sha256`, memoised per process on (path, size, mtime): about 0.4 s per 500 MB per new kernel, and
    no marker file in the hub cache (it may be shared or read-only, and its tools would count one in the snapshot)."""
    return sha256(Path(path))


@functools.cache
def _read_checksums(path: str) -> dict[str, str]:
    """The checksum table in the JSON file `path` (read, and the replacement logged, once per process)."""
    problem = (f"{CHECKSUMS_VARIABLE}={path!r} should name a JSON file mapping the hub file names "
               f"({', '.join(RAW_FILE_SHA256)}) to SHA-256 hashes; unset it to use the published ones")
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DataError(f"{problem}. {type(error).__name__}: {error}") from error
    if not isinstance(table, dict):
        raise DataError(f"{problem}. It holds a {type(table).__name__}.")
    log.warning("Multi-News raw files are checked against %s=%s, not the published SHA-256.", CHECKSUMS_VARIABLE, path)
    return table


def verify_raw_file(name: str, path: Path) -> None:
    """Check the hub file `name` (cached at `path`) against `RAW_FILE_SHA256` (or `$MULTINEWS_SHA256`'s table): a
    damaged download, or a file the hub changed since, must not be read as Multi-News."""
    override = os.environ.get(CHECKSUMS_VARIABLE)
    expected = (_read_checksums(override) if override else RAW_FILE_SHA256).get(name)
    if expected is None:
        raise DataError(f"No SHA-256 is known for the Multi-News raw file {name}; add it to the checksum table "
                        f"({CHECKSUMS_VARIABLE} or RAW_FILE_SHA256).")
    cached, stat = path.resolve(), path.stat()
    actual = _file_sha256(str(cached), stat.st_size, stat.st_mtime_ns)
    if actual != expected:
        link = f" (and {path}, which links to it)" if cached != path else ""
        raise DataError(
            f"The Multi-News raw file {name} of {MULTINEWS_HUB_ID} (revision {MULTINEWS_REVISION}) has SHA-256 "
            f"{actual}, expected {expected}: the download is damaged or the hub changed the file. Delete the cached "
            f"copy {cached}{link} from the Hugging Face cache and run again to download it anew. {MULTINEWS_MANUAL}"
        )


def _read_hub_raw_files(split: str, skipped: Counter) -> list[dict]:
    """Route (a): the split's raw files at `MULTINEWS_REVISION` (downloaded once, then read from the hub cache,
    offline too), each checked by `verify_raw_file`; ids are `<split>-<index>`, as the Parquet export's rows get."""
    paths = []
    for name in HUB_RAW_FILES[split]:
        paths.append(Path(hf_hub_download(repo_id=MULTINEWS_HUB_ID, repo_type="dataset", filename=name,
                                          revision=MULTINEWS_REVISION)))
        verify_raw_file(name, paths[-1])
    return _clusters(_src_items(*paths, cluster_id=lambda line_number: f"{split}-{line_number - 1}"), skipped)


def _read_hub_export(split: str, skipped: Counter) -> list[dict]:
    """Route (b): the hub copy through `load_hub_split` (its Parquet export: `document`, `summary`). The loading
    script turned each NEWLINE_CHAR into "\\n" and kept the spaces around it; dropping them gives route (a)'s text."""
    raw = sources.load_hub_split(MULTINEWS_HUB_ID, split=split, manual="")
    return _clusters(((f"{split}-{index}", _DOCUMENT_SEPARATOR.split(_SPACED_NEWLINE.sub("\n", record["document"])),
                       record["summary"]) for index, record in enumerate(raw)), skipped)


def _failure(error: Exception) -> str:
    """An error in one line for the combined message: its type (and its cause's) and the start of its text."""
    cause = f" from {type(error.__cause__).__name__}" if error.__cause__ is not None else ""
    text = " ".join(str(error).split()).rstrip(".")
    return f"{type(error).__name__}{cause}: {text[:240]}{'...' if len(text) > 240 else ''}"


def _read_hub(split: str, skipped: Counter) -> list[dict]:
    """Rows of a hub split by the first route that works, (a) the raw files of the main branch (`datasets` >= 4
    refuses the loading script that reads them) then (b) the Parquet export; only connection failures and files the
    hub lacks move on (logged). Else an OfflineError or DataError naming the routes and (c) `MULTINEWS_DIR`."""
    if split not in HUB_RAW_FILES:
        raise ConfigError(f"Multi-News has no split {split!r} on the hub; use one of {list(HUB_RAW_FILES)}.")
    routes = ((f"(a) the raw files {' and '.join(HUB_RAW_FILES[split])} of {MULTINEWS_HUB_ID} (revision "
               f"{MULTINEWS_REVISION})", _read_hub_raw_files, (*sources.CONNECTION_ERRORS, *_MISSING_ON_HUB)),
              (f"(b) the hub's Parquet export of {MULTINEWS_HUB_ID} (revision {sources.PARQUET_EXPORT})",
               _read_hub_export, _EXPORT_UNAVAILABLE))
    failures: list[tuple[str, Exception]] = []
    for route, read, falls_through in routes:
        try:
            return read(split, skipped)
        except falls_through as error:
            log.warning("Multi-News %s: %s failed (%s); trying the next route.", split, route, _failure(error))
            failures.append((route, error))
    offline = all(isinstance(error, (*sources.CONNECTION_ERRORS, OfflineError)) for _, error in failures)
    tried = "".join(f"\n{route}: {_failure(error)}." for route, error in failures)
    raise (OfflineError if offline else DataError)(
        f"Could not read Multi-News split {split!r} from the Hugging Face hub"
        f"{' (no connection: connect and run again, or use (c))' if offline else ''}. Tried:{tried}"
        f"\n(c) {MULTINEWS_MANUAL}") from failures[-1][1]


def split_file(path: str | Path, split: str) -> Path:
    """The file `load_multinews(path, split=split)` reads: `path` itself, or inside a folder the split's documents
    file (`<split>.txt.src`, `<prefix>.src.cleaned`, `<split>.src`, with `val` for validation) or its only `*.jsonl`."""
    path = sources.require_path(path, what="Multi-News data", fix=_LOCAL_FIX)
    if path.is_file():
        return path
    names = dict.fromkeys((split, FILE_PREFIXES.get(split, split)))
    candidates = [path / f"{name}{suffix}" for name in names for suffix in (".txt.src", RAW_SUFFIX, ".src")]
    found = [candidate for candidate in candidates if candidate.is_file()] or sorted(path.glob("*.jsonl"))
    if len(found) != 1:
        raise DataError(
            f"{path} should hold {' or '.join(candidate.name for candidate in candidates)} (original layouts, with "
            f"the summaries beside them) or exactly one *.jsonl file (LongBench layout); found "
            f"{[item.name for item in found] or 'neither'}. Pass the file itself instead."
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
    """Multi-News clusters as `CLUSTER_FEATURES`, from a local file or folder or, when `path` is None, the hub.
    `split` picks the hub split or, in a folder, the split's file (`split_file`). Skips are logged."""
    skipped = Counter()
    if path is None:
        source, rows = f"hub:{MULTINEWS_HUB_ID}/{split}", _read_hub(split, skipped)
    else:
        source = split_file(path, split)
        rows = _clusters(_longbench_items(source) if source.suffix == ".jsonl" else _src_items(source), skipped)
    sources.require_unique((row["cluster_id"] for row in rows), source=source, field="cluster_id")
    dataset = Dataset.from_list(rows, features=CLUSTER_FEATURES)
    if min_documents != 1:
        dataset, dropped = filter_min_documents(dataset, min_documents)
        skipped[f"clusters with < {min_documents} documents"] = dropped
    sources.log_skips(log, "Multi-News", source, len(dataset), skipped)
    return dataset
