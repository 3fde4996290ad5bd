"""The one place a profile picks its corpora: every notebook asks here, so they all see the same documents.

| what                          | embedded profiles (smoke, cpu)        | `gpu` (the papers' setting)              |
|-------------------------------|---------------------------------------|------------------------------------------|
| pretraining clusters          | the world's train topics              | Multi-News train (>= 3 documents)        |
| held-out clusters (Table 1)   | the world's dev and test topics       | Multi-News validation and test           |
| coreference splits            | the world's coref splits, or ECB+     | ECB+ (downloaded)                        |
| attention-analysis documents  | the world's dev and test coref topics | all of ECB+ (downloaded)                 |

ECB+ is found in one order everywhere (`ecbplus_folder`): a folder you name, else a download (gpu profile),
else the sample beside the checkout; offline, the download falls back to the sample and says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, DataError, OfflineError

if TYPE_CHECKING:
    from datasets import Dataset

    from ..profiles import Profile, WorldConfig
    from .world import World

#: Table 1's two columns, in the paper's order: Multi-News validation and test (the world's dev and test topics).
HELDOUT_SPLITS = ("validation", "test")
COREF_SOURCES = ("embedded", "ecbplus")  # the DATA parameter of notebook 04


@lru_cache(maxsize=4)
def world(config: "WorldConfig") -> "World":
    """The embedded world of a config, generated once per process (it is a pure function of the config)."""
    from .world import generate_world

    return generate_world(config)


@dataclass(frozen=True)
class PretrainingClusters:
    """CLUSTER_FEATURES datasets: the clusters to pretrain on and the held-out clusters of Table 1."""

    source: str  # where they come from, in words
    train: "Dataset"
    heldout: dict[str, "Dataset"]  # "validation", "test"

    def sizes(self) -> dict[str, int]:
        """Clusters per split."""
        return {"train": len(self.train), **{name: len(data) for name, data in self.heldout.items()}}


def pretraining_clusters(profile: "Profile") -> PretrainingClusters:
    """The embedded world's clusters (split by topic), or Multi-News from the hub for `data_source="hub"`."""
    if profile.data_source == "embedded":
        clusters = world(profile.world).clusters
        return PretrainingClusters(f"embedded world (seed {profile.world.seed})", clusters["train"],
                                   {"validation": clusters["dev"], "test": clusters["test"]})
    from .multinews import CDLM_MIN_DOCUMENTS, load_multinews

    return PretrainingClusters(
        "Multi-News (hub)",
        load_multinews(split="train", min_documents=CDLM_MIN_DOCUMENTS),
        {split: load_multinews(split=split) for split in HELDOUT_SPLITS},
    )


def training_clusters(source: str, world_config: "WorldConfig", multinews_path: str | None = None) -> "Dataset":
    """The training clusters of a `cdlm-nb pretrain` config: `world` (train topics) or `multinews` (file or hub)."""
    if source == "world":
        return world(world_config).clusters["train"]
    if source == "multinews":
        from .multinews import CDLM_MIN_DOCUMENTS, load_multinews

        return load_multinews(multinews_path, split="train", min_documents=CDLM_MIN_DOCUMENTS)
    raise ConfigError(f"data.source must be 'world' or 'multinews', got {source!r}")


def ecbplus_folder(profile: "Profile", run_dir: str | os.PathLike | None = None,
                   folder: str | os.PathLike | None = None) -> Path:
    """Where ECB+ is read from: `folder` if given; for the hub profile a download into `<run_dir>/data/ecbplus`
    (offline: the sample beside the checkout, said on stdout); else the sample (topics 1-35)."""
    from ..paths import shared_data_dir
    from .ecbplus import download_ecbplus

    if folder is not None:
        return Path(folder)
    if profile.data_source == "hub":
        try:
            return download_ecbplus(Path(run_dir or ".") / "data" / "ecbplus")
        except OfflineError:
            if _shared_ecbplus(shared_data_dir()) is None:
                raise
            print(f"offline: using the ECB+ sample at {_shared_ecbplus(shared_data_dir())} (topics 1-35 only)")
    sample = _shared_ecbplus(shared_data_dir())
    if sample is None:
        raise DataError("no ECB+ folder: name a folder holding ECB+/ and ECBplus_coreference_sentences.csv "
                        "(ECBPLUS_DIR in the notebook), or use the embedded world (DATA = 'embedded')")
    return sample


