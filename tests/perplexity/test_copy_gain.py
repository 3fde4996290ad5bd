"""The copy probe: which statements it probes, the two inputs it builds, and a gain of exactly 0 wherever the
attention pattern cannot reach the witnesses."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from cdlm_nb.masking import IGNORE_INDEX, CrossDocumentMLMCollator
from cdlm_nb.perplexity import copy_gain as cg
from cdlm_nb.perplexity.bootstrap import ratio_interval


@pytest.fixture(scope="module")
def world_test(tiny_tokenizer):
    """The smoke world's test clusters packed at 600 tokens and the copy probe's statements in them."""
    from cdlm_nb.data.corpora import world
    from cdlm_nb.inputs import pack_clusters
    from cdlm_nb.profiles import get_profile

    made = world(get_profile("smoke").world)
    examples = pack_clusters(made.clusters["test"], tiny_tokenizer, 600, seed=13, min_documents=2)
    return examples, cg.world_copy_targets(examples, made.clusters["test"], made.facts["test"], tiny_tokenizer)


@pytest.fixture(scope="module")
def long_model(tiny_tokenizer):
    """The shared tiny encoder's size (window 8, 2 layers) with 602 positions, for the 600-token examples."""
    from transformers import set_seed

    from cdlm_nb.encoders import tiny_longformer
    from cdlm_nb.profiles import EncoderConfig
    from tests.conftest import TINY_ENCODER

    set_seed(0)
    return tiny_longformer(EncoderConfig(**{**TINY_ENCODER, "max_length": 600}), tiny_tokenizer).eval()


def test_targets_are_statements_with_a_witness_in_another_document(world_test, tiny_tokenizer):
    examples, targets = world_test
    assert sum(map(len, targets)) > 0
    for row, row_targets in zip(examples, targets):
        doc_ids = np.asarray(row["doc_ids"])
        for probe in row_targets:
            assert probe.unit.startswith(row["cluster_id"] + "/")
            assert len(set(doc_ids[list(probe.target)])) == 1
            assert doc_ids[probe.target[0]] not in set(doc_ids[list(probe.witnesses)])
            said = tiny_tokenizer.decode([row["input_ids"][i] for i in probe.target]).split()
            witnessed = tiny_tokenizer.decode([row["input_ids"][i] for i in probe.witnesses])
            assert any(word in witnessed for word in said)  # the same fact, maybe worded otherwise ("May 3")


def test_the_pair_differs_only_at_the_witnesses_and_scores_only_the_statement(tiny_tokenizer):
    collator = CrossDocumentMLMCollator(tiny_tokenizer, pattern="cdlm", seed=3)
    original = torch.as_tensor(tiny_tokenizer("a b c d e f g h i j k l m n o p q r s t")["input_ids"])
    masked = collator.mask_row(original)
    target, witnesses = [2, 3], [10, 11, 12]
    readable, hidden = cg.probe_pair(original, masked.input_ids, masked.predicted, target, witnesses,
                                     tiny_tokenizer.mask_token_id, collator)
    mask = tiny_tokenizer.mask_token_id
    assert (readable["input_ids"][witnesses] == original[witnesses]).all()
    assert (hidden["input_ids"][witnesses] == mask).all() and (readable["input_ids"][target] == mask).all()
    differ = (readable["input_ids"] != hidden["input_ids"]).nonzero().flatten().tolist()
    assert set(differ) <= set(witnesses)
    assert (readable["labels"] != IGNORE_INDEX).nonzero().flatten().tolist() == target
    assert torch.equal(readable["global_attention_mask"], hidden["global_attention_mask"])
    assert readable["global_attention_mask"][target].all() and not readable["global_attention_mask"][witnesses].any()


def test_local_attention_gains_exactly_nothing_from_witnesses_out_of_reach(world_test, long_model, tiny_tokenizer):
    """Two layers of a window of 8 carry information 8 tokens at most: beyond that, hiding a witness changes
    nothing for the local pattern, while the same statements made global (CDLM) do read it."""
    examples, targets = world_test
    reach = long_model.config.num_hidden_layers * long_model.config.attention_window[0] // 2
    far = [[p for p in row if min(abs(w - t) for w in p.witnesses for t in p.target) > reach + 1]
           for row in targets]
    assert sum(map(len, far)) >= 5
    local = cg.copy_gain(long_model, tiny_tokenizer, examples, far, "local", n_resamples=50)
    assert set(local.gain_sums) == {0.0} and local.n_statements == sum(map(len, far))  # bit for bit
    cdlm = cg.copy_gain(long_model, tiny_tokenizer, examples, far, "cdlm", n_resamples=50)
    named = cg.copy_gain(long_model, tiny_tokenizer, examples, far, "cdlm", n_resamples=50, name="start")
    assert (local.variant, cdlm.variant, named.variant) == ("local", "cdlm", "start") and named.gain == cdlm.gain
    assert sum(g != 0.0 for g in cdlm.gain_sums) > len(cdlm.gain_sums) / 2  # random weights: moved, either way
    assert cdlm.hidden_nll - cdlm.readable_nll == pytest.approx(cdlm.gain, abs=1e-6)
    diff, low, high = cg.paired_gain_difference(cdlm, local, n_resamples=50)
    assert diff == pytest.approx(cdlm.gain) and low <= diff <= high
    assert cg.paired_gain_difference(cdlm, cdlm, n_resamples=50) == (0.0, 0.0, 0.0)
    metrics = cg.copy_metrics({"local": local, "cdlm": cdlm})
    assert set(metrics) == {f"copy_gain/{v}{s}" for v in ("local", "cdlm") for s in ("", "/ci_low", "/ci_high")}
    table = cg.copy_table({"local": local, "cdlm": cdlm}, n_resamples=50)
    assert table.index[0].startswith("floor") and len(table) == 3
    assert "at the floor" in cg.copy_readings({"local": local})[0]


