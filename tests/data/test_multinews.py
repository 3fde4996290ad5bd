"""Multi-News loader: the LongBench sample, the original .src/.tgt layout on a fixture, the hub path faked."""

from __future__ import annotations

import json
import logging

import pytest
from datasets import Dataset

from cdlm_nb.data import multinews, sources
from cdlm_nb.data.multinews import (
    CDLM_MIN_DOCUMENTS,
    clean_summary,
    filter_min_documents,
    load_multinews,
    split_longbench_passages,
)
from cdlm_nb.data.schemas import CLUSTER_FEATURES
from cdlm_nb.errors import ConfigError, DataError, OfflineError

SAMPLE = "multinews/multi_news.longbench.sample.jsonl"
FIRST_ID = "e45abfcb82a3c862c0f772e6f461866839955c11ea2f46a8"


@pytest.fixture(scope="module")
def longbench(shared_data):
    return load_multinews(shared_data / SAMPLE)


def test_longbench_sample_counts_and_schema(longbench):
    assert longbench.features == CLUSTER_FEATURES
    assert len(longbench) == 150
    assert sum(len(documents) for documents in longbench["documents"]) == 443  # "Passage k:" headers in the file
    assert len(set(longbench["cluster_id"])) == 150


def test_longbench_first_cluster_hand_checked(longbench):
    first = longbench[0]
    assert first["cluster_id"] == FIRST_ID
    assert len(first["documents"]) == 3
    assert first["documents"][0].startswith(
        "Members of Occupy Philadelphia remain on site at City Hall into the evening of Nov. 28. "
        "(David M Warren / Staff Photographer)\n\nAbout 100 Occupy Philly protesters"
    )
    assert first["documents"][1].startswith("The LAPD early Monday declared an unlawful assembly")
    assert first["summary"].startswith("The Occupy LA encampment got a stay of execution this morning")


def test_longbench_text_has_no_markers_or_headers(longbench):
    for documents in longbench["documents"]:
        for document in documents:
            assert "NEWLINE_CHAR" not in document
            assert not document.startswith("Passage ")
            assert document == document.strip()


def test_cdlm_filter_keeps_clusters_with_three_documents(shared_data, longbench, caplog):
    kept, dropped = filter_min_documents(longbench, CDLM_MIN_DOCUMENTS)
    assert (len(kept), dropped) == (88, 62)
    assert min(len(documents) for documents in kept["documents"]) == 3
    with caplog.at_level(logging.WARNING, logger=multinews.__name__):
        loaded = load_multinews(shared_data / SAMPLE, min_documents=3)
    assert len(loaded) == 88
    assert "skipped 62 clusters with < 3 documents" in caplog.text


def test_filter_rejects_non_positive_minimum(longbench):
    with pytest.raises(ConfigError, match="min_documents"):
        filter_min_documents(longbench, 0)


def test_passage_split_ignores_out_of_sequence_headers():
    context = "Passage 1:\nfirst\nPassage 7:\nstill first\nPassage 2:\nsecond\n"
    assert split_longbench_passages(context) == ["first\nPassage 7:\nstill first", "second\n"]


def test_summary_loses_leading_dash_and_markers():
    assert clean_summary("– Police said NEWLINE_CHAR NEWLINE_CHAR nothing. ") == "Police said\n\nnothing."


def _write_src(tmp_path, sources_lines, summaries=None):
    src = tmp_path / "train.txt.src"
    src.write_text("\n".join(sources_lines) + "\n", encoding="utf-8")
    if summaries is not None:
        (tmp_path / "train.txt.tgt").write_text("\n".join(summaries) + "\n", encoding="utf-8")
    return src


