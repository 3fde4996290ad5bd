"""IMDB, 20 Newsgroups and MIND loaders: real samples, cleaning rules, bad input, the hub faked."""

from __future__ import annotations

import logging
from collections import Counter

import pytest
from datasets import ClassLabel, Dataset

from cdlm_nb.data import aose_corpora, sources
from cdlm_nb.data.aose_corpora import (
    load_imdb,
    load_mind,
    load_newsgroups,
    strip_newsgroup_footer,
    strip_newsgroup_header,
    strip_newsgroup_quotes,
)
from cdlm_nb.support.errors import ConfigError, DataError, OfflineError

IMDB = "imdb/imdb_reviews.sample.csv"
NEWSGROUPS = "20newsgroups/mini_newsgroups"
MIND = "mind/news.sample.tsv"


def _label_counts(dataset):
    names = dataset.features["label"].names
    return Counter(names[label] for label in dataset["label"])


# --- IMDB -------------------------------------------------------------------------------------------------

def test_imdb_sample(shared_data):
    reviews = load_imdb(shared_data / IMDB)
    assert isinstance(reviews.features["label"], ClassLabel)
    assert reviews.features["label"].names == ["negative", "positive"]
    assert len(reviews) == 2000
    assert _label_counts(reviews) == {"positive": 1005, "negative": 995}
    assert not any("<br" in text for text in reviews["text"])
    first = reviews[0]
    assert first["label"] == 1
    assert first["text"].startswith(
        "One of the other reviewers has mentioned that after watching just 1 Oz episode you'll be hooked. "
        "They are right, as this is exactly what happened with me.\n\nThe first thing that struck me"
    )


def _write_csv(tmp_path, text):
    path = tmp_path / "imdb.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_imdb_fixture_cleans_tags(tmp_path):
    path = _write_csv(tmp_path, 'review,sentiment,C\n"Great.<br /><br />Really, great.",positive,\nBad.,negative,\n')
    reviews = load_imdb(path)
    assert reviews["text"] == ["Great.\n\nReally, great.", "Bad."]
    assert reviews["label"] == [1, 0]


@pytest.mark.parametrize(
    "body, message",
    [
        ("Fine.,positive,\nunquoted, comma,negative\n", "line 3: extra columns are not empty"),
        ("Fine.,positive,\nMeh.,neutral,\n", "line 3: sentiment 'neutral'"),
        ("Fine.,positive,\nShort.\n", "line 3: expected 3 comma-separated columns, found 1"),
    ],
)
def test_imdb_bad_rows_name_the_line(tmp_path, body, message):
    with pytest.raises(DataError, match=message):
        load_imdb(_write_csv(tmp_path, "review,sentiment,C\n" + body))


def test_imdb_wrong_header_and_missing_file(tmp_path):
    with pytest.raises(DataError, match="header should start with review,sentiment"):
        load_imdb(_write_csv(tmp_path, "text,label\nx,1\n"))
    with pytest.raises(DataError, match="no_such.csv"):
        load_imdb(tmp_path / "no_such.csv")


