"""ECB+ laid out as `data.ecbplus.download_ecbplus` leaves it, made from the sample corpora, so the gpu path's
ECB+ download finds the corpus in place offline (the downloader does nothing when `dest` holds it).

The downloader extracts `ECB+/<topic>/<topic>_<n>ecb[plus].xml` from the release zip and writes
`ECBplus_coreference_sentences.csv` beside that folder, nothing else. `place_ecbplus` writes the same files:
- topics 1-35 of the sample (it has no 15 and 17, as the release), copied;
- the test topics 36-45, which the sample holds out, made from its first ten train topics (1 3 4 6 7 8 9 10 11 13)
  renumbered: file `1_3ecb.xml` becomes `36_3ecb.xml` with `doc_name="36_3ecb.xml"`, and its `doc_id` and the
  instance ids of its cross-document clusters (`note`, `instance_id`) get the suffix `T36`, so no cluster spans a
  train and a test topic. Test documents thus repeat train documents under other ids. (A test topic that the
  sample does hold is copied like the others);
- the sample's CSV, byte for byte, except that the rows of topics 36-45 (the validated sentences of the real,
  held-out test documents, which the CSV does list) are replaced by the source topics' rows renumbered, so
  they match the documents now in place.
So the ECB+ reader sees all three standard splits (`data.ecbplus.reader`): train, dev and test.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ...data.ecbplus import SENTENCES_CSV, TEST_TOPICS, XML_FOLDER, split_of_topic
from ...data.ecbplus.download import holds_ecbplus
from ...data.sources import require_path
from ...support.errors import DataError
from .hub_datasets import sample_root

_CORPUS_IDS = re.compile(r'\b(doc_id|note|instance_id)="([^"]+)"')  # empty notes stay empty (the reader rejects them)


def sources_of_test_topics(sample_topics: list[int]) -> dict[int, int]:
    """Each test topic the sample lacks -> the sample train topic it is made from, train topics taken in order."""
    missing = [topic for topic in TEST_TOPICS if topic not in sample_topics]
    train = sorted(topic for topic in sample_topics if split_of_topic(topic) == "train")
    if len(train) < len(missing):
        raise DataError(f"the ECB+ sample has train topics {train}; {len(missing)} are needed for the test topics.")
    return dict(zip(missing, train))


def renumbered_name(name: str, topic: int) -> str:
    """A document's file name (or doc_name) moved to `topic`: "1_3ecb.xml" -> "36_3ecb.xml"."""
    _, rest = name.split("_", 1)
    return f"{topic}_{rest}"


def renumber_document(xml: str, source: int, topic: int) -> str:
    """An ECB+ document of topic `source` as a document of `topic`: its doc_name renumbered, its doc_id and
    cross-document instance ids suffixed with `T<topic>`; everything else byte for byte."""
    old_name = f'doc_name="{source}_'
    if old_name not in xml:
        raise DataError(f"an ECB+ document of topic {source} has no {old_name}...\" attribute.")
    renamed = xml.replace(old_name, f'doc_name="{topic}_', 1)
    return _CORPUS_IDS.sub(lambda match: f'{match[1]}="{match[2]}T{topic}"', renamed)


def renumber_sentences_csv(text: str, sources: dict[int, int]) -> str:
    """The validated-sentences CSV (`Topic,File,Sentence Number`, one row a line) with the rows of the topics in
    `sources` replaced by their source topics' rows renumbered; other lines byte for byte, in their order."""
    header, *lines = text.split("\n")
    topic_of = {line: line.split(",", 1)[0].strip() for line in lines}
    kept = [line for line in lines if topic_of[line] not in {str(topic) for topic in sources}]
    added = [f"{topic},{line.split(',', 1)[1]}" for topic, source in sources.items()
             for line in lines if topic_of[line] == str(source)]
    return "\n".join([header, *kept, *added]) + ("\n" if text.endswith("\n") else "")


def _copy_topic(source_dir: Path, target_dir: Path) -> None:
    """A topic's XML files, copied (contents only: the sample's read-only modes are not carried over)."""
    target_dir.mkdir(parents=True, exist_ok=True)
    for xml in sorted(source_dir.glob("*.xml")):
        shutil.copyfile(xml, target_dir / xml.name)


def _write_renumbered_topic(source_dir: Path, target_dir: Path, source: int, topic: int) -> None:
    """Topic `source`'s XML files as topic `topic` (`renumber_document`)."""
    target_dir.mkdir(parents=True, exist_ok=True)
    for xml in sorted(source_dir.glob("*.xml")):
        text = renumber_document(xml.read_bytes().decode("utf-8"), source, topic)
        (target_dir / renumbered_name(xml.name, topic)).write_bytes(text.encode("utf-8"))


def place_ecbplus(dest: Path, shared: Path | None = None) -> Path:
    """ECB+ (sample topics 1-35 plus test topics 36-45 made from them, see the module docstring) in `dest`, laid out
    as `download_ecbplus(dest)` leaves it; returns `dest`. Like the downloader, does nothing when `dest` already
    holds ECB+/ and the CSV (the CSV is written last, so an interrupted placement is redone)."""
    dest = Path(dest).expanduser()
    if holds_ecbplus(dest):
        return dest
    sample = require_path(sample_root(shared) / "ecbplus", what="the ECB+ sample folder",
                          fix="It is one of the sample corpora (see its SOURCE.md).")
    xml_dir = require_path(sample / XML_FOLDER, what="the ECB+ sample's topic folders", fix="Restore the sample.")
    csv_path = require_path(sample / SENTENCES_CSV, what="the ECB+ sample's CSV", fix="Restore the sample.")
    folders = {int(path.name): path for path in xml_dir.iterdir() if path.is_dir() and path.name.isdigit()}
    sources = sources_of_test_topics(list(folders))
    for topic, folder in sorted(folders.items()):
        _copy_topic(folder, dest / XML_FOLDER / str(topic))
    for topic, source in sources.items():
        _write_renumbered_topic(folders[source], dest / XML_FOLDER / str(topic), source, topic)
    csv_text = renumber_sentences_csv(csv_path.read_bytes().decode("utf-8"), sources)
    (dest / SENTENCES_CSV).write_bytes(csv_text.encode("utf-8"))
    return dest
