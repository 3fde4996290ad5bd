"""cdlm_nb — the helper package behind the cdlm-notebooks tutorial: a flat shared layer (tokenization, inputs, collate,
masking, attention_pattern, encoders, variants, finetuning, plots, data/) and one subpackage per stage or task. The
machinery that runs and publishes the notebooks is `cdlm_nb.tooling`, which no method module imports."""

from importlib import import_module
from typing import Any

from .profiles import get_profile, profile_names
from .support.progress import progress
from .widgets import say

__version__ = "0.1.0"
#: The notebook session's calls, from `cdlm_nb.tooling.runtime`, imported on first use (the method loads no machinery).
SESSION = ("setup", "current_session", "record", "record_all", "record_input", "save_figure")
__all__ = ["get_profile", "profile_names", "progress", "say", *SESSION]


def __getattr__(name: str) -> Any:
    if name in SESSION:
        return getattr(import_module(".tooling.runtime", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
