"""The training examples of each model (the CDLM paper, §3): related clusters, unrelated documents, or one document
per example (`packing_of`), built once per run folder: `<run_dir>/packed/` holds the tokenized corpus and each packing
as checked Arrow artefacts, keyed by the corpus, the tokenizer and every packing setting (not the masking pattern:
CDLM, Local and Prefix read one packing)."""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.compute as pc

from ..inputs import (
    MIN_CLUSTER_DOCUMENTS,
    pack_random_tokenized,
    pack_tokenized,
    packed_features,
    tokenize_clusters,
    tokens_features,
)
from ..masking import CrossDocumentMLMCollator
from ..support.artefacts import check_artefact, fingerprint, save_folder
from ..support.errors import DataError
from ..tokenization import document_separator_ids, sequence_markers
from ..variants import SINGLE_DOCUMENT_VARIANTS, UNRELATED_DOCUMENT_VARIANTS, check_variant

if TYPE_CHECKING:
    from datasets import Dataset, Features
    from transformers import PreTrainedTokenizerBase

    from ..data.corpora import PretrainingClusters
    from ..encoders import Encoder
    from ..profiles import Profile

#: At most this many different random packings per cluster are materialised; the Trainer cycles over them.
MAX_PACKINGS_PER_CLUSTER = 4
PACKED_FOLDER = "packed"  # under the run folder
#: In every key: raise it when a code change alters what a packing holds, so older cached ones are rebuilt.
PACKING_FORMAT = 1
DATA, INFO = "data.arrow", "packing.json"  # the files of a cached packing

Echo = Callable[[str], object]


def packing_of(variant: str) -> str:
    """How `variant`'s examples are packed: `related`, `unrelated` (rand), `filled` (base-long) or `single`."""
    check_variant(variant)
    if variant in SINGLE_DOCUMENT_VARIANTS:
        return "single"
    if variant in UNRELATED_DOCUMENT_VARIANTS:
        return "filled" if variant == "base-long" else "unrelated"
    return "related"


def pretraining_inputs(variant: str, clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int,
                       n_examples: int, seed: int, sentence_markers: bool = False,
                       run_dir: str | os.PathLike | None = None, echo: Echo = print) -> "Dataset":
    """About `n_examples` packed examples of `variant` (fewer distinct ones are cycled); with `run_dir`, built once."""
    packing = Packing.for_examples(variant, clusters, tokenizer, max_length, n_examples, seed, sentence_markers)
    return _some(packing.build(run_dir, echo), variant)


def first_inputs(variant: str, clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int,
                 n_examples: int, seed: int, sentence_markers: bool = False,
                 run_dir: str | os.PathLike | None = None) -> "Dataset":
    """The first `n_examples` rows of `pretraining_inputs`, packed from the first clusters alone where it can."""
    packing = Packing.for_examples(variant, clusters, tokenizer, max_length, n_examples, seed, sentence_markers)
    examples = None if run_dir is None else _read(Path(run_dir) / PACKED_FOLDER / packing.name)
    if examples is None and packing.per_cluster == 1 and packing.kind in ("related", "single"):
        prefix = n_examples
        while True:
            head = clusters.select(range(min(prefix, len(clusters))))
            examples = Packing(variant, head, tokenizer, max_length, 1, seed, sentence_markers).build(None)
            if len(examples) >= n_examples or len(head) == len(clusters):
                break
            prefix *= 2
    elif examples is None:
        examples = packing.build(run_dir)
    return _some(examples, variant).select(range(min(n_examples, len(examples))))


def _some(examples: "Dataset", variant: str) -> "Dataset":
    if len(examples) == 0:
        raise DataError(f"no {variant} pretraining examples: {examples.info.description}")
    return examples


