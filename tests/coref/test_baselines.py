"""The same-head-lemma baseline: lemmas, heads, the clustering it predicts, and `cdlm-nb coref-baseline`."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.coref.baselines import head_lemma, head_lemma_assignment, head_lemma_scores, lemmatize, mention_head
from cdlm_nb.support.errors import ConfigError
from cdlm_nb.tooling.cli import main


@pytest.mark.parametrize(
    ("word", "lemma"),
    [
        ("killed", "kill"), ("shot", "shoot"), ("arrested", "arrest"), ("died", "die"), ("hit", "hit"),
        ("struck", "strike"), ("Announced", "announce"), ("announcing", "announce"), ("stopped", "stop"),
        ("occurred", "occur"), ("carried", "carry"), ("injuries", "injury"), ("churches", "church"),
        ("charges", "charge"), ("evacuated", "evacuate"), ("treated", "treat"), ("sentenced", "sentence"),
        ("acquired", "acquire"), ("named", "name"), ("joined", "join"), ("needed", "need"), ("agreed", "agree"),
        ("passes", "pass"), ("bring", "bring"), ("him", "he"), ("6.1", "6.1"),
    ],
)
def test_lemmatize(word, lemma):
    assert lemmatize(word) == lemma


@pytest.mark.parametrize(
    ("text", "kind", "head"),
    [
        ("roped in", "event", "roped"),
        ("was killed", "event", "killed"),
        ("took place", "event", "took"),
        ("set to host", "event", "set"),
        ("a deadly earthquake", "event", "earthquake"),
        ("the host of the Oscars", "entity", "host"),
        ("in Queens", "entity", "Queens"),
        ("Hugh Jackman", "entity", "Jackman"),
        ("Lindsay Lohan 's", "entity", "Lohan"),
        ("Monday , July 13 , 2009", "entity", "Monday"),
    ],
)
def test_mention_head(text, kind, head):
    tokens = text.split()
    assert tokens[mention_head(tokens, kind)] == head


def test_head_lemma_keeps_proper_names_and_accepts_another_lemmatizer():
    assert head_lemma(["Maurice", "Cheeks"], "entity") == "cheeks"  # a name, not a plural
    assert head_lemma(["the", "victims"], "entity") == "victim"
    assert head_lemma(["shootings"], "event", lemmatizer=str.upper) == "SHOOTINGS"
    with pytest.raises(ConfigError):
        mention_head(["a"], "relation")


def _document_row(doc_id: str, subtopic: str, tokens: list[str], mentions: list[tuple]) -> dict:
    """One COREF_FEATURES-like document of one sentence; mentions as (id, start, end, cluster)."""
    return {
        "doc_id": doc_id, "topic": subtopic.split("_")[0], "subtopic": subtopic, "sentence_ids": [0],
        "sentences": [tokens],
        "mentions": [
            {"mention_id": mid, "kind": "event", "sentence": 0, "start": s, "end": e, "cluster_id": c}
            for mid, s, e, c in mentions
        ],
    }


# Gold: A = {killed (d1), shooting (d1), killing (d2)}, B = {arrested (d2)}, C = {killed (d3, other subtopic)}.
ROWS = [
    _document_row("1_1ecb", "1_ecb", ["Gunman", "killed", "two", "in", "shooting"],
                  [("k1", 1, 2, "A"), ("s1", 4, 5, "A")]),
    _document_row("1_2ecb", "1_ecb", ["The", "killing", "led", "to", "arrests"],
                  [("k2", 1, 2, "A"), ("a2", 4, 5, "B")]),
    _document_row("1_1ecbplus", "1_ecbplus", ["Police", "killed", "a", "man"], [("k3", 1, 2, "C")]),
]


def test_head_lemma_merges_within_subtopics_only():
    assignment = head_lemma_assignment(ROWS, "event")
    assert assignment == {
        "k1": "1_ecb/kill", "s1": "1_ecb/shoot", "k2": "1_ecb/kill", "a2": "1_ecb/arrest", "k3": "1_ecbplus/kill",
    }
    assert head_lemma_assignment(ROWS, "event", group_by="corpus")["k3"] == "/kill"
    with pytest.raises(ConfigError):
        head_lemma_assignment(ROWS, "event", group_by="document")


def test_head_lemma_scores_by_hand():
    scores = head_lemma_scores(ROWS, kinds=("event",))["event"]
    # Response: {k1, k2}, {s1}, {a2}, {k3}; key: A = {k1, s1, k2}, B = {a2}, C = {k3}.
    # MUC R: A in 2 parts -> 3-2 = 1 over 2 = 1/2; P: {k1,k2} -> 1 over 1 = 1; F1 = 2/3.
    assert (scores.muc.recall, scores.muc.precision) == pytest.approx((1 / 2, 1))
    # B3 R: A (2²+1²)/3 = 5/3, B 1, C 1 -> (11/3)/5 = 11/15; P: 2²/2 + 1 + 1 + 1 = 5 over 5 = 1.
    assert (scores.bcub.recall, scores.bcub.precision) == pytest.approx((11 / 15, 1))
    # LEA R: A 3·(1 of 3 links) = 1, B 1, C 1 -> 3/5; P: {k1,k2} 2·1; singletons {a2}, {k3} are key singletons
    #   too (1 each) but {s1} is not (its key cluster A has 3 mentions: 0) -> 4/5.
    assert (scores.lea.recall, scores.lea.precision) == pytest.approx((3 / 5, 4 / 5))


@pytest.fixture
def one_dev_topic(shared_data, tmp_path):
    """An ECB+ folder holding only dev topic 2 (links to the shared sample; nothing is copied)."""
    source = shared_data / "ecbplus"
    (tmp_path / "ECB+").mkdir()
    (tmp_path / "ECB+" / "2").symlink_to(source / "ECB+" / "2", target_is_directory=True)
    (tmp_path / "ECBplus_coreference_sentences.csv").symlink_to(source / "ECBplus_coreference_sentences.csv")
    return tmp_path


def test_coref_baseline_cli(one_dev_topic, capsys):
    assert main(["coref-baseline", str(one_dev_topic), "--split", "dev", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"event", "entity"}
    assert set(result["event"]) == {"muc", "bcub", "ceafe", "lea", "conll"}
    assert 0.5 < result["event"]["conll"] <= 1
    assert main(["coref-baseline", str(one_dev_topic), "--split", "dev"]) == 0
    table = capsys.readouterr().out
    assert "Same head-lemma, ECB+ dev, event mentions" in table and "CoNLL" in table


def test_coref_baseline_cli_names_the_splits_present(one_dev_topic, capsys):
    assert main(["coref-baseline", str(one_dev_topic), "--split", "test"]) == 2
    assert "splits present: dev" in capsys.readouterr().err


def test_baseline_on_the_dev_split_is_in_the_papers_range(shared_data):
    # CDLM preprint (v1), Tables 2-3 (test topics): events CoNLL 76.5, entities 67.4; dev should land near.
    import warnings

    from cdlm_nb.data.ecbplus import read_ecbplus

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows, _ = read_ecbplus(shared_data / "ecbplus", split="dev")
    scores = head_lemma_scores(rows)
    assert 0.70 < scores["event"].conll < 0.83
    assert 0.62 < scores["entity"].conll < 0.78
