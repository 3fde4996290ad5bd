"""Notebook 02's order of work: the shared clusters, the base stage, every variant, and reuse of finished models
only when their run setup (`variants.run_setup`) is unchanged."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import DataError


def test_base_stage_configs_take_the_base_fields():
    from cdlm_nb.pretraining.stages import base_stage_config, base_stages
    from cdlm_nb.variants import attention_pattern_of

    config = get_profile("cpu").pretrain
    base = base_stage_config(config)
    assert (base.max_steps, base.per_device_batch_size, base.max_length) == (
        config.base_steps, config.base_batch_size, config.base_max_length)
    assert base.learning_rate == config.learning_rate and base.variants == ("base",)
    assert base.warmup_steps <= base.max_steps and attention_pattern_of("base") == "local"
    assert base.base_long_steps == 0  # the first stage's fingerprint does not depend on the second's length
    assert get_profile("gpu").pretrain.base_steps == 0  # Longformer-base is the paper's starting point
    (_, first, _), (name, long, inputs), (copy_name, copy, copy_inputs) = base_stages(config)
    assert first == base and name == "base-long" and attention_pattern_of(name) == "local"
    assert copy_name == "base-copy" and attention_pattern_of(copy_name) == "local"
    assert (copy.max_steps, copy.per_device_batch_size, copy.max_length, copy.lr_power) == (
        config.copy_steps, config.copy_batch_size, 2 * config.copy_span + 4, 0.0)
    assert f"{config.copy_batch_size} a step" in copy_inputs and "written again" in copy_inputs
    assert (long.max_steps, long.max_length, long.per_device_batch_size) == (
        config.base_long_steps, config.max_length, config.per_device_batch_size)
    assert "unrelated documents" in inputs and long.copy_steps == 0  # the copy stage comes after it
    assert [n for n, _, _ in base_stages(replace(config, base_long_steps=0, copy_steps=0))] == ["base"]


def test_the_stages_before_the_copy_stage_ignore_its_settings():
    """The copy fields are reset in the first two stages and left out of a fingerprint at their defaults, so
    stages trained before they existed (the shipped ones) still match."""
    from cdlm_nb.pretraining.stages import base_stage_config, long_stage_config
    from cdlm_nb.variants import run_setup

    config = get_profile("cpu").pretrain
    plain = replace(config, copy_steps=0, copy_batch_size=0, copy_share=0.0, copy_span=0, copy_probe_steps=0)
    with_copy = run_setup("base", 13, base_stage_config(config), 10)
    assert with_copy == run_setup("base", 13, base_stage_config(plain), 10)
    assert not any(key.startswith("copy_") for key in with_copy["config"])
    assert run_setup("base-long", 13, long_stage_config(config), 10) == run_setup(
        "base-long", 13, long_stage_config(plain), 10)
    assert run_setup("base-copy", 13, config, 10)["config"]["copy_share"] == config.copy_share


def test_only_the_copy_stage_repeats_spans_and_traces_the_probe(tiny_tokenizer, monkeypatch):
    from cdlm_nb.data.corpora import PretrainingClusters, world
    from cdlm_nb.encoders import Encoder
    from cdlm_nb.pretraining import stages
    from cdlm_nb.pretraining.curve import CopyProbeCurve
    from cdlm_nb.pretraining.repeated_spans import RepeatedSpanCollator

    made = world(get_profile("smoke").world).clusters
    word_clusters = PretrainingClusters("smoke world", made["train"], {"validation": made["dev"]})
    cpu, config = get_profile("cpu"), replace(get_profile("cpu").pretrain, copy_probe_steps=5)

    def collator(variant, config):
        monkeypatch.setattr(stages, "curves", lambda *args: [])
        monkeypatch.setattr(stages, "pretrain", lambda *args, **kwargs: kwargs["collator"])
        return stages.train_variant(variant, config, cpu, Encoder(None, tiny_tokenizer), word_clusters, "run")

    spans = collator("base-copy", config)
    assert isinstance(spans, RepeatedSpanCollator)
    assert (spans.max_length, spans.positions) == (config.max_length, config.copy_positions)
    assert collator("cdlm", config) is None and collator("base-long", config) is None
    assert collator("base-copy", replace(config, copy_share=0.0)) is None
    monkeypatch.undo()
    copy = stages.copy_stage_config(config)  # the copy stage traces no learning curve
    (probe,) = stages.curves("base-copy", copy, cpu, tiny_tokenizer, word_clusters)
    assert isinstance(probe, CopyProbeCurve) and probe.every == 5
    assert stages.curves("cdlm", copy, cpu, tiny_tokenizer, word_clusters) == []
    assert stages.curves("base-copy", replace(copy, copy_probe_steps=0), cpu, tiny_tokenizer, word_clusters) == []
    assert stages.curves("base-copy", copy, cpu, tiny_tokenizer, replace(word_clusters, heldout={})) == []


def test_the_long_base_stage_packs_unrelated_documents_to_the_full_length(tiny_encoder, word_clusters):
    from cdlm_nb.pretraining.inputs import pretraining_inputs

    tokenizer = tiny_encoder.tokenizer
    long = pretraining_inputs("base-long", word_clusters.train, tokenizer, 128, 8, seed=13)
    rand = pretraining_inputs("rand", word_clusters.train, tokenizer, 128, 8, seed=13)
    longest = max(len(ids) for ids in long["input_ids"])
    assert longest <= 128 and sum(map(len, long["input_ids"])) > sum(map(len, rand["input_ids"]))
    for sources in long["sources"]:  # each document from a different cluster
        clusters = [source.rsplit("/", 1)[0] for source in sources]
        assert len(set(clusters)) == len(clusters)


def test_a_finished_run_is_reused_only_with_the_same_setup(tmp_path, tiny_encoder):
    import json

    from cdlm_nb.pretraining.stages import finished_result, save_unchanged
    from cdlm_nb.support.artefacts import record_manifest
    from cdlm_nb.variants import RESULT_FILE, load_pretrained, model_dir, run_setup, shared_tokenizer

    config = get_profile("smoke").pretrain
    result = save_unchanged("cdlm", tiny_encoder, tmp_path, source="test", seed=13)
    assert result.steps == 0 and (result.model_dir / "model.safetensors").is_file()
    loaded = load_pretrained(tmp_path, "cdlm")
    assert loaded.tokenizer.get_vocab() == tiny_encoder.tokenizer.get_vocab()
    assert shared_tokenizer({"cdlm": loaded, "local": tiny_encoder}) is loaded.tokenizer

    # a model saved by `pretrain` carries its run setup: reused only when the setup asked for matches
    path = model_dir(tmp_path, "cdlm") / RESULT_FILE
    assert finished_result(tmp_path, "cdlm", config, n_train=6) is None  # "source": "test" setup
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "setup": run_setup("cdlm", config.seeds[0], config, 6)}))
    assert finished_result(tmp_path, "cdlm", config, n_train=6) is None  # edited after saving: damaged
    record_manifest(path.parent)  # as if saved that way
    assert finished_result(tmp_path, "cdlm", config, n_train=6).variant == "cdlm"
    assert finished_result(tmp_path, "cdlm", config, n_train=7) is None
    assert finished_result(tmp_path, "cdlm", replace(config, max_steps=5), n_train=6) is None
    assert finished_result(tmp_path, "local", config, n_train=6) is None
    # trained by `torchrun ... cdlm_nb pretrain` into this run folder: the same experiment, reused and said
    path.write_text(json.dumps({**data, "setup": run_setup("cdlm", config.seeds[0], config, 6, processes=2)}))
    record_manifest(path.parent)
    said = []
    assert finished_result(tmp_path, "cdlm", config, n_train=6, echo=said.append).variant == "cdlm"
    assert said and "pretrained on 2 processes" in said[0]


@pytest.mark.slow
def test_pretrain_variants_trains_once_then_reuses_the_finished_model(tmp_path, tiny_encoder, word_clusters):
    from cdlm_nb.pretraining.report import throughput_table
    from cdlm_nb.tooling.on_demand import pretrain_variants

    smoke = get_profile("smoke")
    profile = smoke.override(pretrain=replace(smoke.pretrain, variants=("local",), max_steps=2, max_length=128))
    messages = []
    first = pretrain_variants(profile, tiny_encoder, word_clusters, tmp_path, echo=messages.append)
    assert first[0].steps == 2 and (tmp_path / "models" / "local" / "model.safetensors").is_file()
    again = pretrain_variants(profile, tiny_encoder, word_clusters, tmp_path, echo=messages.append)
    assert again[0].steps == 2 and "reused" in messages[-1]
    assert throughput_table(again).loc["Local CDLM", "tokens"] == first[0].tokens
    pretrain_variants(profile, tiny_encoder, word_clusters, tmp_path, resume=False, echo=messages.append)
    assert "pretraining 2 steps" in messages[-2]


@pytest.mark.slow
def test_pretrain_base_trains_once_then_reuses_the_base_model(tmp_path, tiny_encoder, word_clusters):
    import json

    import torch

    from cdlm_nb.pretraining.stages import pretrain_base, starting_model

    smoke = get_profile("smoke")
    profile = smoke.override(
        pretrain=replace(smoke.pretrain, base_steps=2, base_batch_size=2, base_max_length=24, max_length=128,
                         copy_steps=0))  # the copy stage: test_shipped_base
    messages = []
    start, (base, long) = pretrain_base(profile, tiny_encoder, word_clusters, tmp_path, echo=messages.append)
    assert base.steps == 2 and "pretraining 2 steps on single documents" in messages[0]
    assert "full attention" in messages[0]
    assert long.steps == profile.pretrain.base_long_steps and "unrelated documents packed to 128" in messages[2]
    saved = json.loads((tmp_path / "models" / "base" / "config.json").read_text())
    assert saved["attention_window"] == [48, 48]  # full attention over the first stage's 24 tokens
    saved = json.loads((tmp_path / "models" / "base-long" / "config.json").read_text())
    assert saved["attention_window"] == [256, 256]  # full attention over the second stage's 128 tokens
    assert set(start.model.config.attention_window) == {smoke.encoder.attention_window}  # then the profile's window
    attention = start.model.longformer.encoder.layer[0].attention.self
    assert torch.equal(attention.query_global.weight, attention.query.weight)
    positions = start.model.longformer.embeddings.position_embeddings.weight
    first = start.model.config.pad_token_id + 1  # the trained positions 0-127, copied out to the full length
    assert torch.equal(positions[first + 128:first + 256], positions[first:first + 128])
    assert not torch.equal(positions[first + 24:first + 48], positions[first:first + 24])  # trained apart
    assert not torch.equal(start.model.longformer.embeddings.word_embeddings.weight,
                           tiny_encoder.model.longformer.embeddings.word_embeddings.weight)  # trained; input untouched
    again, _ = pretrain_base(profile, tiny_encoder, word_clusters, tmp_path, echo=messages.append)
    assert "reused" in messages[-1] and "reused" in messages[-2]
    assert torch.equal(again.model.longformer.embeddings.position_embeddings.weight,
                       start.model.longformer.embeddings.position_embeddings.weight)
    no_base = profile.override(pretrain=replace(profile.pretrain, base_steps=0))
    unchanged, none = pretrain_base(no_base, tiny_encoder, word_clusters, tmp_path)
    assert unchanged is tiny_encoder and none == []
    reloaded = starting_model(profile, tmp_path)  # what notebook 03 measures as the start
    for name, weight in start.model.state_dict().items():
        assert torch.equal(reloaded.model.state_dict()[name], weight), name
    first_only = starting_model(profile, tmp_path, stages=1)  # the start without the long stage: copies only
    copied = first_only.model.longformer.embeddings.position_embeddings.weight
    assert torch.equal(copied[first + 24:first + 48], copied[first:first + 24])
    with pytest.raises(DataError, match=r"saved the pretrained model\(s\) \['base-long'\].*--only 02"):
        starting_model(profile, tmp_path / "elsewhere")
    assert starting_model(no_base, tmp_path) is None


def test_variants_get_a_learning_curve_on_the_validation_clusters_when_asked(tiny_encoder, word_clusters):
    from cdlm_nb.data.corpora import PretrainingClusters
    from cdlm_nb.pretraining.curve import PerplexityCurve
    from cdlm_nb.pretraining.stages import base_stage_config, curves

    smoke = get_profile("smoke")
    config, tokenizer = replace(smoke.pretrain, max_length=128), tiny_encoder.tokenizer
    with_validation = PretrainingClusters("test", word_clusters.train, {"validation": word_clusters.train})
    (curve,) = curves("cdlm", config, smoke, tokenizer, with_validation)  # no copy probe outside the copy stage
    assert isinstance(curve, PerplexityCurve) and curve.every == config.curve_steps > 0
    assert len(curve.examples) == len(word_clusters.train) and curve.variant == "cdlm"
    assert curves("cdlm", config, smoke, tokenizer, word_clusters) == []  # no validation clusters
    assert curves("cdlm", replace(config, curve_steps=0), smoke, tokenizer, with_validation) == []
    assert base_stage_config(config).curve_steps == 0  # the start is step 0 of every variant's curve


def test_the_gpu_default_takes_the_released_checkpoints_and_skips_the_ablations(tmp_path, tiny_encoder,
                                                                                 word_clusters, monkeypatch):
    """On gpu, PRETRAIN_STEPS left at None: Longformer and CDLM are saved as they are and nothing is pretrained
    (days per ablation on one GPU); the gpu profile's starting checkpoint is the pretrained encoder."""
    from cdlm_nb import encoders
    from cdlm_nb.pretraining import stages
    from cdlm_nb.tooling import on_demand

    def no_training(*args, **kwargs):
        raise AssertionError("nothing may be pretrained with the released CDLM")

    monkeypatch.setattr(encoders, "from_hub", lambda name, head_from=None: tiny_encoder)
    monkeypatch.setattr(stages, "train_variant", no_training)
    said = []
    results = on_demand.pretrain_variants(get_profile("gpu-rehearsal"), tiny_encoder, word_clusters, tmp_path,
                                       echo=said.append)
    assert [result.variant for result in results] == ["longformer", "cdlm"]
    assert sum("skipped" in line for line in said) == 3  # Local, Rand and Prefix CDLM, each said


