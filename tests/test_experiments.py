"""Notebook-level steps: the shared clusters, reusing finished models, the missing-model message, Table 1 and
the computed reading of the perplexity results."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, replace

import numpy as np
import pytest

from cdlm_nb import experiments
from cdlm_nb.errors import DataError
from cdlm_nb.perplexity import PerplexityResult, bootstrap_interval, perplexity
from cdlm_nb.profiles import EncoderConfig, get_profile

pytest.importorskip("transformers")


def make_result(variant: str, mean_nll: list[float], tokens: int = 50) -> PerplexityResult:
    """A result whose clusters have the given mean NLL per masked token (all with `tokens` masked tokens)."""
    sums, counts = np.array(mean_nll) * tokens, np.full(len(mean_nll), tokens)
    low, high = bootstrap_interval(sums, counts, n_resamples=200)
    return PerplexityResult(variant, perplexity(sums, counts), low, high, int(counts.sum()), len(mean_nll),
                            tuple(f"c{i}" for i in range(len(mean_nll))), tuple(sums.tolist()),
                            tuple(counts.tolist()))


@pytest.fixture(scope="module")
def tiny_encoder():
    from transformers import set_seed

    from cdlm_nb.encoders import Encoder, tiny_longformer
    from cdlm_nb.tokenization import train_tokenizer

    tokenizer = train_tokenizer([f"word{i} name{i % 7} said" for i in range(200)], vocab_size=300)
    config = EncoderConfig(kind="tiny", max_length=128, attention_window=8, hidden_size=16, num_layers=1,
                           num_heads=2, intermediate_size=32, vocab_size=300, sentence_markers=False)
    set_seed(0)
    return Encoder(tiny_longformer(config, tokenizer), tokenizer)


# ---------------------------------------------------------------------------------------------------------------
def test_paper_table1_holds_both_versions_with_gaps_where_v1_had_no_row():
    table = experiments.paper_table1()
    assert list(table.index) == ["Longformer", "Local CDLM", "Rand CDLM", "Prefix CDLM", "CDLM"]
    assert table.loc["CDLM", "paper final test"] == 3.39
    assert table.loc["Prefix CDLM", "paper final validation"] == 3.20
    assert table.loc["Rand CDLM", "paper v1 validation"] == 1.88
    assert math.isnan(table.loc["Local CDLM", "paper v1 test"])
    # the paper's own reading: CDLM below Longformer, Local and Rand in both versions
    for version, rows in experiments.PAPER_TABLE1.items():
        for baseline in ("longformer", "local", "rand"):
            if baseline in rows:
                assert all(c < b for c, b in zip(rows["cdlm"], rows[baseline])), (version, baseline)


def test_findings_say_cdlm_wins_only_when_the_paired_interval_excludes_zero():
    rng = np.random.default_rng(0)
    base = rng.uniform(1.0, 3.0, size=30)  # clusters differ a lot in difficulty ...
    cdlm = make_result("cdlm", base.tolist())
    worse = make_result("local", (base + 0.2).tolist())  # ... but Local is worse on every one of them
    same = make_result("rand", (base + rng.normal(0, 0.01, size=30)).tolist())
    sentences = experiments.perplexity_findings([worse, same, cdlm], n_resamples=300)
    assert len(sentences) == 2
    assert "CDLM is lower" in sentences[0] and "excludes 0" in sentences[0]
    assert "includes 0" in sentences[1]
    verdict = experiments.perplexity_verdict([worse, same, cdlm], n_resamples=300)
    assert verdict.startswith("CDLM has a lower perplexity than 1 of the 2 models")
    assert "only partly reproduced" in verdict and "even" not in verdict
    reversed_ = experiments.perplexity_verdict([make_result("rand", (base - 0.2).tolist()), cdlm], n_resamples=300)
    assert "Rand CDLM even has a lower perplexity than CDLM" in reversed_


def test_verdict_agrees_with_the_paper_when_cdlm_is_clearly_best():
    base = np.linspace(1.0, 2.0, 20)
    results = [make_result(v, (base + shift).tolist()) for v, shift in
               (("longformer", 0.5), ("local", 0.3), ("rand", 0.2), ("cdlm", 0.0))]
    verdict = experiments.perplexity_verdict(results, n_resamples=200)
    assert "than 3 of the 3 models" in verdict and "agrees with the paper" in verdict
    nothing = experiments.perplexity_verdict([make_result(v, base.tolist()) for v in ("local", "cdlm")], n_resamples=200)
    assert "than 0 of the 1 models" in nothing and "is therefore not reproduced" in nothing
    with pytest.raises(DataError, match="no 'cdlm' result"):
        experiments.perplexity_verdict(results[:3])


def test_our_table1_puts_intervals_beside_the_paper():
    results = [make_result(v, [1.0, 1.2, 1.1]) for v in ("longformer", "cdlm")]
    table = experiments.our_table1({"validation": results, "test": results})
    assert table.loc["CDLM", "ours test"] == pytest.approx(results[1].ppl)
    assert table.loc["CDLM", "ours test 95% CI"].startswith("[")
    assert table.loc["CDLM", "paper final test"] == 3.39
    assert "Local CDLM" in table.index  # the paper's rows stay even when we did not train that model


def test_missing_models_name_the_notebook_and_the_command(tmp_path):
    profile = get_profile("smoke")
    with pytest.raises(DataError) as error:
        experiments.load_pretrained_models(tmp_path, profile)
    message = str(error.value)
    assert "notebook 02" in message and "--profile smoke --only 02" in message and str(tmp_path) in message
    assert "'cdlm'" in message and "'longformer'" in message


def test_saved_model_is_reloaded_and_a_finished_run_is_reused_only_with_the_same_setup(tmp_path, tiny_encoder):
    from cdlm_nb.pretraining import RESULT_FILE, load_pretrained, model_dir

    profile = get_profile("smoke")
    result = experiments.save_unchanged("cdlm", tiny_encoder, tmp_path, source="test", seed=13)
    assert result.steps == 0 and (result.model_dir / "model.safetensors").is_file()
    loaded = load_pretrained(tmp_path, "cdlm")
    assert loaded.tokenizer.get_vocab() == tiny_encoder.tokenizer.get_vocab()
    assert experiments.shared_tokenizer({"cdlm": loaded, "local": tiny_encoder}) is loaded.tokenizer

    # a model saved by `pretrain` carries its setup: reused only when the profile's setup matches
    path = model_dir(tmp_path, "cdlm") / RESULT_FILE
    assert experiments.finished_result(tmp_path, "cdlm", profile, n_train=6) is None  # "source": "test" setup
    data = json.loads(path.read_text())
    data["setup"] = {"variant": "cdlm", "seed": 13, "config": json.loads(json.dumps(asdict(profile.pretrain))),
                     "examples": 6}
    path.write_text(json.dumps(data))
    assert experiments.finished_result(tmp_path, "cdlm", profile, n_train=6).variant == "cdlm"
    assert experiments.finished_result(tmp_path, "cdlm", profile, n_train=7) is None
    changed = profile.override(pretrain=replace(profile.pretrain, max_steps=5))
    assert experiments.finished_result(tmp_path, "cdlm", changed, n_train=6) is None
    assert experiments.finished_result(tmp_path, "local", profile, n_train=6) is None


def test_models_with_another_vocabulary_are_refused(tiny_encoder):
    from cdlm_nb.encoders import Encoder
    from cdlm_nb.tokenization import train_tokenizer

    other = Encoder(tiny_encoder.model, train_tokenizer(["completely different text here"] * 5, vocab_size=280))
    with pytest.raises(DataError, match="another vocabulary"):
        experiments.shared_tokenizer({"cdlm": tiny_encoder, "rand": other})


def test_smoke_clusters_are_split_by_topic_and_packed_like_pretraining():
    profile = get_profile("smoke")
    clusters = experiments.load_pretraining_clusters(profile)
    assert set(clusters.heldout) == set(experiments.HELDOUT_SPLITS)
    assert clusters.sizes()["train"] == len(clusters.train) > 0
    topics = {split: {cid.split("_")[0] for cid in data["cluster_id"]} for split, data in
              {"train": clusters.train, **clusters.heldout}.items()}
    assert not topics["train"] & topics["test"] and not topics["validation"] & topics["test"]
    again = experiments.load_pretraining_clusters(profile)
    assert list(again.heldout["test"]["documents"]) == list(clusters.heldout["test"]["documents"])  # a pure function


def test_heldout_clusters_give_one_example_each_within_the_pretraining_length():
    from datasets import Dataset

    from cdlm_nb.data.schemas import CLUSTER_FEATURES
    from cdlm_nb.tokenization import train_tokenizer

    profile = get_profile("smoke")
    documents = [[f"report {c} number {d} said the mayor of town{c}" for d in range(n)] for c, n in
                 enumerate((2, 3, 1))]
    clusters = Dataset.from_list([{"cluster_id": f"t{c}", "documents": docs, "summary": ""}
                                  for c, docs in enumerate(documents)], features=CLUSTER_FEATURES)
    tokenizer = train_tokenizer([doc for docs in documents for doc in docs], vocab_size=300)
    examples = experiments.heldout_examples(clusters, tokenizer, profile)
    assert list(examples["cluster_id"]) == ["t0", "t1"]  # the single-document cluster has no cross-document context
    assert "1 clusters with fewer than 2 documents skipped" in examples.info.description
    assert max(len(ids) for ids in examples["input_ids"]) <= profile.pretrain.max_length


def word_clusters() -> experiments.PretrainingClusters:
    """Six training clusters of three four-word documents, for the pretraining loops."""
    from datasets import Dataset

    from cdlm_nb.data.schemas import CLUSTER_FEATURES

    rows = [{"cluster_id": f"c{c}", "summary": "",
             "documents": [f"word{c} name{c % 7} said word{d}" for d in range(3)]} for c in range(6)]
    return experiments.PretrainingClusters("test", Dataset.from_list(rows, features=CLUSTER_FEATURES), {})


@pytest.mark.slow
def test_pretrain_variants_trains_once_then_reuses_the_finished_model(tmp_path, tiny_encoder):
    clusters = word_clusters()
    smoke = get_profile("smoke")
    profile = smoke.override(pretrain=replace(smoke.pretrain, variants=("local",), max_steps=2, max_length=128))
    messages = []
    first = experiments.pretrain_variants(profile, tiny_encoder, clusters, tmp_path, echo=messages.append)
    assert first[0].steps == 2 and (tmp_path / "models" / "local" / "model.safetensors").is_file()
    again = experiments.pretrain_variants(profile, tiny_encoder, clusters, tmp_path, echo=messages.append)
    assert again[0].steps == 2 and "reused" in messages[-1]
    assert experiments.throughput_table(again).loc["Local CDLM", "tokens"] == first[0].tokens
    experiments.pretrain_variants(profile, tiny_encoder, clusters, tmp_path, resume=False, echo=messages.append)
    assert "pretraining 2 steps" in messages[-2]


@pytest.mark.slow
def test_pretrain_base_trains_once_then_reuses_the_base_model(tmp_path, tiny_encoder):
    import torch
    clusters = word_clusters()
    smoke = get_profile("smoke")
    profile = smoke.override(
        pretrain=replace(smoke.pretrain, base_steps=2, base_batch_size=2, base_max_length=16, max_length=128))
    messages = []
    start, result = experiments.pretrain_base(profile, tiny_encoder, clusters, tmp_path, echo=messages.append)
    assert result.steps == 2 and "pretraining 2 steps" in messages[0]
    attention = start.model.longformer.encoder.layer[0].attention.self
    assert torch.equal(attention.query_global.weight, attention.query.weight)
    positions = start.model.longformer.embeddings.position_embeddings.weight
    first = start.model.config.pad_token_id + 1  # the trained positions 0-15, copied out to the full length
    assert torch.equal(positions[first + 16:first + 32], positions[first:first + 16])
    assert not torch.equal(start.model.longformer.embeddings.word_embeddings.weight,
                           tiny_encoder.model.longformer.embeddings.word_embeddings.weight)  # trained; input untouched
    again, _ = experiments.pretrain_base(profile, tiny_encoder, clusters, tmp_path, echo=messages.append)
    assert "reused" in messages[-1]
    assert torch.equal(again.model.longformer.embeddings.position_embeddings.weight,
                       start.model.longformer.embeddings.position_embeddings.weight)
    unchanged, none = experiments.pretrain_base(profile.override(pretrain=replace(profile.pretrain, base_steps=0)),
                                                tiny_encoder, clusters, tmp_path)
    assert unchanged is tiny_encoder and none is None
    reloaded = experiments.starting_model(profile, tmp_path)  # what notebook 03 measures as the start
    for name, weight in start.model.state_dict().items():
        assert torch.equal(reloaded.model.state_dict()[name], weight), name
    with pytest.raises(DataError, match=r"saved the pretrained model\(s\) \['base'\].*--only 02"):
        experiments.starting_model(profile, tmp_path / "elsewhere")
    assert experiments.starting_model(profile.override(pretrain=replace(profile.pretrain, base_steps=0)),
                                      tmp_path) is None


def test_attention_reach_table_puts_the_start_first_and_skips_local_models(tiny_encoder):
    from cdlm_nb.inputs import pack_clusters

    profile = get_profile("smoke")
    examples = pack_clusters(word_clusters().train, tiny_encoder.tokenizer, 64)
    models = {"local": tiny_encoder, "cdlm": tiny_encoder}
    reach = experiments.attention_reach_table(models, tiny_encoder.tokenizer, examples, profile, start=tiny_encoder)
    assert list(reach.index.get_level_values("model").unique()) == ["Start (before CD-MLM)", "CDLM"]
    # the same weights and the same masks give the same shares; each row sums to 100 %
    np.testing.assert_allclose(reach.loc["Start (before CD-MLM)"].to_numpy(), reach.loc["CDLM"].to_numpy())
    np.testing.assert_allclose(reach.sum(axis=1), 100.0, atol=1e-4)
    assert experiments.attention_reach_table({"local": tiny_encoder}, tiny_encoder.tokenizer, examples,
                                             profile).empty
