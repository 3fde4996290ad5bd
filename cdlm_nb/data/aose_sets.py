"""Train/test sets for long-document classification (notebook 08 and the comparison), decided here once.

- `DATA_DIR` layout: `imdb/*.csv` (review, sentiment), `20newsgroups/<folder>/<group>/<post>` (or the groups
  directly under `20newsgroups/`), `mind/*news*.tsv`. `TEST_DIR`, same layout: the test set; without it, a
  stratified `test_share` of `DATA_DIR` is held out.
- Neither: the hub (IMDB and 20 Newsgroups) on the `gpu` profile, else the embedded world's `classification` set
  (train topics vs. dev + test topics: nothing is tuned on a dev set here).
- Then a stratified sample of `train_docs` / `test_docs` (fixed seed); empty documents and test labels unseen in
  training are skipped and counted.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from datasets import Dataset, concatenate_datasets

from ..support.errors import ConfigError, DataError
from .aose_corpora import load_imdb, load_mind, load_newsgroups
from .schemas import classification_features

if TYPE_CHECKING:
    from ..profiles import Profile

CORPORA = ("imdb", "20ng", "mind", "world")
HUB_CORPORA = ("imdb", "20ng")  # MIND is not on the hub
MIND_MIN_PER_LABEL = 3  # AoSE drops MIND topics with fewer than 3 documents


@dataclass
class ClassificationSplits:
    """One corpus' train and test sets (same label names) and what was skipped or sampled away."""

    name: str
    train: Dataset
    test: Dataset
    notes: list[str] = field(default_factory=list)

    @property
    def label_names(self) -> list[str]:
        return self.train.features["label"].names


def default_corpora(profile: "Profile", data_dir: str | os.PathLike | None) -> tuple[str, ...]:
    """Notebook 08's corpora when DATASETS is None: the real ones given a folder (or on the hub), else the world."""
    if data_dir is not None:
        return ("imdb", "20ng", "mind")
    return HUB_CORPORA if profile.data_source == "hub" else ("world",)


def _one(folder: Path, pattern: str, corpus: str) -> Path:
    found = sorted(folder.glob(pattern))
    if len(found) != 1:
        raise DataError(f"{folder}: " + (f"several files match {pattern!r} for {corpus} ({[p.name for p in found]}); "
                                         "keep one per folder." if found else f"no file matching {pattern!r} for "
                                         f"{corpus}; see cdlm_nb.data.aose_sets for the folder layout."))
    return found[0]


def _newsgroups_root(folder: Path) -> Path:
    """`20newsgroups/` itself when it holds the group folders, else its one subfolder that does."""
    root = folder / "20newsgroups"
    if not root.is_dir():
        raise DataError(f"{folder} has no 20newsgroups/ folder (expected 20newsgroups/<folder>/<group>/<post>).")
    subfolders = [item for item in sorted(root.iterdir()) if item.is_dir()]
    holding_groups = [item for item in subfolders if any(child.is_dir() for child in item.iterdir())]
    if len(holding_groups) == 1:
        return holding_groups[0]
    if subfolders and not holding_groups:
        return root
    raise DataError(f"{root}: expected one folder of group folders, found {[p.name for p in holding_groups]}.")


def load_corpus(name: str, folder: str | os.PathLike) -> Dataset:
    """Corpus `name` ("imdb", "20ng" or "mind") from a DATA_DIR-layout folder."""
    folder = Path(folder)
    if name == "imdb":
        return load_imdb(_one(folder / "imdb", "*.csv", "IMDB"))
    if name == "20ng":
        return load_newsgroups(_newsgroups_root(folder))
    if name == "mind":
        return load_mind(_one(folder / "mind", "*news*.tsv", "MIND"), min_per_label=MIND_MIN_PER_LABEL)
    raise ConfigError(f"unknown corpus {name!r}; choose from {CORPORA[:3]} (or 'world' without DATA_DIR).")


