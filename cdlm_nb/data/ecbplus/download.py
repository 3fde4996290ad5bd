"""Where the ECB+ release lies on disk, reading its validated-sentences CSV, and fetching it from GitHub.

Layout expected (the LREC-2014 release, https://github.com/cltl/ecbPlus, folder `ECB+_LREC2014`):

    <root>/ECB+/<topic>/<topic>_<n>ecb.xml        ECB documents (one seminal event per topic)
    <root>/ECB+/<topic>/<topic>_<n>ecbplus.xml    ECB+ documents (a second, similar event: the other subtopic)
    <root>/ECBplus_coreference_sentences.csv      the validated sentences (`Topic,File,Sentence Number`)
"""

from __future__ import annotations

import csv
import io
import shutil
import urllib.error
import urllib.request
import zipfile
from collections import defaultdict
from pathlib import Path

from ...support.artefacts import check_manifest, save_file
from ...support.errors import DataError, OfflineError

SENTENCES_CSV = "ECBplus_coreference_sentences.csv"
XML_FOLDER = "ECB+"
WHERE_TO_GET = ("get the ECB+ release from https://github.com/cltl/ecbPlus (folder ECB+_LREC2014: ECB+.zip and "
                f"{SENTENCES_CSV}), unzip it so that <dir>/{XML_FOLDER}/<topic>/<topic>_<n>ecb.xml exists with the "
                "CSV beside the ECB+ folder, or call cdlm_nb.data.ecbplus.download_ecbplus(<dir>)")
ECBPLUS_ZIP_URL = "https://github.com/cltl/ecbPlus/raw/master/ECB%2B_LREC2014/ECB%2B.zip"
ECBPLUS_CSV_URL = "https://raw.githubusercontent.com/cltl/ecbPlus/master/ECB%2B_LREC2014/" + SENTENCES_CSV


def locate_corpus(path: str | Path) -> tuple[Path, Path | None]:
    """The folder holding the topic folders, and the validated-sentences CSV (None if absent)."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise DataError(f"ECB+ corpus not found at {root}: {WHERE_TO_GET}.")
    xml_dir = root / XML_FOLDER if (root / XML_FOLDER).is_dir() else root
    found = [p for p in (root / SENTENCES_CSV, xml_dir / SENTENCES_CSV, xml_dir.parent / SENTENCES_CSV) if p.is_file()]
    return xml_dir, found[0] if found else None


def topic_folders(xml_dir: Path) -> dict[str, Path]:
    """The numeric topic folders that hold XML files, keyed by topic number as a string, in topic order."""
    folders = {str(int(p.name)): p for p in xml_dir.iterdir()
               if p.is_dir() and p.name.isdigit() and any(p.glob("*.xml"))}
    if not folders:
        raise DataError(f"no ECB+ topic folders (<topic>/<topic>_<n>ecb.xml) in {xml_dir}: {WHERE_TO_GET}.")
    return dict(sorted(folders.items(), key=lambda item: int(item[0])))


def read_validated_sentences(csv_path: Path) -> dict[str, set[int]]:
    """The validated sentence numbers per document id ("1_10ecbplus") from ECBplus_coreference_sentences.csv."""
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
                raise DataError(f"{csv_path}: line {line}: expected 'topic,file,sentence number' such as "
                                f"'1,10ecbplus,3', got {','.join(cells)!r}") from exc
    return dict(validated)


def holds_ecbplus(dest: Path) -> bool:
    """Whether `dest` holds a finished download: the topic folders and the CSV, written last, atomically and with a
    manifest (a damaged CSV is said, and not)."""
    csv_path = dest / SENTENCES_CSV
    if not (dest / XML_FOLDER).is_dir() or not csv_path.is_file():
        return False
    if problems := check_manifest(csv_path):  # None: placed by hand, without a manifest
        print(f"ECB+ download damaged, downloading it again: {'; '.join(problems)}")
    return not problems


def download_ecbplus(dest: str | Path, timeout: float = 60.0) -> Path:
    """Fetch the official ECB+ release (XML zip + validated-sentences CSV) into `dest`, unless it holds it already;
    an OfflineError when GitHub cannot be reached."""
    dest = Path(dest).expanduser()
    if holds_ecbplus(dest):
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    archive = _fetch(ECBPLUS_ZIP_URL, timeout, dest)
    csv_bytes = _fetch(ECBPLUS_CSV_URL, timeout, dest)
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            for member in zipped.infolist():  # ECB+/<topic>/<doc>.xml only: no macOS metadata, nothing outside dest
                parts = Path(member.filename).parts
                if len(parts) == 3 and parts[0] == XML_FOLDER and parts[1].isdigit() and parts[2].endswith(".xml"):
                    target = dest.joinpath(*parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zipped.open(member) as source, target.open("wb") as out:
                        shutil.copyfileobj(source, out)
    except zipfile.BadZipFile as exc:
        raise DataError(f"{ECBPLUS_ZIP_URL} did not return a zip archive; download it by hand: {WHERE_TO_GET}") from exc
    save_file(dest / SENTENCES_CSV, lambda temporary: temporary.write_bytes(csv_bytes))  # last: marks it finished
    return dest


def _fetch(url: str, timeout: float, dest: Path) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise OfflineError(f"could not download {url} ({exc}). Offline? Download it elsewhere and put the unzipped "
                           f"ECB+ folder and {SENTENCES_CSV} in {dest}: {WHERE_TO_GET}.") from exc
