"""Padding encoded rows into batch tensors: the one collator every task's batches go through."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .support.errors import ConfigError

if TYPE_CHECKING:
    import torch


def indicator(positions: Sequence[int], length: int, dtype: "torch.dtype | None" = None) -> "torch.Tensor":
    """A row of `length` zeros with 1 at `positions` (a global-attention or mention mask before padding)."""
    import torch

    row = torch.zeros(length, dtype=dtype or torch.long)
    row[list(positions)] = 1
    return row


def pad_batch(rows: Sequence[Mapping[str, Any]], padding: Mapping[str, float] | None = None, *,
              dtypes: Mapping[str, "torch.dtype"] | None = None,
              attention_mask: bool = True) -> dict[str, "torch.Tensor"]:
    """Stack the per-token fields of `rows` into (batch, width) tensors, each padded to its longest row (at least 1)
    with its `padding` value (default 0) in its dtype (default long); `attention_mask` follows `input_ids`."""
    import torch

    if not rows:
        raise ConfigError("pad_batch got an empty batch")
    padding, dtypes = padding or {}, dtypes or {}
    batch = {}
    for key in rows[0]:
        column = [torch.as_tensor(row[key], dtype=dtypes.get(key, torch.long)) for row in rows]
        batch[key] = _pad_column(column, padding.get(key, 0))
        if key == "input_ids" and attention_mask:
            batch["attention_mask"] = _pad_column([torch.ones(len(ids), dtype=torch.long) for ids in column], 0)
    return batch


def _pad_column(column: list["torch.Tensor"], value: float) -> "torch.Tensor":
    """One field's rows padded with `value` to the longest (at least 1)."""
    import torch
    from torch.nn.utils.rnn import pad_sequence

    padded = pad_sequence(column, batch_first=True, padding_value=value)
    return torch.nn.functional.pad(padded, (0, int(padded.shape[1] == 0)), value=value)
