"""The hub-model stand-ins: huggingface_hub's cache layout (PR revisions included), and the package's unchanged
loading calls resolving from it offline. huggingface_hub reads HF_HUB_OFFLINE / HF_HUB_CACHE when it is imported,
so the loads run in a subprocess started with those variables."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cdlm_nb.encoders import HUB_MODELS
from cdlm_nb.tokenization import DOCUMENT_SEPARATORS, ROBERTA_SPECIALS, train_byte_level_bpe
from cdlm_nb.tooling.rehearsal.hub_models import TINY, build_hub_models, repo_folder, train_bpe

TEXTS = [
    "The earthquake struck the coastal town on Monday, and rescue teams arrived within hours.",
    "Officials said the storm damaged more than two hundred homes along the river.",
    "The mayor won the election with a narrow margin after a long campaign.",
    "Investors reacted to the merger announcement by selling shares of both companies.",
] * 5
SENTENCE_ENCODER = "sentence-transformers/nli-roberta-base-v2"

# What the gpu path calls, printed as JSON: the two Longformers through `from_hub`, the sentence encoder through
# `load_sentence_encoder`, and `from_hub` against an empty cache (the OfflineError a user without a copy gets).
LOADS = """
import json, sys
import torch
from cdlm_nb.encoders import from_hub
from cdlm_nb.support.errors import OfflineError
from cdlm_nb.sentence_encoders import embed, load_sentence_encoder, max_positions

report = {}
for name in ("longformer-base", "cdlm-release"):
    encoder = from_hub(name)
    batch = encoder.tokenizer(["A storm hit the coast.", "The mayor won."], padding=True, return_tensors="pt")
    with torch.no_grad():
        logits = encoder.model(**batch).logits
    vocab = encoder.tokenizer.get_vocab()
    report[name] = {"len": len(encoder.tokenizer), "mask": vocab["<mask>"],
                    "separators": [vocab[token] for token in ("<doc-s>", "</doc-s>")],
                    "rows": encoder.model.get_input_embeddings().num_embeddings,
                    "positions": encoder.model.config.max_position_embeddings,
                    "batch": list(batch["input_ids"].shape), "logits": list(logits.shape)}
sentences = load_sentence_encoder(sys.argv[1])
report["sentences"] = {"embeddings": list(embed(sentences, ["A storm hit.", "The mayor won the vote."], 64).shape),
                       "positions": max_positions(sentences), "pooling": sentences[1].pooling_mode}
try:
    from_hub("longformer-base", cache_dir=sys.argv[2])
except OfflineError as error:
    report["offline_error"] = str(error)
print(json.dumps(report))
"""


def test_the_roberta_vocabulary_is_the_shared_bpe_padded_with_mask_last():
    vocab, merges = train_bpe(TEXTS, 600)
    backend = train_byte_level_bpe(TEXTS, 599, ROBERTA_SPECIALS[:-1], add_prefix_space=False)
    trained = backend.get_vocab()
    assert {token: vocab[token] for token in trained} == trained and list(vocab.values()) == list(range(600))
    assert list(vocab)[:4] == list(ROBERTA_SPECIALS[:-1]) and list(vocab)[-1] == "<mask>"
    assert all(token.startswith("<unused") for token in list(vocab)[len(trained):-1])
    assert merges and all(left + right in trained for left, right in merges)
    assert "The" in trained  # a text's first word without the leading-space marker (RoBERTa's default)


@pytest.fixture(scope="module")
def hub_cache(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("hf_home") / "hub"
    assert build_hub_models(cache, TEXTS, TINY) == [*(repo for repo, _ in HUB_MODELS.values()), SENTENCE_ENCODER]
    return cache


@pytest.fixture(scope="module")
def loaded(hub_cache, tmp_path_factory) -> dict:
    """The report of LOADS, run offline against the stand-ins."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("SENTENCE_TRANSFORMERS_HOME", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE")}
    env.update(HF_HUB_OFFLINE="1", HF_HOME=str(hub_cache.parent), HF_HUB_CACHE=str(hub_cache))
    empty = tmp_path_factory.mktemp("empty_cache")
    result = subprocess.run([sys.executable, "-c", LOADS, SENTENCE_ENCODER, str(empty)], check=False, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_revisions_are_laid_out_as_huggingface_hub_caches_them(hub_cache):
    from huggingface_hub import try_to_load_from_cache

    for repo, pr in HUB_MODELS.values():
        folder = repo_folder(hub_cache, repo)
        assert (folder / "refs" / "refs" / "pr" / pr.rsplit("/", 1)[1]).is_file()  # refs/<revision>, as it is
        weights = try_to_load_from_cache(repo, "model.safetensors", cache_dir=hub_cache, revision=pr)
        assert weights is not None and Path(weights).is_symlink() and Path(weights).resolve().parent.name == "blobs"
        assert try_to_load_from_cache(repo, "vocab.json", cache_dir=hub_cache) is not None  # main: the tokenizer
        assert try_to_load_from_cache(repo, "model.safetensors", cache_dir=hub_cache) is None  # main: a pickle only
    assert not list(hub_cache.rglob("*.bin"))


@pytest.mark.slow  # one subprocess for all: imports torch, transformers, sentence-transformers
def test_longformer_base_loads_offline_at_its_real_layout(loaded):
    base = loaded["longformer-base"]
    assert base["mask"] == TINY.vocab_size - 1  # <mask> last, as in RoBERTa's vocabulary
    assert base["separators"] == [TINY.vocab_size, TINY.vocab_size + 1]  # added by from_hub
    assert base["rows"] == base["len"] == TINY.vocab_size + 2  # embeddings grown to the separators
    assert base["positions"] == 4098
    assert base["logits"] == [*base["batch"], base["rows"]]


@pytest.mark.slow  # one subprocess for all: imports torch, transformers, sentence-transformers
def test_the_cdlm_release_already_ends_with_the_document_separators(loaded):
    cdlm = loaded["cdlm-release"]
    assert cdlm["separators"] == [cdlm["len"] - 2, cdlm["len"] - 1] == [TINY.vocab_size, TINY.vocab_size + 1]
    assert cdlm["len"] == cdlm["rows"] == TINY.vocab_size + len(DOCUMENT_SEPARATORS)  # not re-added
    assert cdlm["logits"] == [*cdlm["batch"], cdlm["rows"]]


@pytest.mark.slow  # one subprocess for all: imports torch, transformers, sentence-transformers
def test_the_gpu_sentence_encoder_loads_offline(loaded):
    assert loaded["sentences"] == {"embeddings": [2, TINY.hidden_size], "positions": 512, "pooling": "mean"}


@pytest.mark.slow  # one subprocess for all: imports torch, transformers, sentence-transformers
def test_without_a_cached_copy_the_load_says_what_to_download(loaded):
    message = loaded["offline_error"]
    assert "allenai/longformer-base-4096" in message and "hf download" in message


def test_builds_are_deterministic(hub_cache, tmp_path):
    build_hub_models(tmp_path, TEXTS, TINY)
    refs = sorted(path.relative_to(hub_cache) for path in hub_cache.rglob("refs/**/*") if path.is_file())
    assert refs == sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("refs/**/*") if path.is_file())
    assert all((hub_cache / ref).read_text() == (tmp_path / ref).read_text() for ref in refs)  # same commits
