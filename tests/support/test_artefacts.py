"""Run-folder artefacts: atomic saves with a manifest written last, and the checks that name a damaged file."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.support.artefacts import (
    MANIFEST,
    check_artefact,
    check_manifest,
    manifest_path,
    record_manifest,
    save_file,
    save_folder,
    write_atomic,
)


class Killed(Exception):
    """Stands for a process killed in the middle of a save."""


def _tensors(path, value: float = 1.0) -> None:
    import torch
    from safetensors.torch import save_file as save_tensors

    save_tensors({"weight": torch.full((4, 3), value), "bias": torch.zeros(3)}, path)


def _write_model(folder) -> None:
    _tensors(folder / "model.safetensors")
    (folder / "config.json").write_text(json.dumps({"hidden_size": 3}))
    (folder / "tokenizer.json").write_text(json.dumps({"vocab": ["a", "b"]}))


@pytest.fixture
def saved(tmp_path):
    return save_folder(tmp_path / "model", _write_model)


def test_a_saved_folder_is_recorded_last_and_checks_clean(saved):
    manifest = json.loads((saved / MANIFEST).read_text())
    assert manifest["complete"] and set(manifest["files"]) == {"model.safetensors", "config.json", "tokenizer.json"}
    assert manifest["files"]["config.json"]["bytes"] == (saved / "config.json").stat().st_size
    assert check_manifest(saved) == [] and check_artefact(saved, ["config.json"]) == []
    assert not [p for p in saved.iterdir() if p.name.startswith(".")]  # no temporary left


@pytest.mark.parametrize("damage, expected", [
    (lambda f: f.write_bytes(f.read_bytes()[:40]), "model.safetensors is truncated"),
    (lambda f: f.write_bytes(b""), "model.safetensors is emptied"),
    (lambda f: _tensors(f, value=2.0), "model.safetensors is not the file that was saved"),
    (lambda f: f.unlink(), "model.safetensors is missing"),
])
def test_each_damage_names_the_file(saved, damage, expected):
    damage(saved / "model.safetensors")
    problems = check_artefact(saved)
    assert len(problems) == 1 and expected in problems[0] and str(saved) in problems[0]


def test_without_a_manifest_files_are_load_checked_and_that_is_said_once(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    _write_model(folder)
    said = []
    assert check_artefact(folder, ["config.json"], said.append) == []
    assert check_artefact(folder, ["config.json"], said.append) == []
    assert len(said) == 1 and "has no manifest" in said[0] and "checked only for loading" in said[0]

    (folder / "model.safetensors").write_bytes((folder / "model.safetensors").read_bytes()[:50])
    (folder / "config.json").write_text("{")
    (folder / "tokenizer.json").unlink()
    problems = check_artefact(folder, ["tokenizer.json"], said.append)
    assert any("model.safetensors is truncated" in p for p in problems)
    assert any("config.json does not load (JSONDecodeError" in p for p in problems)
    assert any("tokenizer.json is missing" in p for p in problems)


def test_a_save_killed_midway_is_never_taken_for_finished_then_the_next_save_recovers(saved):
    def killed(temporary):
        _write_model(temporary)
        raise Killed

    with pytest.raises(Killed):
        save_folder(saved, killed)
    problems = check_artefact(saved)
    assert problems and "its save was interrupted" in problems[0]
    save_folder(saved, _write_model)
    assert check_artefact(saved) == [] and not [p for p in saved.iterdir() if p.name.startswith(".")]


def test_a_partial_file_leaves_the_old_one_in_place(tmp_path):
    path = write_atomic(tmp_path / "a.json", lambda p: p.write_text('{"v": 1}'))

    def killed(temporary):
        temporary.write_text('{"v": ')
        raise Killed

    with pytest.raises(Killed):
        write_atomic(path, killed)
    assert json.loads(path.read_text()) == {"v": 1} and list(tmp_path.iterdir()) == [path]


def test_a_single_file_artefact_has_its_manifest_beside_it(tmp_path):
    path = save_file(tmp_path / "cache" / "x.safetensors", _tensors)
    assert manifest_path(path) == path.with_name("x.safetensors.manifest.json") and check_artefact(path) == []
    def killed(temporary):
        _tensors(temporary, value=2.0)
        raise Killed

    with pytest.raises(Killed):
        save_file(path, killed)
    assert "its save was interrupted" in check_artefact(path)[0]
    assert check_artefact(tmp_path / "none.safetensors") == [f"{tmp_path / 'none.safetensors'} is missing"]


def test_a_folder_written_by_another_tool_is_recorded_afterwards(tmp_path):
    """As the Trainer's checkpoints are: written by transformers, then recorded by a callback."""
    _write_model(tmp_path)
    assert record_manifest(tmp_path) == tmp_path / MANIFEST and check_manifest(tmp_path) == []
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 4}))
    assert "config.json is not the file that was saved" in check_manifest(tmp_path)[0]
