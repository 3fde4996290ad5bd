"""CoNLL-2012 reading, rows -> clusterings, and the `cdlm-nb score-coref` command."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.coref.mentions import coref_clusters
from cdlm_nb.coref.metrics import score_coreference
from cdlm_nb.support.errors import DataError
from cdlm_nb.tooling.cli import main
from cdlm_nb.tooling.official_files import document_key, format_scores, read_conll, score_conll_files
from tests.coref.test_mentions import ROWS

# Two documents in two blocks; cluster 1 ("Obama") crosses them, cluster 5 nests a mention inside another.
TWO_BLOCKS = """\
#begin document (doc1); part 000
doc1 0 0 Barack (1|(2)
doc1 0 1 Obama 1)
doc1 0 2 visited (4)
doc1 0 3 Paris (3)
doc1 0 4 . -

doc1 1 0 He (1)
doc1 1 1 left -
#end document
#begin document (doc2); part 000
doc2 0 0 Obama (1)
doc2 0 1 spoke (4)
doc2 0 2 to -
doc2 0 3 the (5
doc2 0 4 leader -
doc2 0 5 of -
doc2 0 6 the (5
doc2 0 7 party 5)|5)
#end document
"""


def as_sets(clusters) -> set[frozenset]:
    return {frozenset(cluster) for cluster in clusters}


def test_read_two_blocks_with_shared_ids(tmp_path):
    path = tmp_path / "key.conll"
    path.write_text(TWO_BLOCKS)
    parsed = read_conll(path)
    assert list(parsed.documents) == ["doc1", "doc2"]
    assert [len(s) for s in parsed.documents["doc1"]] == [5, 2]
    assert parsed.documents["doc1"][1][0] == ("doc1", "1", "0", "He")
    assert parsed.clusters == {
        "2": [("doc1", 0, 1)],
        "1": [("doc1", 0, 2), ("doc1", 5, 6), ("doc2", 0, 1)],  # token offsets over the whole block
        "4": [("doc1", 2, 3), ("doc2", 1, 2)],
        "3": [("doc1", 3, 4)],
        "5": [("doc2", 6, 8), ("doc2", 3, 8)],  # the inner (later-opened) mention closes first
    }


def test_within_document_ids_keep_blocks_apart(tmp_path):
    path = tmp_path / "key.conll"
    path.write_text(TWO_BLOCKS)
    clusters = read_conll(path, shared_ids=False).clusters
    assert clusters[("doc1", "1")] == [("doc1", 0, 2), ("doc1", 5, 6)]
    assert clusters[("doc2", "1")] == [("doc2", 0, 1)]


def test_document_key_of_headers():
    assert document_key("(ECB+/ecbplus_all); part 000") == "ECB+/ecbplus_all"
    assert document_key("(bc/cnn/00/cnn_0000); part 002") == "bc/cnn/00/cnn_0000; part 002"
    assert document_key("dev_events") == "dev_events"  # Cattan et al.'s gold files have no part


# A tiny COREF_FEATURES corpus: two documents of one subtopic.
ROWS_TOKENS = [
    ("1_1ecb 0 0 Lohan", "(0)", "(0)"), ("1_1ecb 0 1 checked", "-", "-"), ("1_1ecb 0 2 into", "-", "-"),
    ("1_1ecb 0 3 rehab", "(1)", "(1)"), None,
    ("1_1ecb 2 0 She", "(0)", "(0)"), ("1_1ecb 2 1 entered", "-", "-"), ("1_1ecb 2 2 rehab", "(1)", "(2)"),
    ("1_1ecb 2 3 again", "-", "-"), None,
    ("1_2ecb 1 0 Lindsay", "(0", "(2"), ("1_2ecb 1 1 Lohan", "0)", "2)"), ("1_2ecb 1 2 went", "-", "-"),
    ("1_2ecb 1 3 to", "-", "-"), ("1_2ecb 1 4 rehab", "(2)", "(1)"), None,
]


def rows_conll(column: int, blocks: list[tuple[str, int, int]]) -> str:
    """ROWS_TOKENS[start:end] of each (name, start, end) block, with the key (column 1) or the response (2)."""
    return "".join(f"#begin document ({name}); part 000\n" + "".join(
        "\n" if token is None else f"{token[0]} {token[column]}\n" for token in ROWS_TOKENS[start:end])
        + "#end document\n" for name, start, end in blocks)


def test_rows_match_a_conll_file_of_one_block_per_document(tmp_path):
    path = tmp_path / "key.conll"
    path.write_text(rows_conll(1, [("1_1ecb", 0, 10), ("1_2ecb", 10, 16)]))
    parsed = read_conll(path)
    assert as_sets(parsed.clusters.values()) == as_sets(coref_clusters(ROWS, "entity"))  # identical mentions
    assert parsed.documents["1_1ecb"][1][0] == ("1_1ecb", "2", "0", "She")


def test_single_block_files_score_like_in_memory_clusters(tmp_path):
    key = coref_clusters(ROWS, "entity")
    response = coref_clusters(ROWS, "entity", {"m1": 0, "m3": 1, "m4": 0, "m6": 2, "n1": 2, "n3": 1})
    key_path, response_path = tmp_path / "key.conll", tmp_path / "response.conll"
    key_path.write_text(rows_conll(1, [("dev_entities", 0, 16)]))
    response_path.write_text(rows_conll(2, [("dev_entities", 0, 16)]))
    spans = [[(0, 1), (4, 5)], [(3, 4), (12, 13)], [(6, 7), (8, 10)]]  # offsets over the block: 1_2ecb starts at 8
    assert as_sets(read_conll(response_path).clusters.values()) == as_sets(
        [[("dev_entities", *span) for span in cluster] for cluster in spans])
    assert score_conll_files(key_path, response_path) == score_coreference(key, response)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("#begin document (d); part 000\nd 0 0 a (1\nd 0 1 b -\n#end document\n", "line 2: mention '(1'"),
        ("#begin document (d); part 000\nd 0 0 a 1)\n#end document\n", "line 2: '1)' closes"),
        ("#begin document (d); part 000\nd 0 0 a (1]\n#end document\n", "line 2: malformed coreference"),
        ("#begin document (d); part 000\nd 0 0 a (1)|\n#end document\n", "line 2: malformed coreference"),
        ("#begin document (d); part 000\nlonely\n#end document\n", "line 2: malformed line"),
        ("d 0 0 a -\n", "line 1: token line outside"),
        ("#begin document (d); part 000\nd 0 0 a -\n", "has no '#end document'"),
        ("#begin document (d); part 000\n#begin document (e); part 000\n", "line 2: '#begin document' inside"),
        ("#end document\n", "line 1: '#end document' without"),
        ("\n", "no '#begin document' line"),
        ("#begin document (d); part 000\n#end document\n#begin document (d); part 000\n#end document\n",
         "line 3: document 'd' appears twice"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.conll"
    path.write_text(text)
    with pytest.raises(DataError, match="bad.conll") as error:
        read_conll(path)
    assert message in str(error.value)


def test_key_and_response_must_cover_the_same_documents(tmp_path):
    key = tmp_path / "key.conll"
    key.write_text(TWO_BLOCKS)
    other = tmp_path / "other.conll"
    other.write_text(TWO_BLOCKS.replace("doc2", "doc3"))
    with pytest.raises(DataError, match=r"in the key but not in the response: 'doc2'.*not in the key: 'doc3'"):
        score_conll_files(key, other)
    shorter = tmp_path / "shorter.conll"
    shorter.write_text(TWO_BLOCKS.replace("doc1 1 1 left -\n", ""))
    with pytest.raises(DataError, match=r"'doc1' \(7 vs 6 tokens\)"):
        score_conll_files(key, shorter)


def test_score_coref_cli_table_and_json(tmp_path, capsys):
    key = tmp_path / "key.conll"
    key.write_text(TWO_BLOCKS)
    # Response: "He" not linked to Obama (own cluster 9); everything else as in the key.
    response = tmp_path / "response.conll"
    response.write_text(TWO_BLOCKS.replace("doc1 1 0 He (1)", "doc1 1 0 He (9)"))
    assert main(["score-coref", str(key), str(response)]) == 0
    table = capsys.readouterr().out
    # MUC: key cluster 1 {Obama1, He, Obama2} is split in two parts -> recall (3-2 + 1 + 1)/(2 + 1 + 1) = 3/4;
    # precision: response cluster 1 {Obama1, Obama2} -> 1, cluster 4 -> 1, cluster 5 -> 1: 3/3.
    assert "MUC        75.00  100.00   85.71" in table
    assert main(["score-coref", str(key), str(response), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"muc", "bcub", "ceafe", "lea", "conll"}
    assert result["muc"] == pytest.approx({"recall": 0.75, "precision": 1.0, "f1": 6 / 7})
    assert all(0 <= result[m][k] <= 1 for m in ("muc", "bcub", "ceafe", "lea") for k in result[m])
    # Without singletons: key {1: 3 mentions, 4: 2, 5: 2}, response {1: 2, 4: 2, 5: 2} -> the same MUC.
    assert main(["score-coref", str(key), str(response), "--json", "--remove-singletons"]) == 0
    assert json.loads(capsys.readouterr().out)["muc"]["recall"] == pytest.approx(0.75)


def test_score_coref_cli_reports_bad_input(tmp_path, capsys):
    key = tmp_path / "key.conll"
    key.write_text(TWO_BLOCKS)
    assert main(["score-coref", str(key), str(tmp_path / "missing.conll")]) == 2
    assert "missing.conll" in capsys.readouterr().err


def test_format_scores_lists_every_metric():
    text = format_scores(score_coreference([list("abc"), list("defg")], [list("ab"), list("cd"), list("fghi")]))
    assert "MUC        40.00   40.00   40.00" in text
    assert "CEAF-e     65.00   43.33   52.00" in text
    assert text.splitlines()[-1].split() == ["CoNLL", "45.82"]
