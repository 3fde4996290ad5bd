"""cdlm_nb — the helper package behind the cdlm-notebooks tutorial.

The notebooks call a few well-named functions per step; the logic lives here, one module per concept.
"""

from .profiles import get_profile, profile_names
from .runtime import current_session, progress, record, save_figure, setup

__version__ = "0.1.0"
__all__ = ["get_profile", "profile_names", "setup", "current_session", "record", "save_figure", "progress"]
