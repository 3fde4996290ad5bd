"""Long-document classification corpora of AoSE (Abdaoui & Dutta): IMDB, 20 Newsgroups and MIND news topics.

Each loader returns `classification_features(label_names)` rows (`text`, `label`), label names sorted so that ids
never depend on file order. `path=None` reads the hub copy (IMDB, and 20 Newsgroups' cleaned version AoSE uses);
MIND is not on the hub. Newsgroups' `remove` strips "headers", "quotes" and/or "footers" as scikit-learn's
`fetch_20newsgroups(remove=...)` does (default: all three, AoSE's "cleaned version"); MIND's `min_per_label` drops
(and logs) rare topics, as AoSE drops those with fewer than 3.
"""

from __future__ import annotations

import csv
import logging
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from datasets import Dataset

from ..support.errors import ConfigError, DataError
from .schemas import classification_features
from .sources import load_hub_split, log_skips, read_csv_rows, require_path, require_unique

log = logging.getLogger(__name__)

IMDB_HUB_ID = "stanfordnlp/imdb"  # the `imdb` dataset AoSE cites; labels 0 = neg, 1 = pos
NEWSGROUPS_HUB_ID = "SetFit/20_newsgroups"  # the cleaned version AoSE cites (headers, quotes, footers removed)
IMDB_MANUAL = ("Download the IMDB reviews CSV (columns review, sentiment; e.g. Kaggle's 'IMDB Dataset of 50K Movie "
               "Reviews'), put it in a folder such as data/imdb/ and call load_imdb('data/imdb/IMDB Dataset.csv').")
NEWSGROUPS_MANUAL = ("Download 20 Newsgroups (e.g. 20news-bydate-train from http://qwone.com/~jason/20Newsgroups/, one "
                     "folder per group), unpack it under data/ and call load_newsgroups('data/20news-bydate-train').")
MIND_MANUAL = ("Download MIND (https://msnews.github.io, e.g. MINDsmall_train.zip), unpack it under data/ and call "
               "load_mind('data/MINDsmall_train/news.tsv').")

NEWSGROUPS_PARTS = ("headers", "quotes", "footers")  # what `remove` may strip, in the order it is applied
MIND_COLUMNS = ("news_id", "category", "subcategory", "title", "abstract", "url", "title_entities", "abstract_entities")

_BR_TAG = re.compile(r"<br\s*/?>", flags=re.IGNORECASE)
_QUOTE_LINE = re.compile(r"(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)")


def _dataset(texts: list[str], labels: list[str]) -> Dataset:
    """A classification Dataset whose ClassLabel names are the sorted distinct labels."""
    features = classification_features(sorted(set(labels)))
    return Dataset.from_dict({"text": texts, "label": features["label"].str2int(labels)}, features=features)


def clean_imdb_html(text: str) -> str:
    """IMDB review text with its `<br />` tags turned into line breaks."""
    return _BR_TAG.sub("\n", text).strip()


def load_imdb(path: str | Path | None = None, *, split: str = "train") -> Dataset:
    """IMDB reviews (labels negative, positive) from the Kaggle CSV at `path` (`review`, `sentiment`; any extra
    column must be empty; `<br />` tags become line breaks), or the hub split `split` if path is None."""
    if path is None:
        if split not in ("train", "test"):
            raise ConfigError(f"IMDB split must be 'train' or 'test' ('unsupervised' has no labels); got {split!r}.")
        raw = load_hub_split(IMDB_HUB_ID, split=split, manual=IMDB_MANUAL)
        names = {0: "negative", 1: "positive"}
        return _dataset([clean_imdb_html(text) for text in raw["text"]], [names[label] for label in raw["label"]])
    path = require_path(path, what="IMDB CSV", fix=IMDB_MANUAL)
    with path.open(encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle), [])
    if header[:2] != ["review", "sentiment"]:
        raise DataError(f"{path}: the header should start with review,sentiment; found {','.join(header[:2])!r}.")
    texts, labels = [], []
    for line, row in read_csv_rows(path, columns=len(header), header=True):
        where = f"{path}, row starting on line {line}"
        if any(cell.strip() for cell in row[2:]):
            raise DataError(f"{where}: extra columns are not empty; check its quoting.")
        if row[1] not in ("positive", "negative"):
            raise DataError(f"{where}: sentiment {row[1]!r} is not positive/negative.")
        texts.append(clean_imdb_html(row[0]))
        labels.append(row[1])
    return _dataset(texts, labels)


