"""One pretraining run: Trainer arguments, the masked-positions-only model, saving, loading and resuming."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import ConfigError


def test_every_profile_keeps_the_paper_schedule_shape():
    for name in ("smoke", "cpu", "gpu"):
        config = get_profile(name).pretrain
        assert config.lr_power >= 1.0 and config.warmup_steps < config.max_steps  # warm-up, then polynomial decay
        assert max(config.max_length, config.base_max_length) <= get_profile(name).encoder.max_length
    gpu = get_profile("gpu").pretrain
    assert (gpu.max_length, gpu.per_device_batch_size * gpu.gradient_accumulation_steps) == (4096, 64)
    settings = (gpu.learning_rate, gpu.warmup_steps, gpu.max_steps, gpu.fp16, gpu.lr_power)
    assert settings == (3e-5, 500, 25_000, True, 3.0)


def test_training_arguments_follow_the_config(tmp_path, tiny_config):
    from cdlm_nb.pretraining.trainer import training_arguments

    args = training_arguments(tiny_config(), "cdlm", tmp_path, seed=5, headless=True)
    assert args.lr_scheduler_type == "polynomial" and args.lr_scheduler_kwargs == {"power": 3.0}
    assert (args.adam_beta2, args.adam_epsilon, args.seed) == (0.98, 1e-6, 5)
    assert args.include_num_input_tokens_seen == "non_padding"
    assert not args.fp16  # no CUDA here: fp16 is asked for but not applied
    assert args.train_sampling_strategy == "sequential"  # in `length_grouped_order`
    with pytest.raises(ConfigError, match="warmup_steps=2 must be below max_steps=2"):
        training_arguments(tiny_config(warmup_steps=2), "cdlm", tmp_path, seed=5, headless=True)


def test_the_effective_batch_is_the_profiles_on_any_process_count():
    from dataclasses import replace

    from cdlm_nb.pretraining.trainer import process_batch
    from cdlm_nb.variants import run_setup

    gpu = get_profile("gpu").pretrain  # 8 per device x 8 accumulation: the paper's 64
    for processes, expected in ((1, (8, 8)), (2, (8, 4)), (8, (8, 1))):
        batch, accumulation = process_batch(gpu, processes)
        assert (batch, accumulation) == expected and batch * accumulation * processes == 64
    assert process_batch(replace(gpu, per_device_batch_size=16, gradient_accumulation_steps=1), 2) == (8, 1)
    with pytest.raises(ConfigError, match="does not split over 3 processes"):
        process_batch(gpu, 3)
    one, two = run_setup("cdlm", 13, gpu, 10), run_setup("cdlm", 13, gpu, 10, processes=2)
    assert "processes" not in one and two == {**one, "processes": 2}  # a resume needs as many processes


def test_every_stage_keeps_its_warmup_to_a_tenth_of_its_steps():
    from cdlm_nb.pretraining.stages import base_stages, warmup_for, with_steps

    smoke, cpu = get_profile("smoke").pretrain, get_profile("cpu").pretrain
    assert [stage.warmup_steps for _, stage, _ in base_stages(smoke)] == [0, 0, 0]  # 4, 2 and 2 steps: none
    assert [stage.warmup_steps for _, stage, _ in base_stages(cpu)] == [cpu.warmup_steps] * 3
    assert with_steps(cpu, 100).warmup_steps == 10 == warmup_for(cpu, 100)


def test_predicting_masked_positions_only_keeps_the_loss_and_the_weights(tiny_encoder, clusters, tmp_path):
    import torch
    from transformers import LongformerForMaskedLM

    from cdlm_nb.masking import IGNORE_INDEX, CrossDocumentMLMCollator
    from cdlm_nb.pretraining.inputs import pretraining_inputs
    from cdlm_nb.pretraining.trainer import MaskedPositionsLongformer

    model, tokenizer = tiny_encoder.model, tiny_encoder.tokenizer
    rows = pretraining_inputs("cdlm", clusters, tokenizer, 256, n_examples=1, seed=0)["input_ids"][:3]
    batch = CrossDocumentMLMCollator(tokenizer, pattern="cdlm", seed=0)([{"input_ids": row} for row in rows])
    full = model(**batch)
    fast_model = MaskedPositionsLongformer.from_plain(model).eval()
    fast = fast_model(**batch)
    predicted = batch["labels"] != IGNORE_INDEX
    assert torch.allclose(fast.loss, full.loss, atol=1e-5)
    assert torch.allclose(fast.logits, full.logits[predicted], atol=1e-5)
    without_labels = {key: value for key, value in batch.items() if key != "labels"}
    assert fast_model(**without_labels).logits.shape == full.logits.shape  # no labels: every position, as usual
    fast_embeddings, embeddings = fast_model.longformer.embeddings, model.longformer.embeddings
    assert fast_embeddings.word_embeddings.weight is not embeddings.word_embeddings.weight

    plain = fast_model.to_plain()
    assert type(plain) is LongformerForMaskedLM
    plain.save_pretrained(tmp_path)
    assert json.loads((tmp_path / "config.json").read_text())["architectures"] == ["LongformerForMaskedLM"]
    loaded = LongformerForMaskedLM.from_pretrained(tmp_path, use_safetensors=True)
    for name, weight in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], weight), name


@pytest.mark.slow
def test_pretrain_saves_a_loadable_model(tmp_path, clusters, tiny_encoder, tiny_config):
    import torch

    from cdlm_nb.longformer_attention import uses_fast_attention
    from cdlm_nb.pretraining.report import plot_loss_curves
    from cdlm_nb.pretraining.trainer import pretrain
    from cdlm_nb.variants import load_pretrained, load_result

    model, tokenizer = tiny_encoder.model, tiny_encoder.tokenizer
    before = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    result = pretrain("cdlm", tiny_config(), model, tokenizer, clusters, tmp_path)

    assert result.steps == 2 and [step for step, _ in result.loss_history] == [1, 2]
    assert result.tokens > 0 and result.tokens_per_second > 0
    assert (result.model_dir / "model.safetensors").is_file()
    assert not (result.model_dir / "training_args.bin").exists()
    assert not (tmp_path / "checkpoints" / "cdlm").exists()  # a finished run leaves no checkpoint behind
    assert all(torch.equal(before[name], tensor) for name, tensor in model.state_dict().items())

    loaded = load_pretrained(tmp_path, "cdlm")
    assert loaded.tokenizer.get_vocab() == tokenizer.get_vocab()
    trained = dict(loaded.model.named_parameters())
    assert any(not torch.equal(trained[name], param) for name, param in model.named_parameters())
    assert load_result(tmp_path, "cdlm").loss_history == result.loss_history
    # trained and loaded with the fast attention by default (the encoder's choice), recorded in the result
    assert result.attention == "ours" == load_result(tmp_path, "cdlm").attention
    assert uses_fast_attention(loaded.model)
    assert len(plot_loss_curves([result]).axes[0].lines) == 1


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
def test_an_interrupted_run_resumes_where_it_stopped(tmp_path, clusters, tiny_encoder, tiny_config):
    from cdlm_nb.pretraining.trainer import pretrain

    model, tokenizer = tiny_encoder.model, tiny_encoder.tokenizer
    config = tiny_config(max_steps=9, save_steps=3, learning_rate=1e-2)  # two saves after the resume rotate
    straight = pretrain("local", config, model, tokenizer, clusters, tmp_path / "straight")

    with pytest.raises(Interrupt):
        pretrain("local", config, model, tokenizer, clusters, tmp_path / "broken", callbacks=[_interrupt_at(3)])
    checkpoint = tmp_path / "broken" / "checkpoints" / "local" / "checkpoint-3"
    assert (checkpoint / "model.safetensors").is_file() and (checkpoint / "optimizer.pt").is_file()

    resumed = pretrain("local", config, model, tokenizer, clusters, tmp_path / "broken")
    assert resumed.resumed_from_step == 3 and resumed.steps == 9  # checkpoint-3 was rotated away meanwhile
    assert [step for step, _ in resumed.loss_history] == list(range(1, 10))
    assert 0 < resumed.tokens < straight.tokens  # only the tokens of the resumed steps
    assert resumed.loss_history[:3] == straight.loss_history[:3]
    assert resumed.lr_history == straight.lr_history  # the scheduler continued, it did not restart its warm-up
    # same data order and optimizer state; only the masks drawn after the restart differ (Trainer restores the RNG
    # one batch late), so the curves agree closely but not exactly
    for (_, expected), (_, loss) in zip(straight.loss_history[3:], resumed.loss_history[3:]):
        assert loss == pytest.approx(expected, rel=0.05)
    assert resumed.loss_history[3][1] < straight.loss_history[0][1] - 0.2  # trained weights, not a fresh start


def test_resuming_with_a_changed_setup_is_refused(tmp_path, clusters, tiny_encoder, tiny_config):
    from cdlm_nb.pretraining.trainer import SETUP_FILE, pretrain

    checkpoints = tmp_path / "checkpoints" / "cdlm"
    (checkpoints / "checkpoint-1").mkdir(parents=True)
    (checkpoints / SETUP_FILE).write_text(json.dumps({"variant": "cdlm", "seed": 1}))
    with pytest.raises(ConfigError, match="different setup"):
        pretrain("cdlm", tiny_config(), tiny_encoder.model, tiny_encoder.tokenizer, clusters, tmp_path)


def test_max_length_beyond_the_model_is_refused(tmp_path, clusters, tiny_encoder, tiny_config):
    from cdlm_nb.pretraining.trainer import pretrain

    with pytest.raises(ConfigError, match="max_length=1024 exceeds the model's 256 positions"):
        pretrain("cdlm", tiny_config(max_length=1024), tiny_encoder.model, tiny_encoder.tokenizer, clusters,
                 tmp_path)


def _fake_checkpoint(folder, step: int) -> None:
    """The files `CHECKPOINT_FILES` names, small, then the manifest the Trainer callback records."""
    import torch
    from safetensors.torch import save_file

    from cdlm_nb.support.artefacts import record_manifest

    folder.mkdir(parents=True)
    save_file({"w": torch.full((2, 2), float(step))}, folder / "model.safetensors")
    torch.save({"step": step}, folder / "optimizer.pt")
    torch.save({"step": step}, folder / "scheduler.pt")
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": step}))
    record_manifest(folder)


@pytest.mark.parametrize("damage, expected", [
    (lambda f: (f / "optimizer.pt").write_bytes((f / "optimizer.pt").read_bytes()[:100]), "optimizer.pt is truncated"),
    (lambda f: (f / "model.safetensors").write_bytes(b""), "model.safetensors is emptied"),
    (lambda f: (f / "model.safetensors").write_bytes((f.parent / "checkpoint-3" / "model.safetensors").read_bytes()),
     "model.safetensors is not the file that was saved"),
    (lambda f: (f / "trainer_state.json").unlink(), "trainer_state.json is missing"),
    (lambda f: (f / "manifest.json").unlink() or (f / "trainer_state.json").unlink(),  # killed before it was done
     "trainer_state.json is missing"),
])
def test_a_damaged_last_checkpoint_falls_back_to_the_previous_one(tmp_path, damage, expected):
    from cdlm_nb.pretraining.trainer import SETUP_FILE, _checkpoint_to_resume

    checkpoints = tmp_path / "checkpoints" / "cdlm"
    _fake_checkpoint(checkpoints / "checkpoint-3", 3)
    _fake_checkpoint(checkpoints / "checkpoint-6", 6)
    (checkpoints / SETUP_FILE).write_text(json.dumps({"variant": "cdlm"}))
    assert _checkpoint_to_resume(checkpoints, {"variant": "cdlm"}) == str(checkpoints / "checkpoint-6")
    damage(checkpoints / "checkpoint-6")
    said = []
    assert _checkpoint_to_resume(checkpoints, {"variant": "cdlm"}, said.append) == str(checkpoints / "checkpoint-3")
    assert any(expected in line and "falling back to the previous checkpoint" in line for line in said), said
    assert not (checkpoints / "checkpoint-6").exists()
    (checkpoints / "checkpoint-3" / "optimizer.pt").write_bytes(b"")
    assert _checkpoint_to_resume(checkpoints, {"variant": "cdlm"}, said.append) is None
    assert "pretraining from the start" in said[-1]


@pytest.mark.slow
def test_a_run_killed_while_saving_a_checkpoint_resumes_from_the_one_before(tmp_path, clusters, tiny_encoder,
                                                                            tiny_config):
    from cdlm_nb.pretraining.trainer import pretrain

    model, tokenizer = tiny_encoder.model, tiny_encoder.tokenizer
    config = tiny_config(max_steps=9, save_steps=3, learning_rate=1e-2)
    with pytest.raises(Interrupt):
        pretrain("local", config, model, tokenizer, clusters, tmp_path, callbacks=[_interrupt_at(6)])
    checkpoint = tmp_path / "checkpoints" / "local" / "checkpoint-6"
    assert (checkpoint / "manifest.json").is_file()  # recorded by the callback before the interruption
    weights = checkpoint / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])  # as a save cut short would leave it
    said = []
    resumed = pretrain("local", config, model, tokenizer, clusters, tmp_path, echo=said.append)
    assert f"{weights} is truncated" in said[0] and "falling back" in said[0]
    assert resumed.resumed_from_step == 3 and resumed.steps == 9
    assert (resumed.model_dir / "manifest.json").is_file() and not (tmp_path / "checkpoints" / "local").exists()
