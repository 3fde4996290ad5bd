"""The model registry: names, attention patterns, folders, loading, and the errors that say what to run."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.errors import ConfigError, DataError
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
