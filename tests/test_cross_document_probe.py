import random

import pytest

from cdlm_nb.cross_document_probe import locate_facts, shared_fact_statements, witness_reads
from cdlm_nb.inputs import pack_cluster
from cdlm_nb.masking import CrossDocumentMLMCollator, collators_by_pattern
from cdlm_nb.tokenization import train_tokenizer

DOCUMENTS = [
    "Jurors convicted Yuki Petrov in Bulawayo. A fine of $978,703 was imposed. The trial lasted weeks.",
    "The trial lasted several weeks. Reporters waited outside. A fine of $978,703 was imposed on Petrov.",
    "Local radio stations interrupted their programmes. Yuki Petrov will appeal, his lawyers said.",
]




@pytest.fixture(scope="module")
def tokenizer():
    """Trained on these very documents (not the shared `tiny_tokenizer`): statements such as "978,703" then merge
    into few, longer tokens, the harder case for locating a statement's tokens by character offsets."""
    return train_tokenizer(DOCUMENTS * 10, vocab_size=320)


def fact(doc_index, text, name, correct=True):
    start = DOCUMENTS[doc_index].index(text)
    return {"doc_index": doc_index, "fact": name, "value": text, "char_start": start, "char_end": start + len(text),
            "correct": correct}


def test_locate_facts_finds_statement_tokens_in_the_packed_input(tokenizer):
    example = pack_cluster(DOCUMENTS, tokenizer, 512, random.Random(3))
    facts = [fact(0, "978,703", "fine"), fact(1, "978,703", "fine"), fact(2, "Yuki Petrov", "defendant"),
             fact(0, "Yuki Petrov", "defendant")]
    located = locate_facts(example, DOCUMENTS, facts, tokenizer)
    assert len(located) == 4
    for statement in located:
        text = tokenizer.decode([example.input_ids[p] for p in statement["positions"]]).strip()
        assert text == statement["value"]
        assert {example.doc_ids[p] for p in statement["positions"]} == {statement["doc"]}

    shared = shared_fact_statements(located)
    assert {s["fact"] for s in shared} == {"fine", "defendant"}
    for s in shared:
        assert s["target_doc"] != s["witness_doc"]
        assert s["distance"] == s["target"][0] - s["witness"][-1] > 0


def test_locate_facts_skips_documents_left_out(tokenizer):
    example = pack_cluster(DOCUMENTS, tokenizer, 45, random.Random(0))
    assert example.n_left_out > 0
    facts = [fact(d, "Yuki Petrov", "defendant") for d in (0, 2)]
    located = locate_facts(example, DOCUMENTS, facts, tokenizer)
    assert {s["doc"] for s in located} <= {example.documents.index(d) for d in (0, 2) if d in example.documents}
    assert len(located) == sum(d in example.documents for d in (0, 2))


def test_locate_facts_keeps_only_what_survived_truncation(tokenizer):
    example = pack_cluster(DOCUMENTS[:1], tokenizer, 24, random.Random(0))
    assert example.truncated
    facts = [fact(0, "Yuki Petrov", "defendant"), fact(0, "978,703", "fine")]
    located = locate_facts(example, DOCUMENTS, facts, tokenizer)
    assert [s["fact"] for s in located] == ["defendant"]
    assert max(located[0]["positions"]) < len(example.input_ids) - 2  # before </doc-s> </s>


def test_reading_the_witness_depends_on_the_variant(tokenizer):
    ids = list(range(10, 60))  # ordinary tokens, one long row
    collators = {p: CrossDocumentMLMCollator(tokenizer, pattern=p) for p in ("cdlm", "local", "prefix")}
    reads = witness_reads(collators, ids, {"target": [45, 46], "witness": [3, 4]}, window=8)
    assert reads == {"cdlm": True, "local": False, "prefix": True}
    assert not witness_reads(collators, ids, {"target": [45, 46], "witness": [20]}, window=8)["prefix"]


def test_witness_reads_asks_every_pattern(tokenizer):
    statement = {"target": [45, 46], "witness": [3, 4]}
    reads = witness_reads(collators_by_pattern(tokenizer, ("cdlm", "local")), list(range(10, 60)), statement, 8)
    assert reads == {"cdlm": True, "local": False}
