"""The hub-dataset stand-ins: the cache layout `datasets` looks up offline, and the package's unchanged loaders
reading it with HF_HUB_OFFLINE=1 (in a subprocess, since `datasets` reads the environment when imported)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from datasets import Features

from cdlm_nb.errors import DataError
from cdlm_nb.tooling.rehearsal.hub_datasets import (
    EXPORT_DATA_DIRS,
    HUB_DATASETS,
    REHEARSAL_COMMIT,
    build_hub_datasets,
    sample_root,
)

#: Runs offline in a fresh interpreter; prints {what: rows} as JSON.
OFFLINE_LOADS = """
import json
from datasets import load_dataset
from cdlm_nb.data.classification import load_imdb, load_newsgroups
from cdlm_nb.data.hotpotqa import load_hotpotqa
from cdlm_nb.data.multinews import load_multinews
from cdlm_nb.data.sources import _load_hub_or_parquet_export

multinews = {split: load_multinews(split=split) for split in ("train", "validation", "test")}
counts = {f"multinews/{split}": len(data) for split, data in multinews.items()}
counts["multinews/first documents"] = len(multinews["train"][0]["documents"])
counts["multinews/summary starts with a dash"] = multinews["train"][0]["summary"].startswith("\u2013")
counts["multinews export/test"] = len(_load_hub_or_parquet_export("alexfabbri/multi_news", None, "test"))
counts.update({f"hotpotqa/{split}": len(load_hotpotqa(None, split=split)) for split in ("train", "validation")})
imdb = {split: load_imdb(None, split=split) for split in ("train", "test")}
counts.update({f"imdb/{split}": len(data) for split, data in imdb.items()})
counts["imdb/labels"] = imdb["train"].features["label"].names
counts["imdb/unsupervised labels"] = sorted(set(load_dataset("stanfordnlp/imdb", split="unsupervised")["label"]))
newsgroups = {split: load_newsgroups(None, split=split) for split in ("train", "test")}
counts.update({f"20ng/{split}": len(data) for split, data in newsgroups.items()})
counts["20ng/groups"] = len(newsgroups["test"].features["label"].names)
print(json.dumps(counts))
"""


@pytest.fixture(scope="module")
def hub_cache(shared_data, tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("hf-datasets-cache")
    assert build_hub_datasets(cache, shared_data) == list(HUB_DATASETS)
    return cache


def test_each_config_is_cached_where_datasets_looks_for_it_offline(hub_cache):
    for hub_id, (config, features) in HUB_DATASETS.items():
        namespace, name = hub_id.split("/")
        data_dir = EXPORT_DATA_DIRS.get(hub_id)  # the Parquet export's config folder, as datasets names it
        folder_name = f"{config}-data_dir={data_dir}" if data_dir else config
        folder = hub_cache / f"{namespace}___{name}" / folder_name / "0.0.0" / REHEARSAL_COMMIT
        info = json.loads((folder / "dataset_info.json").read_text(encoding="utf-8"))
        assert info["config_name"] == config and info["dataset_name"] == name
        assert Features.from_dict(info["features"]) == features
        assert sorted(path.name for path in folder.glob("*.arrow")) == sorted(
            f"{name}-{split}.arrow" for split in info["splits"])
        assert [path.name for path in folder.parent.parent.parent.iterdir() if path.is_dir()] == [folder_name]


def test_the_unchanged_loaders_read_the_stand_ins_offline(hub_cache, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(hub_cache), "HF_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", OFFLINE_LOADS], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts.pop("multinews/first documents") > 1  # the separator split the cluster back into its documents
    assert counts == {
        "multinews/train": 90, "multinews/validation": 30, "multinews/test": 30,
        "multinews/summary starts with a dash": False, "multinews export/test": 30,
        "hotpotqa/train": 62, "hotpotqa/validation": 62,
        "imdb/train": 64, "imdb/test": 64, "imdb/labels": ["negative", "positive"], "imdb/unsupervised labels": [-1],
        "20ng/train": 60, "20ng/test": 60, "20ng/groups": 20,
    }


def test_a_missing_sample_folder_is_named(tmp_path):
    with pytest.raises(DataError, match=r"the Multi-News sample not found at .*multinews"):
        build_hub_datasets(tmp_path / "cache", tmp_path)
    with pytest.raises(DataError, match=r"the sample corpora folder not found at .*nowhere"):
        sample_root(tmp_path / "nowhere")
