"""Summaries of a packed pretraining set (`inputs.pack_clusters`): how many documents and tokens an input holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .errors import ConfigError


def packing_summary(packed: Mapping[str, Sequence]) -> dict[str, float]:
    """Mean documents and tokens per packed example, and how many first documents were truncated, for the
    columns of `inputs.pack_clusters` (a Dataset, whose lengths are read from its Arrow columns, or a dict of
    columns)."""
    if hasattr(packed, "with_format"):
        import pyarrow.compute as pc

        table = packed.with_format("arrow")[:]
        documents, tokens = (pc.list_value_length(table[name]).to_numpy() for name in ("sources", "input_ids"))
        truncated = int(pc.sum(table["truncated"]).as_py() or 0)
    else:
        documents, tokens = ([len(row) for row in packed[name]] for name in ("sources", "input_ids"))
        truncated = int(sum(packed["truncated"]))
    if len(documents) == 0:
        raise ConfigError("packing_summary got no packed examples")
    return {
        "examples": len(documents),
        "docs_per_example": float(np.mean(documents)),
        "tokens_per_example": float(np.mean(tokens)),
        "truncated": truncated,
    }


def packing_metrics(summary: Mapping[str, float]) -> dict[str, float]:
    """The recorded keys of notebook 01: `masking/docs_per_example` and `masking/tokens_per_example`."""
    return {f"masking/{name}": summary[name] for name in ("docs_per_example", "tokens_per_example")}
