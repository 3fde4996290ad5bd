"""Summaries of a packed pretraining set (`inputs.pack_clusters`): how many documents and tokens an input holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .errors import ConfigError


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


def packing_metrics(summary: Mapping[str, float]) -> dict[str, float]:
    """The recorded keys of notebook 01: `masking/docs_per_example` and `masking/tokens_per_example`."""
    return {f"masking/{name}": summary[name] for name in ("docs_per_example", "tokens_per_example")}
