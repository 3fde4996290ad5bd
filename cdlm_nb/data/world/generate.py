"""The world: `generate_world(config)` draws every topic, writes its clusters and builds the datasets. The task
datasets (`coref`, `pairs`, `qa`) use the first `task_topics` train topics and every held-out topic, the pretraining
ones (`clusters`, `classification`, `facts`) every topic."""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from datasets import Dataset, DatasetDict

from ...profiles import WorldConfig
from ...support.errors import ConfigError
from ..schemas import CLUSTER_FEATURES, COREF_FEATURES, PAIR_FEATURES, QA_FEATURES, classification_features
from . import rows
from .documents import write_cluster
from .facts import NameBook, Subtopic, draw_subtopic
from .lexicon import EVENT_TYPES, check_lexicon

SPLITS = ("train", "dev", "test")
LABEL_NAMES = [etype.name for etype in EVENT_TYPES]


@dataclass
class World:
    """The generated world: every dataset as a train/dev/test `DatasetDict` split by topic."""

    config: WorldConfig
    topics: dict[str, list[str]]  # split -> topic ids
    clusters: DatasetDict  # CLUSTER_FEATURES: pretraining clusters (every topic)
    coref: DatasetDict  # COREF_FEATURES (task topics)
    pairs: DatasetDict  # PAIR_FEATURES (task topics)
    qa: DatasetDict  # QA_FEATURES (task topics)
    classification: DatasetDict  # classification_features(LABEL_NAMES): a cluster's documents, long
    facts: DatasetDict  # FACT_FEATURES: fact statements per document (every topic)
    seconds: float  # generation time
    skipped_questions: int  # bridge questions dropped because two events would share the question text

    def describe(self) -> dict[str, Any]:
        """Sizes and statistics a notebook can print or plot."""
        documents = [docs for split in self.clusters.values() for docs in split["documents"]]
        words = [len(text.split()) for docs in documents for text in docs]
        mentions = [m for split in self.coref.values() for ms in split["mentions"] for m in ms]
        docs_of: dict[tuple[str, str], set[str]] = {}
        for split in self.coref.values():
            for doc_id, ms in zip(split["doc_id"], split["mentions"]):
                for m in ms:
                    docs_of.setdefault((m["kind"], m["cluster_id"]), set()).add(doc_id)
        cross_doc = Counter(kind for (kind, _), docs in docs_of.items() if len(docs) > 1)
        correct = [c for split in self.facts.values() for c in split["correct"]]
        support = [n for split in self.facts.values() for n, anchor in zip(split["support"], split["anchor"])
                   if not anchor]
        n_coref_docs = sum(len(split) for split in self.coref.values())
        return {
            "seed": self.config.seed,
            "seconds": round(self.seconds, 2),
            "topics": {split: len(ids) for split, ids in self.topics.items()},
            "clusters": {split: len(ds) for split, ds in self.clusters.items()},
            "documents": len(words),
            "docs_per_cluster": dict(sorted(Counter(len(docs) for docs in documents).items())),
            "words_per_doc": {"min": min(words), "mean": round(sum(words) / len(words), 1), "max": max(words)},
            "coref_documents": {split: len(ds) for split, ds in self.coref.items()},
            "mentions_per_doc": round(len(mentions) / max(n_coref_docs, 1), 1),
            "mentions_by_kind": dict(Counter(m["kind"] for m in mentions)),
            "cross_doc_clusters": dict(cross_doc),
            "singleton_mentions": sum(m["singleton"] for m in mentions),
            "pairs": {split: dict(Counter(ds["kind"])) for split, ds in self.pairs.items()},
            "qa": {split: dict(Counter(ds["type"])) for split, ds in self.qa.items()},
            "qa_skipped_ambiguous": self.skipped_questions,
            "classification": {split: len(ds) for split, ds in self.classification.items()},
            "fact_statements": len(correct),
            "fact_wrong_share": round(correct.count(False) / max(len(correct), 1), 3),
            # non-anchor fact statements that another document of the cluster states correctly too
            "recoverable_fact_share": round(sum(n > 0 for n in support) / max(len(support), 1), 3),
        }


