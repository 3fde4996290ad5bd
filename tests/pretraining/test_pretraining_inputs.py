"""The training inputs of each model: related clusters, unrelated documents (Rand), single documents."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import DataError
from cdlm_nb.tokenization import document_separator_ids


def test_inputs_per_variant(clusters, tiny_tokenizer):
    from cdlm_nb.pretraining.inputs import pretraining_inputs

    doc_start, _ = document_separator_ids(tiny_tokenizer)
    single = pretraining_inputs("longformer", clusters, tiny_tokenizer, 256, n_examples=1, seed=0)
    assert len(single) == sum(len(docs) for docs in clusters["documents"])
    assert all(row.count(doc_start) == 1 for row in single["input_ids"])

    related = pretraining_inputs("cdlm", clusters, tiny_tokenizer, 256, n_examples=1, seed=0)
    assert all(len({source.split("/")[0] for source in row}) == 1 for row in related["sources"])
    assert max(row.count(doc_start) for row in related["input_ids"]) > 1

    unrelated = pretraining_inputs("rand", clusters, tiny_tokenizer, 256, n_examples=1, seed=0)
    for row in unrelated["sources"]:
        assert len({source.split("/")[0] for source in row}) == len(row) > 1

    more = pretraining_inputs("cdlm", clusters, tiny_tokenizer, 256, n_examples=3 * len(clusters), seed=0)
    assert len(more) == 3 * len(clusters)


def test_single_documents_keep_every_document_once(clusters, tiny_tokenizer):
    from cdlm_nb.pretraining.inputs import pretraining_inputs

    single = pretraining_inputs("base", clusters, tiny_tokenizer, 256, n_examples=1, seed=0)
    assert single["cluster_id"][:2] == ["c0/0", "c0/1"] and single["sources"][:2] == [["c0/0/0"], ["c0/1/0"]]
    assert all(len(sources) == 1 for sources in single["sources"])


def test_no_inputs_is_an_error_that_says_why(clusters, tiny_tokenizer):
    from cdlm_nb.pretraining.inputs import pretraining_inputs

    with pytest.raises(DataError, match="no cdlm pretraining examples"):
        pretraining_inputs("cdlm", clusters.select([]), tiny_tokenizer, 256, n_examples=1, seed=0)


def _smoke(max_length: int = 128):
    smoke = get_profile("smoke")
    return smoke.override(pretrain=replace(smoke.pretrain, max_length=max_length, per_device_batch_size=2))


def test_cdlm_batch_is_cdlms_masked_tokens_made_global(tiny_encoder, word_clusters):
    from cdlm_nb.pretraining.inputs import cdlm_batch

    batch = cdlm_batch(_smoke(), word_clusters, tiny_encoder)
    predicted = batch["labels"] != -100
    assert batch["input_ids"].shape[0] == 1 and predicted.any()  # one input: HF's attention keeps its scores
    assert cdlm_batch(_smoke(), word_clusters, tiny_encoder, size=2)["input_ids"].shape[0] == 2
    assert (batch["global_attention_mask"].bool() | ~predicted).all()  # every predicted token is global
