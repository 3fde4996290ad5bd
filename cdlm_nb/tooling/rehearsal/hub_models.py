"""Random-weight stand-ins of the hub models the gpu profile loads, written into a Hugging Face hub cache folder.

`build_hub_models(hub_cache, texts, shape)` writes, in huggingface_hub's cache layout
(`models--org--name/{blobs,refs,snapshots/<commit>}`), what the package's unchanged loading calls fetch:

- `allenai/longformer-base-4096`: `main` (config.json, vocab.json, merges.txt: the tokenizer) and `refs/pr/7`
  (the same plus model.safetensors, the branch the hub's safetensors bot opened);
- `biu-nlp/cdlm`: likewise with `refs/pr/1`, its vocabulary ending in `<doc-s>`, `</doc-s>` (added_tokens.json) and
  its embedding matrix covering them;
- `sentence-transformers/nli-roberta-base-v2` (the gpu profile's sentence encoder): `main` in the
  sentence-transformers layout, a RobertaModel with mean pooling.

The pickled `pytorch_model.bin` the real `main` branches hold is left out: nothing here writes a pickle, and the
package loads safetensors only. Weights are random (seeded); the byte-level BPE is trained on `texts` and padded to
the shape's vocabulary size, so that ids (`<mask>` last, the separators after it) and matrix shapes are the real
checkpoints'. Point `HF_HUB_CACHE` at `hub_cache` and set `HF_HUB_OFFLINE=1` before huggingface_hub is imported
(it reads both at import), and `from_pretrained` / `SentenceTransformer` resolve from these files.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...encoders import HUB_MODELS
from ...profiles import SEED, get_profile
from ...tokenization import DOCUMENT_SEPARATORS, ROBERTA_SPECIALS, train_byte_level_bpe

if TYPE_CHECKING:
    from transformers import PreTrainedModel


@dataclass(frozen=True)
class StandinShape:
    """The sizes of the stand-in models; positions and window are the Longformers' (the RoBERTa keeps 514)."""

    vocab_size: int  # RoBERTa's vocabulary, `<mask>` last: the BPE is padded up to it
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    max_position_embeddings: int  # 4,096 tokens + pad offset, as the real config, so the gpu lengths fit
    attention_window: int


#: Seconds to build and a few MB on disk: for tests and `cdlm-nb rehearse`. The window keeps the rehearsal's ratio
#: (512 tokens over a 64-token window, as gpu's 4,096 over 512).
TINY = StandinShape(vocab_size=2000, hidden_size=32, num_layers=2, num_heads=2, intermediate_size=64,
                    max_position_embeddings=4098, attention_window=64)
#: Longformer-base's real shapes (and RoBERTa-base's for the sentence encoder): memory and disk as the real ones.
REAL = StandinShape(vocab_size=50265, hidden_size=768, num_layers=12, num_heads=12, intermediate_size=3072,
                    max_position_embeddings=4098, attention_window=512)
#: The shapes `cdlm-nb rehearse --shape` offers.
SHAPES = {"tiny": TINY, "real": REAL}

ROBERTA_POSITIONS = 514  # nli-roberta-base-v2: 512 tokens + RoBERTa's pad offset
SENTENCE_MAX_SEQ_LENGTH = 75  # nli-roberta-base-v2's sentence_bert_config.json
LFS_SUFFIXES = (".safetensors",)  # files the hub stores in LFS: their blob is named by sha256, not the git sha1


# ---------------------------------------------------------------------------------------------------------------
# Tokenizer files (RoBERTa's byte-level BPE)
# ---------------------------------------------------------------------------------------------------------------
def train_bpe(texts: Sequence[str], vocab_size: int) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """RoBERTa's vocabulary layout trained on `texts`: `<s> <pad> </s> <unk>` (ids 0-3), the BPE, filler entries up
    to `vocab_size - 1` (a few hundred texts yield fewer merges than the real 50k), `<mask>` last; and the merges
    (`tokenization.train_byte_level_bpe`, without the leading-space marker: RoBERTa's default)."""
    mask = ROBERTA_SPECIALS[-1]
    backend = train_byte_level_bpe(texts, vocab_size - 1, ROBERTA_SPECIALS[:-1], add_prefix_space=False)
    model = json.loads(backend.to_str())["model"]
    vocab = dict(sorted(model["vocab"].items(), key=lambda item: item[1]))
    # Fillers are never produced (no merge leads to them); they only give the real ids and matrix shapes.
    vocab.update({f"<unused{i}>": i for i in range(len(vocab), vocab_size - 1)})
    vocab[mask] = vocab_size - 1
    return vocab, [tuple(merge) for merge in model["merges"]]