def check_config(config: WorldConfig) -> None:
    """Raise ConfigError naming the WorldConfig field that cannot work (before generating, not deep inside it)."""
    if config.topics < config.dev_topics + config.test_topics + 1 or min(config.dev_topics, config.test_topics) < 1:
        raise ConfigError(f"WorldConfig: topics={config.topics} must exceed dev_topics + test_topics "
                          f"({config.dev_topics} + {config.test_topics}), each >= 1")
    if not 2 <= config.docs_per_cluster[0] <= config.docs_per_cluster[1]:
        raise ConfigError(f"WorldConfig.docs_per_cluster={config.docs_per_cluster}: need 2 <= fewest <= most")
    for name in ("words_per_doc", "preamble_words"):
        low, high = getattr(config, name)
        if not 1 <= low <= high:
            raise ConfigError(f"WorldConfig.{name}={getattr(config, name)}: need 1 <= fewest <= most")
    for name in ("more_docs", "fact_overlap", "noise", "filler", "preamble_share"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ConfigError(f"WorldConfig.{name}={getattr(config, name)} must be a probability in [0, 1]")
    if config.task_topics < 1 or config.pairs_per_kind < 0 or config.qa_distractors < 0:
        raise ConfigError("WorldConfig: task_topics must be >= 1; pairs_per_kind and qa_distractors >= 0")


def generate_world(config: WorldConfig) -> World:
    """Generate every dataset of the embedded world; a pure function of `config` (seed included)."""
    started = time.perf_counter()
    check_config(config)
    if problems := [f"{etype.name}: {p}" for etype in EVENT_TYPES for p in check_lexicon(etype)]:
        raise ConfigError("cdlm_nb/data/world/lexicon.toml has template problems:\n" + "\n".join(problems))
    rng = random.Random(config.seed)
    book = NameBook()
    type_order = rng.sample(EVENT_TYPES, len(EVENT_TYPES))
    ids, n_train = [str(i) for i in range(1, config.topics + 1)], config.topics - config.dev_topics - config.test_topics
    topics = {"train": ids[:n_train], "dev": ids[n_train:n_train + config.dev_topics],  # held out last
              "test": ids[n_train + config.dev_topics:]}
    subtopics: dict[str, list[Subtopic]] = {split: [] for split in SPLITS}
    titles: Counter[str] = Counter()
    for split in SPLITS:
        for topic in topics[split]:
            etype = type_order[(int(topic) - 1) % len(type_order)]
            first = draw_subtopic(etype, topic, "a", rng, book, None)
            for subtopic in (first, draw_subtopic(etype, topic, "b", rng, book, first)):
                titles[subtopic.title] += 1  # QA supporting facts point at titles: keep them unique
                if titles[subtopic.title] > 1:
                    subtopic.title += f" ({titles[subtopic.title]})"
                write_cluster(subtopic, config, rng, book)
                subtopics[split].append(subtopic)

    # bridge questions are only fair when their text names one event
    texts = Counter(q[0] for split in subtopics.values() for s in split if (q := rows.bridge_question(s)))
    ambiguous = {text for text, count in texts.items() if count > 1}

    task_topics = set(topics["train"][:config.task_topics]) | set(topics["dev"]) | set(topics["test"])
    label_features = classification_features(LABEL_NAMES)
    datasets: dict[str, dict[str, Dataset]] = defaultdict(dict)
    every = [s for split in SPLITS for s in subtopics[split]]
    for split in SPLITS:
        everyone = subtopics[split]
        task = [s for s in everyone if s.topic in task_topics]
        split_rng = random.Random(f"{config.seed}/{split}")
        preamble_rng = random.Random(f"{config.seed}/classification/{split}")  # leaves the other datasets as they were
        coref = [rows.coref_row(s, d) for s in task for d in s.documents]
        sizes = Counter(m["cluster_id"] for row in coref for m in row["mentions"])
        for mention in (m for row in coref for m in row["mentions"]):  # singleton: no other mention shares its cluster
            mention["singleton"] = sizes[mention["cluster_id"]] == 1
        pool = everyone if len({s.topic for s in everyone}) > 1 else every
        made = {  # in this order: pairs draw from split_rng before qa
            "clusters": ([{"cluster_id": s.id, "documents": [d.text for d in s.documents], "summary": s.article.text}
                          for s in everyone], CLUSTER_FEATURES),
            "coref": (coref, COREF_FEATURES),
            "pairs": (rows.pair_rows(task, pool, config.pairs_per_kind, split_rng), PAIR_FEATURES),
            "qa": (rows.qa_rows(task, config.qa_distractors, split_rng, ambiguous), QA_FEATURES),
            "classification": ([rows.classification_row(s, LABEL_NAMES.index(s.etype.name), config, preamble_rng, book)
                                for s in everyone], label_features),
            "facts": ([row for s in everyone for row in rows.fact_rows(s)], rows.FACT_FEATURES),
        }
        for name, (made_rows, features) in made.items():
            datasets[name][split] = Dataset.from_list(made_rows, features=features)
    return World(
        config=config, topics=topics, **{name: DatasetDict(parts) for name, parts in datasets.items()},
        seconds=time.perf_counter() - started,
        skipped_questions=sum(1 for s in every if s.topic in task_topics and (q := rows.bridge_question(s))
                              and q[0] in ambiguous),
    )
