"""Notebook 02's models built on demand by a later notebook run alone: what is built, what is reused, what is said."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.profiles import PAPER_MODELS, get_profile


def test_notebook_02_makes_every_variant_and_the_base_from_a_tiny_start_and_the_released_two_from_longformer_base():
    from cdlm_nb.tooling.on_demand import made_by_notebook_02

    assert made_by_notebook_02(get_profile("smoke")) == (*PAPER_MODELS, "base", "base-long", "base-copy")
    assert made_by_notebook_02(get_profile("cpu")) == (*PAPER_MODELS, "base", "base-long", "base-copy")
    assert made_by_notebook_02(get_profile("gpu")) == ("longformer", "cdlm")


@pytest.fixture
def two_saved(tmp_path, tiny_encoder):
    """`cdlm` and `local` saved in the run folder as notebook 02 saves them."""
    from cdlm_nb.pretraining.stages import save_unchanged

    for variant in ("cdlm", "local"):
        save_unchanged(variant, tiny_encoder, tmp_path, source="test", seed=13)
    return tmp_path


def test_what_is_built_is_what_is_missing_or_damaged_among_the_wanted_models_notebook_02_makes(two_saved):
    from cdlm_nb.tooling.on_demand import to_build
    from cdlm_nb.variants import model_dir

    smoke = get_profile("smoke")
    assert to_build(two_saved, smoke, ("cdlm", "local", "tfidf")) == []  # a notebook's baselines are not 02's
    assert to_build(two_saved, smoke, ("local", "rand", "base")) == ["rand", "base"]
    (model_dir(two_saved, "cdlm") / "model.safetensors").write_bytes(b"")
    assert to_build(two_saved, smoke, ("cdlm", "local")) == ["cdlm"]
    assert to_build(two_saved, get_profile("gpu"), PAPER_MODELS) == ["longformer", "cdlm"]  # not the unreleased


def test_the_expected_time_is_measured_on_the_cpu_profiles_and_planned_on_gpu():
    from cdlm_nb.tooling.on_demand import MEASURED_SECONDS, expected_time

    for name, seconds in MEASURED_SECONDS.items():
        assert set(seconds) == {"start", *PAPER_MODELS}
        assert "measured on a 2-core CPU" in expected_time(get_profile(name), PAPER_MODELS)
    assert expected_time(get_profile("smoke"), ["cdlm"]).startswith("about ")
    assert "`cdlm-nb plan`'s estimate for notebook 02" in expected_time(get_profile("gpu"), ["cdlm"])


def test_nothing_is_built_when_every_model_is_there_or_when_building_is_turned_off(two_saved, monkeypatch, capsys):
    from cdlm_nb.support.errors import DataError
    from cdlm_nb.tooling import on_demand
    from cdlm_nb.variants import PretrainedShelf

    monkeypatch.setattr(on_demand, "build", lambda *args, **kwargs: pytest.fail("nothing should be built"))
    assert on_demand.ensure_pretrained(two_saved, get_profile("smoke"), ("cdlm", "local")) == []
    assert on_demand.ensure_pretrained(two_saved, get_profile("smoke"), ("rand",), build_missing=False) == []
    assert capsys.readouterr().out == ""
    with pytest.raises(DataError, match=r"Run notebook 02 first.*--profile smoke --only 02"):  # as before
        PretrainedShelf(two_saved, "smoke").load_all(["rand"])


def test_on_gpu_only_the_released_checkpoints_are_saved(tmp_path, tiny_encoder, monkeypatch):
    from cdlm_nb import encoders
    from cdlm_nb.pretraining import stages
    from cdlm_nb.tooling import on_demand
    from cdlm_nb.variants import is_saved, load_result, model_dir

    monkeypatch.setattr(stages, "initial_encoder", lambda profile, clusters: tiny_encoder)  # Longformer-base
    monkeypatch.setattr(encoders, "from_hub", lambda name, **kwargs: tiny_encoder)  # biu-nlp/cdlm
    messages = []
    built = on_demand.ensure_pretrained(tmp_path, get_profile("gpu"), PAPER_MODELS, echo=messages.append)
    assert built == ["longformer", "cdlm"] and not is_saved(model_dir(tmp_path, "rand"))
    assert load_result(tmp_path, "cdlm").steps == 0
    assert "Longformer, CDLM" in messages[0] and "`cdlm-nb plan`" in messages[0]
    assert any("released biu-nlp/cdlm" in message for message in messages)


@pytest.mark.slow
def test_a_missing_model_is_built_once_with_notebook_02s_functions_and_the_random_state_is_kept(two_saved):
    import torch

    from cdlm_nb.support.artefacts import sha256
    from cdlm_nb.tooling.on_demand import ensure_pretrained
    from cdlm_nb.variants import PretrainedShelf, load_result, model_dir

    smoke = get_profile("smoke")
    profile = smoke.override(pretrain=replace(smoke.pretrain, max_steps=2, base_steps=2, warmup_steps=1,
                                                       curve_steps=0))
    saved = sha256(model_dir(two_saved, "cdlm") / "model.safetensors")
    messages = []
    torch.manual_seed(0)
    built = ensure_pretrained(two_saved, profile, ("cdlm", "prefix", "tfidf"), echo=messages.append)
    after = torch.rand(3)
    torch.manual_seed(0)
    assert torch.equal(after, torch.rand(3))  # the notebook draws what it would have drawn without the build
    assert built == ["prefix"] and load_result(two_saved, "prefix").steps == 2
    assert load_result(two_saved, "base").steps == 2  # the start of every variant, built on the way
    assert sha256(model_dir(two_saved, "cdlm") / "model.safetensors") == saved  # sound: reused, not rebuilt
    assert "lacks (or holds damaged) Prefix CDLM." in messages[0] and "smoke profile" in messages[0]
    assert messages[-1].startswith("built Prefix CDLM in ")
    assert ensure_pretrained(two_saved, profile, ("cdlm", "prefix"), echo=messages.append) == []  # never twice
    assert set(PretrainedShelf(two_saved, "smoke").load_all(["cdlm", "prefix"])) == {"cdlm", "prefix"}
