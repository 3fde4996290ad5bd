"""Cross-document inputs: whole documents of one cluster, concatenated with `<doc-s>`/`</doc-s>` separators.

An example (CDLM paper §2.3) takes a cluster of >= 3 related documents, shuffles them, and appends whole
documents until the next one would pass `max_length`; documents are never cut, except when the *first* document
alone is longer than `max_length`: it is then truncated (its `</doc-s>` kept) and counted, so no cluster is lost.

Layout (the CDLM paper's):            `<s> <doc-s> doc1 </doc-s> <doc-s> doc2 </doc-s> ... </s>`
`sentence_markers=True` (the authors' released code): `<doc-s> <s> sent </s> <s> sent </s> </doc-s> <doc-s> ...`
with no sequence-level `<s>`/`</s>`. With a BERT tokenizer, `<s>`/`</s>` are `[CLS]`/`[SEP]`.

`doc_ids` gives, for every token, the position (0, 1, ...) of its document in the example (separators belong to
their document; the sequence's `<s>`/`</s>` get -1): notebooks colour tokens by document with it.
`pack_random_documents` builds the Rand CDLM inputs: the same packing, but each document from a different cluster.

Inputs of two documents (coreference pairs, attention-analysis pairs, document matching) follow one room policy:
`share_room` splits the tokens between the two documents and `window_start` cuts a long one to a window centred
on what must stay (a mention).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .data.text import split_sentences
from .errors import ConfigError, DataError
from .seeding import SEED
from .tokenization import document_separator_ids, sequence_markers

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedTokenizerBase

logger = logging.getLogger(__name__)

MIN_CLUSTER_DOCUMENTS = 3  # the CDLM paper (§2.3) packs only clusters of at least three documents
NO_DOCUMENT = -1  # doc_ids value of the sequence-level <s> and </s>


@dataclass
class PackedExample:
    """One cross-document input: token ids, the document of each token, and what was packed."""

    input_ids: list[int]
    doc_ids: list[int]  # per token: position of its document in this example, NO_DOCUMENT for <s> ... </s>
    documents: list[int] = field(default_factory=list)  # indices (into the given documents) of those packed
    truncated: bool = False  # the first document alone was longer than max_length and was cut
    n_left_out: int = 0  # documents that did not fit (or were blank)


def packed_features():
    """The `datasets.Features` of `pack_clusters` / `pack_random_documents` rows."""
    from datasets import Features, List, Value

    return Features(
        {
            "cluster_id": Value("string"),  # the cluster the example was built for
            "input_ids": List(Value("int32")),
            "doc_ids": List(Value("int32")),  # document position per token (NO_DOCUMENT for <s>/</s>)
            "sources": List(Value("string")),  # "<cluster_id>/<document index>" of each packed document
            "truncated": Value("bool"),  # the single first document was cut to max_length
        }
    )


def encode_document(text: str, tokenizer: "PreTrainedTokenizerBase", sentence_markers: bool = False) -> list[int]:
    """`<doc-s> tokens </doc-s>` for one document, with `<s> ... </s>` around each sentence if asked."""
    return _encode_documents([text], tokenizer, sentence_markers)[0]


def pack_cluster(
    documents: Sequence[str],
    tokenizer: "PreTrainedTokenizerBase",
    max_length: int,
    rng: random.Random,
    sentence_markers: bool = False,
) -> PackedExample:
    """Shuffle a cluster's documents and append whole ones until the next would pass `max_length`."""
    blocks = _encode_documents(documents, tokenizer, sentence_markers)
    order = list(range(len(blocks)))
    rng.shuffle(order)
    return _pack_blocks(blocks, order, tokenizer, max_length, sentence_markers)


