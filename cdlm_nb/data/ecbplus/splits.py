"""The standard ECB+ topic split (Cybulska & Vossen 2015, as the CDLM preprint (v1), Appendix A.2 uses it), the
`DatasetDict` built from it, and its statistics per split (the preprint's Table 7)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

from datasets import Dataset, DatasetDict

from ...errors import ConfigError, DataError
from ..schemas import COREF_FEATURES

DEV_TOPICS: tuple[int, ...] = (2, 5, 12, 18, 21, 23, 34, 35)
TEST_TOPICS: tuple[int, ...] = tuple(range(36, 46))  # every other topic is train
SPLITS: tuple[str, ...] = ("train", "dev", "test")
_SPLIT_TOPICS = {"dev": " ".join(map(str, DEV_TOPICS)), "test": f"{TEST_TOPICS[0]}-{TEST_TOPICS[-1]}",
                 "train": "every topic that is neither dev nor test"}


def split_of_topic(topic: int | str) -> str:
    """The standard split a topic belongs to: "dev" for 2 5 12 18 21 23 34 35, "test" for 36-45, else "train"."""
    number = int(topic)
    return "dev" if number in DEV_TOPICS else "test" if number in TEST_TOPICS else "train"


def select_topics(present: dict[str, Path], topics: Iterable[int | str] | None, split: str | None) -> list[str]:
    """The requested topics (all present by default), restricted to one split if asked."""
    if split is not None and split not in SPLITS:
        raise ConfigError(f"split must be one of {', '.join(SPLITS)} or None, not {split!r}")
    chosen = list(present)
    if topics is not None:
        topics = [topics] if isinstance(topics, (int, str)) else topics
        try:
            chosen = [str(int(t)) for t in topics]
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"topics must be topic numbers such as 1 or '36', got {topics!r}") from exc
        if missing := [t for t in chosen if t not in present]:
            raise DataError(f"topic(s) {', '.join(missing)} not in the corpus at {next(iter(present.values())).parent}"
                            f"; present topics: {', '.join(present)}")
    if split is not None:
        chosen = [t for t in chosen if split_of_topic(t) == split]
        if not chosen:
            raise DataError(f"no topic of the {split} split is present (present topics: {', '.join(present)}); "
                            f"the {split} topics are {_SPLIT_TOPICS[split]}")
    return chosen


def rows_to_datasets(rows: list[dict]) -> DatasetDict:
    """Group document rows by the standard split of their topic into a `DatasetDict` (only splits present)."""
    by_split: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_split[split_of_topic(row["topic"])].append(row)
    return DatasetDict({name: Dataset.from_list(by_split[name], features=COREF_FEATURES)
                        for name in SPLITS if by_split[name]})


def split_stats(dataset: Dataset) -> dict[str, int]:
    """Topics, documents, sentences, mentions and clusters of one split, per kind within the split: all,
    "non-singleton" (>= 2 mentions there: the "Clusters" row of Table 7) and "cross-document" (in >= 2 documents)."""
    stats = {"topics": 0, "documents": 0, "sentences": 0}
    topics = set()
    members: dict[str, dict[str, list[str]]] = {"event": defaultdict(list), "entity": defaultdict(list)}
    singletons = Counter()
    for row in dataset.select_columns(["doc_id", "topic", "sentence_ids", "mentions"]):
        topics.add(row["topic"])
        stats["documents"] += 1
        stats["sentences"] += len(row["sentence_ids"])
        for mention in row["mentions"]:
            members[mention["kind"]][mention["cluster_id"]].append(row["doc_id"])
            singletons[mention["kind"]] += mention["singleton"]
    stats["topics"] = len(topics)
    for kind, clusters in members.items():
        stats[f"{kind}_mentions"] = sum(len(docs) for docs in clusters.values())
        stats[f"{kind}_singleton_mentions"] = singletons[kind]
        stats[f"{kind}_clusters"] = len(clusters)
        stats[f"{kind}_non_singleton_clusters"] = sum(len(docs) > 1 for docs in clusters.values())
        stats[f"{kind}_cross_document_clusters"] = sum(len(set(docs)) > 1 for docs in clusters.values())
    return stats


def ecbplus_stats(dataset_dict: Mapping) -> dict[str, dict[str, int]]:
    """`split_stats` for each split present, in train/dev/test order (as in Table 7)."""
    return {name: split_stats(dataset_dict[name]) for name in SPLITS if name in dataset_dict}


def format_stats(stats: Mapping[str, Mapping[str, int]]) -> str:
    """A plain-text table: one row per statistic, one column per split."""
    keys = list(next(iter(stats.values()))) if stats else []
    width = max((len(k) for k in keys), default=10) + 2
    lines = [" " * width + "".join(f"{name:>10}" for name in stats)]
    lines += [f"{key:<{width}}" + "".join(f"{stats[name][key]:>10,}" for name in stats) for key in keys]
    return "\n".join(lines)
