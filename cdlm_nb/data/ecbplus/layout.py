"""Where the ECB+ release lies on disk: its topic folders and the validated-sentences CSV, and reading that CSV.

Layout expected (the LREC-2014 release, https://github.com/cltl/ecbPlus, folder `ECB+_LREC2014`):

    <root>/ECB+/<topic>/<topic>_<n>ecb.xml        ECB documents (one seminal event per topic)
    <root>/ECB+/<topic>/<topic>_<n>ecbplus.xml    ECB+ documents (a second, similar event: the other subtopic)
    <root>/ECBplus_coreference_sentences.csv      the validated sentences (`Topic,File,Sentence Number`)
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from ...errors import DataError

SENTENCES_CSV = "ECBplus_coreference_sentences.csv"
XML_FOLDER = "ECB+"
WHERE_TO_GET = (
    "get the ECB+ release from https://github.com/cltl/ecbPlus (folder ECB+_LREC2014: ECB+.zip and "
    f"{SENTENCES_CSV}), unzip it so that <dir>/{XML_FOLDER}/<topic>/<topic>_<n>ecb.xml exists with the CSV "
    "beside the ECB+ folder, or call cdlm_nb.data.ecbplus.download_ecbplus(<dir>)"
)


def locate_corpus(path: str | Path) -> tuple[Path, Path | None]:
    """The folder holding the topic folders, and the validated-sentences CSV (None if absent)."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise DataError(f"ECB+ corpus not found at {root}: {WHERE_TO_GET}.")
    xml_dir = root / XML_FOLDER if (root / XML_FOLDER).is_dir() else root
    for candidate in (root / SENTENCES_CSV, xml_dir / SENTENCES_CSV, xml_dir.parent / SENTENCES_CSV):
        if candidate.is_file():
            return xml_dir, candidate
    return xml_dir, None


def topic_folders(xml_dir: Path) -> dict[str, Path]:
    """The numeric topic folders that hold XML files, keyed by topic number as a string."""
    folders = {
        str(int(p.name)): p
        for p in xml_dir.iterdir()
        if p.is_dir() and p.name.isdigit() and any(p.glob("*.xml"))
    }
    if not folders:
        raise DataError(f"no ECB+ topic folders (<topic>/<topic>_<n>ecb.xml) in {xml_dir}: {WHERE_TO_GET}.")
    return dict(sorted(folders.items(), key=lambda item: int(item[0])))


def read_validated_sentences(csv_path: str | Path) -> dict[str, set[int]]:
    """The validated sentence numbers per document id ("1_10ecbplus") from ECBplus_coreference_sentences.csv."""
    csv_path = Path(csv_path)
    validated: dict[str, set[int]] = defaultdict(set)
    with csv_path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = [cell.strip() for cell in next(reader, [])]
        if header != ["Topic", "File", "Sentence Number"]:
            raise DataError(f"{csv_path}: line 1: expected the header 'Topic,File,Sentence Number', got {header}")
        for line, cells in enumerate(reader, start=2):
            if not any(cell.strip() for cell in cells):
                continue
            try:
                topic, name, sentence = (cell.strip() for cell in cells)
                validated[f"{int(topic)}_{name}"].add(int(sentence))
            except ValueError as exc:
                raise DataError(
                    f"{csv_path}: line {line}: expected 'topic,file,sentence number' "
                    f"such as '1,10ecbplus,3', got {','.join(cells)!r}"
                ) from exc
    return dict(validated)
