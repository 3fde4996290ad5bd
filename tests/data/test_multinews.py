"""Multi-News loader: the LongBench sample, the original layouts (.txt.src/.txt.tgt, .src.cleaned/.tgt) on
hand-written files, the two hub routes (raw files, Parquet export) with the hub faked, and the SHA-256 check of the
raw files against a checksum table patched to tiny files (no network)."""

from __future__ import annotations

import hashlib
import json
import logging
import re

import pytest
from datasets import Dataset
from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

from cdlm_nb.data import multinews, sources
from cdlm_nb.data.multinews import (
    CDLM_MIN_DOCUMENTS,
    HUB_RAW_FILES,
    RAW_FILE_SHA256,
    clean_summary,
    filter_min_documents,
    load_multinews,
    split_file,
    split_longbench_passages,
    summaries_file,
    verify_raw_file,
)
from cdlm_nb.data.schemas import CLUSTER_FEATURES
from cdlm_nb.support.errors import ConfigError, DataError, OfflineError

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
    (tmp_path / "test.tgt").write_text("– Summary.\n", encoding="utf-8")  # the raw release's name for it
    clusters = load_multinews(src)
    assert clusters[0] == {"cluster_id": "test.src.cleaned:1", "documents": ["First article.", "Second article."],
                           "summary": "Summary."}


def test_src_lines_must_match_tgt_lines(tmp_path):
    src = _write_src(tmp_path, ["a", "b"], ["only one"])
    with pytest.raises(DataError, match="train.txt.tgt has 1 summaries"):
        load_multinews(src)


def test_folder_without_known_files(tmp_path):
    with pytest.raises(DataError, match="train.txt.src or train.src.cleaned"):
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


# ---------------------------------------------------------------------------------------------------------------
# The raw layout: <prefix>.src.cleaned (documents joined by |||||, NEWLINE_CHAR markers) + <prefix>.tgt
# ---------------------------------------------------------------------------------------------------------------
RAW_SOURCES = [  # three clusters as the raw release writes them: one per line
    "First article. NEWLINE_CHAR NEWLINE_CHAR Its second paragraph. ||||| Second article. |||||   ",
    "Only article. ||||| NEWLINE_CHAR  ||||| ",
    " ||||| NEWLINE_CHAR ",
]
RAW_SUMMARIES = ["– Summary one. NEWLINE_CHAR More.", "– Summary two.", "– Summary three."]


def _write_raw(folder, prefix="train", sources_lines=RAW_SOURCES, summaries=RAW_SUMMARIES):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{prefix}.src.cleaned").write_text("\n".join(sources_lines) + "\n", encoding="utf-8")
    (folder / f"{prefix}.tgt").write_text("\n".join(summaries) + "\n", encoding="utf-8")
    return folder / f"{prefix}.src.cleaned"


@pytest.mark.parametrize("name, summaries", [("train.src.cleaned", "train.tgt"), ("val.src.cleaned", "val.tgt"),
                                             ("train.txt.src", "train.txt.tgt"), ("test.src", "test.tgt")])
def test_summaries_file_of_each_layout(tmp_path, name, summaries):
    assert summaries_file(tmp_path / name) == tmp_path / summaries


def test_raw_layout_parsed_and_empty_documents_counted(tmp_path, caplog):
    _write_raw(tmp_path)
    with caplog.at_level(logging.WARNING, logger=multinews.__name__):
        clusters = load_multinews(tmp_path, split="train")
    assert clusters.features == CLUSTER_FEATURES
    assert clusters.to_list() == [
        {"cluster_id": "train.src.cleaned:1", "documents": ["First article.\n\nIts second paragraph.",
                                                             "Second article."], "summary": "Summary one.\nMore."},
        {"cluster_id": "train.src.cleaned:2", "documents": ["Only article."], "summary": "Summary two."},
    ]
    # line 1: one empty document after the last separator; line 2: two; line 3: two, and the cluster itself
    assert "kept 2; skipped 5 empty documents, 1 clusters without documents" in caplog.text


def test_validation_split_reads_the_val_files_of_a_folder(tmp_path):
    _write_raw(tmp_path, "train")
    _write_raw(tmp_path, "val", ["Held-out article. ||||| Another."], ["– Held out."])
    assert split_file(tmp_path, "validation") == tmp_path / "val.src.cleaned"
    clusters = load_multinews(tmp_path, split="validation")
    assert clusters[0] == {"cluster_id": "val.src.cleaned:1", "documents": ["Held-out article.", "Another."],
                           "summary": "Held out."}


