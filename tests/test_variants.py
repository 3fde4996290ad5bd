"""The model registry: names, attention patterns, folders, loading, and the errors that say what to run."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.support.errors import ConfigError, DataError
from cdlm_nb.variants import DISPLAY_NAMES, PAPER_MODELS, display_name, run_setup


def test_every_paper_model_has_a_display_name_and_unknown_names_pass_through():
    assert all(model in DISPLAY_NAMES for model in PAPER_MODELS)
    assert display_name("cdlm") == "CDLM" and display_name("cdlm_sentences") == "cdlm_sentences"


def test_run_setup_is_a_json_round_trip_of_the_config():
    from cdlm_nb.profiles import get_profile

    config = get_profile("smoke").pretrain
    setup = run_setup("cdlm", 13, config, 6)
    assert setup["config"]["variants"] == list(config.variants)  # tuples become lists, as when read back
    assert setup != run_setup("cdlm", 13, replace(config, max_steps=5), 6)


def test_variants_map_to_their_attention_pattern():
    from cdlm_nb.profiles import get_profile
    from cdlm_nb.variants import attention_pattern_of, model_name

    assert attention_pattern_of("longformer") == "local" and attention_pattern_of("base") == "local"
    assert attention_pattern_of("cdlm") == "cdlm"
    assert model_name("cdlm", 13, replace(get_profile("smoke").pretrain, seeds=(13, 14))) == "cdlm"
    assert model_name("cdlm", 14, replace(get_profile("smoke").pretrain, seeds=(13, 14))) == "cdlm-seed14"
    with pytest.raises(ConfigError, match="choose one of"):
        attention_pattern_of("bigbird")


def test_load_pretrained_says_which_notebook_to_run(tmp_path):
    from cdlm_nb.variants import load_pretrained

    with pytest.raises(DataError, match=r"Run notebook 02 first.*--profile cpu --only 02"):
        load_pretrained(tmp_path / "cpu", "rand")


def test_missing_models_name_the_notebook_and_the_command(tmp_path):
    from cdlm_nb.variants import PAPER_MODELS, load_pretrained_models

    with pytest.raises(DataError) as error:
        load_pretrained_models(tmp_path, PAPER_MODELS, "smoke")
    message = str(error.value)
    assert "notebook 02" in message and "--profile smoke --only 02" in message and str(tmp_path) in message
    assert "'cdlm'" in message and "'longformer'" in message


def test_models_with_another_vocabulary_are_refused(tiny_encoder):
    from cdlm_nb.encoders import Encoder
    from cdlm_nb.tokenization import train_tokenizer
    from cdlm_nb.variants import shared_tokenizer

    other = Encoder(tiny_encoder.model, train_tokenizer(["completely different text here"] * 5, vocab_size=280))
    with pytest.raises(DataError, match="another vocabulary"):
        shared_tokenizer({"cdlm": tiny_encoder, "rand": other})


def test_a_missing_model_says_how_to_get_it(tmp_path, capsys):
    """On gpu the unreleased ablations need PRETRAIN_STEPS; the released two, and every tiny model, notebook 02."""
    from cdlm_nb.variants import PretrainedShelf, how_to_get

    assert "PRETRAIN_STEPS" in how_to_get("prefix", "gpu") and "PRETRAIN_STEPS" in how_to_get("rand", "gpu-rehearsal")
    assert "--only 02 --profile gpu" in how_to_get("cdlm", "gpu")
    assert "--only 02 --profile cpu" in how_to_get("prefix", "cpu")
    shelf = PretrainedShelf(tmp_path, "gpu")
    assert shelf.load("local") is None and shelf.load("local") is None  # said once
    assert capsys.readouterr().out.count("skipping Local CDLM") == 1
    assert shelf.missing_notes() == {"Local CDLM": how_to_get("local", "gpu")}
    assert shelf.missing_note().startswith("missing Local CDLM: not released")


def _another_variant_copied_in(folder):
    import shutil

    shutil.copy(folder.parent / "local" / "model.safetensors", folder / "model.safetensors")


DAMAGES = {  # name -> (damage done to models/cdlm, the file the error must name)
    "truncated": (lambda f: (f / "model.safetensors").write_bytes((f / "model.safetensors").read_bytes()[:1000]),
                  "model.safetensors is truncated"),
    "emptied": (lambda f: (f / "model.safetensors").write_bytes(b""), "model.safetensors is emptied"),
    "wrong tensors": (_another_variant_copied_in, "model.safetensors is not the file that was saved"),
    "missing tokenizer file": (lambda f: (f / "tokenizer.json").unlink(), "tokenizer.json is missing"),
}


@pytest.fixture
def two_models(tmp_path, tiny_encoder):
    """`cdlm` and `local` saved as notebook 02 saves them (`local`: other weights, same shapes)."""
    import copy

    import torch

    from cdlm_nb.encoders import Encoder
    from cdlm_nb.pretraining.stages import save_unchanged

    other = copy.deepcopy(tiny_encoder.model)
    with torch.no_grad():
        next(other.parameters()).add_(1.0)
    save_unchanged("cdlm", tiny_encoder, tmp_path, source="test", seed=13)
    save_unchanged("local", Encoder(other, tiny_encoder.tokenizer), tmp_path, source="test", seed=13)
    return tmp_path


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_model_is_a_data_error_naming_the_file_and_the_command(two_models, damage):
    from cdlm_nb.variants import PretrainedShelf, load_pretrained, model_dir

    folder = model_dir(two_models, "cdlm")
    damage_folder, expected = DAMAGES[damage]
    damage_folder(folder)
    command = f"cdlm-nb run --profile smoke --only 02 --output {two_models}"
    with pytest.raises(DataError, match="damaged") as error:
        load_pretrained(two_models, "cdlm", profile="smoke")
    assert f"{folder}/{expected}" in str(error.value) and command in str(error.value)
    with pytest.raises(DataError, match=expected):  # notebooks 03-07 fail on it, they do not skip it as missing
        PretrainedShelf(two_models, "smoke").load_all(["cdlm", "local"])
    assert load_pretrained(two_models, "local") is not None


def test_a_model_saved_before_manifests_still_loads_and_that_is_said_once(two_models, capsys):
    from cdlm_nb.support.artefacts import MANIFEST
    from cdlm_nb.variants import load_pretrained, model_dir

    (model_dir(two_models, "cdlm") / MANIFEST).unlink()
    load_pretrained(two_models, "cdlm")
    load_pretrained(two_models, "cdlm")
    assert capsys.readouterr().out.count("has no manifest") == 1


def test_a_model_save_killed_midway_is_damaged_until_saved_again(two_models, tiny_encoder, monkeypatch):
    from cdlm_nb.pretraining.stages import save_unchanged
    from cdlm_nb.variants import load_pretrained, load_result, model_dir

    class Killed(Exception):
        pass

    def killed(self, folder, *args, **kwargs):
        raise Killed

    monkeypatch.setattr(type(tiny_encoder.tokenizer), "save_pretrained", killed)  # after the weights
    with pytest.raises(Killed):
        save_unchanged("cdlm", tiny_encoder, two_models, source="test", seed=13)
    with pytest.raises(DataError, match="its save was interrupted"):
        load_pretrained(two_models, "cdlm")
    with pytest.raises(Killed):  # a model never saved before: the same
        save_unchanged("prefix", tiny_encoder, two_models, source="test", seed=13)
    with pytest.raises(DataError, match="its save was interrupted"):
        load_pretrained(two_models, "prefix")
    monkeypatch.undo()
    save_unchanged("cdlm", tiny_encoder, two_models, source="test", seed=13)
    assert load_pretrained(two_models, "cdlm") is not None and load_result(two_models, "cdlm").steps == 0
    assert not [p for p in model_dir(two_models, "cdlm").iterdir() if p.name.startswith(".")]


def test_a_damaged_result_file_names_the_file_and_the_command(two_models):
    from cdlm_nb.variants import RESULT_FILE, load_result, model_dir

    path = model_dir(two_models, "cdlm") / RESULT_FILE
    path.write_text(path.read_text()[:20])
    with pytest.raises(DataError, match=rf"{RESULT_FILE} does not parse.*--only 02"):
        load_result(two_models, "cdlm")
