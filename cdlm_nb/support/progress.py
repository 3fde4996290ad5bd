"""Progress bars that stay silent when headless (`cdlm-nb run`, papermill, CI): a leaf module every loop can use."""

from __future__ import annotations

import os

HEADLESS_ENV = "CDLM_NB_HEADLESS"  # set by `cdlm-nb run`: no widgets, no progress bars


def is_headless() -> bool:
    """True under `cdlm-nb run`/papermill/CI, where widgets cannot be shown and progress bars only add noise."""
    return os.environ.get(HEADLESS_ENV, "") not in ("", "0") or os.environ.get("CI", "") not in ("", "0", "false")


def progress(iterable=None, **kwargs):
    """A tqdm.auto progress bar (widget in Jupyter, text in a terminal) that stays silent when headless."""
    from tqdm.auto import tqdm

    kwargs.setdefault("disable", is_headless())
    return tqdm(iterable, **kwargs)