def test_raw_summaries_must_match_line_for_line(tmp_path):
    _write_raw(tmp_path, summaries=RAW_SUMMARIES[:2])
    with pytest.raises(DataError, match=r"train.src.cleaned has 3 clusters but .*train.tgt has 2 summaries"):
        load_multinews(tmp_path)


def test_a_folder_with_two_layouts_of_one_split_is_ambiguous(tmp_path):
    _write_raw(tmp_path)
    _write_src(tmp_path, ["a story_separator_special_tag b"], ["– s"])
    with pytest.raises(DataError, match=r"found \['train.txt.src', 'train.src.cleaned'\]"):
        load_multinews(tmp_path)


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(DataError, match="Multi-News data not found at .*nowhere"):
        split_file(tmp_path / "nowhere", "train")


# ---------------------------------------------------------------------------------------------------------------
# The hub routes, faked: (a) the raw files through hf_hub_download, (b) the Parquet export through load_dataset
# ---------------------------------------------------------------------------------------------------------------
def _raw_hub(folder, downloads):
    """An hf_hub_download that serves `folder` as the repository's data/ and records what it was asked for."""
    def download(repo_id, filename, repo_type=None, revision=None, **kwargs):
        downloads.append((repo_id, repo_type, filename, revision))
        path = folder / filename.removeprefix("data/")
        if not path.is_file():
            raise EntryNotFoundError(f"{filename} is not on the main branch")
        return str(path)

    return download


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _publish(monkeypatch, folder):
    """Make the checksum table hold the hashes of the raw files in `folder`, as if the hub had published them."""
    table = {f"data/{path.name}": _sha256(path) for path in folder.iterdir() if path.is_file()}
    monkeypatch.setattr(multinews, "RAW_FILE_SHA256", table)


def _export(rows, calls):
    def load_dataset(hub_id, config=None, split=None, **kwargs):
        calls.append((hub_id, config, split, kwargs.get("revision")))
        return Dataset.from_list(rows)

    return load_dataset


def _raise(error):
    def fail(*args, **kwargs):
        raise error

    return fail


def test_route_a_reads_the_raw_files_of_the_main_branch(tmp_path, monkeypatch):
    _write_raw(tmp_path, "val")
    _publish(monkeypatch, tmp_path)
    downloads, calls = [], []
    monkeypatch.setattr(multinews, "hf_hub_download", _raw_hub(tmp_path, downloads))
    monkeypatch.setattr(sources, "load_dataset", _export([], calls))
    clusters = load_multinews(None, split="validation")
    assert downloads == [(multinews.MULTINEWS_HUB_ID, "dataset", "data/val.src.cleaned", "main"),
                         (multinews.MULTINEWS_HUB_ID, "dataset", "data/val.tgt", "main")]
    assert calls == []  # the export is not asked for
    assert clusters["cluster_id"] == ["validation-0", "validation-1"]  # 0-based line numbers, as the export's rows
    assert clusters[0]["documents"] == ["First article.\n\nIts second paragraph.", "Second article."]


def test_hub_raw_file_names_are_the_loading_scripts():
    assert HUB_RAW_FILES == {"train": ("data/train.src.cleaned", "data/train.tgt"),
                             "validation": ("data/val.src.cleaned", "data/val.tgt"),
                             "test": ("data/test.src.cleaned", "data/test.tgt")}


def test_route_b_when_the_raw_files_are_missing(tmp_path, monkeypatch, caplog):
    downloads, calls = [], []
    monkeypatch.setattr(multinews, "hf_hub_download", _raw_hub(tmp_path, downloads))  # an empty data/ folder
    rows = [{"document": "A. \n B. ||||| C.", "summary": "– S."}]
    monkeypatch.setattr(sources, "load_dataset", _export(rows, calls))
    with caplog.at_level(logging.WARNING, logger=multinews.__name__):
        clusters = load_multinews(None, split="test")
    assert calls == [(multinews.MULTINEWS_HUB_ID, None, "test", None)]
    assert clusters[0] == {"cluster_id": "test-0", "documents": ["A.\nB.", "C."], "summary": "S."}
    assert "(a) the raw files data/test.src.cleaned and data/test.tgt" in caplog.text
    assert "EntryNotFoundError" in caplog.text and "trying the next route" in caplog.text


