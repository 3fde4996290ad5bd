"""Notebook 01's probe of why global attention matters: mask the later of two packed documents' statements of a fact
and ask whether its tokens can read the other (its *witness*) in one layer under each attention pattern."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .attention_pattern import attention_pattern_matrix
from .support.errors import ConfigError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from .inputs import PackedExample
    from .masking import CrossDocumentMLMCollator


def locate_facts(example: "PackedExample", documents: Sequence[str], facts: Iterable[Mapping[str, Any]],
                 tokenizer: "PreTrainedTokenizerBase") -> list[dict[str, Any]]:
    """The token positions of each fact statement (the cluster's rows of the world's `facts`) in `example`
    (`inputs.pack_cluster(documents, ...)` without sentence markers); statements left out or cut off are skipped."""
    doc_ids = np.asarray(example.doc_ids)
    blocks = {}  # doc index -> (position in the example, first body token, its </doc-s>, offsets, leading blanks)
    for position, doc_index in enumerate(example.documents):
        text = documents[doc_index]
        encoded = tokenizer(text.strip(), add_special_tokens=False, return_offsets_mapping=True)
        span = np.flatnonzero(doc_ids == position)
        start, stop = int(span[0]) + 1, int(span[-1])  # between <doc-s> and </doc-s>
        if example.input_ids[start:stop] != encoded["input_ids"][:stop - start]:
            raise ConfigError(f"document {doc_index} is not where expected in the packed input; locate_facts "
                              "needs an example packed by inputs.pack_cluster without sentence markers")
        blocks[doc_index] = (position, start, stop, encoded["offset_mapping"], len(text) - len(text.lstrip()))
    located = []
    for fact in facts:
        if fact["doc_index"] not in blocks:
            continue
        position, start, stop, offsets, lead = blocks[fact["doc_index"]]
        begin, end = fact["char_start"] - lead, fact["char_end"] - lead
        positions = [start + t for t, (s, e) in enumerate(offsets) if s < end and e > begin and start + t < stop]
        if positions:
            located.append({"fact": fact["fact"], "value": fact["value"], "correct": fact["correct"],
                            "doc": position, "positions": positions})
    return located


def shared_fact_statements(located: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """For each fact stated correctly in two or more packed documents: its last statement (to mask), the nearest
    correct statement in another document (its witness) and the tokens between them."""
    by_fact: dict[str, list[Mapping[str, Any]]] = {}
    for statement in located:
        if statement["correct"]:
            by_fact.setdefault(statement["fact"], []).append(statement)
    shared = []
    for fact, statements in by_fact.items():
        target = max(statements, key=lambda s: s["positions"][0])
        others = [s for s in statements if s["doc"] != target["doc"]]
        if not others:
            continue
        witness = min(others, key=lambda s: target["positions"][0] - s["positions"][-1])
        shared.append({"fact": fact, "value": target["value"], "target_doc": target["doc"],
                       "target": target["positions"], "witness_doc": witness["doc"], "witness": witness["positions"],
                       "distance": target["positions"][0] - witness["positions"][-1]})
    return sorted(shared, key=lambda s: -s["distance"])


def witness_reads(collators: Mapping[str, "CrossDocumentMLMCollator"], input_ids: Sequence[int],
                  statement: Mapping[str, Any], window: int) -> dict[str, bool]:
    """`{pattern: whether a statement's predicted `target` tokens can attend to its `witness` in one layer}`."""
    import torch

    row = torch.as_tensor(list(input_ids), dtype=torch.long)
    predicted = torch.zeros(len(row), dtype=torch.bool)
    predicted[list(statement["target"])] = True
    attended, reads = np.ones(len(row), dtype=int), np.ix_(list(statement["target"]), list(statement["witness"]))
    return {pattern: bool(attention_pattern_matrix(attended, collator.global_attention(row, predicted), window)[reads]
                          .any()) for pattern, collator in collators.items()}
