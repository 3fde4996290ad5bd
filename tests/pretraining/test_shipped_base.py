"""The base models shipped with the package: built by `cdlm-nb pretrain-base`, used by notebook 02 only when each
is exactly the stage the notebook would train, and the cpu ones kept in step with the cpu profile."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from cdlm_nb.profiles import get_profile


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The smoke profile's base stages, built twice by `cdlm-nb pretrain-base` into two folders."""
    from cdlm_nb.tooling.cli import main

    root = tmp_path_factory.mktemp("shipped")
    for name in ("first", "second"):
        assert main(["pretrain-base", "--profile", "smoke", "--run-dir", str(root / f"run-{name}"),
                     "--output", str(root / name)]) == 0
    return root


@pytest.mark.slow
def test_pretrain_base_is_deterministic_and_ships_no_path_of_this_machine(shipped):
    from safetensors.torch import load_file

    from cdlm_nb.variants import RESULT_FILE

    config = get_profile("smoke").pretrain
    for stage, steps in (("base", config.base_steps), ("base-long", config.base_long_steps),
                         ("base-copy", config.copy_steps)):
        first = load_file(shipped / "first" / f"smoke-{stage}" / "model.safetensors")
        second = load_file(shipped / "second" / f"smoke-{stage}" / "model.safetensors")
        assert first.keys() == second.keys() and all((first[key] == second[key]).all() for key in first)
        result = json.loads((shipped / "first" / f"smoke-{stage}" / RESULT_FILE).read_text())
        assert result["model_dir"] == f"smoke-{stage}" and result["steps"] == steps


@pytest.mark.slow
def test_notebook_02_takes_the_shipped_base_only_when_it_is_the_one_it_would_train(shipped, tmp_path,
                                                                                    monkeypatch):
    import torch

    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.pretraining import shipped_base
    from cdlm_nb.pretraining.stages import initial_encoder, pretrain_base

    monkeypatch.setattr(shipped_base, "CHECKPOINTS", shipped / "first")
    profile = get_profile("smoke")
    clusters = pretraining_clusters(profile)
    encoder = initial_encoder(profile, clusters)
    messages = []
    start, (base, long, copy) = pretrain_base(profile, encoder, clusters, tmp_path / "same", echo=messages.append)
    assert all("shipped with the package" in messages[k] and "reused" in messages[k + 1] for k in (0, 2, 4))
    assert base.model_dir == tmp_path / "same" / "models" / "base"
    assert copy.copy_probe_history and not long.copy_probe_history  # the copy stage carries its probe curve
    assert long.model_dir == tmp_path / "same" / "models" / "base-long"
    reference, _ = pretrain_base(profile, encoder, clusters, shipped / "run-first", echo=messages.append)
    assert all(torch.equal(weight, reference.model.state_dict()[name]) for name, weight in
               start.model.state_dict().items())

    reseeded = profile.override(pretrain=replace(profile.pretrain, seeds=(14,)))
    messages.clear()
    pretrain_base(reseeded, encoder, clusters, tmp_path / "seed14", echo=messages.append)
    assert "not used: it was trained with another run setup (seed, seeds differ)" in messages[0]
    assert "pretraining 4 steps" in messages[1]
    refused = [m for m in messages if "not used" in m]
    assert len(refused) == 3 and all("another run setup (seed, seeds differ)" in m for m in refused)

    wider = reseeded.override(encoder=replace(profile.encoder, hidden_size=32))
    assert "another architecture (hidden_size differ)" in shipped_base.mismatch(
        shipped / "first" / "smoke-base", {}, initial_encoder(wider, clusters))
    longer = profile.override(pretrain=replace(profile.pretrain, base_long_steps=3))  # the first stage still fits
    messages.clear()
    pretrain_base(longer, encoder, clusters, tmp_path / "longer", echo=messages.append)
    assert "shipped with the package" in messages[0] and "(base_long_steps, max_steps differ)" in messages[2]
    assert any("not used" in m and "base_long_steps differ" in m for m in messages[3:])  # then the copy stage

    messages.clear()
    pretrain_base(profile, encoder, clusters, tmp_path / "retrain", shipped=False, echo=messages.append)
    assert "pretraining 4 steps" in messages[0]