def test_ratio_interval_brackets_the_ratio_and_is_a_point_for_a_constant_ratio():
    sums, counts = np.array([1.0, 4.0, 2.0, 0.5]), np.array([2, 4, 4, 1])
    low, high = ratio_interval(sums, counts, n_resamples=500)
    assert low <= sums.sum() / counts.sum() <= high and low < high
    assert ratio_interval(counts * 0.3, counts, n_resamples=100) == pytest.approx((0.3, 0.3))


def test_one_wording_per_copy_verdict_on_each_side_of_its_threshold():
    from cdlm_nb.perplexity.copy_gain import READS_THRESHOLD, TRACE_THRESHOLD, copy_verdict

    t, trace = READS_THRESHOLD, TRACE_THRESHOLD
    assert copy_verdict(t + 0.01, t + 0.5) == "reads"
    assert copy_verdict(t - 0.01, t + 0.5) == "trace"  # above the floor, not above the threshold
    assert copy_verdict(trace + 0.0005, 0.05) == "trace"
    assert copy_verdict(trace - 0.0005, 0.05) == "floor"  # clears 0, but not by the trace threshold
    assert copy_verdict(2e-8, 5e-7) == "floor"  # a local model's float residue (cpu: Local CDLM) is no trace
    assert copy_verdict(-0.01, 0.05) == "floor"
    assert copy_verdict(-0.2, -trace - 0.0005) == "hurt"
    assert copy_verdict(-0.2, -trace + 0.0005) == "floor"


def test_the_readings_say_reads_only_above_the_threshold():
    from cdlm_nb.perplexity.copy_gain import CopyGain, copy_readings

    gains = {"cdlm": CopyGain("cdlm", 1.2, 0.9, 1.5, 2.0, 3.2, 100, 10),
             "rand": CopyGain("rand", 0.03, 0.01, 0.06, 3.0, 3.03, 100, 10),
             "local": CopyGain("local", 2.5e-7, 2.3e-8, 5.5e-7, 3.0, 3.0, 100, 10),
             "prefix": CopyGain("prefix", -0.03, -0.06, -0.01, 3.03, 3.0, 100, 10)}
    assert copy_readings(gains) == [
        "CDLM: copy gain +1.200 nats/token (+0.900 to +1.500) — reads the other documents' statements (interval "
        "above 0.1 nats/token), saving 37.5% of its 3.20 nats/token.",
        "Rand CDLM: copy gain +0.030 nats/token (+0.010 to +0.060) — a trace above the floor (interval above 0.001, "
        "not above 0.1 nats/token): does not read them.",
        "Local CDLM: copy gain +0.000 nats/token (+0.000 to +0.000) — does not read them: at the floor (interval not "
        "clear of 0 by 0.001 nats/token).",
        "Prefix CDLM: copy gain -0.030 nats/token (-0.060 to -0.010) — is hurt by them (interval below -0.001 "
        "nats/token)."]
    (stricter,) = copy_readings({"cdlm": gains["cdlm"]}, threshold=1.0)  # the threshold is the one the reading says
    assert "a trace above the floor (interval above 0.001, not above 1.0 nats/token)" in stricter


def test_the_probe_reads_the_embedded_world_on_every_corpus(world_test, tiny_tokenizer):
    """On the embedded world the held-out examples themselves; on a hub corpus (gpu: Multi-News, which does not say
    which tokens state a fact) the world's test clusters packed with the models' own tokenizer."""
    from cdlm_nb.profiles import get_profile

    smoke = get_profile("smoke")
    examples, targets = world_test
    probed, probed_targets = cg.probe_set(examples, smoke, tiny_tokenizer)
    assert probed is examples and probed_targets == targets
    hub = smoke.override(data_source="hub", pretrain=replace(smoke.pretrain, max_length=600))  # room for witnesses
    packed, hub_targets = cg.probe_set(None, hub, tiny_tokenizer)
    assert len(packed) == len(hub_targets) and any(hub_targets)
    assert set(packed["cluster_id"]) <= set(examples["cluster_id"]) | set(packed["cluster_id"])
    assert max(len(ids) for ids in packed["input_ids"]) <= hub.pretrain.max_length


def test_the_positive_control_measures_every_model_and_the_start(long_model, tiny_tokenizer, world_texts):
    from cdlm_nb.encoders import Encoder

    encoder = Encoder(long_model, tiny_tokenizer)
    gains = cg.within_reach_gains({"cdlm": encoder}, tiny_tokenizer, world_texts, start=encoder)
    assert list(gains) == ["start", "cdlm"] and gains["start"] == gains["cdlm"]
    assert set(gains["cdlm"]) == {"same", "swapped"} and all(np.isfinite(list(gains["cdlm"].values())))
    metrics = cg.within_reach_metrics(gains)
    assert set(metrics) == {f"within_reach/{name}/{form}" for name in gains for form in ("same", "swapped")}
    assert metrics["within_reach/cdlm/swapped"] == gains["cdlm"]["swapped"]