def test_both_routes_give_the_same_clusters(tmp_path, monkeypatch):
    _write_raw(tmp_path, "train")
    _publish(monkeypatch, tmp_path)
    monkeypatch.setattr(sources, "load_dataset", _export([], []))
    monkeypatch.setattr(multinews, "hf_hub_download", _raw_hub(tmp_path, []))
    raw = load_multinews(None).to_list()
    # The export as the loading script writes it: NEWLINE_CHAR -> "\n" (spaces kept), lines stripped.
    rows = [{"document": source.strip().replace("NEWLINE_CHAR", "\n"), "summary": summary.strip()}
            for source, summary in zip(RAW_SOURCES, RAW_SUMMARIES)]
    monkeypatch.setattr(sources, "load_dataset", _export(rows, []))
    monkeypatch.setattr(multinews, "hf_hub_download", _raise(LocalEntryNotFoundError("offline")))
    assert load_multinews(None).to_list() == raw


def test_offline_everywhere_is_an_offline_error_naming_the_three_routes(monkeypatch):
    monkeypatch.setattr(multinews, "hf_hub_download", _raise(LocalEntryNotFoundError("no connection")))
    monkeypatch.setattr(sources, "load_dataset", _raise(ConnectionError("no network")))
    with pytest.raises(OfflineError) as raised:
        load_multinews(None)
    message = str(raised.value)
    assert "(a) the raw files data/train.src.cleaned and data/train.tgt of alexfabbri/multi_news (revision main)" \
        in message
    assert "LocalEntryNotFoundError" in message
    assert "(b) the hub's Parquet export of alexfabbri/multi_news (revision refs/convert/parquet)" in message
    assert "(c) For a local copy" in message and "MULTINEWS_DIR" in message
    assert "download train.src.cleaned, train.tgt" in message


def test_files_missing_on_the_hub_are_a_data_error(tmp_path, monkeypatch):
    from datasets.exceptions import DatasetNotFoundError

    monkeypatch.setattr(multinews, "hf_hub_download", _raw_hub(tmp_path, []))
    monkeypatch.setattr(sources, "load_dataset", _raise(DatasetNotFoundError("no such dataset")))
    with pytest.raises(DataError, match=r"(?s)EntryNotFoundError.*DataError.*MULTINEWS_DIR") as raised:
        load_multinews(None, split="validation")
    assert not isinstance(raised.value, OfflineError)


def test_other_errors_of_route_a_are_not_swallowed(monkeypatch):
    calls = []
    monkeypatch.setattr(multinews, "hf_hub_download", _raise(PermissionError("cache folder not writable")))
    monkeypatch.setattr(sources, "load_dataset", _export([], calls))
    with pytest.raises(PermissionError, match="not writable"):
        load_multinews(None)
    assert calls == []


def test_a_damaged_raw_file_is_raised_not_replaced_by_the_export(tmp_path, monkeypatch):
    _write_raw(tmp_path, summaries=RAW_SUMMARIES[:1])
    _publish(monkeypatch, tmp_path)
    calls = []
    monkeypatch.setattr(multinews, "hf_hub_download", _raw_hub(tmp_path, []))
    monkeypatch.setattr(sources, "load_dataset", _export([], calls))
    with pytest.raises(DataError, match="has 1 summaries"):
        load_multinews(None)
    assert calls == []


def test_an_unknown_hub_split_is_a_config_error():
    with pytest.raises(ConfigError, match="no split 'dev'"):
        load_multinews(None, split="dev")


# ---------------------------------------------------------------------------------------------------------------
# The SHA-256 check of route (a)'s raw files
# ---------------------------------------------------------------------------------------------------------------
def test_the_published_table_covers_every_raw_file():
    assert set(RAW_FILE_SHA256) == {name for files in HUB_RAW_FILES.values() for name in files}
    assert all(re.fullmatch("[0-9a-f]{64}", digest) for digest in RAW_FILE_SHA256.values())
    assert RAW_FILE_SHA256["data/train.src.cleaned"] == (  # tfds checksums.tsv, as copied by hand
        "627781c8ce55d528fcdacd495db45583a915e2d24b7983b0a5a6693ede933bb1")