def test_pretrain_steps_default_to_the_release_on_gpu_and_to_the_profile_elsewhere():
    from cdlm_nb.pretraining.stages import notebook_steps, with_steps
    from cdlm_nb.support.errors import ConfigError

    gpu, cpu = get_profile("gpu"), get_profile("cpu")
    assert notebook_steps(gpu, None) == 0 and notebook_steps(gpu, 300) == 300
    assert notebook_steps(cpu, None) == cpu.pretrain.max_steps
    with pytest.raises(ConfigError, match="no released checkpoint"):
        notebook_steps(cpu, 0)
    with pytest.raises(ConfigError, match="PRETRAIN_STEPS=-1"):
        notebook_steps(gpu, -1)
    short = with_steps(gpu.pretrain, 300)
    assert (short.max_steps, short.warmup_steps) == (300, 30)  # the paper's 500 warm-up steps cut to a tenth
    assert with_steps(cpu.pretrain, cpu.pretrain.max_steps) is cpu.pretrain  # the run's fingerprint unchanged


def test_pretrain_steps_pretrain_every_variant_but_longformer_on_gpu(tmp_path, tiny_encoder, word_clusters,
                                                                      monkeypatch):
    from cdlm_nb.pretraining import stages
    from cdlm_nb.tooling import on_demand

    trained = []
    monkeypatch.setattr(stages, "reuse_or_pretrain", lambda variant, config, *a, **k: trained.append(
        (variant, config.max_steps)))
    on_demand.pretrain_variants(get_profile("gpu-rehearsal"), tiny_encoder, word_clusters, tmp_path, pretrain_steps=7,
                             echo=lambda line: None)
    assert trained == [(v, 7) for v in ("local", "rand", "prefix", "cdlm")]


