"""The ECB+ statistics of the CDLM preprint (v1)'s Table 7, per split, and their plain-text table."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping

from datasets import Dataset

from .splits import SPLITS


def split_stats(dataset: Dataset) -> dict[str, int]:
    """Topics, documents, sentences, mentions and clusters (all, non-singleton, cross-document) of one split.

    Clusters are counted per kind within the split: "non-singleton" have >= 2 mentions there (the "Clusters" row
    of the CDLM preprint (v1)'s Table 7), "cross-document" have mentions in >= 2 documents.
    """
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
    for kind in ("event", "entity"):
        clusters = members[kind]
        stats[f"{kind}_mentions"] = sum(len(docs) for docs in clusters.values())
        stats[f"{kind}_singleton_mentions"] = singletons[kind]
        stats[f"{kind}_clusters"] = len(clusters)
        stats[f"{kind}_non_singleton_clusters"] = sum(len(docs) > 1 for docs in clusters.values())
        stats[f"{kind}_cross_document_clusters"] = sum(len(set(docs)) > 1 for docs in clusters.values())
    return stats


def ecbplus_stats(dataset_dict: Mapping) -> dict[str, dict[str, int]]:
    """`split_stats` for each split present, in train/dev/test order (as in the CDLM preprint (v1)'s Table 7)."""
    return {name: split_stats(dataset_dict[name]) for name in SPLITS if name in dataset_dict}


def format_stats(stats: Mapping[str, Mapping[str, int]]) -> str:
    """A plain-text table: one row per statistic, one column per split."""
    splits = list(stats)
    keys = list(next(iter(stats.values()))) if stats else []
    width = max((len(k) for k in keys), default=10) + 2
    lines = [" " * width + "".join(f"{name:>10}" for name in splits)]
    lines += [f"{key:<{width}}" + "".join(f"{stats[name][key]:>10,}" for name in splits) for key in keys]
    return "\n".join(lines)
