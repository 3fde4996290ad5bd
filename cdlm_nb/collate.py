"""Padding encoded rows into batch tensors: the one collator every task's batches go through.

`pad_batch(rows, padding={...})` takes rows of per-token fields (`input_ids`, `labels`, `global_attention_mask`,
mention masks, ...) as lists or 1-d tensors, pads each field with `torch.nn.utils.rnn.pad_sequence` to its longest
row (at least one column) with that field's padding value, and adds `attention_mask` (1 over each row's
`input_ids`, 0 on padding), as `tokenizer.pad` does. `indicator` turns a row's positions into such a field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import ConfigError

if TYPE_CHECKING:
    import torch


def indicator(positions: Sequence[int], length: int, dtype: "torch.dtype | None" = None) -> "torch.Tensor":
    """A row of `length` zeros with 1 at `positions` (a global-attention or mention mask before padding)."""
    import torch

    row = torch.zeros(length, dtype=dtype or torch.long)
    row[list(positions)] = 1
    return row


def pad_batch(rows: Sequence[Mapping[str, Any]], padding: Mapping[str, float] | None = None, *,
              dtypes: Mapping[str, "torch.dtype"] | None = None, attention_mask: bool = True,
              pad_to_multiple_of: int | None = None) -> dict[str, "torch.Tensor"]:
    """Stack the fields of `rows` into (batch, width) tensors, each field padded to its own longest row.

    `padding` gives a field's padding value (0 where absent: `input_ids` needs the pad id, `labels` -100) and
    `dtypes` its dtype (long where absent). With `attention_mask`, the mask of `input_ids` follows it in the batch.
    `pad_to_multiple_of` rounds every field's width up (to the attention window, say).
    """
    import torch

    if not rows:
        raise ConfigError("pad_batch got an empty batch")
    padding, dtypes = padding or {}, dtypes or {}
    batch = {}
    for key in rows[0]:
        column = [torch.as_tensor(row[key], dtype=dtypes.get(key, torch.long)) for row in rows]
        batch[key] = _pad_column(column, padding.get(key, 0), pad_to_multiple_of)
        if key == "input_ids" and attention_mask:
            ones = [torch.ones(len(ids), dtype=torch.long) for ids in column]
            batch["attention_mask"] = _pad_column(ones, 0, pad_to_multiple_of)
    return batch


def _pad_column(column: list["torch.Tensor"], value: float, multiple: int | None) -> "torch.Tensor":
    """One field's rows padded with `value` to the longest (at least 1, rounded up to `multiple`)."""
    import torch
    from torch.nn.utils.rnn import pad_sequence

    width = max(max(len(row) for row in column), 1)
    if multiple:
        width = -(-width // multiple) * multiple
    padded = pad_sequence(column, batch_first=True, padding_value=value)
    return torch.nn.functional.pad(padded, (0, width - padded.shape[1]), value=value)
