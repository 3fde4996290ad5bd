"""Run-folder artefacts that later runs trust (models, checkpoints, caches), saved atomically with a manifest of each
file's size and sha256, marked unfinished until it is recorded last, and checked when reused: a truncated, emptied,
swapped or half-written file is named, not loaded. One without a manifest (older, or shipped) is only load-checked."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

MANIFEST = "manifest.json"  # inside a folder artefact; a file's is `<file>.manifest.json` beside it
PARTIAL = ".partial-"  # in the temporary names of a save in progress

_said_unrecorded: set[Path] = set()


def manifest_path(target: Path) -> Path:
    """Where an artefact's manifest lives: inside a folder, beside a file."""
    target = Path(target)
    return target / MANIFEST if target.is_dir() else target.with_name(target.name + ".manifest.json")


def write_atomic(path: str | os.PathLike, write: Callable[[Path], object]) -> Path:
    """`write(temporary)` then rename to `path`: readers see the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}{PARTIAL}{os.getpid()}")  # same file system: os.replace is atomic
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """`write_atomic` of a text file (UTF-8)."""
    return write_atomic(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def sha256(path: Path) -> str:
    """The file's sha256, read in blocks (memory stays small whatever the file's size)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def fingerprint(*parts: object) -> str:
    """A short hash of anything JSON can write (`str` for the rest): e.g. a cache entry's data and settings."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]


def _members(target: Path) -> list[Path]:
    """The file itself, or a folder's top-level files (no manifest, no temporary or hidden names)."""
    if not target.is_dir():
        return [target]
    return sorted(p for p in target.iterdir() if p.is_file() and p.name != MANIFEST and not p.name.startswith("."))


def record_manifest(target: str | os.PathLike, complete: bool = True) -> Path:
    """Record an artefact's files (size, sha256) in its manifest, marked complete; else an empty one, unfinished."""
    target = Path(target)
    files = {p.name: {"bytes": p.stat().st_size, "sha256": sha256(p)} for p in _members(target)} if complete else {}
    return write_text_atomic(manifest_path(target), json.dumps(
        {"format": 1, "complete": complete, "files": files}, indent=2, sort_keys=True))


def save_file(path: str | os.PathLike, write: Callable[[Path], object]) -> Path:
    """Save a single-file artefact: manifest marked unfinished, `write_atomic`, manifest recorded."""
    record_manifest(path, complete=False)
    path = write_atomic(path, write)
    record_manifest(path)
    return path


def save_folder(folder: str | os.PathLike, write: Callable[[Path], object]) -> Path:
    """Save a folder artefact like `save_file`, `write` filling a temporary folder in it (stale ones removed first)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(f".*{PARTIAL}*"):
        if stale.is_dir():
            shutil.rmtree(stale)
        else:
            stale.unlink()
    record_manifest(folder, complete=False)
    temporary = folder / f".save{PARTIAL}{os.getpid()}"
    temporary.mkdir()
    try:
        write(temporary)
        for file in sorted(temporary.iterdir()):
            os.replace(file, folder / file.name)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    record_manifest(folder)
    return folder


def copy_folder(source: str | os.PathLike, folder: str | os.PathLike) -> Path:
    """`save_folder` of a copy of `source`'s top-level files (its manifest, if any, is recorded anew)."""
    def write(temporary: Path) -> None:
        for file in _members(Path(source)):
            shutil.copy2(file, temporary / file.name)

    return save_folder(folder, write)


def load_problem(path: Path) -> str | None:
    """Why a file would not load (None if it looks whole): empty, a bad safetensors header, JSON or torch archive."""
    size = path.stat().st_size
    if size == 0:
        return f"{path} is empty"
    try:
        if path.suffix == ".safetensors":  # an 8-byte header length, a JSON header, then the tensors: all must fit
            with path.open("rb") as handle:
                length = int.from_bytes(handle.read(8), "little") if size >= 8 else size
                if size < 8 or 8 + length > size:
                    return f"{path} is truncated ({size:,} bytes; its safetensors header alone needs {8 + length:,})"
                header = json.loads(handle.read(length))
            end = 8 + length + max((t["data_offsets"][1] for k, t in header.items() if k != "__metadata__"), default=0)
            if end != size:
                return f"{path} has {size:,} bytes where its safetensors header lists {end:,} (truncated or padded)"
        elif path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix in (".pt", ".pth", ".bin"):
            zipfile.ZipFile(path).close()
    except (ValueError, UnicodeDecodeError, zipfile.BadZipFile) as error:
        return f"{path} does not load ({type(error).__name__}: {error})"
    return None


def _recorded_problem(path: Path, record: dict) -> str | None:
    """How a file differs from its manifest record (None if it matches)."""
    if not path.is_file():
        return f"{path} is missing"
    size = path.stat().st_size
    if size != record["bytes"]:
        how = "emptied" if size == 0 else "truncated" if size < record["bytes"] else "grown"
        return f"{path} is {how} ({size:,} bytes; {record['bytes']:,} when saved)"
    if sha256(path) != record["sha256"]:
        return f"{path} is not the file that was saved (same size, other contents: another model copied in?)"
    return None


def _manifest_problems(target: Path) -> dict[Path, str] | None:
    """How an artefact differs from its manifest, per damaged file; None when it has no manifest."""
    path = manifest_path(target)
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        complete, files = manifest["complete"], manifest["files"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return {path: f"{path} does not parse: its save was interrupted or the file was damaged"}
    if not complete:
        return {target: f"{target}: its save was interrupted (its manifest {path.name} marks it unfinished)"}
    base = target if target.is_dir() else target.parent
    return {base / name: problem for name, record in files.items()
            if (problem := _recorded_problem(base / name, record))}


def check_manifest(target: str | os.PathLike) -> list[str] | None:
    """How an artefact differs from its manifest, one line per damaged file ([] if it matches; None: no manifest)."""
    problems = _manifest_problems(Path(target))
    return None if problems is None else list(problems.values())


def check_artefact(target: str | os.PathLike, required: Iterable[str] = (),
                   echo: Callable[[str], object] = print) -> list[str]:
    """Every problem of an artefact, each naming its file ([] when it can be trusted): files `required` missing from
    a folder, `check_manifest`'s and `load_problem`'s; without a manifest, said once per folder (`echo`)."""
    target = Path(target)
    problems = _manifest_problems(target)
    if problems is None:
        problems = {}
        if target.parent not in _said_unrecorded and target.exists():
            _said_unrecorded.add(target.parent)
            echo(f"note: {target} has no manifest (nor, maybe, others in {target.parent}): saved before manifests "
                 "were recorded, or shipped that way, so it is checked only for loading, not against a record of what "
                 "was saved")
    if not target.exists():
        return list(problems.values()) or [f"{target} is missing"]
    if target.is_dir():
        problems.update({target / name: f"{target / name} is missing" for name in required
                         if not (target / name).is_file() and target / name not in problems})
    problems.update({file: problem for file in _members(target)
                     if file not in problems and (problem := load_problem(file))})
    return list(problems.values())
