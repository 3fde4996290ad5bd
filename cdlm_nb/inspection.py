"""Looking inside a cross-document MLM batch: which token can attend to which, how the predicted tokens were
replaced, how far across documents a token can read, and where a cluster's facts sit in a packed input (so a
notebook can mask one statement of a fact and ask whether its tokens can read another document's statement).

The attention pattern follows Longformer's definition (Beltagy et al., 2020; Hugging Face `LongformerModel`):
with `attention_window = w` (both sides together), token i attends to token j when both are attended positions
(`attention_mask` 1) and either |i - j| <= w / 2 (the sliding window) or i or j has global attention (a global
token reads every position, and every position reads it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ConfigError
from .masking import IGNORE_INDEX

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from .inputs import PackedExample
    from .masking import CrossDocumentMLMCollator

# Values of `attention_kinds`.
NO_ATTENTION, LOCAL_ATTENTION, GLOBAL_ATTENTION = 0, 1, 2


def _numpy(values) -> np.ndarray:
    """A list, NumPy array or (CPU or GPU) torch tensor as a NumPy array."""
    return np.asarray(values.cpu() if hasattr(values, "cpu") else values)


def _row(values, name: str) -> np.ndarray:
    """One row as a 1-D int array (a batch of one is squeezed); anything else is a clear error."""
    array = _numpy(values)
    if array.ndim == 2 and array.shape[0] == 1:
        array = array[0]
    if array.ndim != 1:
        raise ConfigError(f"{name} must be one row (shape (length,) or (1, length)), got shape {array.shape}")
    return array.astype(np.int64)


def attention_kinds(attention_mask, global_attention_mask, window: int) -> np.ndarray:
    """(length, length) int matrix: LOCAL_ATTENTION where i reads j through the sliding window, GLOBAL_ATTENTION
    where only global attention lets it (i or j global), NO_ATTENTION elsewhere (Longformer's definition)."""
    attended = _row(attention_mask, "attention_mask").astype(bool)
    is_global = _row(global_attention_mask, "global_attention_mask").astype(bool)
    if attended.shape != is_global.shape:
        raise ConfigError(f"attention_mask {attended.shape} and global_attention_mask {is_global.shape} "
                          "differ in length")
    if window <= 0 or window % 2:
        raise ConfigError(f"attention window must be a positive even number (both sides together), got {window}")
    positions = np.arange(len(attended))
    both_attended = attended[:, None] & attended[None, :]
    in_window = np.abs(positions[:, None] - positions[None, :]) <= window // 2
    via_global = is_global[:, None] | is_global[None, :]
    kinds = np.full(both_attended.shape, NO_ATTENTION, dtype=np.int8)
    kinds[both_attended & via_global] = GLOBAL_ATTENTION
    kinds[both_attended & in_window] = LOCAL_ATTENTION
    return kinds


def attention_pattern_matrix(attention_mask, global_attention_mask, window: int) -> np.ndarray:
    """(length, length) bool matrix: True where token i (row) can attend to token j (column) in Longformer."""
    return attention_kinds(attention_mask, global_attention_mask, window) != NO_ATTENTION


def global_fraction(global_attention_mask, attention_mask=None) -> float:
    """Share of the attended tokens that have global attention (all tokens when no attention_mask is given)."""
    is_global = _row(global_attention_mask, "global_attention_mask").astype(bool)
    if attention_mask is None:
        attended = np.ones_like(is_global)
    else:
        attended = _row(attention_mask, "attention_mask").astype(bool)
    if not attended.any():
        raise ConfigError("global_fraction got a row with no attended tokens")
    return float((is_global & attended).sum() / attended.sum())


def cross_document_reach(pattern: np.ndarray, doc_ids: Sequence[int], positions: Iterable[int]) -> float:
    """Mean, over `positions`, of the share of *other* documents' tokens that the token can attend to.

    `pattern` is `attention_pattern_matrix(...)`; `doc_ids` gives each token's document (negative: none, as for
    the sequence's `<s>`/`</s>`). 1.0 means the tokens read every sibling document in full, 0.0 not at all.
    """
    doc_ids = np.asarray(doc_ids)
    if pattern.shape != (len(doc_ids), len(doc_ids)):
        raise ConfigError(f"pattern {pattern.shape} does not match {len(doc_ids)} doc_ids")
    shares = []
    for i in positions:
        others = (doc_ids >= 0) & (doc_ids != doc_ids[i])
        if doc_ids[i] >= 0 and others.any():
            shares.append(pattern[i, others].mean())
    if not shares:
        raise ConfigError("cross_document_reach needs positions inside a document of a multi-document input")
    return float(np.mean(shares))


def replacement_counts(input_ids, labels, mask_token_id: int) -> dict[str, int]:
    """How the predicted positions (label != -100) were fed to the model: `<mask>`, a random token, or unchanged.

    A random replacement that happens to draw the original token counts as unchanged (what the model sees).
    """
    inputs, labels = _numpy(input_ids), _numpy(labels)
    if inputs.shape != labels.shape:
        raise ConfigError(f"input_ids {inputs.shape} and labels {labels.shape} differ in shape")
    predicted = labels != IGNORE_INDEX
    masked = predicted & (inputs == mask_token_id)
    unchanged = predicted & (inputs == labels)
    return {"mask": int(masked.sum()), "random": int((predicted & ~masked & ~unchanged).sum()),
            "unchanged": int(unchanged.sum())}


def masking_statistics(collator: "CrossDocumentMLMCollator", rows: Sequence[Sequence[int]],
                       draws: int) -> dict[str, float]:
    """Mask each row `draws` times with `collator` and measure: the share of maskable tokens predicted
    (`mask_rate`) and how the predicted ones were replaced (`mask_share`, `random_share`, `unchanged_share`)."""
    import torch

    if draws < 1 or not rows:
        raise ConfigError(f"masking_statistics needs rows and draws >= 1, got {len(rows)} rows and draws={draws}")
    maskable = predicted = 0
    counts = {"mask": 0, "random": 0, "unchanged": 0}
    for _ in range(draws):
        for ids in rows:
            row = torch.as_tensor(list(ids), dtype=torch.long)
            masked = collator.mask_row(row)
            maskable += int(collator.maskable(row).sum())
            predicted += int(masked.predicted.sum())
            replaced = replacement_counts(masked.input_ids, masked.labels, collator.tokenizer.mask_token_id)
            for kind, n in replaced.items():
                counts[kind] += n
    if maskable == 0 or predicted == 0:
        raise ConfigError("masking_statistics: the rows have no maskable tokens")
    return {"mask_rate": predicted / maskable, **{f"{kind}_share": n / predicted for kind, n in counts.items()}}


def packing_summary(packed: Mapping[str, Sequence]) -> dict[str, float]:
    """Mean documents and tokens per packed example, and how many first documents were truncated, for the
    columns of `inputs.pack_clusters` (a Dataset or a dict of columns)."""
    sources, input_ids = packed["sources"], packed["input_ids"]
    if len(sources) == 0:
        raise ConfigError("packing_summary got no packed examples")
    return {
        "examples": len(sources),
        "docs_per_example": float(np.mean([len(s) for s in sources])),
        "tokens_per_example": float(np.mean([len(ids) for ids in input_ids])),
        "truncated": int(sum(packed["truncated"])),
    }


def locate_facts(example: "PackedExample", documents: Sequence[str], facts: Iterable[Mapping[str, Any]],
                 tokenizer: "PreTrainedTokenizerBase") -> list[dict[str, Any]]:
    """Where each fact statement of the packed documents sits in the packed input: its token positions.

    `example` is `inputs.pack_cluster(documents, ...)` (without sentence markers); `facts` are the cluster's rows
    of the world's `facts` dataset (`doc_index`, `fact`, `value`, `char_start`, `char_end`, `correct`).
    Statements of documents that were left out, or cut off by truncation, are skipped.
    """
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
    """For each fact stated correctly in two or more packed documents: its last statement (the one to mask),
    the nearest correct statement in another document (its witness) and how many tokens lie between them."""
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


def can_attend(pattern: np.ndarray, queries: Sequence[int], keys: Sequence[int]) -> bool:
    """Whether any of the `queries` tokens can attend to any of the `keys` tokens in `pattern`."""
    return bool(pattern[np.ix_(list(queries), list(keys))].any())


def attention_statistics(collator: "CrossDocumentMLMCollator", examples: Iterable[Mapping[str, Sequence[int]]],
                         window: int) -> dict[str, float]:
    """Collate each packed example (`input_ids`, `doc_ids`) alone and average: the share of tokens with global
    attention, and the cross-document reach of the predicted tokens (examples of a single document are counted
    in `single_document` and left out of the reach)."""
    fractions, reaches, single = [], [], 0
    for example in examples:
        batch = collator([{"input_ids": example["input_ids"]}])
        attention, is_global = batch["attention_mask"][0], batch["global_attention_mask"][0]
        fractions.append(global_fraction(is_global, attention))
        if len({d for d in example["doc_ids"] if d >= 0}) < 2:
            single += 1
            continue
        predicted = (batch["labels"][0] != IGNORE_INDEX).nonzero().flatten().tolist()
        pattern = attention_pattern_matrix(attention, is_global, window)
        reaches.append(cross_document_reach(pattern, example["doc_ids"], predicted))
    if not fractions:
        raise ConfigError("attention_statistics got no examples")
    return {"global_fraction": float(np.mean(fractions)),
            "cross_doc_reach": float(np.mean(reaches)) if reaches else float("nan"),
            "examples": len(fractions), "single_document": single}


def reads_witness(collator: "CrossDocumentMLMCollator", input_ids: Sequence[int], target: Sequence[int],
                  witness: Sequence[int], window: int) -> bool:
    """With the `target` tokens predicted, can they attend to the `witness` tokens in one layer, under the global
    attention `collator.pattern` gives? (The probe of notebook 01: a masked fact and its statement elsewhere.)"""
    import torch

    row = torch.as_tensor(list(input_ids), dtype=torch.long)
    predicted = torch.zeros(len(row), dtype=torch.bool)
    predicted[list(target)] = True
    pattern = attention_pattern_matrix(np.ones(len(row), dtype=int), collator.global_pattern(row, predicted), window)
    return can_attend(pattern, target, witness)