def bpe_files(vocab: Mapping[str, int], merges: Sequence[tuple[str, str]]) -> dict[str, bytes]:
    """vocab.json and merges.txt as GPT-2/RoBERTa repositories hold them."""
    lines = ["#version: 0.2", *(f"{left} {right}" for left, right in merges)]
    return {"vocab.json": _json(dict(vocab)), "merges.txt": ("\n".join(lines) + "\n").encode("utf-8")}


def special_tokens_map() -> dict:
    """RoBERTa's special_tokens_map.json (`<mask>` takes the space before it, as RoBERTa's tokenizer saves it)."""
    bos, pad, eos, unk, mask = ROBERTA_SPECIALS
    return {"bos_token": bos, "eos_token": eos, "unk_token": unk, "sep_token": eos, "pad_token": pad, "cls_token": bos,
            "mask_token": {"content": mask, "single_word": False, "lstrip": True, "rstrip": False,
                           "normalized": False}}


# ---------------------------------------------------------------------------------------------------------------
# Configs and weights
# ---------------------------------------------------------------------------------------------------------------
def _encoder_config(shape: StandinShape, vocab_size: int, model_type: str, positions: int) -> dict:
    """The config.json fields a RoBERTa-family encoder shares (RoBERTa's special ids, dropout 0.1, gelu)."""
    return {"attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "hidden_size": shape.hidden_size, "initializer_range": 0.02,
            "intermediate_size": shape.intermediate_size, "layer_norm_eps": 1e-05,
            "max_position_embeddings": positions, "model_type": model_type,
            "num_attention_heads": shape.num_heads, "num_hidden_layers": shape.num_layers, "pad_token_id": 1,
            "type_vocab_size": 1, "vocab_size": vocab_size}


def longformer_config(shape: StandinShape, vocab_size: int) -> dict:
    """Longformer-base's config.json at `shape`: one window per layer, as the released configs list it."""
    return {"architectures": ["LongformerForMaskedLM"],
            **_encoder_config(shape, vocab_size, "longformer", shape.max_position_embeddings),
            "attention_window": [shape.attention_window] * shape.num_layers, "sep_token_id": 2}


def roberta_config(shape: StandinShape, vocab_size: int) -> dict:
    """nli-roberta-base-v2's config.json (a RobertaModel, 514 positions) at `shape`."""
    return {"architectures": ["RobertaModel"], **_encoder_config(shape, vocab_size, "roberta", ROBERTA_POSITIONS)}


def random_weights(config: dict, seed: int) -> bytes:
    """model.safetensors of a seeded random model for `config` (LongformerForMaskedLM or RobertaModel), serialised
    by transformers itself so that tied weights are stored as the hub's safetensors files store them."""
    import torch
    from transformers import AutoConfig, LongformerForMaskedLM, RobertaModel
    from transformers.utils import logging

    model_class = {"longformer": LongformerForMaskedLM, "roberta": RobertaModel}[config["model_type"]]
    torch.manual_seed(seed)
    model: PreTrainedModel = model_class(AutoConfig.for_model(**config))
    bars = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()  # one "Writing model shards" bar per file says nothing here
    try:
        with tempfile.TemporaryDirectory() as folder:
            model.save_pretrained(folder)
            return (Path(folder) / "model.safetensors").read_bytes()
    finally:
        if bars:
            logging.enable_progress_bar()


# ---------------------------------------------------------------------------------------------------------------
# The hub cache layout
# ---------------------------------------------------------------------------------------------------------------
def blob_name(filename: str, data: bytes) -> str:
    """The blob's name in the cache: the hub's etag, sha256 for LFS files, the git blob sha1 for the others."""
    if filename.endswith(LFS_SUFFIXES):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def commit_hash(repo_id: str, revision: str, blobs: Mapping[str, str]) -> str:
    """A deterministic 40-hex commit id for a revision's files (huggingface_hub only checks the format)."""
    described = {"repo": repo_id, "revision": revision, "files": dict(sorted(blobs.items()))}
    return hashlib.sha1(_json(described)).hexdigest()


def repo_folder(hub_cache: Path, repo_id: str, repo_type: str = "model") -> Path:
    """`models--org--name` (`datasets--org--name` for a dataset): the repository's folder, named by huggingface_hub
    itself."""
    from huggingface_hub.file_download import repo_folder_name

    return hub_cache / repo_folder_name(repo_id=repo_id, repo_type=repo_type)