@pytest.mark.slow
def test_the_shipped_cpu_base_is_the_one_the_cpu_profile_trains():
    """Changing the cpu profile's base stages, encoder or world without `cdlm-nb pretrain-base --profile cpu`
    would silently make notebook 02 train the base (minutes); this says which field changed."""
    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.pretraining.shipped_base import mismatch, shipped_base_dir
    from cdlm_nb.pretraining.stages import base_stages, initial_encoder
    from cdlm_nb.variants import run_setup

    profile = get_profile("cpu")
    clusters = pretraining_clusters(profile)
    encoder = initial_encoder(profile, clusters)
    for stage, config, _ in base_stages(profile.pretrain):
        setup = run_setup(stage, config.seeds[0], config, len(clusters.train))
        assert mismatch(shipped_base_dir("cpu", stage), setup, encoder) is None, stage


def test_the_shipped_cpu_base_is_load_checked_and_left_as_it_is(tmp_path, capsys, monkeypatch):
    """It ships with its manifest (`cdlm-nb pretrain-base` records one): it is not damaged, and checking it writes
    nothing into the package; a damaged copy of it is refused, naming the file."""
    import shutil

    from cdlm_nb.pretraining.shipped_base import mismatch, shipped_base_dir
    from cdlm_nb.support import artefacts
    from cdlm_nb.variants import model_problems

    monkeypatch.setattr(artefacts, "_said_unrecorded", set())  # said once per process: maybe by an earlier test

    for stage in ("base", "base-long", "base-copy"):
        folder = shipped_base_dir("cpu", stage)
        before = sorted(p.name for p in folder.iterdir())
        assert model_problems(folder) == [] and "has no manifest" not in capsys.readouterr().out
        assert sorted(p.name for p in folder.iterdir()) == before and "manifest.json" in before
    copy = shutil.copytree(folder, tmp_path / "cpu-base")
    (copy / "model.safetensors").write_bytes((copy / "model.safetensors").read_bytes()[:1000])
    assert mismatch(copy, {}, encoder=None).startswith(f"it is damaged: {copy / 'model.safetensors'} is truncated")


@pytest.mark.slow
def test_a_damaged_copy_of_the_shipped_base_is_said_and_replaced(shipped, tmp_path, monkeypatch):
    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.pretraining import shipped_base
    from cdlm_nb.pretraining.stages import initial_encoder, pretrain_base
    from cdlm_nb.variants import model_problems

    monkeypatch.setattr(shipped_base, "CHECKPOINTS", shipped / "first")
    profile = get_profile("smoke")
    clusters = pretraining_clusters(profile)
    encoder = initial_encoder(profile, clusters)
    pretrain_base(profile, encoder, clusters, tmp_path, echo=print)
    (tmp_path / "models" / "base" / "tokenizer.json").unlink()
    messages = []
    pretrain_base(profile, encoder, clusters, tmp_path, echo=messages.append)
    assert "shipped with the package" in messages[0] and "replacing a damaged copy" in messages[0]
    assert "tokenizer.json is missing" in messages[0] and "reused" in messages[1]
    assert model_problems(tmp_path / "models" / "base") == []
    assert model_problems(shipped / "first" / "smoke-base") == []  # `cdlm-nb pretrain-base` ships a manifest


@pytest.mark.slow
def test_the_shipped_cpu_start_reads_its_whole_input(tmp_path):
    """At the packed length, on 20 validation clusters: after the long stage, the start under CDLM's pattern is within
    1.5x of local attention and full attention is no worse (the one-stage start: 584 and 689 against 4.53); the copy
    stage keeps local attention within 2x of that (from position 0 only, its short inputs took it to about 1,000).
    Under CDLM's pattern the copying start is worse: its global masked tokens look for copies everywhere
    (docs/experiments.md, "A start that copies")."""
    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.pretraining.shipped_base import shipped_base_dir
    from cdlm_nb.pretraining.stages import starting_model
    from cdlm_nb.pretraining.start_check import start_perplexity
    from cdlm_nb.support.artefacts import copy_folder
    from cdlm_nb.variants import model_dir

    profile = get_profile("cpu")
    clusters = pretraining_clusters(profile)
    for stage in ("base-long", "base-copy"):
        copy_folder(shipped_base_dir("cpu", stage), model_dir(tmp_path, stage))
    length = profile.pretrain.max_length
    long = start_perplexity(starting_model(profile, tmp_path, stages=2), clusters.heldout["validation"], profile,
                            lengths=[length])
    assert long["cdlm", length] <= 1.5 * long["local", length]
    assert long["full", length] <= long["local", length]
    start = starting_model(profile, tmp_path)  # the shipped last stage after the Longformer recipe
    scores = start_perplexity(start, clusters.heldout["validation"], profile, lengths=[length])
    assert scores["local", length] <= 2 * long["local", length]
