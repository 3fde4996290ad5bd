"""Cross-document inputs: whole documents of one cluster, concatenated with `<doc-s>`/`</doc-s>` separators.

An example (CDLM paper §2.3) shuffles a cluster of >= 3 documents and appends whole documents until the next would
pass `max_length`; only a *first* document longer than that is cut (its `</doc-s>` kept), so no cluster is lost.
Layout: `<s> <doc-s> doc1 </doc-s> ... </s>`; with `sentence_markers` (the authors' code) `<doc-s> <s> sent </s> ...
</doc-s> ...`. Corpora are read as Arrow columns (`tokenize_clusters` once for all packings), never as Python lists.
"""

from __future__ import annotations

import logging
import os
import random
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .data.text import split_sentences
from .profiles import SEED
from .support.errors import ConfigError, DataError
from .tokenization import document_separator_ids, sequence_markers

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedTokenizerBase

logger = logging.getLogger(__name__)

MIN_CLUSTER_DOCUMENTS = 3  # the CDLM paper (§2.3) packs only clusters of at least three documents
NO_DOCUMENT = -1  # doc_ids value of the sequence-level <s> and </s>
TOKENIZE_BATCH = 256  # clusters per tokenizer call (the fast tokenizers spread a batch over the cores)
PACK_BATCH = 64  # clusters packed per batch: only their tokens are Python lists at a time


@dataclass
class PackedExample:
    """One cross-document input: token ids, the document of each token, and what was packed."""

    input_ids: list[int]
    doc_ids: list[int]  # per token: position of its document in this example, NO_DOCUMENT for <s> ... </s>
    documents: list[int] = field(default_factory=list)  # indices (into the given documents) of those packed
    truncated: bool = False  # the first document alone was longer than max_length and was cut
    n_left_out: int = 0  # documents that did not fit (or were blank)


def packed_features():
    """The `datasets.Features` of packed rows (`sources`: "<cluster_id>/<document index>" of each document)."""
    from datasets import Features, List, Value

    return Features({"cluster_id": Value("string"), "input_ids": List(Value("int32")), "doc_ids": List(Value("int32")),
                     "sources": List(Value("string")), "truncated": Value("bool")})


def tokens_features():
    """The `datasets.Features` of `tokenize_clusters` rows: each document's block ([] and `blank` when it has none)."""
    from datasets import Features, List, Value

    return Features({"cluster_id": Value("string"), "blocks": List(List(Value("int32"))), "blank": List(Value("bool"))})


def pack_cluster(documents: Sequence[str], tokenizer: "PreTrainedTokenizerBase", max_length: int, rng: random.Random,
                 sentence_markers: bool = False) -> PackedExample:
    """Shuffle a cluster's documents and append whole ones until the next would pass `max_length`."""
    blocks = _encode_documents(documents, tokenizer, sentence_markers)
    order = list(range(len(blocks)))
    rng.shuffle(order)
    return _pack_blocks(blocks, order, tokenizer, max_length, sentence_markers)


def pack_clusters(dataset: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int, seed: int = SEED,
                  sentence_markers: bool = False, min_documents: int = MIN_CLUSTER_DOCUMENTS,
                  examples_per_cluster: int = 1) -> "Dataset":
    """CDLM pretraining inputs: `examples_per_cluster` packings per cluster (counts in `result.info.description`)."""
    tokens = tokenize_clusters(dataset, tokenizer, sentence_markers)
    return pack_tokenized(tokens, tokenizer, max_length, seed, sentence_markers, min_documents, examples_per_cluster)


def pack_random_documents(dataset: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int, seed: int = SEED,
                          sentence_markers: bool = False, min_documents: int = MIN_CLUSTER_DOCUMENTS,
                          examples_per_cluster: int = 1, fill: bool = False) -> "Dataset":
    """Rand CDLM inputs: for each example of `pack_clusters`, as many documents, each from another random cluster
    (stopping before `max_length`; `fill`: at it, RoBERTa's packing): the same amount of text, but unrelated."""
    tokens = tokenize_clusters(dataset, tokenizer, sentence_markers)
    return pack_random_tokenized(tokens, tokenizer, max_length, seed, sentence_markers, min_documents,
                                 examples_per_cluster, fill)


