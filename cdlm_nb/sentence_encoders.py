"""Sentence transformers (the packaged all-MiniLM-L6-v2 offline, or a hub id) and their embeddings cached in the run
folder, shared by AoSE (notebook 08), CDA's BERT-HAN (notebook 10) and notebook 11's bi-encoder."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from .support.artefacts import check_artefact, manifest_path, save_file
from .support.errors import OfflineError
from .support.progress import is_headless

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

CACHE_FOLDER = "embeddings"  # under the run folder


def load_sentence_encoder(name: str, device: str = "cpu") -> "SentenceTransformer":
    """`name` = "minilm" (the packaged all-MiniLM-L6-v2), a local folder or a hub id (OfflineError offline)."""
    from sentence_transformers import SentenceTransformer

    from .encoders import minilm_path

    source = minilm_path() if name == "minilm" else name
    try:
        return SentenceTransformer(source, device=device, trust_remote_code=False)
    except (OSError, ValueError, ConnectionError) as error:
        raise OfflineError(f"could not load the sentence transformer {name!r} ({type(error).__name__}: {error}). "
                           f"Connect to the internet or run `hf download {name}` beforehand; offline, use encoder "
                           "'minilm' (pip install 'cdlm-nb[minilm]').") from error


def max_positions(encoder: "SentenceTransformer") -> int:
    """The most tokens (special tokens included) the encoder's position embeddings allow."""
    from .encoders import max_input_length

    return max_input_length(encoder[0].auto_model)


def embed(encoder: "SentenceTransformer", texts: Sequence[str], max_length: int, batch_size: int = 64,
          cache_dir: str | os.PathLike | None = None, name: str = "encoder") -> torch.Tensor:
    """`[len(texts), dim]` float32 CPU embeddings of texts cut to `max_length` tokens, under `finetuning.autocast`;
    with `cache_dir`, cached in `<cache_dir>/embeddings/` (a damaged cache is said and computed again)."""
    from safetensors.torch import load_file
    from safetensors.torch import save_file as save_tensors

    from .finetuning import autocast

    path = None
    if cache_dir is not None:
        digest = hashlib.sha256("\x00".join(texts).encode("utf-8")).hexdigest()[:20]
        stem = f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}-{max_length}-{digest}"
        path = Path(cache_dir) / CACHE_FOLDER / f"{stem}.safetensors"
        if path.is_file() or manifest_path(path).is_file():
            if not (problems := check_artefact(path)):
                return load_file(path)["embeddings"]
            print(f"embedding cache damaged, computing it again: {'; '.join(problems)}")
    if not texts:
        return torch.zeros(0, encoder.get_embedding_dimension())
    previous, encoder.max_seq_length = encoder.max_seq_length, min(max_length, max_positions(encoder))
    try:
        with autocast(encoder.device.type):
            vectors = encoder.encode(list(texts), batch_size=batch_size, convert_to_tensor=True,
                                     show_progress_bar=not is_headless() and len(texts) > 10 * batch_size)
        vectors = vectors.float().cpu()
    finally:
        encoder.max_seq_length = previous
    if path is not None:
        save_file(path, lambda temporary: save_tensors({"embeddings": vectors.contiguous()}, temporary))
    return vectors