def test_imdb_hub_offline_and_conversion(monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    monkeypatch.setattr(sources, "load_dataset", offline)
    with pytest.raises(OfflineError, match="IMDB reviews CSV"):
        load_imdb(None)
    hub_copy = Dataset.from_dict({"text": ["a<br />b"], "label": [0]})
    monkeypatch.setattr(sources, "load_dataset", lambda *args, **kwargs: hub_copy)
    reviews = load_imdb(None)
    assert reviews["text"] == ["a\nb"] and reviews.features["label"].int2str(reviews["label"][0]) == "negative"


# --- 20 Newsgroups ----------------------------------------------------------------------------------------

POST = """From: someone@example.org
Subject: Re: test

In article <123@host>, other@example.org writes:
> quoted line
|> old quote
My own answer.

Second paragraph.

--
Sig line
"""


def test_newsgroup_strippers():
    body = strip_newsgroup_header(POST)
    assert body.startswith("In article")
    assert strip_newsgroup_quotes(body).split("\n")[0] == "My own answer."
    assert strip_newsgroup_footer(body).rstrip().endswith("Second paragraph.")
    assert strip_newsgroup_header("no blank line") == "no blank line"
    assert strip_newsgroup_footer("one block only") == "one block only"


def test_newsgroups_sample_cleaned(shared_data):
    posts = load_newsgroups(shared_data / NEWSGROUPS)
    names = posts.features["label"].names
    assert len(posts) == 1400
    assert len(names) == 20 and names == sorted(names)
    assert set(_label_counts(posts).values()) == {70}
    first = posts[0]  # alt.atheism/51121: a quoted reply with a signature
    assert names[first["label"]] == "alt.atheism"
    assert first["text"] == "Can somebody reconcile the apparent contradiction between [1] and [2]?"


def test_newsgroups_sample_raw_and_headers_only(shared_data):
    raw = load_newsgroups(shared_data / NEWSGROUPS, remove=())
    assert raw[0]["text"].startswith("Xref: cantaloupe.srv.cs.cmu.edu alt.atheism:51121")
    body = strip_newsgroup_header(raw[0]["text"])
    assert body.startswith("In article <N4HY.93Apr5120934@harder.ccr-p.ida.org>")
    assert body.endswith("Yorktown Heights, NY  10598")


def test_newsgroups_bad_options_and_folders(tmp_path):
    with pytest.raises(ConfigError, match="signatures"):
        load_newsgroups(tmp_path, remove=["signatures"])
    with pytest.raises(DataError, match="no group folders"):
        load_newsgroups(tmp_path)


def test_newsgroups_fixture_labels_sorted(tmp_path):
    for group, text in [("sci.space", "Subject: x\n\nOrbit."), ("alt.atheism", "Subject: y\n\nGod?")]:
        (tmp_path / group).mkdir()
        (tmp_path / group / "1").write_bytes(text.encode("latin-1"))
    (tmp_path / "sci.space" / "2").write_bytes("Subject: z\n\nCaf\xe9.".encode("latin-1"))
    posts = load_newsgroups(tmp_path, remove=["headers"])
    assert posts.features["label"].names == ["alt.atheism", "sci.space"]
    assert posts["text"] == ["God?", "Orbit.", "Café."]
    assert posts["label"] == [0, 1, 1]


# --- MIND -------------------------------------------------------------------------------------------------

def test_mind_sample(shared_data):
    news = load_mind(shared_data / MIND)
    names = news.features["label"].names
    assert len(news) == 1500
    assert len(names) == 15 and names == sorted(names)
    assert _label_counts(news)["sports"] == 441
    first = news[0]  # N34700
    assert names[first["label"]] == "news"
    assert first["text"].startswith(
        "New Florida Majority celebrates grand opening of Fort Lauderdale office | PHOTOS\nAs music blasted"
    )


def test_mind_rare_topics_dropped_and_logged(shared_data, caplog):
    with caplog.at_level(logging.WARNING, logger=aose_corpora.__name__):
        news = load_mind(shared_data / MIND, min_per_label=5)
    assert len(news) == 1497
    assert "kids" not in news.features["label"].names
    assert "kept 1497; skipped 3 news in topics with < 5 news ['kids']" in caplog.text


def _mind_line(news_id, category="news", title="T", abstract="A"):
    return "\t".join([news_id, category, "sub", title, abstract, "https://x", "[]", "[]"])


def test_mind_fixture_text_and_errors(tmp_path):
    path = tmp_path / "news.tsv"
    path.write_text(_mind_line("N1", abstract="") + "\n" + _mind_line("N2", "sports") + "\n", encoding="utf-8")
    news = load_mind(path)
    assert news["text"] == ["T", "T\nA"]
    path.write_text(_mind_line("N1") + "\n" + _mind_line("N1") + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="duplicate.*'N1'"):
        load_mind(path)
    path.write_text(_mind_line("N1") + "\nN2\tnews\ttitle only\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 2: expected 8 tab-separated columns"):
        load_mind(path)
    with pytest.raises(ConfigError):
        load_mind(path, min_per_label=0)


def test_newsgroups_hub_copy_uses_its_label_names(monkeypatch):
    hub_copy = Dataset.from_dict({"text": [" Orbit. ", "God?"], "label": [14, 0],
                                  "label_text": ["sci.space", "alt.atheism"]})
    monkeypatch.setattr(sources, "load_dataset", lambda *args, **kwargs: hub_copy)
    posts = load_newsgroups(None, split="test")
    assert posts.features["label"].names == ["alt.atheism", "sci.space"]
    assert posts["text"] == ["Orbit.", "God?"] and posts["label"] == [1, 0]
