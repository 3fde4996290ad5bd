"""The one place a profile picks its corpora: every notebook asks here, so they all see the same documents.

| what                          | embedded profiles (smoke, cpu)        | `gpu` (the papers' setting)              |
|-------------------------------|---------------------------------------|------------------------------------------|
| pretraining clusters          | the world's train topics              | Multi-News train (>= 3 documents)        |
| held-out clusters (Table 1)   | the world's dev and test topics       | Multi-News validation and test           |
| coreference splits            | the world's coref splits, or ECB+     | ECB+ (downloaded)                        |
| attention-analysis documents  | the world's dev and test coref topics | all of ECB+ (downloaded)                 |
| matching pairs (05, 09-11)    | the world's pairs                     | ECB+ same-event pairs (downloaded)       |

Notebooks 04, 05 and 09-11 take a `DATA` parameter: "auto" is the profile's column above (`resolve_source`; the
CDA benchmark files when `CDA_DIR` is given), any other value names a corpus outright. Multi-News comes from the hub
(`multinews.load_multinews`) or, for notebooks 02 and 03, from the folder `MULTINEWS_DIR` names. ECB+ is found in
one order everywhere (`ecbplus_folder`): a folder you name, else a download (gpu profile), else the sample beside
the checkout; offline, the download falls back to the sample and says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..support.errors import ConfigError, DataError, OfflineError

if TYPE_CHECKING:
    from datasets import Dataset

    from ..profiles import Profile, WorldConfig
    from .world import World

#: Table 1's two columns, in the paper's order: Multi-News validation and test (the world's dev and test topics).
HELDOUT_SPLITS = ("validation", "test")
AUTO = "auto"  # the DATA value that leaves the corpus to the profile (`resolve_source`)
COREF_SOURCES = ("embedded", "ecbplus")  # the DATA parameter of notebook 04; the embedded corpus first
MATCHING_SOURCES = ("world", "ecbplus", "multinews", "pan_like", "cda")  # of notebooks 05, 09-11; embedded first
CDA_FILES = ("train.csv", "dev.csv", "test.csv")  # one CDA benchmark task (AAN, OC, S2ORC or PAN) per folder


def resolve_source(profile: "Profile", data: str, sources: tuple[str, ...],
                   cda_dir: str | os.PathLike | None = None) -> str:
    """The corpus `DATA` names: "auto" is the profile's (the CDA files given `cda_dir` and `sources` has them, ECB+
    on a hub profile, else the embedded `sources[0]`), so notebooks read real data on `gpu`; else `data` itself."""
    if data != AUTO:
        return data
    if cda_dir is not None and "cda" in sources:
        return "cda"
    return "ecbplus" if profile.data_source == "hub" else sources[0]


def check_source(source: str, sources: tuple[str, ...]) -> None:
    """A ConfigError naming `DATA` and its choices when `source` is none of `sources`."""
    if source not in sources:
        raise ConfigError(f"DATA={source!r} is unknown; use {AUTO!r} (the profile's choice) or one of {sources}")


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


def pretraining_clusters(profile: "Profile", multinews_dir: str | os.PathLike | None = None) -> PretrainingClusters:
    """The embedded world's clusters (split by topic), or for `data_source="hub"` Multi-News: from the folder
    `multinews_dir` (notebooks' MULTINEWS_DIR: one file per split, `multinews.split_file`), else from the hub."""
    if profile.data_source == "embedded":
        if multinews_dir is not None:
            print(f"MULTINEWS_DIR is read by the hub profile (gpu) only; {profile.name} uses the embedded world")
        return world_clusters(profile.world)
    from .multinews import CDLM_MIN_DOCUMENTS, load_multinews, split_file

    if multinews_dir is not None:
        files = [split_file(multinews_dir, split) for split in ("train", *HELDOUT_SPLITS)]
        if len(set(files)) < len(files):
            raise ConfigError(f"MULTINEWS_DIR={str(multinews_dir)!r} gives the same file to train, validation and "
                              f"test ({', '.join(file.name for file in files)}): pass a folder holding a file per "
                              "split (train.src.cleaned, val.src.cleaned, test.src.cleaned with their .tgt files)")
    wanted = profile.pretrain.heldout_clusters
    heldout = {split: load_multinews(multinews_dir, split=split) for split in HELDOUT_SPLITS}
    source = f"Multi-News ({multinews_dir or 'hub'})"
    if wanted is not None and any(len(clusters) > wanted for clusters in heldout.values()):
        source += (f"; held out: a seeded sample of {wanted:,} clusters per split (heldout_clusters) of "
                   + ", ".join(f"{len(clusters):,} {split}" for split, clusters in heldout.items()))
        heldout = {split: clusters.shuffle(seed=profile.seed).select(range(min(wanted, len(clusters))))
                   for split, clusters in heldout.items()}
    train = load_multinews(multinews_dir, split="train", min_documents=CDLM_MIN_DOCUMENTS)
    return PretrainingClusters(source, train, heldout)


def world_clusters(config: "WorldConfig") -> PretrainingClusters:
    """The embedded world's clusters: train topics to pretrain on, dev and test topics held out."""
    clusters = world(config).clusters
    return PretrainingClusters(f"embedded world (seed {config.seed})", clusters["train"],
                               {"validation": clusters["dev"], "test": clusters["test"]})


def _hub_else_sample(profile: "Profile", name: str, fetch: Callable[[], Any], what: str) -> tuple[Any, Path | None]:
    """(`fetch()`, None) on a hub profile; else (None, the sample `name` beside the checkout or None). Offline, the
    sample replaces the hub, said on stdout with `what` (formatted with the sample's path); no sample: re-raised."""
    from .sources import shared_sample

    sample = shared_sample(name)
    if profile.data_source == "hub":
        try:
            return fetch(), None
        except OfflineError:
            if sample is None:
                raise
            print(f"offline: using {what.format(sample)}")
    return None, sample


def ecbplus_folder(profile: "Profile", run_dir: str | os.PathLike | None = None,
                   folder: str | os.PathLike | None = None) -> Path:
    """Where ECB+ is read from: `folder` if given; for the hub profile a download into `<run_dir>/data/ecbplus`
    (offline: the sample beside the checkout); else the sample (topics 1-35)."""
    from .ecbplus import download_ecbplus

    if folder is not None:
        return Path(folder)
    downloaded, sample = _hub_else_sample(profile, "ecbplus",
                                          lambda: download_ecbplus(Path(run_dir or ".") / "data" / "ecbplus"),
                                          "the ECB+ sample at {} (topics 1-35 only)")
    if downloaded is None and sample is None:
        raise DataError("no ECB+ folder: name a folder holding ECB+/ and ECBplus_coreference_sentences.csv "
                        "(ECBPLUS_DIR in the notebook), or use the embedded world (DATA = 'embedded')")
    return downloaded or sample


def coref_splits(profile: "Profile", source: str, ecbplus_dir: str | os.PathLike | None = None,
                 run_dir: str | os.PathLike | None = None) -> tuple[dict[str, Any], list[str]]:
    """train/dev/test COREF_FEATURES datasets from the world or ECB+ (`ecbplus_splits`), and notes on the choice."""
    check_source(source, COREF_SOURCES)
    if source == "embedded":
        return dict(world(profile.world).coref), [f"embedded world, seed {profile.world.seed}, splits by topic"]
    return ecbplus_splits(ecbplus_folder(profile, run_dir, ecbplus_dir), profile.coref.ecbplus_topics,
                          "CorefConfig.ecbplus_topics")


def ecbplus_splits(folder: Path, topics: tuple[int, ...] | None, setting: str) -> tuple[dict[str, Any], list[str]]:
    """ECB+'s train/dev/test (whole documents) from `folder`; without the test topics 36-45, the first half of the
    dev topics tunes and the second half stands in as test. `setting` names the profile field that chose `topics`."""
    from .ecbplus import load_ecbplus
    from .ecbplus.reader import DEV_TOPICS

    splits = dict(load_ecbplus(folder, topics=topics, keep_all_sentences=True))
    notes = [f"ECB+ from {folder}, topics {'all' if topics is None else list(topics)}, whole documents, "
             "gold mentions of the validated sentences"]
    if "train" not in splits or "dev" not in splits:
        raise ConfigError(f"ECB+ topics {topics} give splits {sorted(splits)}; train and dev topics are needed "
                          f"(dev topics: {DEV_TOPICS}); change {setting}")
    if "test" not in splits:
        dev = splits["dev"]
        dev_topics = list(dict.fromkeys(dev["topic"]))
        if len(dev_topics) < 2:
            raise ConfigError(f"no ECB+ test topics (36-45) and only dev topic(s) {dev_topics}: need two dev topics "
                              "to split into dev and test")
        tune = set(dev_topics[:len(dev_topics) // 2])
        splits["dev"] = dev.select([i for i, topic in enumerate(dev["topic"]) if topic in tune])
        splits["test"] = dev.select([i for i, topic in enumerate(dev["topic"]) if topic not in tune])
        notes.append(f"no test topics (36-45) here: dev topics {sorted(tune)} tune the threshold and dev topics "
                     f"{sorted(set(dev_topics) - tune)} stand in as test")
    return splits, notes


def analysis_corpus(profile: "Profile", run_dir: str | os.PathLike | None = None) -> "Dataset":
    """The coreference documents notebook 07 draws mention pairs from (nothing is trained on them): the world's dev
    and test topics (events no model saw in pretraining), or on the hub profile all of ECB+ (whole documents)."""
    from datasets import concatenate_datasets

    if profile.data_source == "embedded":
        coref = world(profile.world).coref
        return concatenate_datasets([coref["dev"], coref["test"]])
    from .ecbplus import load_ecbplus

    corpus = load_ecbplus(ecbplus_folder(profile, run_dir), keep_all_sentences=True)
    return concatenate_datasets([corpus[split] for split in corpus])


def matching_splits(profile: "Profile", source: str, ecbplus_dir: str | os.PathLike | None = None,
                    cda_dir: str | os.PathLike | None = None,
                    run_dir: str | os.PathLike | None = None) -> tuple[dict[str, "Dataset"], list[str]]:
    """train/dev/test `PAIR_FEATURES` datasets for notebook 05's `DATA`, and notes on what was chosen: the world's
    pairs; ECB+'s (the same three kinds, subtopics as events); Multi-News' (same cluster or not: no hard negatives;
    the hub's splits on `gpu`, else the sample split 80/10/10 % in order); the plagiarism stand-in on the world's
    documents (`pairs.pan_like_pairs`); or a folder of one CDA benchmark task (train.csv, dev.csv, test.csv)."""
    from datasets import Dataset

    from .pairs import PanLikeConfig, ecbplus_documents, grouped_pairs, pan_like_pairs
    from .schemas import PAIR_FEATURES

    config, seed = profile.matching, profile.seed
    check_source(source, MATCHING_SOURCES)
    if source == "world":
        return dict(world(profile.world).pairs), [f"embedded world, seed {profile.world.seed}, splits by topic"]
    if source == "cda":
        from .cda import CDA_MANUAL, load_cda

        if cda_dir is None:
            raise DataError(f"DATA='cda' needs CDA_DIR: a folder holding {', '.join(CDA_FILES)}. {CDA_MANUAL}")
        return ({name.removesuffix(".csv"): load_cda(Path(cda_dir) / name) for name in CDA_FILES},
                [f"CDA benchmark files from {cda_dir}"])
    if source == "pan_like":
        coref = world(profile.world).coref
        rows = {name: pan_like_pairs(ecbplus_documents(coref[name]), config.pan_like_pairs, seed + i,
                                     PanLikeConfig(), f"{name}/") for i, name in enumerate(("train", "dev", "test"))}
        notes = [f"PAN-like stand-in on the embedded world's documents ({PanLikeConfig()})"]
    else:
        if source == "ecbplus":
            corpus, notes = ecbplus_splits(ecbplus_folder(profile, run_dir, ecbplus_dir), config.ecbplus_topics,
                                           "MatchingConfig.ecbplus_topics")
            documents = {name: ecbplus_documents(data) for name, data in corpus.items()}
        else:
            documents, notes = _multinews_documents(profile)
        drawn = {name: grouped_pairs(documents[name], config.pairs_per_kind, seed + i, f"{name}/")
                 for i, name in enumerate(("train", "dev", "test"))}
        rows = {name: r for name, (r, _) in drawn.items()}
        notes.append(f"pairs that could not be drawn (no second document / sibling / other topic): "
                     f"{ {name: dict(count) for name, (_, count) in drawn.items()} }")
    return {name: Dataset.from_list(r, features=PAIR_FEATURES) for name, r in rows.items()}, notes


def _multinews_documents(profile: "Profile") -> tuple[dict[str, list], list[str]]:
    """Multi-News documents per split: the hub's splits (gpu), else the sample beside the checkout."""
    from .multinews import load_multinews
    from .pairs import cluster_documents
    from .sources import shared_sample

    if profile.data_source == "hub":
        return ({name: cluster_documents(load_multinews(split=hub)) for name, hub in
                 (("train", "train"), ("dev", "validation"), ("test", "test"))}, ["Multi-News from the hub"])
    folder = shared_sample("multinews")
    sample = folder / "multi_news.longbench.sample.jsonl" if folder else None
    if sample is None or not sample.is_file():
        raise DataError("no Multi-News sample beside the checkout (../shared/data/multinews): use the gpu profile "
                        "(hub) or another DATA")
    clusters = list(load_multinews(sample))
    cut1, cut2 = int(0.8 * len(clusters)), int(0.9 * len(clusters))
    parts = {"train": clusters[:cut1], "dev": clusters[cut1:cut2], "test": clusters[cut2:]}
    return ({name: cluster_documents(rows) for name, rows in parts.items()},
            [f"Multi-News sample {sample} ({len(clusters)} clusters split 80/10/10 % in file order)"])


def hotpot_dev_records(profile: "Profile", path: str | os.PathLike | None = None) -> tuple["Dataset | None", str]:
    """Real HotpotQA dev records (distractor setting) and where they came from: `path` if given; for the hub
    profile the hub's validation split (offline: the sample beside the checkout); else that sample, or None."""
    from .hotpotqa import load_hotpotqa

    if path is not None:
        return load_hotpotqa(path), str(path)
    records, sample = _hub_else_sample(profile, "hotpotqa", lambda: load_hotpotqa(None), "the HotpotQA sample at {}")
    if records is not None:
        return records, "the hub's HotpotQA distractor validation split"
    if sample is None:
        return None, "no real HotpotQA records: set HOTPOT_FILE to hotpot_dev_distractor_v1.json"
    return load_hotpotqa(sample), f"the HotpotQA dev sample at {sample}"
