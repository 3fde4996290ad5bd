"""cdlm_nb — the helper package behind the cdlm-notebooks tutorial.

The notebooks call a few well-named functions per step; the logic lives here: a flat shared layer (tokenization,
inputs, collate, masking, attention_pattern, encoders, variants, finetuning, plots, data/) and one subpackage per
stage or task. The machinery that runs, rehearses and publishes the notebooks is `cdlm_nb.tooling`.
"""

from .profiles import get_profile, profile_names
from .progress import progress
from .runtime import current_session, record, record_all, record_input, save_figure, setup

__version__ = "0.1.0"
__all__ = ["get_profile", "profile_names", "setup", "current_session", "record", "record_all", "record_input",
           "save_figure", "progress"]