def test_a_damaged_finished_model_is_said_and_not_reused(tmp_path, tiny_encoder):
    import json

    from cdlm_nb.pretraining.stages import finished_result, save_unchanged
    from cdlm_nb.support.artefacts import record_manifest
    from cdlm_nb.variants import RESULT_FILE, model_dir, run_setup

    config = get_profile("smoke").pretrain
    folder = save_unchanged("cdlm", tiny_encoder, tmp_path, source="test", seed=13).model_dir
    data = json.loads((folder / RESULT_FILE).read_text())
    (folder / RESULT_FILE).write_text(json.dumps({**data, "setup": run_setup("cdlm", config.seeds[0], config, 6)}))
    record_manifest(folder)
    assert finished_result(tmp_path, "cdlm", config, n_train=6) is not None
    (folder / "model.safetensors").write_bytes((folder / "model.safetensors").read_bytes()[:1000])
    said = []
    assert finished_result(tmp_path, "cdlm", config, n_train=6, echo=said.append) is None
    assert said == [f"CDLM: the saved model in {model_dir(tmp_path, 'cdlm')} is damaged, rebuilding it: "
                    f"{folder / 'model.safetensors'} is truncated (1,000 bytes; "
                    f"{json.loads((folder / 'manifest.json').read_text())['files']['model.safetensors']['bytes']:,}"
                    " when saved)"]


