"""Summaries of a packed pretraining set (`inputs.pack_clusters`): how many documents and tokens an input holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .support.errors import ConfigError

if TYPE_CHECKING:
    from datasets import Dataset


def packing_summary(packed: "Dataset") -> dict[str, float]:
    """Mean documents and tokens per example of `inputs.pack_clusters`, and its truncated first documents."""
    import pyarrow.compute as pc

    table = packed.with_format("arrow")[:]
    documents, tokens = (pc.list_value_length(table[name]).to_numpy() for name in ("sources", "input_ids"))
    if len(documents) == 0:
        raise ConfigError("packing_summary got no packed examples")
    return {"examples": len(documents), "docs_per_example": float(np.mean(documents)),
            "tokens_per_example": float(np.mean(tokens)), "truncated": int(pc.sum(table["truncated"]).as_py() or 0)}


def packing_metrics(summary: Mapping[str, float]) -> dict[str, float]:
    """The recorded keys of notebook 01: `masking/docs_per_example` and `masking/tokens_per_example`."""
    return {f"masking/{name}": summary[name] for name in ("docs_per_example", "tokens_per_example")}
