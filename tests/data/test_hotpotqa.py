"""HotpotQA loader: both real layouts into one schema, validation of supporting facts, bad input, the hub faked."""

from __future__ import annotations

import json
import logging

import pytest
from datasets import Dataset

from cdlm_nb.data import hotpotqa, sources
from cdlm_nb.data.hotpotqa import invalid_supporting_facts, load_hotpotqa, make_record_id
from cdlm_nb.data.schemas import QA_FEATURES
from cdlm_nb.support.errors import DataError, OfflineError

ORIGINAL = "hotpotqa/hotpot_dev_distractor_v1.sample.json"
HF_LAYOUT = "hotpotqa/hotpot_dev_distractor.hf_layout.sample.json"


def _original_record(record_id="r1", facts=(("Alpha", 1),)):
    return {"_id": record_id, "question": "Which came first?", "answer": "Alpha", "type": "comparison",
            "level": "easy", "supporting_facts": [list(fact) for fact in facts],
            "context": [["Alpha", ["A one.", " A two."]], ["Beta", ["B one."]]]}


def _write(tmp_path, records, name="hp.json"):
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_original_layout_sample(shared_data):
    records = load_hotpotqa(shared_data / ORIGINAL)
    assert records.features == QA_FEATURES
    assert len(records) == 15
    first = records[0]
    assert first["id"] == "5a8b57f25542995d1e6f1371"
    assert first["question"] == "Were Scott Derrickson and Ed Wood of the same nationality?"
    assert first["answer"] == "yes"
    assert first["supporting_facts"] == {"title": ["Scott Derrickson", "Ed Wood"], "sent_id": [0, 0]}
    assert len(first["context"]["title"]) == 10
    assert first["context"]["title"][1] == "Scott Derrickson"
    assert first["context"]["sentences"][1][1] == " He lives in Los Angeles, California."


def test_hf_layout_sample_gets_content_ids(shared_data):
    records = load_hotpotqa(shared_data / HF_LAYOUT)
    assert len(records) == 47
    first = records[0]
    assert first["answer"] == "Rome" and first["type"] == "bridge" and first["level"] == "hard"
    assert first["supporting_facts"] == {"title": ["Tosca (1956 film)", "Franco Corelli"], "sent_id": [2, 2]}
    assert first["context"]["title"][0] == "Ron Bottcher"
    assert first["id"] == make_record_id(first["question"], first["context"]["title"])
    assert first["id"].startswith("sha1:") and len(first["id"]) == len("sha1:") + 24


def test_folder_loads_both_layouts_with_valid_facts(shared_data, caplog):
    with caplog.at_level(logging.WARNING, logger=hotpotqa.__name__):
        records = load_hotpotqa(shared_data / "hotpotqa")
    assert len(records) == 15 + 47
    assert len(set(records["id"])) == 62
    assert all(not invalid_supporting_facts(row) for row in records)
    assert caplog.text == ""


def test_record_id_depends_on_content_only():
    assert make_record_id("Q?", ["A", "B"]) == make_record_id("Q?", ["A", "B"])
    assert make_record_id("Q?", ["A", "B"]) != make_record_id("Q!", ["A", "B"])


def test_invalid_supporting_facts_are_kept_and_counted(tmp_path, caplog):
    record = _original_record(facts=[("Alpha", 1), ("Alpha", 2), ("Gamma", 0)])
    with caplog.at_level(logging.WARNING, logger=hotpotqa.__name__):
        records = load_hotpotqa(_write(tmp_path, [record]))
    assert records[0]["supporting_facts"]["sent_id"] == [1, 2, 0]
    assert invalid_supporting_facts(records[0]) == [("Alpha", 2), ("Gamma", 0)]
    assert "2 supporting facts point outside" in caplog.text


def test_strict_mode_names_the_record(tmp_path):
    path = _write(tmp_path, [_original_record("bad-one", facts=[("Beta", 5)])])
    with pytest.raises(DataError, match=r"record bad-one: supporting fact \('Beta', sentence 5\)"):
        load_hotpotqa(path, strict=True)


def _hf_record(record_id, level):
    return {"id": record_id, "question": "Q?", "answer": "A", "type": "bridge", "level": level,
            "supporting_facts": {"title": ["T"], "sent_id": [0]}, "context": {"title": ["T"], "sentences": [["S0."]]}}


def test_json_lines_file_in_hf_layout(tmp_path):
    record = _hf_record("x1", "medium")
    path = tmp_path / "hp.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert load_hotpotqa(path)[0] == record


def test_duplicate_ids_are_an_error(tmp_path):
    with pytest.raises(DataError, match="duplicate.*'r1'"):
        load_hotpotqa(_write(tmp_path, [_original_record(), _original_record()]))


def test_malformed_json_names_file_and_line(tmp_path):
    path = tmp_path / "hp.json"
    path.write_text('[\n{"_id": "a",\n oops}\n]', encoding="utf-8")
    with pytest.raises(DataError, match=r"hp\.json, line 3: malformed JSON"):
        load_hotpotqa(path)


def test_missing_field_names_record(tmp_path):
    record = _original_record()
    del record["context"]
    with pytest.raises(DataError, match=r"record 0: field `context`"):
        load_hotpotqa(_write(tmp_path, [record]))


def test_not_a_list_and_missing_file(tmp_path):
    with pytest.raises(DataError, match="expected a JSON list"):
        load_hotpotqa(_write(tmp_path, {"_id": "a"}))
    with pytest.raises(DataError, match="absent.json"):
        load_hotpotqa(tmp_path / "absent.json")


def test_hub_offline_raises_offline_error(monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    monkeypatch.setattr(sources, "load_dataset", offline)
    with pytest.raises(OfflineError, match="hotpot_dev_distractor_v1.json"):
        load_hotpotqa(None)


def test_hub_records_keep_their_ids(monkeypatch):
    hub_record = _hf_record("5a7a06935542990198eaf050", "hard")

    def fake_hub(hub_id, config, split):
        assert (hub_id, config, split) == (hotpotqa.HOTPOTQA_HUB_ID, "distractor", "validation")
        return Dataset.from_list([hub_record])

    monkeypatch.setattr(sources, "load_dataset", fake_hub)
    assert load_hotpotqa(None)[0] == hub_record
