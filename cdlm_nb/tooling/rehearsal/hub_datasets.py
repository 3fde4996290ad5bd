"""Stand-ins for the hub datasets the gpu profile reads, written into a `datasets` cache exactly as one online
`load_dataset` leaves them, so the package's unchanged loaders read them with `HF_HUB_OFFLINE=1`.

Offline, `datasets` resolves a hub id only through its processed-Arrow cache (`packaged_modules/cache`):
`HF_DATASETS_CACHE/<namespace>___<name>/<config>/0.0.0/<commit>/` holding `dataset_info.json` (whose `config_name`
must equal the config folder) and one `<name>-<split>.arrow` per split. `build_hub_datasets` writes each hub copy's
rows, with its exact features, to small Parquet files, and runs `datasets`' own Parquet builder on them into the
folder that `datasets` computes for a hub builder of that repository, config and a fixed fake commit
(`REHEARSAL_COMMIT`), e.g. `<cache>/stanfordnlp___imdb/plain_text/0.0.0/<commit>/imdb-train.arrow`.

| hub id                  | config       | splits (rows)                      | filled from the sample corpora         |
|-------------------------|--------------|------------------------------------|----------------------------------------|
| `alexfabbri/multi_news` | `default`    | train 90, validation 30, test 30   | the 150 LongBench clusters, file order |
| `hotpotqa/hotpot_qa`    | `distractor` | train 62, validation 62            | all 62 dev records, in both splits     |
| `stanfordnlp/imdb`      | `plain_text` | train 64, test 64, unsupervised 64 | CSV rows 1-64, 65-128, 129-192         |
| `SetFit/20_newsgroups`  | `default`    | train 60, test 60                  | posts 1-3 and 4-6 of each group        |

The samples are small, so HotpotQA's train split reuses the dev records (ids prefixed `train-`, so no id repeats
across splits); every other split holds rows of its own. Texts keep the hub copies' raw form (IMDB's `<br />` tags,
Multi-News documents joined by " ||||| " and summaries starting with "– "), so the loaders' cleaning runs too.

Multi-News is read by two routes (`data.multinews`), and both have a stand-in holding the same clusters:
(a) the raw files of the repository's main branch, which `hf_hub_download` caches in the hub cache
(`HF_HUB_CACHE/datasets--alexfabbri--multi_news/{blobs,refs/main,snapshots/<commit>/data/train.src.cleaned, ...}`):
`write_multinews_raw_files`, given a `hub_cache`, writes them there (`hub_models.write_revision`), one cluster per
line, documents joined by " ||||| ", line breaks as NEWLINE_CHAR, as the real files hold them; with them the loader
takes route (a), as `cdlm-nb rehearse` does. (b) The hub's Parquet export (`data_dir="default"`, read when the main
branch's loading script is refused), which an online run caches under the config folder `default-data_dir=default`:
the stand-in is that folder (`EXPORT_DATA_DIRS`), so without the raw files the rehearsal walks the loader's fallback
as a user's offline re-run does: the first call finds no `default` config, the export call finds this.
"""

from __future__ import annotations

import csv
import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from datasets import ClassLabel, Dataset, Features, List, Value
from datasets.packaged_modules.parquet.parquet import Parquet

from ...data.aose_corpora import load_newsgroups
from ...data.hotpotqa import load_hotpotqa
from ...data.multinews import HUB_RAW_FILES, MULTINEWS_HUB_ID, RAW_SEPARATOR, load_multinews
from ...data.sources import require_path
from ...support.errors import DataError
from ...support.paths import shared_data_dir

#: The fake hub commit every stand-in is cached under (a real cache holds the repository's commit sha).
REHEARSAL_COMMIT = hashlib.sha1(b"cdlm-nb rehearsal stand-in").hexdigest()

MULTINEWS_SPLITS = {"train": 90, "validation": 30, "test": 30}  # consecutive clusters of the sample, in order
IMDB_ROWS_PER_SPLIT = 64
NEWSGROUPS_POSTS_PER_GROUP = 3  # per group and split

_STRING = Value("string")
#: hub id -> (config, the hub copy's features).
HUB_DATASETS: dict[str, tuple[str, Features]] = {
    "alexfabbri/multi_news": ("default", Features({"document": _STRING, "summary": _STRING})),
    "hotpotqa/hotpot_qa": ("distractor", Features({
        "id": _STRING, "question": _STRING, "answer": _STRING, "type": _STRING, "level": _STRING,
        "supporting_facts": {"title": List(_STRING), "sent_id": List(Value("int32"))},
        "context": {"title": List(_STRING), "sentences": List(List(_STRING))},
    })),
    "stanfordnlp/imdb": ("plain_text", Features({"text": _STRING, "label": ClassLabel(names=["neg", "pos"])})),
    "SetFit/20_newsgroups": ("default", Features({"text": _STRING, "label": Value("int64"), "label_text": _STRING})),
}

