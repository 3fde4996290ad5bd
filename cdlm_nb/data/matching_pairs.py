"""The document pairs of notebooks 05 and 09-11 (matching, Match-Ignition, CDA, the comparison): the profile's
corpus (`data.corpora.matching_splits`), each split capped at a number of pairs, what the cap left out counted."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .corpora import MATCHING_SOURCES, matching_splits, resolve_source

if TYPE_CHECKING:
    from datasets import Dataset

    from ..profiles import Profile


@dataclass
class MatchingData:
    """The train/dev/test pairs a run uses, where they came from, and what the pair cap left out."""

    source: str  # the corpus DATA resolved to ("auto" never): the name its metrics are recorded under
    splits: dict[str, "Dataset"]
    notes: list[str]
    left_out: dict[str, int]  # split -> pairs dropped by MatchingConfig.max_pairs


def cap_pairs(dataset: "Dataset", max_pairs: int | None, seed: int) -> tuple["Dataset", int]:
    """A random `max_pairs` of the pairs (all when None or fewer), and how many were left out."""
    if max_pairs is None or len(dataset) <= max_pairs:
        return dataset, 0
    return dataset.shuffle(seed=seed).select(range(max_pairs)), len(dataset) - max_pairs


def matching_data(profile: "Profile", data: str = "auto", ecbplus_dir: str | None = None,
                  cda_dir: str | None = None, run_dir: str | Path | None = None,
                  max_pairs: int | None = None) -> MatchingData:
    """The pairs of corpus `data` ("auto": `resolve_source`, the profile's corpus), each split capped at `max_pairs`
    (default: the profile's `matching.max_pairs`)."""
    source = resolve_source(profile, data, MATCHING_SOURCES, cda_dir)
    splits, notes = matching_splits(profile, source, ecbplus_dir, cda_dir, run_dir)
    cap = max_pairs if max_pairs is not None else profile.matching.max_pairs
    capped = {name: cap_pairs(split, cap, profile.seed) for name, split in splits.items()}
    return MatchingData(source, {name: kept for name, (kept, _) in capped.items()}, notes,
                        {name: dropped for name, (_, dropped) in capped.items()})
