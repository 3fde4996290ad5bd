"""Sentence transformers: the packaged MiniLM, normalised embeddings, the run-folder cache, the offline error."""

import pytest
import torch

from cdlm_nb.sentence_encoders import CACHE_FOLDER, embed, load_sentence_encoder, max_positions
from cdlm_nb.support.errors import OfflineError


def test_minilm_embeddings_are_normalised_and_cut_to_max_length(sentence_encoder):
    vectors = embed(sentence_encoder, ["An earthquake struck the region.", "The mayor won the election."], 16)
    assert vectors.shape == (2, 384)
    assert torch.allclose(vectors.norm(dim=1), torch.ones(2), atol=1e-5)
    long_text = "The storm hit the coast. " * 200
    assert torch.allclose(embed(sentence_encoder, [long_text], 16), embed(sentence_encoder, [long_text[:200]], 16),
                          atol=1e-5)  # both read the same first 16 tokens
    assert max_positions(sentence_encoder) == 512
    assert sentence_encoder.max_seq_length == 256  # restored after the call


def test_embeddings_are_cached_by_model_length_and_texts(sentence_encoder, tmp_path, monkeypatch):
    texts = ["First sentence here.", "Second sentence there."]
    first = embed(sentence_encoder, texts, 32, cache_dir=tmp_path, name="minilm")
    files = list((tmp_path / CACHE_FOLDER).glob("*.safetensors"))
    assert len(files) == 1 and files[0].name.startswith("minilm-32-")

    monkeypatch.setattr(sentence_encoder, "encode", lambda *a, **k: pytest.fail("should have read the cache"))
    assert torch.equal(embed(sentence_encoder, texts, 32, cache_dir=tmp_path, name="minilm"), first)
    monkeypatch.undo()
    embed(sentence_encoder, texts[:1], 32, cache_dir=tmp_path, name="minilm")
    assert len(list((tmp_path / CACHE_FOLDER).glob("*.safetensors"))) == 2  # other texts: another file


def test_an_unreachable_hub_model_says_what_to_do(monkeypatch, tmp_path):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # read at import: patch the constant
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(OfflineError, match="hf download|minilm"):
        load_sentence_encoder("sentence-transformers/nli-roberta-base-v2")


def test_embeddings_run_under_the_encoders_autocast_and_come_back_float32(sentence_encoder, monkeypatch):
    from contextlib import nullcontext

    from cdlm_nb import finetuning

    devices = []
    monkeypatch.setattr(finetuning, "autocast", lambda device: devices.append(device) or nullcontext())
    vectors = embed(sentence_encoder, ["A storm hit the coast."], 16)
    assert devices == [sentence_encoder.device.type] and vectors.dtype == torch.float32


def load_file(path):
    from safetensors.torch import load_file

    return load_file(path)


def _swap_in_another_cache(path):
    import shutil

    other = next(p for p in path.parent.glob("*.safetensors") if p != path)
    shutil.copy(other, path)


@pytest.mark.parametrize("damage, expected", [
    (lambda p: p.write_bytes(p.read_bytes()[:100]), "is truncated"),
    (lambda p: p.write_bytes(b""), "is emptied"),
    (_swap_in_another_cache, "is not the file that was saved"),
    (lambda p: p.unlink(), "is missing"),
])
def test_a_damaged_embedding_cache_is_said_and_computed_again(sentence_encoder, tmp_path, capsys, damage, expected):
    texts = ["First sentence here.", "Second sentence there."]
    first = embed(sentence_encoder, texts, 32, cache_dir=tmp_path, name="minilm")
    embed(sentence_encoder, texts[::-1], 32, cache_dir=tmp_path, name="minilm")  # another cache, same size
    path = next(p for p in (tmp_path / CACHE_FOLDER).glob("*.safetensors")
                if torch.equal(load_file(p)["embeddings"], first))
    damage(path)
    capsys.readouterr()
    assert torch.allclose(embed(sentence_encoder, texts, 32, cache_dir=tmp_path, name="minilm"), first, atol=1e-6)
    out = capsys.readouterr().out
    assert "embedding cache damaged, computing it again" in out and f"{path} {expected}" in out
    assert torch.equal(embed(sentence_encoder, texts, 32, cache_dir=tmp_path, name="minilm"), first)  # repaired
    assert "damaged" not in capsys.readouterr().out


def test_an_embedding_cache_killed_midway_is_computed_again(sentence_encoder, tmp_path, monkeypatch, capsys):
    import safetensors.torch

    texts = ["First sentence here.", "Second sentence there."]

    def killed(tensors, path):
        path.write_bytes(b"\x00" * 10)
        raise KeyboardInterrupt

    monkeypatch.setattr(safetensors.torch, "save_file", killed)
    with pytest.raises(KeyboardInterrupt):
        embed(sentence_encoder, texts, 32, cache_dir=tmp_path, name="minilm")
    monkeypatch.undo()
    assert not list((tmp_path / CACHE_FOLDER).glob("*.safetensors"))  # no partial file under the cache's name
    first = embed(sentence_encoder, texts, 32, cache_dir=tmp_path, name="minilm")
    assert "its save was interrupted" in capsys.readouterr().out and first.shape == (2, 384)