#: hub id -> the `data_dir` its rows are read with: the Parquet export of a repository that holds a loading script.
EXPORT_DATA_DIRS = {"alexfabbri/multi_news": "default"}

Splits = dict[str, list[dict]]


def multinews_splits(shared: Path) -> Splits:
    """Multi-News in the hub layout (`document`, `summary`) from the LongBench sample, cut into consecutive splits."""
    sample = require_path(shared / "multinews" / "multi_news.longbench.sample.jsonl", what="the Multi-News sample",
                          fix="It is one of the sample corpora (see its SOURCE.md).")
    rows = [{"document": f" {RAW_SEPARATOR} ".join(cluster["documents"]), "summary": f"– {cluster['summary']}"}
            for cluster in load_multinews(sample)]
    return _consecutive(rows, MULTINEWS_SPLITS)


def hotpotqa_splits(shared: Path) -> Splits:
    """HotpotQA distractor records (both sample files): all as validation, and again as train with new ids."""
    records = load_hotpotqa(require_path(shared / "hotpotqa", what="the HotpotQA sample folder",
                                         fix="It is one of the sample corpora (see its SOURCE.md).")).to_list()
    return {"train": [{**record, "id": f"train-{record['id']}"} for record in records], "validation": records}


def imdb_splits(shared: Path) -> Splits:
    """IMDB reviews (raw text, label 0 = neg, 1 = pos) from the Kaggle-layout CSV; unsupervised rows are labelled -1."""
    sample = require_path(shared / "imdb" / "imdb_reviews.sample.csv", what="the IMDB sample",
                          fix="It is one of the sample corpora (see its SOURCE.md).")
    with sample.open(encoding="utf-8", newline="") as handle:
        rows = [{"text": row["review"], "label": int(row["sentiment"] == "positive")} for row in csv.DictReader(handle)]
    splits = _consecutive(rows, dict.fromkeys(("train", "test", "unsupervised"), IMDB_ROWS_PER_SPLIT))
    splits["unsupervised"] = [{**row, "label": -1} for row in splits["unsupervised"]]
    return splits


def newsgroups_splits(shared: Path) -> Splits:
    """The cleaned 20 Newsgroups posts (headers, quotes, footers removed) as SetFit has them: label ids in sorted
    group order, as scikit-learn numbers them; train and test take different posts of every group."""
    root = require_path(shared / "20newsgroups" / "mini_newsgroups", what="the 20 Newsgroups sample folder",
                        fix="It is one of the sample corpora (see its SOURCE.md).")
    posts = load_newsgroups(root)
    names = posts.features["label"].names
    by_group: dict[int, list[dict]] = {}
    for text, label in zip(posts["text"], posts["label"]):
        by_group.setdefault(label, []).append({"text": text, "label": label, "label_text": names[label]})
    n = NEWSGROUPS_POSTS_PER_GROUP
    return {"train": [row for rows in by_group.values() for row in rows[:n]],
            "test": [row for rows in by_group.values() for row in rows[n:2 * n]]}


def _consecutive(rows: list[dict], sizes: dict[str, int]) -> Splits:
    """`rows` cut into consecutive splits of the given sizes; a DataError when there are too few."""
    if len(rows) < sum(sizes.values()):
        raise DataError(f"the sample has {len(rows)} rows; the stand-in needs {sum(sizes.values())} ({sizes}).")
    splits, start = {}, 0
    for name, size in sizes.items():
        splits[name], start = rows[start:start + size], start + size
    return splits


#: hub id -> the function that fills its splits from the sample corpora.
SPLIT_MAKERS: dict[str, Callable[[Path], Splits]] = {
    "alexfabbri/multi_news": multinews_splits,
    "hotpotqa/hotpot_qa": hotpotqa_splits,
    "stanfordnlp/imdb": imdb_splits,
    "SetFit/20_newsgroups": newsgroups_splits,
}


def cache_folder(datasets_cache: Path, hub_id: str, config: str, data_dir: str | None = None) -> Path:
    """The folder `datasets` caches `hub_id`'s `config` (read from `data_dir`, if any) in at `REHEARSAL_COMMIT`, as
    its hub builder computes it."""
    options = {"data_dir": data_dir} if data_dir else {}
    builder = Parquet(cache_dir=str(datasets_cache), repo_id=hub_id, dataset_name=hub_id.split("/")[-1],
                      config_name=config, hash=REHEARSAL_COMMIT, **options)
    return Path(builder.cache_dir)


