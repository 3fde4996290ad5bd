"""Reading what the real-corpus loaders read: local files (JSON, JSON lines, CSV), the sample corpora beside the
checkout and the Hugging Face hub. Every failure is a `DataError` naming the file, the line or row and what to do,
or an `OfflineError` saying what to download and where to put it. Nothing here knows about a particular corpus.
"""

from __future__ import annotations

import csv
import json
import logging
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from datasets import Dataset, load_dataset
from datasets.exceptions import DatasetNotFoundError

from ..support.errors import DataError, OfflineError
from ..support.hub_errors import connection_errors

#: The hub branch where the dataset viewer keeps a Parquet copy of every public dataset, scripted ones included.
PARQUET_EXPORT = "refs/convert/parquet"
_NOT_CACHED = "Couldn't find cache for"  # what `datasets` says offline when its cache lacks the config asked for
#: (error type, message text) of `datasets` refusing a loading script, by version: >= 4 ("Dataset scripts are no
#: longer supported"), then 3.x (asking for `trust_remote_code=True`: it could not ask, timed out or was told no);
#: and offline, a cache without the main branch's copy (an online run under datasets >= 4 cached the export's).
_MAIN_BRANCH_UNUSABLE = ((RuntimeError, "scripts are no longer supported"), (ValueError, "trust_remote_code=True"),
                         (ValueError, _NOT_CACHED))
#: What a hub download raises when it cannot connect (or, offline, finds no cached copy), not when a file is missing.
CONNECTION_ERRORS = connection_errors()


def require_path(path: str | Path, *, what: str, fix: str) -> Path:
    """`path` as a Path if it exists, else a DataError naming it, what it should hold and how to get it."""
    path = Path(path).expanduser()
    if not path.exists():
        raise DataError(f"{what} not found at {path}. {fix}")
    return path


def shared_sample(name: str) -> Path | None:
    """The folder `name` of the sample corpora beside the checkout (`paths.shared_data_dir`), None if absent."""
    from ..support.paths import shared_data_dir

    shared = shared_data_dir()
    return shared / name if shared is not None and (shared / name).is_dir() else None


def read_json(path: Path) -> object:
    """Parse a JSON file; a syntax error names the file and line."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"{path}, line {error.lineno}: malformed JSON ({error.msg}).") from error


def read_json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield `(line_number, object)` for each non-blank line of a JSON-lines file (1-based line numbers)."""
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise DataError(f"{path}, line {line_number}: malformed JSON ({error.msg}).") from error
            if not isinstance(record, dict):
                raise DataError(f"{path}, line {line_number}: expected a JSON object, got {type(record).__name__}.")
            yield line_number, record


def read_csv_rows(path: Path, *, columns: int, header: bool) -> Iterator[tuple[int, list[str]]]:
    """Yield `(line the record starts on, row)` for each CSV record (quoted fields may span lines), checked to hold
    `columns` fields; with `header=True` the first record is checked and skipped."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # whole PAN documents exceed the default 128 kB
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        start, header_pending = 1, header
        for row in reader:
            if row:  # blank lines come back as []
                if len(row) != columns:
                    raise DataError(f"{path}, row starting on line {start}: expected {columns} comma-separated "
                                    f"columns, found {len(row)}. Check the quoting of that row.")
                if not header_pending:
                    yield start, row
                header_pending = False
            start = reader.line_num + 1


def require_unique(ids: Iterable[str], *, source: str | Path, field: str) -> None:
    """Raise a DataError naming the first repeated id: a duplicate would make splits and lookups ambiguous."""
    if repeated := [value for value, count in Counter(ids).items() if count > 1]:
        raise DataError(f"{source}: {len(repeated)} duplicate value(s) of `{field}`, e.g. {repeated[0]!r}. "
                        "Remove the repeated records (or load the files separately).")


def log_skips(logger: logging.Logger, corpus: str, source: str | Path, kept: int, skipped: dict[str, int]) -> None:
    """Warn about what a loader skipped, with one count per reason; silent when nothing was skipped."""
    if reasons := ", ".join(f"{count} {reason}" for reason, count in skipped.items() if count):
        logger.warning("%s %s: kept %d; skipped %s.", corpus, source, kept, reasons)


def _load_hub_or_parquet_export(hub_id: str, config: str | None, split: str) -> Dataset:
    """`load_dataset`, else the hub's Parquet export (one folder per config) when the main branch cannot be read
    (`_MAIN_BRANCH_UNUSABLE`: a loading script, which is never trusted here, or offline without its copy)."""
    try:
        return load_dataset(hub_id, config, split=split)
    except (RuntimeError, ValueError) as error:
        if not any(isinstance(error, kind) and text in str(error) for kind, text in _MAIN_BRANCH_UNUSABLE):
            raise
        return load_dataset(hub_id, split=split, revision=PARQUET_EXPORT, data_dir=config or "default")


def load_hub_split(hub_id: str, *, split: str, config: str | None = None, manual: str) -> Dataset:
    """One split of a hub dataset; offline (or not cached) -> OfflineError that says `manual`: what to do instead."""
    try:
        return _load_hub_or_parquet_export(hub_id, config, split)
    except DatasetNotFoundError as error:
        raise DataError(f"The hub dataset {hub_id!r} could not be found ({error}). {manual}") from error
    except (*CONNECTION_ERRORS, ValueError) as error:
        if isinstance(error, ValueError) and _NOT_CACHED not in str(error):
            raise
        raise OfflineError(f"Could not download {hub_id!r} (split {split!r}) from the Hugging Face hub: "
                           f"{type(error).__name__}. {manual}") from error
