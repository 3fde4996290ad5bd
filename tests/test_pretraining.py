"""Pretraining: inputs per variant, Trainer arguments, saving, loading and resuming an interrupted run."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from cdlm_nb.errors import ConfigError, DataError
from cdlm_nb.profiles import EncoderConfig, get_profile
from cdlm_nb.tokenization import document_separator_ids

pytest.importorskip("transformers")


def make_clusters(n_clusters: int = 12, docs_per_cluster: int = 4, words_per_doc: int = 15, seed: int = 0):
    """Stand-in clusters: documents of one cluster share a made-up name that only they contain."""
    from datasets import Dataset

    from cdlm_nb.data.schemas import CLUSTER_FEATURES

    rng = random.Random(seed)
    vocabulary = [f"word{i}" for i in range(60)]
    rows = []
    for c in range(n_clusters):
        name = f"Name{c}x"
        documents = [" ".join(name if rng.random() < 0.1 else rng.choice(vocabulary) for _ in range(words_per_doc))
                     for _ in range(docs_per_cluster)]
        rows.append({"cluster_id": f"c{c}", "documents": documents, "summary": ""})
    return Dataset.from_list(rows, features=CLUSTER_FEATURES)


@pytest.fixture(scope="module")
def clusters():
    return make_clusters()


@pytest.fixture(scope="module")
def tokenizer(clusters):
    from cdlm_nb.tokenization import train_tokenizer

    return train_tokenizer([doc for docs in clusters["documents"] for doc in docs], vocab_size=400)


@pytest.fixture(scope="module")
def model(tokenizer):
    from transformers import set_seed

    from cdlm_nb.encoders import tiny_longformer

    set_seed(0)
    encoder = EncoderConfig(kind="tiny", max_length=256, attention_window=16, hidden_size=32, num_layers=1,
                            num_heads=2, intermediate_size=64, vocab_size=400, sentence_markers=False)
    return tiny_longformer(encoder, tokenizer)


def tiny_config(**changes):
    base = replace(get_profile("smoke").pretrain, max_steps=2, per_device_batch_size=2, max_length=128,
                   logging_steps=1, save_steps=1000, warmup_steps=1)
    return replace(base, **changes)


# ---------------------------------------------------------------------------------------------------------------
def test_variants_map_to_their_attention_pattern():
    from cdlm_nb.pretraining import collator_variant, model_name

    assert collator_variant("longformer") == "local"
    assert collator_variant("cdlm") == "cdlm"
    assert model_name("cdlm", 13, tiny_config(seeds=(13, 14))) == "cdlm"
    assert model_name("cdlm", 14, tiny_config(seeds=(13, 14))) == "cdlm-seed14"
    with pytest.raises(ConfigError, match="choose one of"):
        collator_variant("bigbird")


def test_every_profile_keeps_the_paper_schedule_shape():
    for name in ("smoke", "cpu", "gpu"):
        config = get_profile(name).pretrain
        assert config.lr_power >= 1.0 and config.warmup_steps < config.max_steps  # warm-up, then polynomial decay
        assert max(config.max_length, config.base_max_length) <= get_profile(name).encoder.max_length
    gpu = get_profile("gpu").pretrain
    assert (gpu.max_length, gpu.per_device_batch_size * gpu.gradient_accumulation_steps) == (4096, 64)
    assert (gpu.learning_rate, gpu.warmup_steps, gpu.max_steps, gpu.fp16, gpu.lr_power) == (3e-5, 500, 25_000, True, 3.0)


def test_inputs_per_variant(clusters, tokenizer):
    from cdlm_nb.pretraining import pretraining_inputs

    doc_start, _ = document_separator_ids(tokenizer)
    single = pretraining_inputs("longformer", clusters, tokenizer, 128, n_examples=1, seed=0)
    assert len(single) == sum(len(docs) for docs in clusters["documents"])
    assert all(row.count(doc_start) == 1 for row in single["input_ids"])

    related = pretraining_inputs("cdlm", clusters, tokenizer, 128, n_examples=1, seed=0)
    assert all(len({source.split("/")[0] for source in row}) == 1 for row in related["sources"])
    assert max(row.count(doc_start) for row in related["input_ids"]) > 1

    unrelated = pretraining_inputs("rand", clusters, tokenizer, 128, n_examples=1, seed=0)
    for row in unrelated["sources"]:
        assert len({source.split("/")[0] for source in row}) == len(row) > 1

    more = pretraining_inputs("cdlm", clusters, tokenizer, 128, n_examples=3 * len(clusters), seed=0)
    assert len(more) == 3 * len(clusters)


def test_training_arguments_follow_the_config(tmp_path):
    from cdlm_nb.pretraining import training_arguments

    args = training_arguments(tiny_config(), "cdlm", tmp_path, seed=5, headless=True)
    assert args.lr_scheduler_type == "polynomial" and args.lr_scheduler_kwargs == {"power": 3.0}
    assert (args.adam_beta2, args.adam_epsilon, args.seed) == (0.98, 1e-6, 5)
    assert args.include_num_input_tokens_seen == "non_padding"
    assert not args.fp16  # no CUDA here: fp16 is asked for but not applied


@pytest.mark.slow
def test_pretrain_saves_a_loadable_model(tmp_path, clusters, tokenizer, model):
    import torch

    from cdlm_nb.pretraining import load_pretrained, load_result, plot_loss_curves, pretrain

    before = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    result = pretrain("cdlm", tiny_config(), model, tokenizer, clusters, tmp_path)

    assert result.steps == 2 and [step for step, _ in result.loss_history] == [1, 2]
    assert result.tokens > 0 and result.tokens_per_second > 0
    assert (result.model_dir / "model.safetensors").is_file()
    assert not (tmp_path / "checkpoints" / "cdlm").exists()  # a finished run leaves no checkpoint behind
    assert all(torch.equal(before[name], tensor) for name, tensor in model.state_dict().items())

    loaded = load_pretrained(tmp_path, "cdlm")
    assert loaded.tokenizer.get_vocab() == tokenizer.get_vocab()
    trained = dict(loaded.model.named_parameters())
    assert any(not torch.equal(trained[name], param) for name, param in model.named_parameters())
    assert load_result(tmp_path, "cdlm").loss_history == result.loss_history
    assert len(plot_loss_curves([result]).axes[0].lines) == 1


def test_load_pretrained_says_which_notebook_to_run(tmp_path):
    from cdlm_nb.pretraining import load_pretrained

    with pytest.raises(DataError, match=r"run notebook 02 \(or `cdlm-nb run --only 02 --profile cpu`\)"):
        load_pretrained(tmp_path / "cpu", "rand")


class Interrupt(Exception):
    """Stands for a crash or a Ctrl-C right after a checkpoint was written."""


def _interrupt_at(step: int):
    from transformers import TrainerCallback

    class InterruptAfterSave(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            if state.global_step == step:
                raise Interrupt

    return InterruptAfterSave()


@pytest.mark.slow
def test_an_interrupted_run_resumes_where_it_stopped(tmp_path, clusters, tokenizer, model):
    from cdlm_nb.pretraining import pretrain

    config = tiny_config(max_steps=6, save_steps=3, learning_rate=1e-2)
    straight = pretrain("local", config, model, tokenizer, clusters, tmp_path / "straight")

    with pytest.raises(Interrupt):
        pretrain("local", config, model, tokenizer, clusters, tmp_path / "broken", callbacks=[_interrupt_at(3)])
    checkpoint = tmp_path / "broken" / "checkpoints" / "local" / "checkpoint-3"
    assert (checkpoint / "model.safetensors").is_file() and (checkpoint / "optimizer.pt").is_file()

    resumed = pretrain("local", config, model, tokenizer, clusters, tmp_path / "broken")
    assert resumed.resumed_from_step == 3 and resumed.steps == 6
    assert [step for step, _ in resumed.loss_history] == list(range(1, 7))
    assert resumed.loss_history[:3] == straight.loss_history[:3]
    assert resumed.lr_history == straight.lr_history  # the scheduler continued, it did not restart its warm-up
    # same data order and optimizer state; only the masks drawn after the restart differ (Trainer restores the RNG
    # one batch late), so the curves agree closely but not exactly
    for (_, expected), (_, loss) in zip(straight.loss_history[3:], resumed.loss_history[3:]):
        assert loss == pytest.approx(expected, rel=0.05)
    assert resumed.loss_history[3][1] < straight.loss_history[0][1] - 0.2  # trained weights, not a fresh start


def test_resuming_with_a_changed_setup_is_refused(tmp_path, clusters, tokenizer, model):
    from cdlm_nb.pretraining import SETUP_FILE, pretrain

    checkpoints = tmp_path / "checkpoints" / "cdlm"
    (checkpoints / "checkpoint-1").mkdir(parents=True)
    (checkpoints / SETUP_FILE).write_text(json.dumps({"variant": "cdlm", "seed": 1}))
    with pytest.raises(ConfigError, match="different setup"):
        pretrain("cdlm", tiny_config(), model, tokenizer, clusters, tmp_path)


def test_max_length_beyond_the_model_is_refused(tmp_path, clusters, tokenizer, model):
    from cdlm_nb.pretraining import pretrain

    with pytest.raises(ConfigError, match="max_length=1024"):
        pretrain("cdlm", tiny_config(max_length=1024), model, tokenizer, clusters, tmp_path)


def _script_config(tmp_path, **changes) -> str:
    settings = {
        "profile": "smoke",
        "output_dir": str(tmp_path / "run"),
        "variants": ["cdlm"],
        "pretrain": {"max_steps": 2, "per_device_batch_size": 1, "max_length": 128, "logging_steps": 1},
        "encoder": {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "vocab_size": 400},
        **changes,
    }
    path = tmp_path / "pretrain.json"
    path.write_text(json.dumps(settings))
    return str(path)


def test_script_config_errors_name_the_field(tmp_path):
    from cdlm_nb.cli import main
    from cdlm_nb.pretraining import pretrain_from_config

    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['steps'\]"):
        pretrain_from_config(_script_config(tmp_path, steps=3))
    with pytest.raises(ConfigError, match=r"unknown PretrainConfig field\(s\) \['lr'\]"):
        pretrain_from_config(_script_config(tmp_path, pretrain={"lr": 1.0}))
    assert main(["pretrain", "--config", str(tmp_path / "missing.json")]) == 2


@pytest.mark.slow
def test_cli_pretrain_runs_under_torchrun_with_two_processes(tmp_path):
    """`torchrun --nproc_per_node 2 -m cdlm_nb pretrain` on CPU (gloo): both processes train, one saves."""
    import os
    import signal
    import subprocess
    import sys

    config = _script_config(tmp_path)
    env = {**os.environ, "CDLM_NB_HEADLESS": "1", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
               "-m", "cdlm_nb", "pretrain", "--config", config, "--json"]
    # Own process group, so a hung run is killed with its workers rather than left behind as orphans.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(f"torchrun did not finish in 240 s:\n{stderr[-3000:]}")
    assert process.returncode == 0, stderr[-3000:]
    report = json.loads(stdout)  # progress messages go to stderr: stdout is the JSON report only
    assert [(row["variant"], row["steps"]) for row in report] == [("cdlm", 2)]
    assert (tmp_path / "run" / "models" / "base" / "model.safetensors").is_file()  # the shared base stage ran first
    saved = json.loads((tmp_path / "run" / "models" / "cdlm" / "pretraining.json").read_text())
    assert saved["setup"]["config"]["max_steps"] == 2 and saved["tokens"] > 0
    assert (tmp_path / "run" / "models" / "cdlm" / "model.safetensors").is_file()


def test_predicting_masked_positions_only_keeps_the_loss(model, tokenizer, clusters):
    import copy

    import torch

    from cdlm_nb.masking import IGNORE_INDEX, CrossDocumentMLMCollator
    from cdlm_nb.pretraining import predict_masked_positions_only, pretraining_inputs

    rows = pretraining_inputs("cdlm", clusters, tokenizer, 128, n_examples=1, seed=0)["input_ids"][:3]
    batch = CrossDocumentMLMCollator(tokenizer, pattern="cdlm", seed=0)([{"input_ids": row} for row in rows])
    full = model.eval()(**batch)
    fast_model = predict_masked_positions_only(copy.deepcopy(model)).eval()
    fast = fast_model(**batch)
    predicted = batch["labels"] != IGNORE_INDEX
    assert torch.allclose(fast.loss, full.loss, atol=1e-5)
    assert torch.allclose(fast.logits, full.logits[predicted], atol=1e-5)
    without_labels = {key: value for key, value in batch.items() if key != "labels"}
    assert fast_model(**without_labels).logits.shape == full.logits.shape  # no labels: every position, as usual
    assert type(fast_model).forward is type(model).forward  # only the instance changed: it saves and loads as usual


def test_base_stage_config_takes_the_base_fields():
    from cdlm_nb.pretraining import base_stage_config, collator_variant

    config = get_profile("cpu").pretrain
    base = base_stage_config(config)
    assert (base.max_steps, base.per_device_batch_size, base.max_length) == (
        config.base_steps, config.base_batch_size, config.base_max_length)
    assert base.learning_rate == config.learning_rate and base.variants == ("base",)
    assert base.warmup_steps <= base.max_steps and collator_variant("base") == "local"
    assert get_profile("gpu").pretrain.base_steps == 0  # Longformer-base is the paper's starting point