def pack_clusters(
    dataset: "Dataset",
    tokenizer: "PreTrainedTokenizerBase",
    max_length: int,
    seed: int = SEED,
    sentence_markers: bool = False,
    min_documents: int = MIN_CLUSTER_DOCUMENTS,
    examples_per_cluster: int = 1,
) -> "Dataset":
    """CDLM pretraining inputs from a CLUSTER_FEATURES dataset: `examples_per_cluster` random packings per cluster.

    Clusters with fewer than `min_documents` documents are skipped; the counts (skipped clusters, truncated first
    documents, documents left out) are logged and kept in `result.info.description`.
    """
    rng = random.Random(seed)
    clusters, n_skipped = _eligible_clusters(dataset, min_documents)
    rows, left_out = [], 0
    for cluster_id, documents in clusters:
        blocks = _encode_documents(documents, tokenizer, sentence_markers)
        for _ in range(examples_per_cluster):
            order = list(range(len(blocks)))
            rng.shuffle(order)
            example = _pack_blocks(blocks, order, tokenizer, max_length, sentence_markers)
            left_out += example.n_left_out
            rows.append(_row(cluster_id, example, [f"{cluster_id}/{i}" for i in example.documents]))
    summary = (
        f"{len(rows)} examples of related documents from {len(clusters)} clusters; {n_skipped} clusters with fewer "
        f"than {min_documents} documents skipped; {_count_truncated(rows)} over-long first documents truncated; "
        f"{left_out} documents did not fit"
    )
    return _to_dataset(rows, summary)


def pack_random_documents(
    dataset: "Dataset",
    tokenizer: "PreTrainedTokenizerBase",
    max_length: int,
    seed: int = SEED,
    sentence_markers: bool = False,
    min_documents: int = MIN_CLUSTER_DOCUMENTS,
    examples_per_cluster: int = 1,
    fill: bool = False,
) -> "Dataset":
    """Rand CDLM inputs: as many examples as `pack_clusters`, each of documents from *different* random clusters.

    Each example stands in for one cluster's CDLM example: it holds as many documents as that cluster, one random
    document from each of as many distinct random clusters (stopping early if the next would pass `max_length`) —
    the same amount and kind of text as CDLM, but unrelated documents. With `fill`, documents are added until the
    next one would pass `max_length` (RoBERTa's packing), so every position up to `max_length` is used.
    """
    rng = random.Random(seed)
    clusters, n_skipped = _eligible_clusters(dataset, min_documents)
    if len(clusters) < 2:
        raise DataError(
            f"pack_random_documents needs >= 2 clusters with >= {min_documents} documents, got {len(clusters)}"
        )
    encoded: dict[int, list[list[int]]] = {}

    def block(c: int, d: int) -> list[int]:
        if c not in encoded:  # tokenize a cluster only when one of its documents is drawn
            encoded[c] = _encode_documents(clusters[c][1], tokenizer, sentence_markers)
        return encoded[c][d]

    rows = []
    for cluster_id, documents in clusters:
        for _ in range(examples_per_cluster):
            picks, length = [], 0 if sentence_markers else 2
            for c in _distinct_indices(rng, len(clusters)):  # as many documents as the cluster, or until full
                picks.append((c, rng.randrange(len(clusters[c][1]))))
                length += len(block(*picks[-1]))
                if length > max_length or (not fill and len(picks) == len(documents)):
                    break
            blocks = [block(c, d) for c, d in picks]
            example = _pack_blocks(blocks, list(range(len(blocks))), tokenizer, max_length, sentence_markers)
            sources = [f"{clusters[picks[i][0]][0]}/{picks[i][1]}" for i in example.documents]
            rows.append(_row(cluster_id, example, sources))
    summary = (
        f"{len(rows)} examples of unrelated documents (each from a different cluster) drawn from {len(clusters)} "
        f"clusters; {n_skipped} clusters with fewer than {min_documents} documents skipped; "
        f"{_count_truncated(rows)} over-long first documents truncated"
    )
    return _to_dataset(rows, summary)


