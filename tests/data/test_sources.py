"""File and hub readers behind the loaders: line numbers in errors, and offline -> OfflineError."""

from __future__ import annotations

import httpx
import pytest

from cdlm_nb.data import sources
from cdlm_nb.data.sources import load_hub_split, read_csv_rows, read_json_lines, require_unique
from cdlm_nb.support.errors import DataError, OfflineError


def test_csv_rows_report_start_lines_and_skip_blank_lines(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('h1,h2\na,"multi\nline"\n\nb,c\n', encoding="utf-8")
    assert list(read_csv_rows(path, columns=2, header=True)) == [(2, ["a", "multi\nline"]), (5, ["b", "c"])]


def test_csv_fields_longer_than_the_default_limit(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("1," + "x" * 200_000 + ",y\n", encoding="utf-8")
    [(line, row)] = read_csv_rows(path, columns=3, header=False)
    assert line == 1 and len(row[1]) == 200_000


def test_json_lines_must_hold_objects(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1}\n\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"t\.jsonl, line 3: expected a JSON object"):
        list(read_json_lines(path))


def test_require_unique_names_a_duplicate():
    require_unique(["a", "b"], source="src", field="id")
    with pytest.raises(DataError, match="src: 1 duplicate value\\(s\\) of `id`, e.g. 'b'"):
        require_unique(["a", "b", "b"], source="src", field="id")


@pytest.mark.parametrize("error", [ConnectionError("down"), httpx.ConnectError("refused")])
def test_network_failures_become_offline_errors(monkeypatch, error):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(sources, "load_dataset", fail)
    with pytest.raises(OfflineError, match="org/name.*split 'train'.*Put the files in data/"):
        load_hub_split("org/name", split="train", manual="Put the files in data/.")


def test_scripted_repositories_fall_back_to_the_parquet_export(monkeypatch):
    calls = []

    def fake_hub(hub_id, config=None, split=None, **kwargs):
        calls.append(kwargs)
        if not kwargs:
            raise RuntimeError("Dataset scripts are no longer supported, but found name.py")
        return "export"

    monkeypatch.setattr(sources, "load_dataset", fake_hub)
    assert load_hub_split("org/name", config="distractor", split="validation", manual="") == "export"
    assert calls == [{}, {"revision": sources.PARQUET_EXPORT, "data_dir": "distractor"}]


def test_other_runtime_errors_are_not_hidden(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("something else")

    monkeypatch.setattr(sources, "load_dataset", broken)
    with pytest.raises(RuntimeError, match="something else"):
        load_hub_split("org/name", split="train", manual="")


#: How `datasets` refuses a loading script: >= 4, then 3.x's three ValueErrors (load.py of datasets 3.6.0: it could
#: not ask, it timed out asking, the user answered no), each in the words of that release.
SCRIPT_REFUSALS = [
    RuntimeError("Dataset scripts are no longer supported, but found name.py"),
    ValueError("The repository for org/name contains custom code which must be executed to correctly load the "
               "dataset. You can inspect the repository content at https://hf.co/datasets/org/name.\n"
               "Please pass the argument `trust_remote_code=True` to allow custom code to be run."),
    ValueError("Loading this dataset requires you to execute custom code contained in the dataset repository on your "
               "local machine. Please set the option `trust_remote_code=True` to permit loading of this dataset."),
    ValueError("Loading org/name requires you to execute the dataset script in that repo on your local machine. Make "
               "sure you have read the code there to avoid malicious use, then set the option "
               "`trust_remote_code=True` to remove this error."),
]


def _refusing_hub(refusal: Exception, calls: list[dict]):
    """A `load_dataset` that refuses the main branch with `refusal` and serves the Parquet export."""

    def fake_hub(hub_id, config=None, split=None, **kwargs):
        calls.append({"config": config, **kwargs})
        if "revision" not in kwargs:
            raise refusal
        return "export"

    return fake_hub


@pytest.mark.parametrize("refusal", SCRIPT_REFUSALS, ids=["datasets-4", "3.x-no-prompt", "3.x-timeout", "3.x-no"])
@pytest.mark.parametrize("config", ["distractor", None])
def test_each_datasets_version_refusing_a_script_falls_back_to_the_export(monkeypatch, refusal, config):
    calls = []
    monkeypatch.setattr(sources, "load_dataset", _refusing_hub(refusal, calls))
    assert load_hub_split("org/name", config=config, split="validation", manual="") == "export"
    assert calls == [{"config": config},
                     {"config": None, "revision": sources.PARQUET_EXPORT, "data_dir": config or "default"}]
    assert all("trust_remote_code" not in call for call in calls)


@pytest.mark.parametrize("error", [ValueError("Unknown split 'dev'"), OSError("disk full"),
                                   KeyError("trust_remote_code=True")])
def test_errors_other_than_a_script_refusal_propagate(monkeypatch, error):
    calls = []
    monkeypatch.setattr(sources, "load_dataset", _refusing_hub(error, calls))
    with pytest.raises(type(error)):
        load_hub_split("org/name", split="train", manual="")
    assert len(calls) == 1


def test_offline_without_a_cached_main_branch_the_cached_export_is_read(monkeypatch):
    """An online run under datasets >= 4 cached only the export: an offline re-run reads it."""
    calls = []
    monkeypatch.setattr(sources, "load_dataset", _refusing_hub(ValueError("Couldn't find cache for org/name"), calls))
    assert load_hub_split("org/name", split="test", manual="") == "export"
    assert calls[1]["revision"] == sources.PARQUET_EXPORT


def test_offline_with_neither_copy_cached_says_what_to_download(monkeypatch):
    def nothing_cached(hub_id, *args, **kwargs):
        raise ValueError(f"Couldn't find cache for {hub_id}")

    monkeypatch.setattr(sources, "load_dataset", nothing_cached)
    with pytest.raises(OfflineError, match="org/name.*get it by hand"):
        load_hub_split("org/name", split="test", manual="get it by hand")