def _drop_empty(data: Dataset, notes: list[str], what: str) -> Dataset:
    kept = data.filter(lambda row: bool(row["text"].strip()))
    if len(kept) < len(data):
        notes.append(f"{what}: {len(data) - len(kept)} empty documents skipped")
    return kept


def _align(test: Dataset, names: list[str], notes: list[str]) -> Dataset:
    """The test set relabelled with the training label ids; documents of labels training never saw are counted."""
    test_names = test.features["label"].names
    if unknown := sorted(set(test_names) - set(names)):
        ids = {test_names.index(name) for name in unknown}
        before = len(test)
        test = test.filter(lambda row: row["label"] not in ids)
        notes.append(f"test: {before - len(test)} documents with labels unseen in training skipped {unknown}")
    features = classification_features(names)
    relabelled = features["label"].str2int(test.features["label"].int2str(test["label"]))
    return Dataset.from_dict({"text": test["text"], "label": relabelled}, features=features)


def stratified_sample(labels: list[int], n: int, seed: int) -> tuple[list[int], bool]:
    """Indices of a random sample of `n` of the examples, stratified by label when every label has two examples
    and `n` can hold one of each (scikit-learn's rule); and whether it was stratified."""
    from sklearn.model_selection import train_test_split

    stratify = labels if min(labels.count(label) for label in set(labels)) >= 2 and n >= len(set(labels)) else None
    keep, _ = train_test_split(list(range(len(labels))), train_size=n, stratify=stratify, random_state=seed)
    return keep, stratify is not None


def _sample(data: Dataset, n: int | None, seed: int, notes: list[str], what: str) -> Dataset:
    """A stratified random sample of `n` documents (all when n is None or larger)."""
    if n is None or n >= len(data):
        return data
    keep, stratified = stratified_sample(data["label"], n, seed)
    notes.append(f"{what}: a {'stratified ' if stratified else ''}sample of {n} of {len(data)} documents")
    return data.select(sorted(keep))


def classification_splits(profile: "Profile", name: str, data_dir: str | os.PathLike | None = None,
                          test_dir: str | os.PathLike | None = None) -> ClassificationSplits:
    """Corpus `name`'s train and test sets for this profile (rules in the module docstring)."""
    config, seed, notes = profile.classification, profile.seed, []
    if name not in CORPORA:
        raise ConfigError(f"DATASETS: unknown corpus {name!r}; choose from {CORPORA}.")
    if test_dir is not None and data_dir is None:
        raise ConfigError("TEST_DIR needs DATA_DIR (the training documents) as well.")
    if name == "world":
        if data_dir is not None:
            raise ConfigError("DATASETS 'world' is the embedded world: leave DATA_DIR and TEST_DIR as None.")
        from .corpora import world

        data = world(profile.world).classification
        train, test = data["train"], concatenate_datasets([data["dev"], data["test"]])
        notes.append("world: train topics for training; dev and test topics (unseen events) for testing")
    elif data_dir is None:
        if name not in HUB_CORPORA:
            raise ConfigError(f"{name!r} is not on the hub: give DATA_DIR holding mind/news.tsv (see "
                              "msnews.github.io).")
        load = load_imdb if name == "imdb" else load_newsgroups
        train, test = load(None, split="train"), load(None, split="test")
    elif test_dir is None:
        from sklearn.model_selection import train_test_split

        data = _drop_empty(load_corpus(name, data_dir), notes, "data")
        kept, held = train_test_split(list(range(len(data))), test_size=config.test_share, stratify=data["label"],
                                      random_state=seed)
        train, test = data.select(sorted(kept)), data.select(sorted(held))
        notes.append(f"{name}: a stratified {config.test_share:.0%} of {data_dir} held out for testing")
    else:
        train, test = load_corpus(name, data_dir), load_corpus(name, test_dir)
    train = _drop_empty(train, notes, "train")
    test = _align(_drop_empty(test, notes, "test"), train.features["label"].names, notes)
    train = _sample(train, config.train_docs, seed, notes, "train")
    test = _sample(test, config.test_docs, seed, notes, "test")
    return ClassificationSplits(name, train, test, notes)