class Packing:
    """One packing of a cluster split: what `pretraining_inputs` builds, where a run folder keeps it, its key."""

    def __init__(self, variant: str, clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int,
                 per_cluster: int, seed: int, sentence_markers: bool):
        self.kind, self.clusters, self.tokenizer, self.max_length = packing_of(variant), clusters, tokenizer, max_length
        self.per_cluster, self.seed, self.sentence_markers = per_cluster, seed, sentence_markers
        self.min_documents = 1 if self.kind == "single" else MIN_CLUSTER_DOCUMENTS

    @classmethod
    def for_examples(cls, variant: str, clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int,
                     n_examples: int, seed: int, sentence_markers: bool) -> "Packing":
        """With enough packings per cluster (or document) for about `n_examples`, at most `MAX_PACKINGS_PER_CLUSTER`."""
        sources = len(clusters)
        if packing_of(variant) == "single":  # its documents, counted in the Arrow column
            sources = int(pc.sum(pc.list_value_length(clusters.with_format("arrow")["documents"])).as_py() or 0)
        per_cluster = min(MAX_PACKINGS_PER_CLUSTER, max(1, math.ceil(n_examples / max(1, sources))))
        return cls(variant, clusters, tokenizer, max_length, per_cluster, seed, sentence_markers)

    @cached_property
    def tokens_key(self) -> str:
        """The tokenized corpus's key: the corpus, the tokenizer, the layout."""
        return fingerprint("tokens", PACKING_FORMAT, corpus_fingerprint(self.clusters),
                           tokenizer_fingerprint(self.tokenizer), self.sentence_markers)

    @property
    def name(self) -> str:
        """The packing's folder name under `<run_dir>/packed/`: readable settings, then the key of all of them."""
        key = fingerprint(self.tokens_key, self.kind, self.max_length, self.per_cluster, self.seed,
                          self.sentence_markers, self.min_documents)
        return f"{self.kind}-{self.max_length}-x{self.per_cluster}-{key}"

    def build(self, run_dir: str | os.PathLike | None, echo: Echo = print) -> "Dataset":
        """The packing, read from the run folder, else built (the corpus tokenized once) and saved there."""
        folder = None if run_dir is None else Path(run_dir) / PACKED_FOLDER

        def pack(cache_file: Path | None) -> "Dataset":
            tokens = _cached(folder, f"tokens-{self.tokens_key}", tokens_features(), lambda file: tokenize_clusters(
                self.clusters, self.tokenizer, self.sentence_markers, file), echo)
            options = dict(seed=self.seed, sentence_markers=self.sentence_markers, min_documents=self.min_documents,
                           examples_per_cluster=self.per_cluster, cache_file=cache_file)
            if self.kind in ("unrelated", "filled"):
                return pack_random_tokenized(tokens, self.tokenizer, self.max_length, fill=self.kind == "filled",
                                             **options)
            return pack_tokenized(tokens, self.tokenizer, self.max_length, single_documents=self.kind == "single",
                                  **options)

        return _cached(folder, self.name, packed_features(), pack, echo)


def corpus_fingerprint(clusters: "Dataset") -> str:
    """A hash of a CLUSTER_FEATURES split's cluster ids and documents, read batch by batch from its Arrow columns."""
    digest = hashlib.sha256()
    for batch in clusters.select_columns(["cluster_id", "documents"]).with_format("arrow").iter(batch_size=4096):
        documents = batch["documents"]
        digest.update("\x1e".join(batch["cluster_id"].to_pylist()).encode())
        digest.update(pc.list_value_length(documents).to_numpy(zero_copy_only=False).tobytes())
        digest.update("\x1f".join(doc or "" for doc in pc.list_flatten(documents).to_pylist()).encode())
    return f"{len(clusters)}-{digest.hexdigest()[:16]}"


def tokenizer_fingerprint(tokenizer: "PreTrainedTokenizerBase") -> str:
    """A hash of what a tokenizer makes of a text: its vocabulary, merges, added tokens and special tokens."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        rules = json.dumps(sorted(tokenizer.get_vocab().items()))
    else:  # without the truncation and padding that the last call happened to leave set
        state = json.loads(backend.to_str())
        rules = json.dumps({k: v for k, v in state.items() if k not in ("truncation", "padding")}, sort_keys=True)
    return fingerprint(type(tokenizer).__name__, hashlib.sha256(rules.encode()).hexdigest(),
                       sequence_markers(tokenizer), document_separator_ids(tokenizer))


def _read(folder: Path, features: "Features | None" = None, echo: Echo | None = None) -> "Dataset | None":
    """A cached Arrow artefact (`_load`); None when it is not there or damaged (said with `echo`, if given)."""
    if not folder.is_dir():
        return None
    problems = check_artefact(folder, (DATA, INFO), echo=lambda _: None)
    if problems and echo is not None:
        echo(f"{folder}: damaged, building it again: " + "; ".join(problems))
    return None if problems else _load(folder, features or packed_features())


def _cached(folder: Path | None, name: str, features: "Features", build: Callable[[Path | None], "Dataset"],
            echo: Echo) -> "Dataset":
    """`build(cache_file)` once per folder, saved as `folder/name` and read back (damaged: said, rebuilt)."""
    if folder is None:
        return build(None)
    if (hit := _read(folder / name, features, echo)) is not None:
        return hit

    def write(temporary: Path) -> None:
        built = build(temporary / DATA)
        info = {"description": built.info.description, "rows": len(built)}
        (temporary / INFO).write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")

    save_folder(folder / name, write)
    return _load(folder / name, features)


def _load(folder: Path, features: "Features") -> "Dataset":
    """A cached Arrow artefact, memory-mapped, with its description."""
    from datasets import Dataset, DatasetInfo

    info = json.loads((folder / INFO).read_text(encoding="utf-8"))
    return Dataset.from_file(str(folder / DATA), info=DatasetInfo(description=info["description"], features=features))


def cdlm_batch(profile: "Profile", clusters: "PretrainingClusters", encoder: "Encoder", size: int = 1,
               run_dir: str | os.PathLike | None = None) -> dict:
    """A masked batch of the first `size` CDLM inputs; one by default, as Hugging Face's attention takes gigabytes."""
    examples = first_inputs("cdlm", clusters.train, encoder.tokenizer, profile.pretrain.max_length, size, profile.seed,
                            profile.encoder.sentence_markers, run_dir)
    rows = [{"input_ids": ids} for ids in examples["input_ids"]]
    return CrossDocumentMLMCollator(encoder.tokenizer, pattern="cdlm", seed=profile.seed)(rows)
