"""CDA benchmark loader on a fixture CSV: sentences, \\001-marked positive sentences, ids, and bad rows."""

from __future__ import annotations

import csv
import logging

import pytest

from cdlm_nb.data import cda
from cdlm_nb.data.cda import MARKER, load_cda, split_marked_document
from cdlm_nb.data.schemas import PAIR_FEATURES
from cdlm_nb.support.errors import DataError

CITING = f"We study parsing. Prior work {MARKER} used chart parsers. Ours is faster."
CITED = "Chart parsing in cubic time. We give an algorithm."
SUSPICIOUS = f"Intro text.\tCopied sentence one.{MARKER} Copied sentence two.{MARKER}\tOwn ending."


def _write(tmp_path, rows, name="test_ai2_gorc.csv"):
    path = tmp_path / name
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def test_fixture_pairs(tmp_path):
    path = _write(tmp_path, [["1", CITING, CITED], ["0", "Unrelated text. Nothing cited.", CITED],
                             ["1", SUSPICIOUS, "Copied sentence one. Copied sentence two."]])
    pairs = load_cda(path)
    assert pairs.features == PAIR_FEATURES
    assert pairs["pair_id"] == ["test_ai2_gorc.csv:1", "test_ai2_gorc.csv:2", "test_ai2_gorc.csv:3"]
    assert pairs["label"] == [1, 0, 1]
    assert pairs["kind"] == ["positive", "", "positive"]
    first = pairs[0]
    assert first["doc_a"] == ["We study parsing.", "Prior work  used chart parsers.", "Ours is faster."]
    assert first["doc_b"] == ["Chart parsing in cubic time.", "We give an algorithm."]
    assert first["positive_sentences"] == [1]
    assert pairs[1]["positive_sentences"] == []
    assert pairs[2]["doc_a"] == ["Intro text.", "Copied sentence one.", "Copied sentence two.", "Own ending."]
    assert pairs[2]["positive_sentences"] == [1, 2]
    assert not any(MARKER in sentence for row in pairs for sentence in row["doc_a"] + row["doc_b"])


def test_marker_between_sentences_belongs_to_the_one_before():
    assert split_marked_document(f"One.{MARKER} Two.") == (["One.", "Two."], [0])
    assert split_marked_document(f"{MARKER}One. Two.") == (["One.", "Two."], [0])
    assert split_marked_document(f"One. {MARKER}Two.") == (["One.", "Two."], [1])


def test_pair_ids_follow_lines_of_multiline_rows(tmp_path):
    path = _write(tmp_path, [["1", "Line one.\nLine two.", CITED], ["0", "Next row.", CITED]])
    pairs = load_cda(path)
    assert pairs["pair_id"] == ["test_ai2_gorc.csv:1", "test_ai2_gorc.csv:3"]
    assert pairs[0]["doc_a"] == ["Line one.", "Line two."]


def test_markers_in_doc2_are_removed_and_logged(tmp_path, caplog):
    path = _write(tmp_path, [["1", CITING, f"Cited {MARKER}text."]])
    with caplog.at_level(logging.WARNING, logger=cda.__name__):
        pairs = load_cda(path)
    assert pairs[0]["doc_b"] == ["Cited text."]
    assert "removed 1 " in caplog.text


@pytest.mark.parametrize(
    "rows, message",
    [
        ([["1", CITING, CITED], ["0", CITING]], "line 2: expected 3 comma-separated columns, found 2"),
        ([["yes", CITING, CITED]], "line 1: label 'yes' is not 0 or 1"),
        ([["1", "  ", CITED]], "line 1: doc1 is empty"),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path, rows, message):
    with pytest.raises(DataError, match=message) as error:
        load_cda(_write(tmp_path, rows))
    assert "test_ai2_gorc.csv" in str(error.value)


def test_missing_file_says_where_to_get_it(tmp_path):
    with pytest.raises(DataError, match="Multilevel-Text-Alignment"):
        load_cda(tmp_path / "train.csv")
