"""Fetching the official ECB+ release from GitHub and extracting only its topic XML files."""

from __future__ import annotations

import io
import shutil
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from ...artefacts import check_manifest, save_file
from ...errors import DataError, OfflineError
from .layout import SENTENCES_CSV, WHERE_TO_GET, XML_FOLDER

ECBPLUS_ZIP_URL = "https://github.com/cltl/ecbPlus/raw/master/ECB%2B_LREC2014/ECB%2B.zip"
ECBPLUS_CSV_URL = "https://raw.githubusercontent.com/cltl/ecbPlus/master/ECB%2B_LREC2014/" + SENTENCES_CSV


def holds_ecbplus(dest: Path) -> bool:
    """Whether `dest` already holds the corpus as the download leaves it: the topic folders and the CSV, written
    last, atomically and with a manifest, so it marks a finished download (a damaged CSV is said, and not)."""
    csv = dest / SENTENCES_CSV
    if not (dest / XML_FOLDER).is_dir() or not csv.is_file():
        return False
    problems = check_manifest(csv)  # None: placed by hand, without a manifest
    if problems:
        print(f"ECB+ download damaged, downloading it again: {'; '.join(problems)}")
    return not problems


def download_ecbplus(dest: str | Path, timeout: float = 60.0) -> Path:
    """Fetch the official ECB+ release (XML zip + validated-sentences CSV) into `dest` and return it.

    Does nothing when `dest` already holds the corpus; raises OfflineError when GitHub cannot be reached.
    """
    dest = Path(dest).expanduser()
    if holds_ecbplus(dest):
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    archive = _fetch(ECBPLUS_ZIP_URL, timeout, dest)
    csv_bytes = _fetch(ECBPLUS_CSV_URL, timeout, dest)
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            _extract_topics(zipped, dest)
    except zipfile.BadZipFile as exc:
        raise DataError(f"{ECBPLUS_ZIP_URL} did not return a zip archive; download it by hand: {WHERE_TO_GET}") from exc
    save_file(dest / SENTENCES_CSV, lambda temporary: temporary.write_bytes(csv_bytes))  # last: marks it finished
    return dest


def _fetch(url: str, timeout: float, dest: Path) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise OfflineError(
            f"could not download {url} ({exc}). Offline? Download it elsewhere and put the unzipped ECB+ folder "
            f"and {SENTENCES_CSV} in {dest}: {WHERE_TO_GET}."
        ) from exc


def _extract_topics(zipped: zipfile.ZipFile, dest: Path) -> None:
    """Extract ECB+/<topic>/<doc>.xml members only (no macOS metadata, nothing outside `dest`)."""
    for member in zipped.infolist():
        parts = Path(member.filename).parts
        if len(parts) != 3 or parts[0] != XML_FOLDER or not parts[1].isdigit() or not parts[2].endswith(".xml"):
            continue
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipped.open(member) as source, target.open("wb") as out:
            shutil.copyfileobj(source, out)
