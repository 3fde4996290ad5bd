"""The standard ECB+ topic split (train / dev / test) and the `DatasetDict` built from it.

Cybulska & Vossen (2015) fixed which topics are dev and test; the CDLM preprint (v1), Appendix A.2, uses the same
split. Topic selection for a loader call (`select_topics`) lives here too, since it is where `split=` is checked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from datasets import Dataset, DatasetDict

from ...errors import ConfigError, DataError
from ..schemas import COREF_FEATURES

#: The standard split (Cybulska & Vossen 2015; CDLM preprint (v1), Appendix A.2): everything else is train.
DEV_TOPICS: tuple[int, ...] = (2, 5, 12, 18, 21, 23, 34, 35)
TEST_TOPICS: tuple[int, ...] = tuple(range(36, 46))
SPLITS: tuple[str, ...] = ("train", "dev", "test")


def split_of_topic(topic: int | str) -> str:
    """The standard split a topic belongs to: "dev" for 2 5 12 18 21 23 34 35, "test" for 36-45, else "train"."""
    number = int(topic)
    return "dev" if number in DEV_TOPICS else "test" if number in TEST_TOPICS else "train"


def select_topics(present: dict[str, Path], topics: Iterable[int | str] | None, split: str | None) -> list[str]:
    """The requested topics (all present by default), restricted to one split if asked."""
    if split is not None and split not in SPLITS:
        raise ConfigError(f"split must be one of {', '.join(SPLITS)} or None, not {split!r}")
    if topics is None:
        chosen = list(present)
    else:
        topics = [topics] if isinstance(topics, (int, str)) else topics
        try:
            chosen = [str(int(t)) for t in topics]
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"topics must be topic numbers such as 1 or '36', got {topics!r}") from exc
        missing = [t for t in chosen if t not in present]
        if missing:
            raise DataError(
                f"topic(s) {', '.join(missing)} not in the corpus at {next(iter(present.values())).parent}; "
                f"present topics: {', '.join(present)}"
            )
    if split is not None:
        chosen = [t for t in chosen if split_of_topic(t) == split]
        if not chosen:
            raise DataError(
                f"no topic of the {split} split is present (present topics: {', '.join(present)}); "
                f"the {split} topics are {_split_topics_text(split)}"
            )
    return chosen


def _split_topics_text(split: str) -> str:
    if split == "dev":
        return " ".join(map(str, DEV_TOPICS))
    if split == "test":
        return f"{TEST_TOPICS[0]}-{TEST_TOPICS[-1]}"
    return "every topic that is neither dev nor test"


def rows_to_datasets(rows: list[dict]) -> DatasetDict:
    """Group document rows by the standard split of their topic into a `DatasetDict` (only splits present)."""
    by_split: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_split[split_of_topic(row["topic"])].append(row)
    return DatasetDict(
        {name: Dataset.from_list(by_split[name], features=COREF_FEATURES) for name in SPLITS if by_split[name]}
    )
