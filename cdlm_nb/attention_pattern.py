"""Longformer's who-reads-whom rule (Beltagy et al., 2020): with `attention_window = w` (both sides together), token i
attends to token j when both are attended and |i - j| <= w / 2 or i or j is global. The CD-MLM collator (`masking`)
decides which tokens are global; this module measures what that lets a token read, and how far across documents."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .masking import IGNORE_INDEX
from .support.errors import ConfigError

if TYPE_CHECKING:
    from .masking import CrossDocumentMLMCollator

NO_ATTENTION, LOCAL_ATTENTION, GLOBAL_ATTENTION = 0, 1, 2  # values of `attention_kinds`


def _mask_row(values, name: str) -> np.ndarray:
    """One mask row (list, array or tensor) as a 1-D bool array (a batch of one is squeezed)."""
    array = np.asarray(values.cpu() if hasattr(values, "cpu") else values)
    if array.ndim == 2 and array.shape[0] == 1:
        array = array[0]
    if array.ndim != 1:
        raise ConfigError(f"{name} must be one row (shape (length,) or (1, length)), got shape {array.shape}")
    return array.astype(bool)


def attention_kinds(attention_mask, global_attention_mask, window: int) -> np.ndarray:
    """(length, length): LOCAL_ATTENTION where i reads j in the window, GLOBAL_ATTENTION where only global attention
    lets it, NO_ATTENTION elsewhere."""
    attended = _mask_row(attention_mask, "attention_mask")
    is_global = _mask_row(global_attention_mask, "global_attention_mask")
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
    is_global = _mask_row(global_attention_mask, "global_attention_mask")
    attended = np.ones_like(is_global) if attention_mask is None else _mask_row(attention_mask, "attention_mask")
    if not attended.any():
        raise ConfigError("global_fraction got a row with no attended tokens")
    return float((is_global & attended).sum() / attended.sum())


def cross_document_reach(pattern: np.ndarray, doc_ids: Sequence[int], positions: Iterable[int]) -> float:
    """Mean, over `positions`, of the share of *other* documents' tokens the token can attend to in `pattern`
    (`attention_pattern_matrix`); `doc_ids`: each token's document (negative: none, as for `<s>`/`</s>`)."""
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


def attention_statistics(collator: "CrossDocumentMLMCollator", examples: Iterable[Mapping[str, Sequence[int]]],
                         window: int) -> dict[str, float]:
    """Collate each packed example (`input_ids`, `doc_ids`) alone and average its share of global tokens and its
    predicted tokens' cross-document reach (single-document examples are counted, left out of the reach)."""
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


def pattern_statistics(collators: Mapping[str, "CrossDocumentMLMCollator"],
                       examples: Sequence[Mapping[str, Sequence[int]]], window: int) -> dict[str, dict[str, float]]:
    """`attention_statistics` of every collator, `{pattern: statistics}` (one row per pattern of a table)."""
    return {pattern: attention_statistics(collator, examples, window) for pattern, collator in collators.items()}


def pattern_metrics(statistics: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The recorded keys of notebook 01: `masking/global_fraction/<pattern>` and `masking/cross_doc_reach/<pattern>`."""
    return {f"masking/{name}/{pattern}": stats[name]
            for pattern, stats in statistics.items() for name in ("global_fraction", "cross_doc_reach")}
