"""HotpotQA (Yang et al., 2018), distractor setting: multi-hop questions over ten Wikipedia paragraphs.

`load_hotpotqa(path)` reads both layouts into the one `QA_FEATURES` schema (the Hugging Face layout):
- the original release (`hotpot_dev_distractor_v1.json`): `_id`, `supporting_facts` as [title, sent_id] pairs,
  `context` as [title, [sentences]] pairs;
- the Hugging Face layout: `supporting_facts` = {title: [...], sent_id: [...]}, `context` = {title: [...],
  sentences: [[...]]}, and an `id` field, which some copies lack: such a record gets `make_record_id(...)`;
- `path=None`: the hub copy (`HOTPOTQA_HUB_ID`, config "distractor"), or OfflineError when offline.
A path may be a JSON file (a list of records), a JSON-lines file, or a folder: all its *.json / *.jsonl files.

Supporting facts that point outside the context (unknown title, or a sentence index past the paragraph's end)
exist in the real data. They are kept as they are, because the official metric scores against them, and are
counted and logged; `strict=True` raises a DataError naming the first such record instead.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from datasets import Dataset

from ..errors import DataError
from .schemas import QA_FEATURES
from .sources import load_hub_split, read_json, read_json_lines, require_path, require_unique

log = logging.getLogger(__name__)

HOTPOTQA_HUB_ID = "hotpotqa/hotpot_qa"  # formerly the short name `hotpot_qa`
HOTPOTQA_HUB_CONFIG = "distractor"
HOTPOTQA_MANUAL = (
    "Download hotpot_dev_distractor_v1.json (and hotpot_train_v1.1.json) from https://hotpotqa.github.io, "
    "put them in a folder such as data/hotpotqa/ and call load_hotpotqa('data/hotpotqa/hotpot_dev_distractor_v1.json')."
)


def make_record_id(question: str, titles: list[str]) -> str:
    """A stable id for a record that has none: "sha1:" + 24 hex digits of the question and its context titles.

    It depends on the record's content only, so it is the same in any file, order or subset.
    """
    digest = hashlib.sha1("\n".join([question, *titles]).encode("utf-8")).hexdigest()
    return f"sha1:{digest[:24]}"


def _require(record: dict, field: str, kind: type, where: str):
    """`record[field]`, checked to be of type `kind`."""
    value = record.get(field)
    if not isinstance(value, kind):
        raise DataError(f"{where}: field `{field}` is missing or not a {kind.__name__}.")
    return value


def record_from_original(record: dict, where: str) -> dict:
    """One original-layout record (`_id`, pair lists) as a `QA_FEATURES` row."""
    context = _require(record, "context", list, where)
    facts = record.get("supporting_facts", [])
    try:
        titles, sentences = [title for title, _ in context], [list(sents) for _, sents in context]
        fact_titles, fact_ids = [title for title, _ in facts], [int(sent_id) for _, sent_id in facts]
    except (TypeError, ValueError) as error:
        raise DataError(f"{where}: `context` / `supporting_facts` should be lists of [title, ...] pairs.") from error
    return _row(str(_require(record, "_id", str, where)), record, where, fact_titles, fact_ids, titles, sentences)


def record_from_hf(record: dict, where: str) -> dict:
    """One Hugging Face-layout record (dicts of lists) as a `QA_FEATURES` row; a missing id is made."""
    context = _require(record, "context", dict, where)
    facts = record.get("supporting_facts") or {"title": [], "sent_id": []}
    titles, sentences = list(context.get("title", [])), [list(s) for s in context.get("sentences", [])]
    if len(titles) != len(sentences):
        raise DataError(f"{where}: `context` has {len(titles)} titles but {len(sentences)} sentence lists.")
    question = _require(record, "question", str, where)
    record_id = str(record.get("id") or make_record_id(question, titles))
    try:
        fact_ids = [int(sent_id) for sent_id in facts.get("sent_id", [])]
    except (AttributeError, TypeError, ValueError) as error:
        raise DataError(f"{where}: `supporting_facts` should be {{title: [...], sent_id: [integers]}}.") from error
    return _row(record_id, record, where, list(facts.get("title", [])), fact_ids, titles, sentences)


def _row(record_id, record, where, fact_titles, fact_ids, titles, sentences) -> dict:
    """The schema row; `answer`, `type` and `level` default to "" (the test set has no answers)."""
    if len(fact_titles) != len(fact_ids):
        raise DataError(f"{where}: `supporting_facts` has {len(fact_titles)} titles but {len(fact_ids)} ids.")
    return {
        "id": record_id,
        "question": _require(record, "question", str, where),
        "answer": str(record.get("answer", "")),
        "type": str(record.get("type", "")),
        "level": str(record.get("level", "")),
        "supporting_facts": {"title": fact_titles, "sent_id": fact_ids},
        "context": {"title": titles, "sentences": sentences},
    }


def invalid_supporting_facts(row: dict) -> list[tuple[str, int]]:
    """The (title, sent_id) facts of a row whose title is not in its context or whose sentence does not exist."""
    lengths = dict(zip(row["context"]["title"], map(len, row["context"]["sentences"])))
    facts = zip(row["supporting_facts"]["title"], row["supporting_facts"]["sent_id"])
    return [(title, sent_id) for title, sent_id in facts if not 0 <= sent_id < lengths.get(title, 0)]


def _convert(record: object, where: str) -> dict:
    """Either layout -> schema row, told apart by the type of `context` (list of pairs vs dict of lists)."""
    if not isinstance(record, dict):
        raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}.")
    if isinstance(record.get("context"), dict):
        return record_from_hf(record, where)
    return record_from_original(record, where)


def _read_file(path: Path) -> list[dict]:
    """Rows from one JSON (list of records) or JSON-lines file."""
    if path.suffix == ".jsonl":
        return [_convert(record, f"{path}, line {line}") for line, record in read_json_lines(path)]
    records = read_json(path)
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a JSON list of HotpotQA records, got {type(records).__name__}.")
    return [_convert(record, f"{path}, record {index}") for index, record in enumerate(records)]


def _local_files(path: Path) -> list[Path]:
    """`path` itself, or the *.json / *.jsonl files of a folder in name order."""
    if path.is_file():
        return [path]
    files = sorted(item for item in path.iterdir() if item.suffix in (".json", ".jsonl") and item.is_file())
    if not files:
        raise DataError(f"{path} holds no *.json or *.jsonl file. {HOTPOTQA_MANUAL}")
    return files


def _check_supporting_facts(rows: list[dict], source: str | Path, strict: bool) -> int:
    """Count the invalid supporting facts; with `strict`, raise on the first one."""
    count = 0
    for row in rows:
        invalid = invalid_supporting_facts(row)
        if invalid and strict:
            title, sent_id = invalid[0]
            raise DataError(
                f"{source}, record {row['id']}: supporting fact ({title!r}, sentence {sent_id}) is not in the "
                "record's context. Fix the record, or load with strict=False to keep and count such facts."
            )
        count += len(invalid)
    return count


def load_hotpotqa(path: str | Path | None = None, *, split: str = "validation", strict: bool = False) -> Dataset:
    """HotpotQA records as `QA_FEATURES`, from local files in either layout, or from the hub when `path` is None.

    `split` is used for the hub only. Invalid supporting facts are kept and logged, or raise with `strict=True`.
    """
    if path is None:
        source = f"hub:{HOTPOTQA_HUB_ID}/{HOTPOTQA_HUB_CONFIG}/{split}"
        raw = load_hub_split(HOTPOTQA_HUB_ID, config=HOTPOTQA_HUB_CONFIG, split=split, manual=HOTPOTQA_MANUAL)
        rows = [_convert(record, f"{source}, record {index}") for index, record in enumerate(raw)]
    else:
        source = require_path(path, what="HotpotQA data", fix=HOTPOTQA_MANUAL)
        rows = [row for file in _local_files(source) for row in _read_file(file)]
    require_unique((row["id"] for row in rows), source=source, field="id")
    invalid = _check_supporting_facts(rows, source, strict)
    if invalid:
        log.warning("HotpotQA %s: %d supporting facts point outside their record's context (kept as they are; "
                    "list them with invalid_supporting_facts).", source, invalid)
    return Dataset.from_list(rows, features=QA_FEATURES)
