"""The hub-dataset stand-ins: the cache layouts `datasets` and `hf_hub_download` look up offline, and the package's
unchanged loaders reading them with HF_HUB_OFFLINE=1 (in a subprocess, since `datasets` and huggingface_hub read the
environment when imported); Multi-News by each of its two hub routes alone, and the error when neither is there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from datasets import Features

from cdlm_nb.data.multinews import CHECKSUMS_VARIABLE, HUB_RAW_FILES, MULTINEWS_HUB_ID
from cdlm_nb.support.errors import DataError
from cdlm_nb.tooling.rehearsal.hub_datasets import (
    EXPORT_DATA_DIRS,
    HUB_DATASETS,
    REHEARSAL_COMMIT,
    STANDIN_CHECKSUMS,
    build_hub_datasets,
    sample_root,
)

#: Runs offline in a fresh interpreter; prints {what: rows} as JSON.
OFFLINE_LOADS = """
import json
from datasets import load_dataset
from cdlm_nb.data.aose_corpora import load_imdb, load_newsgroups
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


#: Runs offline in a fresh interpreter: every Multi-News split by whichever route works, or the error; prints JSON.
MULTINEWS_LOADS = """
import json
from cdlm_nb.data.multinews import load_multinews
try:
    print(json.dumps({split: load_multinews(split=split).to_list() for split in ("train", "validation", "test")}))
except Exception as error:
    print(json.dumps({"error": type(error).__name__, "message": str(error)}))
"""


@pytest.fixture(scope="module")
def standins(shared_data, tmp_path_factory) -> dict[str, Path]:
    """The stand-ins as `cdlm-nb rehearse` writes them: `datasets`' cache, and the hub cache (Multi-News' raw files)."""
    root = tmp_path_factory.mktemp("standins")
    caches = {"datasets": root / "datasets", "hub": root / "hub"}
    assert build_hub_datasets(caches["datasets"], shared_data, hub_cache=caches["hub"]) == list(HUB_DATASETS)
    return caches


@pytest.fixture(scope="module")
def hub_cache(standins) -> Path:
    return standins["datasets"]


def offline_run(script: str, home: Path, hub: Path, datasets: Path) -> subprocess.CompletedProcess:
    """`script` in a fresh interpreter with the hub off, reading the hub cache `hub` and `datasets`' `datasets`."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(home),
           "HF_HUB_CACHE": str(hub), "HF_DATASETS_CACHE": str(datasets),
           CHECKSUMS_VARIABLE: str(hub / STANDIN_CHECKSUMS)}
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120,
                          check=False)


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


def test_the_unchanged_loaders_read_the_stand_ins_offline(standins, tmp_path):
    done = offline_run(OFFLINE_LOADS, tmp_path, standins["hub"], standins["datasets"])
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


def test_multinews_raw_files_are_where_hf_hub_download_finds_them(standins):
    from huggingface_hub import hf_hub_download

    folder = standins["hub"] / "datasets--alexfabbri--multi_news"
    commit = (folder / "refs" / "main").read_text()
    for documents, summaries in HUB_RAW_FILES.values():
        for name in (documents, summaries):
            found = hf_hub_download(MULTINEWS_HUB_ID, name, repo_type="dataset", cache_dir=standins["hub"],
                                    local_files_only=True)
            assert Path(found) == folder / "snapshots" / commit / name and Path(found).resolve().parent.name == "blobs"
    train = (folder / "snapshots" / commit / "data" / "train.src.cleaned").read_text(encoding="utf-8")
    assert len(train.splitlines()) == 90 and " ||||| " in train and "NEWLINE_CHAR" in train


def test_multinews_loads_by_each_hub_route_alone(standins, tmp_path):
    """Raw files only -> route (a); the export only -> route (b), the same clusters; neither -> the error naming
    both routes and the local copy (MULTINEWS_DIR)."""
    empty = tmp_path / "empty"
    runs = {"raw files only": (standins["hub"], empty / "datasets"),
            "export only": (empty / "hub", standins["datasets"]),
            "neither": (empty / "hub", empty / "datasets")}
    results = {}
    for name, (hub, datasets) in runs.items():
        done = offline_run(MULTINEWS_LOADS, tmp_path / "home", hub, datasets)
        assert done.returncode == 0, done.stderr[-3000:]
        results[name] = (json.loads(done.stdout.strip().splitlines()[-1]), done.stderr)
    raw, raw_log = results["raw files only"]
    assert {split: len(rows) for split, rows in raw.items()} == {"train": 90, "validation": 30, "test": 30}
    assert raw["validation"][0]["cluster_id"] == "validation-0" and len(raw["train"][0]["documents"]) > 1
    assert "trying the next route" not in raw_log
    export, export_log = results["export only"]
    assert export == raw
    assert "(a) the raw files data/train.src.cleaned and data/train.tgt" in export_log
    assert "trying the next route" in export_log
    error = results["neither"][0]
    assert error["error"] == "OfflineError"
    for route in ("(a) the raw files data/train.src.cleaned", "(b) the hub's Parquet export", "MULTINEWS_DIR"):
        assert route in error["message"]
