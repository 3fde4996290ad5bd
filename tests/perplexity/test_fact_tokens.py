"""Perplexity on the world's fact tokens: which tokens state a fact stated elsewhere, alone, or none, and the
groups splitting exactly the masked tokens that `evaluate_perplexity` scores."""

from __future__ import annotations

import math
import re

import numpy as np
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
    groups = ft.per_world_row(examples, clusters, facts, tiny_tokenizer, ft.token_groups, "world_test")
    return examples, clusters, facts, groups


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
    elsewhere = f"fact stated in another document ({results['cdlm']['facts_elsewhere'].n_tokens} masked tokens)"
    assert (elsewhere, "− CDLM") in table.columns
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


def _elsewhere(make_result, variant: str, mean_nll) -> dict:
    """A model scored on the fact-elsewhere tokens only: clusters with these mean NLLs, 20 masked tokens each."""
    result = make_result(variant, np.asarray(mean_nll) * 20, np.full(len(mean_nll), 20))
    return {group: result if group == "facts_elsewhere" else None for group in ft.FACT_GROUPS}


def _verdicts(line: str) -> dict[str, str]:
    """{model: its verdict} of one group's reading (`CDLM lower than Longformer: -2.91 (...) -> holds here; ...`)."""
    return dict(re.findall(r"CDLM lower than ([A-Z][\w ]*?): [+-][\d.]+ \(95 % paired bootstrap [^)]*\) -> ([a-z ]+)",
                           line))


def test_fact_readings_hold_only_beyond_the_paired_interval_and_the_seed_band(make_result, monkeypatch):
    from cdlm_nb.perplexity.bootstrap import paired_difference

    base = np.linspace(1.0, 2.0, 20)
    noise = np.random.default_rng(0).normal(0, 0.05, 20)
    results = {"longformer": _elsewhere(make_result, "longformer", base + 0.5),  # worse on every cluster
               "rand": _elsewhere(make_result, "rand", base + noise),  # no better, no worse
               "prefix": _elsewhere(make_result, "prefix", base - 0.3),  # better on every cluster
               "cdlm": _elsewhere(make_result, "cdlm", base)}
    group = {variant: by_group["facts_elsewhere"] for variant, by_group in results.items()}
    lead, low, _ = paired_difference(group["longformer"], group["cdlm"], 200)
    assert low > 0  # the interval excludes 0: the seed band decides
    _, low, high = paired_difference(group["rand"], group["cdlm"], 200)
    assert low < 0 < high

    def read(band_share: float) -> dict[str, str]:
        """The verdicts with Longformer's seed band at `band_share` of its lead, the others' near 0."""
        spread = {f"perplexity/facts_elsewhere/{v}": {"sd": 1e-3} for v in results}
        spread["perplexity/facts_elsewhere/longformer"] = {"sd": band_share * lead / 1.96}
        monkeypatch.setattr(ft.verdicts, "load_spread", lambda profile: spread)
        lines = ft.fact_readings(results, n_resamples=200, profile="cpu")
        assert len(lines) == 1 and lines[0].startswith(
            "- fact stated in another document (400 masked tokens, CDLM minus each model): CDLM lower than Longformer: "
            f"{-lead:+.2f} (95 % paired bootstrap ")  # groups without a result are left out
        return _verdicts(lines[0])

    assert read(0.99) == {"Longformer": "holds here", "Rand CDLM": "not resolved at this scale",
                          "Prefix CDLM": "reversed here"}
    assert read(1.01)["Longformer"] == "not resolved at this scale"  # inside the seed band
    (unmeasured,) = ft.fact_readings(results, n_resamples=200)  # no profile: no seed spread, nothing holds
    assert set(_verdicts(unmeasured).values()) == {"not resolved at this scale"}
    assert unmeasured.count("seed spread not measured") == 3