def tokenize_clusters(dataset: "Dataset", tokenizer: "PreTrainedTokenizerBase", sentence_markers: bool = False,
                      cache_file: str | os.PathLike | None = None) -> "Dataset":
    """Every document of a CLUSTER_FEATURES dataset as its `<doc-s> ... </doc-s>` block, in memory or `cache_file`."""
    if missing := {"cluster_id", "documents"} - set(dataset.column_names):
        raise DataError(f"cluster dataset lacks column(s) {sorted(missing)}; expected CLUSTER_FEATURES")

    def encode(cluster_ids: list[str], documents: list[list[str]]) -> dict:
        blank = [[not (doc and doc.strip()) for doc in docs] for docs in documents]
        texts = [doc for docs, gaps in zip(documents, blank) for doc, gap in zip(docs, gaps) if not gap]
        encoded = iter(_encode_documents(texts, tokenizer, sentence_markers))
        blocks = [[[] if gap else next(encoded) for gap in gaps] for gaps in blank]
        return {"cluster_id": cluster_ids, "blocks": blocks, "blank": blank}

    return ordered_map(dataset, encode, ["cluster_id", "documents"], tokens_features(), cache_file,
                       "tokenizing clusters", TOKENIZE_BATCH)


def pack_tokenized(tokens: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int, seed: int = SEED,
                   sentence_markers: bool = False, min_documents: int = MIN_CLUSTER_DOCUMENTS,
                   examples_per_cluster: int = 1, single_documents: bool = False,
                   cache_file: str | os.PathLike | None = None) -> "Dataset":
    """`pack_clusters` of `tokenize_clusters` rows (same `sentence_markers`), in memory or in `cache_file`.
    `single_documents`: each document a cluster of its own, `<cluster_id>/<index>` (single-document MLM's inputs)."""
    rng = random.Random(seed)
    counts = Counter()

    def pack(cluster_ids: list[str], blocks: list[list[list[int]]], blank: list[list[bool]]) -> dict:
        rows = {name: [] for name in packed_features()}
        for cluster_id, docs, gaps in zip(cluster_ids, blocks, blank):
            groups = ([(f"{cluster_id}/{index}", [] if gap else [block])
                       for index, (block, gap) in enumerate(zip(docs, gaps))] if single_documents
                      else [(cluster_id, [block for block, gap in zip(docs, gaps) if not gap])])
            for name, group in groups:
                if len(group) < min_documents:
                    counts["skipped"] += 1
                    continue
                counts["clusters"] += 1
                for _ in range(examples_per_cluster):
                    order = list(range(len(group)))
                    rng.shuffle(order)
                    example = _pack_blocks(group, order, tokenizer, max_length, sentence_markers)
                    counts["left_out"] += example.n_left_out
                    _append(rows, name, example, [f"{name}/{i}" for i in example.documents])
        counts["examples"] += len(rows["cluster_id"])
        counts["truncated"] += sum(rows["truncated"])
        return rows

    packed = ordered_map(tokens, pack, ["cluster_id", "blocks", "blank"], packed_features(), cache_file,
                         "packing clusters", PACK_BATCH)
    return _described(packed, (
        f"{counts['examples']} examples of related documents from {counts['clusters']} clusters; "
        f"{counts['skipped']} clusters with fewer than {min_documents} documents skipped; {counts['truncated']} "
        f"over-long first documents truncated; {counts['left_out']} documents did not fit"))