def write_hub_dataset(datasets_cache: Path, hub_id: str, splits: Splits, scratch: Path) -> Path:
    """Cache `splits` as the hub copy of `hub_id` (Parquet files in `scratch` -> datasets' Parquet builder)."""
    config, features = HUB_DATASETS[hub_id]
    data_files = {}
    for split, rows in splits.items():
        path = scratch / f"{hub_id.replace('/', '--')}-{split}.parquet"
        Dataset.from_list(rows, features=features).to_parquet(str(path))
        data_files[split] = [str(path)]
    target = cache_folder(datasets_cache, hub_id, config, EXPORT_DATA_DIRS.get(hub_id))
    builder = Parquet(cache_dir=str(scratch / "builder"), dataset_name=hub_id.split("/")[-1], config_name=config,
                      data_files=data_files, features=features, hash=REHEARSAL_COMMIT)
    builder.download_and_prepare(output_dir=str(target))
    return target


def sample_root(shared: Path | None) -> Path:
    """`shared`, else the sample corpora beside the checkout (`paths.shared_data_dir`); a DataError when absent."""
    if shared is not None:
        return require_path(shared, what="the sample corpora folder",
                            fix="Pass the folder of the sample corpora (../shared/data beside the checkout).")
    found = shared_data_dir()
    if found is None:
        raise DataError("the sample corpora were not found: put them in ../shared/data beside the checkout or set "
                        "$CDLM_NB_SHARED_DATA to their folder.")
    return found


def multinews_raw_files(splits: Splits) -> dict[str, bytes]:
    """The repository's raw files (`HUB_RAW_FILES`) holding `splits` (hub layout rows): `data/val.src.cleaned` one
    cluster per line with line breaks as NEWLINE_CHAR markers, `data/val.tgt` the summaries, line for line."""
    def lines(texts: list[str]) -> bytes:
        return "".join(text.replace("\n", " NEWLINE_CHAR ") + "\n" for text in texts).encode("utf-8")

    files = {}
    for split, rows in splits.items():
        documents, summaries = HUB_RAW_FILES[split]
        files[documents] = lines([row["document"] for row in rows])
        files[summaries] = lines([row["summary"] for row in rows])
    return files


#: The stand-ins' own SHA-256 table, beside them in the hub cache: the loader checks every raw file it reads
#: against a table, the published one (`multinews.RAW_FILE_SHA256`) unless `$MULTINEWS_SHA256` names another.
STANDIN_CHECKSUMS = "multinews-sha256.json"


def write_multinews_raw_files(hub_cache: Path, splits: Splits) -> Path:
    """Cache the raw files of `splits` as `hf_hub_download` leaves Multi-News' main branch in the hub cache
    `hub_cache` (HF_HUB_CACHE), and their SHA-256 table as `STANDIN_CHECKSUMS` there (what `$MULTINEWS_SHA256`
    points the rehearsal at: `rehearse.hub_environment`); returns the snapshot folder."""
    from .hub_models import repo_folder, write_revision

    files = multinews_raw_files(splits)
    commit = write_revision(Path(hub_cache), MULTINEWS_HUB_ID, "main", files, repo_type="dataset")
    checksums = {name: hashlib.sha256(content).hexdigest() for name, content in files.items()}
    (Path(hub_cache) / STANDIN_CHECKSUMS).write_text(json.dumps(checksums, indent=1), encoding="utf-8")
    return repo_folder(Path(hub_cache), MULTINEWS_HUB_ID, "dataset") / "snapshots" / commit


def build_hub_datasets(datasets_cache: Path, shared: Path | None = None, hub_cache: Path | None = None) -> list[str]:
    """Write every hub dataset the gpu profile reads into `datasets_cache` (use it as HF_DATASETS_CACHE, with
    HF_HUB_OFFLINE=1) and, given `hub_cache` (HF_HUB_CACHE), Multi-News' raw files there too; return the hub ids
    written. A folder already there is reused as it is."""
    root = sample_root(shared)
    with tempfile.TemporaryDirectory(prefix="cdlm-nb-hub-datasets-") as scratch:
        for hub_id, make_splits in SPLIT_MAKERS.items():
            splits = make_splits(root)
            write_hub_dataset(Path(datasets_cache), hub_id, splits, Path(scratch))
            if hub_id == MULTINEWS_HUB_ID and hub_cache is not None:
                write_multinews_raw_files(Path(hub_cache), splits)
    return list(SPLIT_MAKERS)