def write_revision(hub_cache: Path, repo_id: str, revision: str, files: Mapping[str, bytes],
                   repo_type: str = "model") -> str:
    """Write one revision: blobs by hash, `snapshots/<commit>/<file>` as relative symlinks to them (as
    huggingface_hub makes them), and `refs/<revision>` holding the commit. A PR revision "refs/pr/7" is recorded at
    `refs/refs/pr/7`: huggingface_hub joins `refs/` and the revision name as it is. Returns the commit."""
    folder = repo_folder(hub_cache, repo_id, repo_type)
    (folder / "blobs").mkdir(parents=True, exist_ok=True)
    blobs = {name: blob_name(name, data) for name, data in files.items()}
    commit = commit_hash(repo_id, revision, blobs)
    for name, data in files.items():
        blob = folder / "blobs" / blobs[name]
        if not blob.exists():
            blob.write_bytes(data)
        pointer = folder / "snapshots" / commit / name
        pointer.parent.mkdir(parents=True, exist_ok=True)
        pointer.unlink(missing_ok=True)
        pointer.symlink_to(os.path.relpath(blob, pointer.parent))
    ref = folder / "refs" / revision
    ref.parent.mkdir(parents=True, exist_ok=True)
    ref.write_text(commit)  # no newline: huggingface_hub reads the file as the hash
    return commit


# ---------------------------------------------------------------------------------------------------------------
# The repositories
# ---------------------------------------------------------------------------------------------------------------
def longformer_repos(bpe: Mapping[str, bytes], shape: StandinShape) -> dict[str, dict[str, dict[str, bytes]]]:
    """repo -> revision -> files for `allenai/longformer-base-4096` and `biu-nlp/cdlm`."""
    vocab_size = len(json.loads(bpe["vocab.json"]))
    repo, pr = HUB_MODELS["longformer-base"]
    base_main = {"config.json": _json(longformer_config(shape, vocab_size)), **bpe}
    cdlm_repo, cdlm_pr = HUB_MODELS["cdlm-release"]
    cdlm_config = longformer_config(shape, vocab_size + len(DOCUMENT_SEPARATORS))
    cdlm_main = {
        "config.json": _json(cdlm_config), **bpe,
        # The released tokenizer adds the separators as ordinary tokens after `<mask>` (its added_tokens.json).
        "added_tokens.json": _json({token: vocab_size + i for i, token in enumerate(DOCUMENT_SEPARATORS)}),
        "special_tokens_map.json": _json(special_tokens_map()),
        "tokenizer_config.json": _json({"model_max_length": shape.max_position_embeddings - 2}),
    }
    base_weights = random_weights(longformer_config(shape, vocab_size), SEED)
    cdlm_weights = random_weights(cdlm_config, SEED + 1)
    return {
        repo: {"main": base_main, pr: {**base_main, "model.safetensors": base_weights}},
        cdlm_repo: {"main": cdlm_main, cdlm_pr: {**cdlm_main, "model.safetensors": cdlm_weights}},
    }


def sentence_encoder_repo(bpe: Mapping[str, bytes], shape: StandinShape) -> dict[str, bytes]:
    """nli-roberta-base-v2's `main`: a sentence-transformers v2 repository (Transformer + mean Pooling)."""
    config = roberta_config(shape, len(json.loads(bpe["vocab.json"])))
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    pooling = {"word_embedding_dimension": shape.hidden_size, "pooling_mode_cls_token": False,
               "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
               "pooling_mode_mean_sqrt_len_tokens": False}
    return {
        "config.json": _json(config), **bpe,
        "special_tokens_map.json": _json(special_tokens_map()),
        "tokenizer_config.json": _json({"model_max_length": ROBERTA_POSITIONS - 2}),
        "modules.json": _json(modules),
        "sentence_bert_config.json": _json({"max_seq_length": SENTENCE_MAX_SEQ_LENGTH, "do_lower_case": False}),
        "config_sentence_transformers.json": _json({"__version__": {"sentence_transformers": "2.0.0"}}),
        "1_Pooling/config.json": _json(pooling),
        "model.safetensors": random_weights(config, SEED + 2),
    }


def build_hub_models(hub_cache: Path, texts: Sequence[str], shape: StandinShape = TINY) -> list[str]:
    """Write every stand-in model into the hub cache folder `hub_cache` (HF_HUB_CACHE); returns the repo ids."""
    hub_cache = Path(hub_cache)
    bpe = bpe_files(*train_bpe(texts, shape.vocab_size))
    sentence_encoder = get_profile("gpu").classification.encoder
    repos = {**longformer_repos(bpe, shape), sentence_encoder: {"main": sentence_encoder_repo(bpe, shape)}}
    for repo_id, revisions in repos.items():
        for revision, files in revisions.items():
            write_revision(hub_cache, repo_id, revision, files)
    return list(repos)


def _json(value: object) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
