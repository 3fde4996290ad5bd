"""Shared test fixtures: where the sample corpora live, and a clean session for helpers that need one."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data beside the checkout; tests that need it are skipped where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"sample corpora not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def session(tmp_path, monkeypatch):
    """A notebook session writing into a temporary run folder."""
    import cdlm_nb

    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    return cdlm_nb.setup("smoke", notebook="99_test", run_dir=tmp_path, verbose=False)