def test_a_file_with_its_published_hash_passes(tmp_path, monkeypatch):
    raw = _write_raw(tmp_path)
    monkeypatch.setattr(multinews, "RAW_FILE_SHA256", {"data/train.src.cleaned": _sha256(raw)})
    verify_raw_file("data/train.src.cleaned", raw)


def test_a_mismatch_names_the_file_both_hashes_and_the_fix(tmp_path, monkeypatch):
    raw = _write_raw(tmp_path)
    monkeypatch.setattr(multinews, "RAW_FILE_SHA256", {"data/train.src.cleaned": "0" * 64})
    with pytest.raises(DataError) as raised:
        verify_raw_file("data/train.src.cleaned", raw)
    message = str(raised.value)
    assert "data/train.src.cleaned" in message and "0" * 64 in message and _sha256(raw) in message
    assert f"Delete the cached copy {raw.resolve()}" in message and "MULTINEWS_DIR" in message


def test_a_mismatch_links_to_the_blob_the_cache_holds(tmp_path, monkeypatch):
    blob = tmp_path / "blobs" / "abc"
    blob.parent.mkdir()
    blob.write_bytes(b"damaged")
    link = tmp_path / "snapshots" / "train.tgt"
    link.parent.mkdir()
    link.symlink_to(blob)
    monkeypatch.setattr(multinews, "RAW_FILE_SHA256", {"data/train.tgt": "0" * 64})
    with pytest.raises(DataError, match=re.escape(f"Delete the cached copy {blob} (and {link}, which links to it)")):
        verify_raw_file("data/train.tgt", link)


def test_route_a_raises_a_mismatch_and_does_not_fall_back_to_the_export(tmp_path, monkeypatch):
    _write_raw(tmp_path)
    monkeypatch.setattr(multinews, "RAW_FILE_SHA256", dict.fromkeys(RAW_FILE_SHA256, "0" * 64))
    calls = []
    monkeypatch.setattr(multinews, "hf_hub_download", _raw_hub(tmp_path, []))
    monkeypatch.setattr(sources, "load_dataset", _export([], calls))
    with pytest.raises(DataError, match="raw file data/train.src.cleaned of alexfabbri/multi_news"):
        load_multinews(None)
    assert calls == []


def test_a_file_is_hashed_once_until_it_changes(tmp_path, monkeypatch):
    raw = _write_raw(tmp_path)
    monkeypatch.setattr(multinews, "RAW_FILE_SHA256", {"data/train.src.cleaned": _sha256(raw)})
    hashed = multinews._file_sha256.cache_info().misses  # the memo's misses: the files actually read and hashed
    for _ in range(3):
        verify_raw_file("data/train.src.cleaned", raw)
    assert multinews._file_sha256.cache_info().misses == hashed + 1
    raw.write_text("Another cluster. |||||\n", encoding="utf-8")  # a new size: the memo's key changes
    with pytest.raises(DataError, match="data/train.src.cleaned"):
        verify_raw_file("data/train.src.cleaned", raw)
    assert multinews._file_sha256.cache_info().misses == hashed + 2


def test_the_environment_can_name_another_table(tmp_path, monkeypatch, caplog):
    raw = _write_raw(tmp_path)
    table = tmp_path / "checksums.json"
    table.write_text(json.dumps({"data/train.src.cleaned": _sha256(raw)}), encoding="utf-8")
    monkeypatch.setenv(multinews.CHECKSUMS_VARIABLE, str(table))
    with caplog.at_level(logging.WARNING, logger=multinews.__name__):
        verify_raw_file("data/train.src.cleaned", raw)
    assert "not the published SHA-256" in caplog.text
    with pytest.raises(DataError, match="No SHA-256 is known for the Multi-News raw file data/train.tgt"):
        verify_raw_file("data/train.tgt", raw)


@pytest.mark.parametrize("content", [None, "[1, 2]", "{not json"])
def test_a_bad_table_in_the_environment_is_named(tmp_path, monkeypatch, content):
    table = tmp_path / "checksums.json"
    if content is not None:
        table.write_text(content, encoding="utf-8")
    monkeypatch.setenv(multinews.CHECKSUMS_VARIABLE, str(table))
    with pytest.raises(DataError, match=f"MULTINEWS_SHA256='{re.escape(str(table))}' should name a JSON file"):
        verify_raw_file("data/train.tgt", _write_raw(tmp_path))