def _shared_ecbplus(shared: Path | None) -> Path | None:
    return shared / "ecbplus" if shared is not None and (shared / "ecbplus").is_dir() else None


def coref_splits(profile: "Profile", source: str, ecbplus_dir: str | os.PathLike | None = None,
                 run_dir: str | os.PathLike | None = None) -> tuple[dict[str, Any], list[str]]:
    """train/dev/test COREF_FEATURES datasets from the embedded world or ECB+, and notes on what was chosen.

    Without ECB+'s test topics 36-45 (the sample has 1-35), the dev topics present are split in two: the first
    half tunes the threshold, the second half is the test set (said in the notes).
    """
    if source not in COREF_SOURCES:
        raise ConfigError(f"DATA={source!r} is unknown; use one of {COREF_SOURCES}")
    if source == "embedded":
        return dict(world(profile.world).coref), [f"embedded world, seed {profile.world.seed}, splits by topic"]
    from .ecbplus import DEV_TOPICS, load_ecbplus

    folder = ecbplus_folder(profile, run_dir, ecbplus_dir)
    topics = profile.coref.ecbplus_topics
    splits = dict(load_ecbplus(folder, topics=topics, keep_all_sentences=True))
    notes = [f"ECB+ from {folder}, topics {'all' if topics is None else list(topics)}, whole documents, "
             "gold mentions of the validated sentences"]
    if "train" not in splits or "dev" not in splits:
        raise ConfigError(f"ECB+ topics {topics} give splits {sorted(splits)}; train and dev topics are needed "
                          f"(dev topics: {DEV_TOPICS}); change CorefConfig.ecbplus_topics")
    if "test" not in splits:
        splits["dev"], splits["test"], note = _dev_as_test(splits["dev"])
        notes.append(note)
    return splits, notes


def _dev_as_test(dev: "Dataset") -> tuple["Dataset", "Dataset", str]:
    """Split ECB+ dev topics in two halves (tuning, stand-in test) when the test topics are absent."""
    dev_topics = list(dict.fromkeys(dev["topic"]))
    if len(dev_topics) < 2:
        raise ConfigError(f"no ECB+ test topics (36-45) and only dev topic(s) {dev_topics}: need two dev topics "
                          "to split into dev and test")
    tune, held_out = set(dev_topics[:len(dev_topics) // 2]), set(dev_topics[len(dev_topics) // 2:])
    topic_of = dev["topic"]
    note = (f"no test topics (36-45) here: dev topics {sorted(tune)} tune the threshold and dev topics "
            f"{sorted(held_out)} stand in as test")
    return (dev.select([i for i, topic in enumerate(topic_of) if topic in tune]),
            dev.select([i for i, topic in enumerate(topic_of) if topic in held_out]), note)


def analysis_corpus(profile: "Profile", run_dir: str | os.PathLike | None = None) -> "Dataset":
    """The coreference documents notebook 07 draws mention pairs from (nothing is trained on them).

    Embedded profiles: the world's dev and test topics (events no model saw in pretraining). Hub profile: all of
    ECB+ (gold mentions of the validated sentences, whole documents as context).
    """
    from datasets import concatenate_datasets

    if profile.data_source == "embedded":
        coref = world(profile.world).coref
        return concatenate_datasets([coref["dev"], coref["test"]])
    from .ecbplus import load_ecbplus

    corpus = load_ecbplus(ecbplus_folder(profile, run_dir), keep_all_sentences=True)
    return concatenate_datasets([corpus[split] for split in corpus])
