"""Perplexity on the world's fact tokens: which tokens state a fact stated elsewhere, alone, or none, and the
groups splitting exactly the masked tokens that `evaluate_perplexity` scores."""

from __future__ import annotations

import math

import pytest

from cdlm_nb.perplexity import fact_tokens as ft


@pytest.fixture(scope="module")
def world_test(tiny_tokenizer):
    """The smoke world's test clusters packed at 600 tokens (several documents each), their fact statements and
    token groups."""
    from cdlm_nb.data.corpora import world
    from cdlm_nb.inputs import pack_clusters
    from cdlm_nb.profiles import get_profile

    made = world(get_profile("smoke").world)
    clusters, facts = made.clusters["test"], made.facts["test"]
    examples = pack_clusters(clusters, tiny_tokenizer, 600, seed=13, min_documents=2)
    return examples, clusters, facts, ft.world_token_groups(examples, clusters, facts, tiny_tokenizer)


def test_fact_tokens_decode_to_the_facts_and_shared_ones_are_stated_elsewhere(world_test, tiny_tokenizer):
    examples, clusters, facts, groups = world_test
    assert len(groups) == len(examples) and all(len(g) == len(r) for g, r in zip(groups, examples["input_ids"]))
    first = examples[0]
    values = {f["value"].lower() for f in facts if f["cluster_id"] == first["cluster_id"]}
    fact_ids = [i for i, g in zip(first["input_ids"], groups[0]) if g != ft.OTHER]
    decoded = tiny_tokenizer.decode(fact_ids).lower()
    assert any(value.split()[0] in decoded for value in values)
    anchors = [f for f in facts if f["cluster_id"] == first["cluster_id"] and f["anchor"] and f["correct"]]
    assert anchors and (groups[0] == ft.ELSEWHERE).any()  # every document states an anchor fact
    assert sum((g == ft.OTHER).sum() for g in groups) > sum((g != ft.OTHER).sum() for g in groups)


@pytest.fixture(scope="module")
def long_encoder(tiny_tokenizer):
    """The shared tiny encoder's size with 602 positions, for the 600-token examples."""
    from transformers import set_seed

    from cdlm_nb.encoders import Encoder, tiny_longformer
    from cdlm_nb.profiles import EncoderConfig
    from tests.conftest import TINY_ENCODER

    set_seed(0)
    config = EncoderConfig(**{**TINY_ENCODER, "max_length": 600})
    return Encoder(tiny_longformer(config, tiny_tokenizer).eval(), tiny_tokenizer)


def test_the_groups_split_the_masked_tokens_of_evaluate_perplexity(world_test, long_encoder, tiny_tokenizer):
    from cdlm_nb.perplexity.evaluate import evaluate_perplexity

    examples, _, _, groups = world_test
    whole = evaluate_perplexity(long_encoder.model, tiny_tokenizer, examples, "cdlm", n_resamples=50)
    split = ft.perplexity_by_fact_group(long_encoder.model, tiny_tokenizer, examples, groups, "cdlm", n_resamples=50)
    parts = [r for r in split.values() if r is not None]
    assert sum(r.n_tokens for r in parts) == whole.n_tokens
    total_nll = sum(r.n_tokens * math.log(r.ppl) for r in parts)
    assert total_nll == pytest.approx(whole.n_tokens * math.log(whole.ppl), rel=1e-5)


def test_table_metrics_and_readings_compare_with_cdlm(world_test, long_encoder, tiny_tokenizer):
    import copy

    import torch

    examples, _, _, groups = world_test
    other = copy.deepcopy(long_encoder.model)
    with torch.no_grad():
        other.lm_head.decoder.bias.add_(0.5 * torch.randn_like(other.lm_head.decoder.bias))
    results = {v: ft.perplexity_by_fact_group(m, tiny_tokenizer, examples, groups, v, n_resamples=50)
               for v, m in (("cdlm", long_encoder.model), ("local", other))}
    table = ft.fact_table(results, n_resamples=50)
    assert list(table.index) == ["CDLM", "Local CDLM"]
    assert ("fact stated in another document", "− CDLM") in table.columns
    metrics = ft.fact_metrics(results)
    assert metrics["perplexity/facts_elsewhere/cdlm"] == results["cdlm"]["facts_elsewhere"].ppl
    assert any("Local CDLM" in line for line in ft.fact_readings(results, n_resamples=50))
    ft.plot_fact_groups(results)


def test_world_fact_results_on_the_world_and_none_on_another_corpus(world_test, long_encoder, tiny_tokenizer):
    from dataclasses import replace

    from cdlm_nb.profiles import get_profile

    examples = world_test[0]
    smoke = get_profile("smoke")
    results = ft.world_fact_results({"cdlm": long_encoder}, tiny_tokenizer, examples, smoke)
    assert set(results) == {"cdlm"} and results["cdlm"]["other"].n_tokens > 0
    assert ft.world_fact_results({"cdlm": long_encoder}, tiny_tokenizer, examples,
                                 replace(smoke, data_source="hub")) is None