def test_original_src_layout(tmp_path, caplog):
    src = _write_src(
        tmp_path,
        [
            "One NEWLINE_CHAR NEWLINE_CHAR two. story_separator_special_tag Three. story_separator_special_tag Four.",
            "   story_separator_special_tag Only one left.",
            " story_separator_special_tag ",
        ],
        ["– First summary.", "– Second summary.", "– Third summary."],
    )
    with caplog.at_level(logging.WARNING, logger=multinews.__name__):
        clusters = load_multinews(src)
    assert clusters["cluster_id"] == ["train.txt.src:1", "train.txt.src:2"]
    assert clusters[0]["documents"] == ["One\n\ntwo.", "Three.", "Four."]
    assert clusters[0]["summary"] == "First summary."
    assert clusters[1]["documents"] == ["Only one left."]
    assert "skipped 3 empty documents, 1 clusters without documents" in caplog.text


def test_src_without_tgt_and_folder_dispatch(tmp_path, caplog):
    _write_src(tmp_path, ["a story_separator_special_tag b"])
    with caplog.at_level(logging.WARNING, logger=multinews.__name__):
        clusters = load_multinews(tmp_path, split="train")
    assert clusters[0]["documents"] == ["a", "b"] and clusters[0]["summary"] == ""
    assert "no summaries file train.txt.tgt" in caplog.text


def test_raw_src_files_with_bar_separators(tmp_path):
    src = tmp_path / "test.src.cleaned"
    src.write_text("First article. ||||| Second article.\n", encoding="utf-8")
    (tmp_path / "test.tgt.cleaned").write_text("– Summary.\n", encoding="utf-8")
    clusters = load_multinews(src)
    assert clusters[0] == {"cluster_id": "test.src.cleaned:1", "documents": ["First article.", "Second article."],
                           "summary": "Summary."}


def test_src_lines_must_match_tgt_lines(tmp_path):
    src = _write_src(tmp_path, ["a", "b"], ["only one"])
    with pytest.raises(DataError, match="train.txt.tgt has 1 summaries"):
        load_multinews(src)


def test_folder_without_known_files(tmp_path):
    with pytest.raises(DataError, match="train.txt.src"):
        load_multinews(tmp_path)


def test_missing_file_names_path(tmp_path):
    with pytest.raises(DataError, match="nothing.jsonl"):
        load_multinews(tmp_path / "nothing.jsonl")


def _write_jsonl(tmp_path, lines):
    path = tmp_path / "mn.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_malformed_json_line_names_file_and_line(tmp_path):
    good = json.dumps({"_id": "a", "context": "Passage 1:\nx", "answers": ["s"]})
    path = _write_jsonl(tmp_path, [good, "{not json"])
    with pytest.raises(DataError, match=r"mn\.jsonl, line 2: malformed JSON"):
        load_multinews(path)


def test_missing_field_is_named(tmp_path):
    path = _write_jsonl(tmp_path, [json.dumps({"_id": "a", "context": "Passage 1:\nx"})])
    with pytest.raises(DataError, match=r"line 1: field `answers`"):
        load_multinews(path)


def test_duplicate_cluster_ids_are_an_error(tmp_path):
    record = json.dumps({"_id": "same", "context": "Passage 1:\nx", "answers": ["s"]})
    with pytest.raises(DataError, match="duplicate.*'same'"):
        load_multinews(_write_jsonl(tmp_path, [record, record]))


def test_hub_offline_raises_offline_error(monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    monkeypatch.setattr(sources, "load_dataset", offline)
    with pytest.raises(OfflineError, match="train.txt.src"):
        load_multinews(None)


def test_hub_layout_is_converted(monkeypatch):
    calls = []

    def fake_hub(hub_id, config, split):
        calls.append((hub_id, config, split))
        return Dataset.from_dict({"document": ["A. NEWLINE_CHAR B. ||||| C."], "summary": ["– S."]})

    monkeypatch.setattr(sources, "load_dataset", fake_hub)
    clusters = load_multinews(None, split="validation")
    assert calls == [(multinews.MULTINEWS_HUB_ID, None, "validation")]
    assert clusters[0] == {"cluster_id": "validation-0", "documents": ["A.\nB.", "C."], "summary": "S."}
