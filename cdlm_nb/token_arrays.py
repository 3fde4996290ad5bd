"""The Arrow plumbing of the packings (`inputs`): a batched map that keeps order and bypasses `datasets`' own
cache, and tokenized clusters as numpy arrays, so that any document's tokens can be read at random."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from datasets import Dataset


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
    written = None if cache_file is None else str(cache_file)
    return dataset.map(function, batched=True, batch_size=batch_size, input_columns=columns,
                       with_indices=with_indices, remove_columns=dataset.column_names, features=features,
                       keep_in_memory=written is None, cache_file_name=written, load_from_cache_file=False,
                       new_fingerprint=uuid.uuid4().hex, desc=desc)


@dataclass
class TokenArrays:
    """`tokenize_clusters` rows as numpy arrays, so that any document can be read at random: every token in one
    array, where each document starts, and each cluster's non-blank documents."""

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
        if len(dataset) == 0:
            empty = np.zeros(1, dtype=np.int64)
            return cls([], np.zeros(0, dtype=np.int32), empty, empty[:0], empty)
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
        start, end = self._span(cluster, index)
        return self.tokens[start:end].tolist()


def offsets(array) -> np.ndarray:
    """A pyarrow list array's offsets from 0 (a slice's start at its first value)."""
    offsets = array.offsets.to_numpy()
    return (offsets - offsets[0]).astype(np.int64)
