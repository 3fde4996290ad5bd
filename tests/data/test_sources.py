"""File and hub readers behind the loaders: line numbers in errors, and offline -> OfflineError."""

from __future__ import annotations

import httpx
import pytest

from cdlm_nb.data import sources
from cdlm_nb.data.sources import load_hub_split, read_csv_rows, read_json_lines, require_unique
from cdlm_nb.errors import DataError, OfflineError


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