def pack_random_tokenized(tokens: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int, seed: int = SEED,
                          sentence_markers: bool = False, min_documents: int = MIN_CLUSTER_DOCUMENTS,
                          examples_per_cluster: int = 1, fill: bool = False,
                          cache_file: str | os.PathLike | None = None) -> "Dataset":
    """`pack_random_documents` of `tokenize_clusters` rows, read as one numpy array (any cluster may be drawn)."""
    corpus = TokenArrays.of(tokens)
    eligible = np.flatnonzero(corpus.kept_counts >= min_documents)
    if len(eligible) < 2:
        raise DataError(f"pack_random_documents needs >= 2 clusters with >= {min_documents} documents, "
                        f"got {len(eligible)}")
    rng = random.Random(seed)
    counts = Counter()

    def pack(cluster_ids: list[str], indices: list[int]) -> dict:
        rows = {name: [] for name in packed_features()}
        for cluster_id, index in zip(cluster_ids, indices):
            size = int(corpus.kept_counts[index])
            if size < min_documents:
                continue
            for _ in range(examples_per_cluster):
                picks, length = [], 0 if sentence_markers else 2
                for c in _distinct_indices(rng, len(eligible)):  # as many documents as the cluster, or until full
                    picks.append((c, rng.randrange(int(corpus.kept_counts[eligible[c]]))))
                    length += corpus.block_length(eligible[c], picks[-1][1])
                    if length > max_length or (not fill and len(picks) == size):
                        break
                blocks = [corpus.block(eligible[c], d) for c, d in picks]
                example = _pack_blocks(blocks, list(range(len(blocks))), tokenizer, max_length, sentence_markers)
                sources = [f"{corpus.cluster_ids[eligible[picks[i][0]]]}/{picks[i][1]}" for i in example.documents]
                _append(rows, cluster_id, example, sources)
        counts["examples"] += len(rows["cluster_id"])
        counts["truncated"] += sum(rows["truncated"])
        return rows

    packed = ordered_map(tokens, pack, ["cluster_id"], packed_features(), cache_file, "packing unrelated documents",
                         PACK_BATCH, with_indices=True)
    return _described(packed, (
        f"{counts['examples']} examples of unrelated documents (each from a different cluster) drawn from "
        f"{len(eligible)} clusters; {len(tokens) - len(eligible)} clusters with fewer than {min_documents} documents "
        f"skipped; {counts['truncated']} over-long first documents truncated"))