def strip_newsgroup_header(text: str) -> str:
    """The post without its header block (everything up to the first blank line)."""
    _, blank, body = text.partition("\n\n")
    return body if blank else text


def strip_newsgroup_quotes(text: str) -> str:
    """The post without quoted lines ("> ...", "| ...") and the "... writes:" lines that introduce them."""
    return "\n".join(line for line in text.split("\n") if not _QUOTE_LINE.search(line))


def strip_newsgroup_footer(text: str) -> str:
    """The post without its last block, the one after the last blank or dashed line (usually a signature)."""
    lines = text.strip().split("\n")
    for index in range(len(lines) - 1, 0, -1):
        if not lines[index].strip().strip("-"):
            return "\n".join(lines[:index])
    return text


_STRIPPERS = {"headers": strip_newsgroup_header, "quotes": strip_newsgroup_quotes, "footers": strip_newsgroup_footer}


def load_newsgroups(path: str | Path | None = None, *, remove: Iterable[str] = NEWSGROUPS_PARTS,
                    split: str = "train") -> Dataset:
    """20 Newsgroups posts labelled by group, from the folder `path` (`<group>/<post>`, both in name order), or if
    None the hub split."""
    requested = {remove} if isinstance(remove, str) else set(remove)
    if requested - set(NEWSGROUPS_PARTS):
        raise ConfigError(f"remove may hold {NEWSGROUPS_PARTS}; got {sorted(requested - set(NEWSGROUPS_PARTS))}.")
    if path is None:
        raw = load_hub_split(NEWSGROUPS_HUB_ID, split=split, manual=NEWSGROUPS_MANUAL)
        return _dataset([text.strip() for text in raw["text"]], list(raw["label_text"]))
    root = require_path(path, what="20 Newsgroups folder", fix=NEWSGROUPS_MANUAL)
    groups = sorted(item for item in root.iterdir() if item.is_dir() and not item.name.startswith("."))
    if not groups:
        raise DataError(f"{root} holds no group folders. {NEWSGROUPS_MANUAL}")
    strippers, texts, labels = [_STRIPPERS[part] for part in NEWSGROUPS_PARTS if part in requested], [], []
    for group in groups:
        for post in sorted(item for item in group.iterdir() if item.is_file() and not item.name.startswith(".")):
            data = post.read_bytes()  # UTF-8 where valid, else Latin-1 (Usenet posts mix encodings; it never fails)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
            for strip in strippers:
                text = strip(text)
            texts.append(text.strip())
            labels.append(group.name)
    return _dataset(texts, labels)


def load_mind(path: str | Path, *, min_per_label: int = 1) -> Dataset:
    """MIND news (`news.tsv`, no header) labelled by topic (category), text = title + line break + abstract."""
    if min_per_label < 1:
        raise ConfigError(f"min_per_label must be >= 1, got {min_per_label}.")
    source = require_path(path, what="MIND news.tsv", fix=MIND_MANUAL)
    ids, texts, labels = [], [], []
    with source.open(encoding="utf-8", newline="\n") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) != len(MIND_COLUMNS):
                raise DataError(f"{source}, line {line_number}: expected {len(MIND_COLUMNS)} tab-separated columns "
                                f"({', '.join(MIND_COLUMNS)}), found {len(fields)}.")
            news_id, category, _, title, abstract = fields[:5]
            ids.append(news_id)
            texts.append("\n".join(part for part in (title.strip(), abstract.strip()) if part))
            labels.append(category)
    require_unique(ids, source=source, field="news_id")
    counts = Counter(labels)
    keep = [index for index, label in enumerate(labels) if counts[label] >= min_per_label]
    rare = sorted(label for label, count in counts.items() if count < min_per_label)
    log_skips(log, "MIND", source, len(keep), {f"news in topics with < {min_per_label} news {rare}":
                                               len(labels) - len(keep)})
    return _dataset([texts[index] for index in keep], [labels[index] for index in keep])
