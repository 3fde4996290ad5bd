"""Errors with messages that say what went wrong and what to do about it."""

from __future__ import annotations


class CdlmNbError(Exception):
    """Base class for every error this package raises on purpose."""


class ConfigError(CdlmNbError, ValueError):
    """A profile, parameter or config file asks for something that does not exist."""


class DataError(CdlmNbError, ValueError):
    """An input file or record is missing or malformed; the message names the file and field."""


class OfflineError(CdlmNbError, RuntimeError):
    """A download was needed but the network (or the hub) is not reachable."""
