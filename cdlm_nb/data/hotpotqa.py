"""HotpotQA (Yang et al., 2018), distractor setting: multi-hop questions over ten Wikipedia paragraphs.

`load_hotpotqa` reads the original release (`hotpot_dev_distractor_v1.json`: `_id`, [title, sent_id] and
[title, [sentences]] pairs) or the Hugging Face layout (dicts of lists; an `id` some copies lack: `make_record_id`)
into `QA_FEATURES`. Supporting facts pointing outside the context (unknown title, sentence past the paragraph's end)
exist in the real data: kept, because the official metric scores against them, and counted in a logged warning.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from datasets import Dataset

from ..support.errors import DataError
from .schemas import QA_FEATURES
from .sources import load_hub_split, read_json, read_json_lines, require_path, require_unique

log = logging.getLogger(__name__)

HOTPOTQA_HUB_ID = "hotpotqa/hotpot_qa"  # formerly the short name `hotpot_qa`
HOTPOTQA_HUB_CONFIG = "distractor"
HOTPOTQA_MANUAL = ("Download hotpot_dev_distractor_v1.json (and hotpot_train_v1.1.json) from "
                   "https://hotpotqa.github.io, put them in a folder such as data/hotpotqa/ and call "
                   "load_hotpotqa('data/hotpotqa/hotpot_dev_distractor_v1.json').")


def make_record_id(question: str, titles: list[str]) -> str:
    """A stable id for a record that has none: "sha1:" + 24 hex digits of the question and its context titles (its
    content only, so the same in any file, order or subset)."""
    digest = hashlib.sha1("\n".join([question, *titles]).encode("utf-8")).hexdigest()
    return f"sha1:{digest[:24]}"


def _require(record: dict, field: str, kind: type, where: str):
    """`record[field]`, checked to be of type `kind`."""
    value = record.get(field)
    if not isinstance(value, kind):
        raise DataError(f"{where}: field `{field}` is missing or not a {kind.__name__}.")
    return value


def invalid_supporting_facts(row: dict) -> list[tuple[str, int]]:
    """The (title, sent_id) facts of a row whose title is not in its context or whose sentence does not exist."""
    lengths = dict(zip(row["context"]["title"], map(len, row["context"]["sentences"])))
    facts = zip(row["supporting_facts"]["title"], row["supporting_facts"]["sent_id"])
    return [(title, sent_id) for title, sent_id in facts if not 0 <= sent_id < lengths.get(title, 0)]


def _convert(record: object, where: str) -> dict:
    """Either layout -> schema row, told apart by the type of `context`; `answer`, `type` and `level` default to ""
    (the test set has no answers)."""
    if not isinstance(record, dict):
        raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}.")
    original = not isinstance(record.get("context"), dict)
    context = _require(record, "context", list if original else dict, where)
    try:
        if original:
            facts = record.get("supporting_facts", [])
            titles, sentences = [title for title, _ in context], [list(sents) for _, sents in context]
            fact_titles, fact_ids = [title for title, _ in facts], [int(sent_id) for _, sent_id in facts]
        else:
            facts = record.get("supporting_facts") or {}
            titles, sentences = list(context.get("title", [])), [list(s) for s in context.get("sentences", [])]
            fact_titles, fact_ids = list(facts.get("title", [])), [int(sent_id) for sent_id in facts.get("sent_id", [])]
    except (AttributeError, TypeError, ValueError) as error:
        shape = ("lists of [title, ...] pairs" if original else
                 "{title: [...], sentences: [[...]]} / {title: [...], sent_id: [integers]}")
        raise DataError(f"{where}: `context` / `supporting_facts` should be {shape}.") from error
    for field, first, second in (("context", titles, sentences), ("supporting_facts", fact_titles, fact_ids)):
        if len(first) != len(second):
            raise DataError(f"{where}: `{field}` has {len(first)} titles but {len(second)} "
                            f"{'sentence lists' if field == 'context' else 'ids'}.")
    question = _require(record, "question", str, where)
    record_id = (_require(record, "_id", str, where) if original
                 else str(record.get("id") or make_record_id(question, titles)))
    return {"id": record_id, "question": question,
            **{field: str(record.get(field, "")) for field in ("answer", "type", "level")},
            "supporting_facts": {"title": fact_titles, "sent_id": fact_ids},
            "context": {"title": titles, "sentences": sentences}}


def _read_file(path: Path) -> list[dict]:
    """Rows from one JSON (list of records) or JSON-lines file."""
    if path.suffix == ".jsonl":
        return [_convert(record, f"{path}, line {line}") for line, record in read_json_lines(path)]
    records = read_json(path)
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a JSON list of HotpotQA records, got {type(records).__name__}.")
    return [_convert(record, f"{path}, record {index}") for index, record in enumerate(records)]


def load_hotpotqa(path: str | Path | None = None, *, split: str = "validation", strict: bool = False) -> Dataset:
    """HotpotQA records from a JSON (list of records) or JSON-lines file, a folder's *.json / *.jsonl files (in name
    order), or when `path` is None the hub split `split`. Invalid supporting facts raise with `strict=True`."""
    if path is None:
        source = f"hub:{HOTPOTQA_HUB_ID}/{HOTPOTQA_HUB_CONFIG}/{split}"
        raw = load_hub_split(HOTPOTQA_HUB_ID, config=HOTPOTQA_HUB_CONFIG, split=split, manual=HOTPOTQA_MANUAL)
        rows = [_convert(record, f"{source}, record {index}") for index, record in enumerate(raw)]
    else:
        source = require_path(path, what="HotpotQA data", fix=HOTPOTQA_MANUAL)
        files = [source] if source.is_file() else sorted(item for item in source.iterdir()
                                                         if item.suffix in (".json", ".jsonl") and item.is_file())
        if not files:
            raise DataError(f"{source} holds no *.json or *.jsonl file. {HOTPOTQA_MANUAL}")
        rows = [row for file in files for row in _read_file(file)]
    require_unique((row["id"] for row in rows), source=source, field="id")
    invalid = 0
    for row in rows:
        facts = invalid_supporting_facts(row)
        if facts and strict:
            raise DataError(f"{source}, record {row['id']}: supporting fact ({facts[0][0]!r}, sentence {facts[0][1]}) "
                            "is not in the record's context. Fix the record, or load with strict=False to keep and "
                            "count such facts.")
        invalid += len(facts)
    if invalid:
        log.warning("HotpotQA %s: %d supporting facts point outside their record's context (kept as they are; "
                    "list them with invalid_supporting_facts).", source, invalid)
    return Dataset.from_list(rows, features=QA_FEATURES)
