"""Where things live: the repository root, run folders and the shared sample data."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # cdlm_nb/


def repo_root() -> Path | None:
    """The checkout that holds this package (None when installed from a wheel, e.g. on Colab)."""
    root = PACKAGE_DIR.parent
    return root if (root / "notebooks").is_dir() and (root / "pyproject.toml").is_file() else None


def notebooks_dir() -> Path:
    """The ordered tutorial notebooks."""
    root = repo_root()
    if root is None:
        raise FileNotFoundError("cdlm_nb is not installed from a checkout, so there is no notebooks/ folder: "
                                "clone the repository and run `make install`.")
    return root / "notebooks"


def run_dir(profile: str, override: str | os.PathLike | None = None) -> Path:
    """The folder a profile's executed notebooks, figures, models and metrics go to (`runs/<profile>`)."""
    return Path(override).expanduser().resolve() if override else (repo_root() or Path.cwd()) / "runs" / profile


def shared_data_dir(override: str | os.PathLike | None = None) -> Path | None:
    """The sample corpora (`../shared/data` beside the checkout, or $CDLM_NB_SHARED_DATA); None if absent."""
    root = repo_root()
    for candidate in (override, os.environ.get("CDLM_NB_SHARED_DATA"), root and root.parent / "shared" / "data"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate).resolve()
    return None


def spread_path(baseline: str | os.PathLike) -> Path:
    """Where a baseline's seed spread lives: `baselines/cpu.json` -> `baselines/cpu.spread.json`."""
    path = Path(baseline)
    return path.with_name(path.name.removesuffix(".json") + ".spread.json")