def share_room(length1: int, length2: int, room: int) -> tuple[int, int]:
    """Token budgets of two documents sharing `room`: as much as each needs; when both are long, a document gets
    what the other leaves but at least half (the first gets the smaller half when `room` is odd)."""
    if length1 + length2 <= room:
        return length1, length2
    first = min(length1, max(room // 2, room - length2))
    return first, room - first


def window_start(length: int, span: Sequence[int], budget: int) -> int | None:
    """Where a window of `budget` tokens of a `length`-token document starts so that it holds the positions
    `span`, centred on them (clamped to the document); 0 when it all fits; None when `span` alone is too long."""
    if length <= budget:
        return 0
    low, high = min(span), max(span) + 1
    if high - low > budget:
        return None
    return max(0, min(low - (budget - (high - low)) // 2, length - budget))


def ordered_map(dataset: "Dataset", function: Callable, columns: list[str], features,
                cache_file: str | os.PathLike | None, desc: str, batch_size: int,
                with_indices: bool = False) -> "Dataset":
    """`dataset.map(function)` in order, a batch at a time, into `features` only: in memory, or written to
    `cache_file`; never read from or written to `datasets`' own cache (a packing draws from one random stream)."""
    from datasets import Dataset

    if len(dataset) == 0:  # `map` would return the empty input with its own columns
        if cache_file is not None:
            from datasets.arrow_writer import ArrowWriter

            with ArrowWriter(features=features, path=str(cache_file)) as writer:
                writer.finalize()
        return Dataset.from_dict({name: [] for name in features}, features=features)
    return dataset.map(function, batched=True, batch_size=batch_size, input_columns=columns, with_indices=with_indices,
                       remove_columns=dataset.column_names, features=features, keep_in_memory=cache_file is None,
                       cache_file_name=None if cache_file is None else str(cache_file), load_from_cache_file=False,
                       new_fingerprint=uuid.uuid4().hex, desc=desc)


@dataclass
class TokenArrays:
    """`tokenize_clusters` rows as numpy arrays, so that any document can be read at random."""

    cluster_ids: list[str]
    tokens: np.ndarray  # int32, every block of every document
    starts: np.ndarray  # per document (and one past the last): where its block starts in `tokens`
    kept: np.ndarray  # the non-blank documents, cluster by cluster
    kept_starts: np.ndarray  # per cluster (and one past the last): where its non-blank documents start in `kept`

    @property
    def kept_counts(self) -> np.ndarray:
        return np.diff(self.kept_starts)

    @classmethod
    def of(cls, dataset: "Dataset") -> "TokenArrays":
        table = dataset.with_format("arrow")[:]
        blocks = table.column("blocks").combine_chunks()
        documents = blocks.flatten()
        blank = table.column("blank").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        kept_before = np.concatenate([[0], np.cumsum(~blank)])  # non-blank documents before each document
        return cls(table.column("cluster_id").to_pylist(), documents.flatten().to_numpy(),
                   offsets(documents), np.flatnonzero(~blank), kept_before[offsets(blocks)])

    def _span(self, cluster: int, index: int) -> tuple[int, int]:
        """Where the block of the `index`-th non-blank document of `cluster` starts and ends in `tokens`."""
        document = int(self.kept[self.kept_starts[cluster] + index])
        return int(self.starts[document]), int(self.starts[document + 1])

    def block_length(self, cluster: int, index: int) -> int:
        start, end = self._span(cluster, index)
        return end - start

    def block(self, cluster: int, index: int) -> list[int]:
        return self.tokens[slice(*self._span(cluster, index))].tolist()


def offsets(array) -> np.ndarray:
    """A pyarrow list array's offsets from 0 (a slice's start at its first value)."""
    offsets = array.offsets.to_numpy()
    return (offsets - offsets[0]).astype(np.int64)


def _encode_documents(texts: Sequence[str], tokenizer: "PreTrainedTokenizerBase",
                      sentence_markers: bool) -> list[list[int]]:
    """Each text as `<doc-s> ... </doc-s>` token ids (one batched tokenizer call); a blank text gives []."""
    doc_start, doc_end = document_separator_ids(tokenizer)
    start, end = sequence_markers(tokenizer)
    pieces = [split_sentences(text) if sentence_markers else [text.strip()] for text in texts]
    flat = [piece for doc in pieces for piece in doc if piece]
    ids = iter(tokenizer(flat, add_special_tokens=False, verbose=False)["input_ids"] if flat else [])
    blocks = []
    for doc in pieces:
        body = [token for piece in doc if piece
                for token in ([start, *next(ids), end] if sentence_markers else next(ids))]
        blocks.append([doc_start, *body, doc_end] if body else [])
    return blocks


def _distinct_indices(rng: random.Random, n: int):
    """Distinct random indices in range(n), drawn lazily (an example needs only a few of many clusters)."""
    seen: set[int] = set()
    while len(seen) < n:
        index = rng.randrange(n)
        if index not in seen:
            seen.add(index)
            yield index


def _pack_blocks(blocks: Sequence[list[int]], order: Sequence[int], tokenizer: "PreTrainedTokenizerBase",
                 max_length: int, sentence_markers: bool) -> PackedExample:
    """Append blocks in `order` until the next would pass max_length; cut only a single over-long first block
    (keeping its `</doc-s>`, and its last `</s>` with sentence markers)."""
    start, end = sequence_markers(tokenizer)
    frame = 0 if sentence_markers else 2  # the sequence-level <s> and </s>
    if max_length < frame + 4:
        raise ConfigError(f"max_length={max_length} is too short for even one document with its separators")
    input_ids, doc_ids, packed, truncated = [], [], [], False
    for index in order:
        block = blocks[index]
        if not block:
            continue
        room = max_length - len(input_ids) - frame
        if len(block) > room:
            if packed:
                break
            keep = block[:room - 1]
            if sentence_markers:
                keep[-1] = end
            block, truncated = [*keep, block[-1]], True
        doc_ids += [len(packed)] * len(block)
        input_ids += block
        packed.append(index)
        if truncated:
            break
    if frame:
        input_ids, doc_ids = [start, *input_ids, end], [NO_DOCUMENT, *doc_ids, NO_DOCUMENT]
    return PackedExample(input_ids, doc_ids, packed, truncated, n_left_out=len(order) - len(packed))


def _append(rows: dict[str, list], cluster_id: str, example: PackedExample, sources: list[str]) -> None:
    """One example onto the columns of `packed_features()` (in their order)."""
    for column, value in zip(rows.values(), (cluster_id, example.input_ids, example.doc_ids, sources,
                                             example.truncated)):
        column.append(value)


def _described(dataset: "Dataset", summary: str) -> "Dataset":
    """`dataset` with the packing counts logged and kept in its description."""
    logger.info(summary)
    dataset.info.description = summary
    return dataset