@pytest.mark.slow
def test_notebook_02_with_resume_rebuilds_a_damaged_model(tmp_path, tiny_encoder, word_clusters):
    """The issue's scenario in small: a finished model truncated to 1,000 bytes is said and trained again."""
    from cdlm_nb.tooling.on_demand import pretrain_variants
    from cdlm_nb.variants import load_pretrained

    smoke = get_profile("smoke")
    profile = smoke.override(pretrain=replace(smoke.pretrain, variants=("local",), max_steps=2, max_length=128))
    pretrain_variants(profile, tiny_encoder, word_clusters, tmp_path, echo=print)
    weights = tmp_path / "models" / "local" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(DataError, match=r"model.safetensors is truncated.*cdlm-nb run --profile smoke --only 02"):
        load_pretrained(tmp_path, "local", profile="smoke")
    messages = []
    again = pretrain_variants(profile, tiny_encoder, word_clusters, tmp_path, echo=messages.append)
    assert f"{weights} is truncated" in messages[0] and "is damaged, rebuilding it" in messages[0]
    assert "pretraining 2 steps" in messages[1] and again[0].steps == 2
    assert load_pretrained(tmp_path, "local") is not None


def test_at_zero_steps_a_finished_cdlm_is_kept_not_replaced_by_the_release(monkeypatch):
    """A CDLM pretrained by `torchrun ... cdlm_nb pretrain` into the run folder is what notebook 02 keeps; the
    release is fetched only when there is none."""
    from cdlm_nb.pretraining import stages

    finished = object()
    monkeypatch.setattr(stages, "reused", lambda variant, *args: finished if variant == "cdlm" else None)
    monkeypatch.setattr(stages, "save_released", lambda variant, *args: f"released {variant}")
    keep = stages.without_pretraining
    profile = get_profile("gpu-rehearsal")
    assert keep("cdlm", profile.pretrain, profile, None, None, "run") is finished
    assert keep("longformer", profile.pretrain, profile, None, None, "run") == "released longformer"
    said = []
    assert keep("rand", profile.pretrain, profile, None, None, "run", echo=said.append) is None
    assert "skipped" in said[0]
