"""ECB+ placed as the downloader leaves it: the downloader then has nothing to fetch, and the package's reader
finds all three standard splits, the test topics renumbered consistently from train topics."""

from __future__ import annotations

from pathlib import Path

import pytest

from cdlm_nb.data.ecbplus import (
    SENTENCES_CSV,
    TEST_TOPICS,
    XML_FOLDER,
    download,
    download_ecbplus,
    load_ecbplus,
    read_ecbplus,
)
from cdlm_nb.support.errors import DataError
from cdlm_nb.tooling.rehearsal.ecbplus_files import (
    place_ecbplus,
    renumber_document,
    renumber_sentences_csv,
    sources_of_test_topics,
)


@pytest.fixture(scope="module")
def placed(shared_data, tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("run") / "data" / "ecbplus"
    assert place_ecbplus(dest, shared_data) == dest
    return dest


def test_the_downloader_finds_the_corpus_in_place(placed, monkeypatch):
    def no_network(url, *args):
        raise AssertionError(f"fetched {url}")

    monkeypatch.setattr(download, "_fetch", no_network)
    assert download_ecbplus(placed) == placed
    assert sorted(path.name for path in placed.iterdir()) == sorted([XML_FOLDER, SENTENCES_CSV])
    topics = sorted(int(path.name) for path in (placed / XML_FOLDER).iterdir())
    assert topics == [topic for topic in range(1, 46) if topic not in (15, 17)]
    assert all(path.suffix == ".xml" for path in (placed / XML_FOLDER).rglob("*") if path.is_file())


def test_the_reader_sees_train_dev_and_test(placed):
    splits = load_ecbplus(placed, keep_all_sentences=True)
    assert sorted(splits) == ["dev", "test", "train"]
    assert all(len(splits[name]) and sum(map(len, splits[name]["mentions"])) for name in splits)
    assert sorted(set(splits["test"]["topic"]), key=int) == [str(topic) for topic in TEST_TOPICS]
    clusters = {name: {m["cluster_id"] for doc in splits[name]["mentions"] for m in doc} for name in splits}
    assert not clusters["test"] & (clusters["train"] | clusters["dev"])


def test_test_topics_repeat_their_source_topics_documents_and_validated_sentences(placed, shared_data):
    rows, report = read_ecbplus(placed, topics=[1, 36])
    assert not any(report.problems().values())
    by_topic = {topic: {row["doc_id"].split("_", 1)[1]: row for row in rows if row["topic"] == topic}
                for topic in ("1", "36")}
    assert by_topic["1"].keys() == by_topic["36"].keys()
    for name, row in by_topic["1"].items():
        copy = by_topic["36"][name]
        assert (copy["sentence_ids"], copy["sentences"]) == (row["sentence_ids"], row["sentences"])
        assert [m["text"] for m in copy["mentions"]] == [m["text"] for m in row["mentions"]]
    sample_csv, placed_csv = shared_data / "ecbplus" / SENTENCES_CSV, placed / SENTENCES_CSV
    assert _csv_lines(placed_csv, range(1, 36)) == _csv_lines(sample_csv, range(1, 36))
    assert _csv_lines(placed_csv, [36]) == [f"36,{line.split(',', 1)[1]}" for line in _csv_lines(sample_csv, [1])]


def _csv_lines(path: Path, topics) -> list[str]:
    """The lines of a validated-sentences CSV whose topic is in `topics`, in file order."""
    _, *lines = path.read_text(encoding="utf-8").split("\n")
    return [line for line in lines if int(line.split(",")[0]) in topics]


def test_renumbering_one_document():
    xml = ('<Document doc_name="1_3ecb.xml" doc_id="DOC12">\n<ACTION_OCCURRENCE m_id="5" instance_id="ACT7" />\n'
           '<CROSS_DOC_COREF r_id="9" note="ACT7" >\n<INTRA_DOC_COREF r_id="10" note="" >\n')
    assert renumber_document(xml, 1, 36) == (
        '<Document doc_name="36_3ecb.xml" doc_id="DOC12T36">\n<ACTION_OCCURRENCE m_id="5" instance_id="ACT7T36" />\n'
        '<CROSS_DOC_COREF r_id="9" note="ACT7T36" >\n<INTRA_DOC_COREF r_id="10" note="" >\n')
    with pytest.raises(DataError, match="topic 2 has no doc_name"):
        renumber_document(xml, 2, 37)


def test_renumbering_the_csv_replaces_the_test_topics_rows():
    text = "Topic,File,Sentence Number\n1,3ecb,0\n2,1ecb,4 \n36,1ecb,7\n1,3ecb,2"
    assert renumber_sentences_csv(text, {36: 1}) == (
        "Topic,File,Sentence Number\n1,3ecb,0\n2,1ecb,4 \n1,3ecb,2\n36,3ecb,0\n36,3ecb,2")


def test_test_topics_come_from_train_topics_in_order():
    sample = [topic for topic in range(1, 36) if topic not in (15, 17)]
    assert sources_of_test_topics(sample) == dict(zip(TEST_TOPICS, (1, 3, 4, 6, 7, 8, 9, 10, 11, 13)))
    assert sources_of_test_topics([*sample, 36]) == dict(zip(TEST_TOPICS[1:], (1, 3, 4, 6, 7, 8, 9, 10, 11)))
    with pytest.raises(DataError, match="10 are needed"):
        sources_of_test_topics([1, 2, 3])


def test_a_missing_sample_is_named(tmp_path):
    with pytest.raises(DataError, match=r"the ECB\+ sample folder not found at .*ecbplus"):
        place_ecbplus(tmp_path / "dest", tmp_path)