# ---------------------------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------------------------
def _encode_documents(
    texts: Sequence[str], tokenizer: "PreTrainedTokenizerBase", sentence_markers: bool
) -> list[list[int]]:
    """Each text as `<doc-s> ... </doc-s>` token ids (one batched tokenizer call); a blank text gives []."""
    doc_start, doc_end = document_separator_ids(tokenizer)
    start, end = sequence_markers(tokenizer)
    pieces = [split_sentences(text) if sentence_markers else [text.strip()] for text in texts]
    flat = [piece for doc in pieces for piece in doc if piece]
    ids = tokenizer(flat, add_special_tokens=False, verbose=False)["input_ids"] if flat else []
    blocks, cursor = [], 0
    for doc in pieces:
        body: list[int] = []
        for piece in doc:
            if not piece:
                continue
            body += [start, *ids[cursor], end] if sentence_markers else ids[cursor]
            cursor += 1
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


def _pack_blocks(
    blocks: Sequence[list[int]],
    order: Sequence[int],
    tokenizer: "PreTrainedTokenizerBase",
    max_length: int,
    sentence_markers: bool,
) -> PackedExample:
    """Append blocks in `order` until the next would pass max_length; cut only a single over-long first block."""
    start, end = sequence_markers(tokenizer)
    closing = 0 if sentence_markers else 1  # the sequence-level </s> still to come
    if max_length < 2 * closing + 4:
        raise ConfigError(f"max_length={max_length} is too short for even one document with its separators")
    input_ids: list[int] = [] if sentence_markers else [start]
    doc_ids: list[int] = [] if sentence_markers else [NO_DOCUMENT]
    packed: list[int] = []
    truncated = False
    for index in order:
        block = blocks[index]
        if not block:
            continue
        room = max_length - len(input_ids) - closing
        if len(block) > room:
            if packed:
                break
            block = _truncate_block(block, room, end if sentence_markers else None)
            truncated = True
        doc_ids += [len(packed)] * len(block)
        input_ids += block
        packed.append(index)
        if truncated:
            break
    if not sentence_markers:
        input_ids.append(end)
        doc_ids.append(NO_DOCUMENT)
    return PackedExample(input_ids, doc_ids, packed, truncated, n_left_out=len(order) - len(packed))


def _truncate_block(block: list[int], room: int, sentence_end: int | None) -> list[int]:
    """The first `room` tokens of a `<doc-s> ... </doc-s>` block, still closed by `</doc-s>` (and `</s>`)."""
    keep = block[: room - 1]
    if sentence_end is not None and keep[-1] != sentence_end:
        keep[-1] = sentence_end
    return [*keep, block[-1]]


def _eligible_clusters(dataset: "Dataset", min_documents: int) -> tuple[list[tuple[str, list[str]]], int]:
    """(cluster_id, documents) of the clusters with >= min_documents non-blank documents, and the number skipped."""
    missing = {"cluster_id", "documents"} - set(dataset.column_names)
    if missing:
        raise DataError(f"cluster dataset lacks column(s) {sorted(missing)}; expected CLUSTER_FEATURES")
    eligible = []
    for cluster_id, documents in zip(dataset["cluster_id"], dataset["documents"]):
        documents = [doc for doc in documents if doc and doc.strip()]
        if len(documents) >= min_documents:
            eligible.append((cluster_id, documents))
    return eligible, len(dataset) - len(eligible)


def _row(cluster_id: str, example: PackedExample, sources: list[str]) -> dict:
    return {
        "cluster_id": cluster_id,
        "input_ids": example.input_ids,
        "doc_ids": example.doc_ids,
        "sources": sources,
        "truncated": example.truncated,
    }


def _count_truncated(rows: list[dict]) -> int:
    return sum(row["truncated"] for row in rows)


def _to_dataset(rows: list[dict], summary: str) -> "Dataset":
    """The rows as a Dataset of `packed_features()`, with the packing counts logged and kept in its description."""
    from datasets import Dataset, DatasetInfo

    logger.info(summary)
    columns = {name: [row[name] for row in rows] for name in packed_features()}
    features = packed_features()
    return Dataset.from_dict(columns, features=features, info=DatasetInfo(description=summary, features=features))
