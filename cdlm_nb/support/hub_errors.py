"""What a failed download from the Hugging Face hub means, for `encoders.from_hub`, read from the exception chain that
transformers 5 wraps the hub's errors in."""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from urllib.parse import quote, unquote

from .errors import CdlmNbError, ConfigError, DataError, OfflineError


def connection_errors() -> tuple[type[BaseException], ...]:
    """The exception types that mean the hub could not be reached: huggingface_hub's offline ones, Python's and the
    installed HTTP libraries' connection errors and timeouts."""
    from huggingface_hub.errors import LocalEntryNotFoundError, OfflineModeIsEnabled

    types: list[type[BaseException]] = [LocalEntryNotFoundError, OfflineModeIsEnabled, ConnectionError, TimeoutError]
    for module, name in (("httpx", "TransportError"), ("httpx2", "TransportError"),
                         ("requests.exceptions", "ConnectionError"), ("requests.exceptions", "Timeout")):
        with contextlib.suppress(ImportError, AttributeError):
            types.append(getattr(importlib.import_module(module), name))
    return tuple(types)


#: transformers' OSError for a file a repository or folder does not have (it chains no hub error then).
_MISSING_FILE = re.compile(r"does not appear to have (?:a file named |files named )(?P<file>.+?)(?:\. Checkout| and |"
                           r"\.$|$)|Error no file named (?P<local>\S+) found in directory", re.DOTALL)


def hub_load_error(error: BaseException, repo: str, revision: str | None, wanted: str,
                   read_at: str | None = None) -> CdlmNbError | None:
    """The error `from_hub` raises for a failed hub load of `wanted` (at revision `read_at`, None: main), or None to
    let `error` through: a missing repository or revision -> ConfigError, a missing file -> DataError (a typo is not
    a network problem); else a connection failure anywhere in the chain -> OfflineError."""
    from huggingface_hub import errors as hub

    chain: list[BaseException] = []  # `error` and the ones behind it: transformers chains the hub's to its OSError
    while error is not None and all(error is not seen for seen in chain):
        chain.append(error)
        error = error.__cause__ or error.__context__
    at = f"revision {read_at or 'main'}"
    tree = f"https://huggingface.co/{repo}/tree/{quote(read_at or 'main', safe='')}"
    for link in chain:  # what does not exist first: it decides even when a connection error follows in the chain
        request = getattr(getattr(link, "response", None), "request", None)  # the file a hub HTTP error was about
        asked = re.search(r"/resolve/[^/]+/(.+)$", str(getattr(request, "url", "") or ""))
        file = unquote(asked.group(1)) if asked else wanted
        if isinstance(link, hub.RevisionNotFoundError):
            return ConfigError(f"{repo!r} has no {at} on the Hugging Face hub (loading {file}): give a branch, tag, "
                               f"commit or refs/pr/N that exists (https://huggingface.co/{repo}/tree/main lists "
                               "them).")
        if isinstance(link, hub.RepositoryNotFoundError):  # GatedRepoError too: the hub answers alike for no access
            return ConfigError(f"{repo!r} is neither a local folder nor a Hugging Face hub repository this machine "
                               f"can read ({at}, loading {file}): check the name; a private or gated repository "
                               f"needs access at https://huggingface.co/{repo} and `hf auth login`.")
        if isinstance(link, hub.EntryNotFoundError) and not isinstance(link, hub.LocalEntryNotFoundError):
            return DataError(f"{repo!r} at {at} has no file {file} on the Hugging Face hub: from_hub needs "
                             f"{wanted} (safetensors weights only); see {tree}.")
        if isinstance(link, hub.HFValidationError):
            return ConfigError(f"{repo!r} is neither a local folder nor a valid Hugging Face hub repository name "
                               f"({link}).")
    for link in chain:
        found = _MISSING_FILE.search(str(link)) if isinstance(link, OSError) else None
        if found:
            file = (found.group("file") or found.group("local")).strip()
            where = f"the folder {repo!r}" if os.path.isdir(repo) else f"{repo!r} at {at}"
            return DataError(f"{where} has no file {file}: from_hub needs {wanted} (safetensors weights only)"
                             + ("." if os.path.isdir(repo) else f"; see {tree}."))

    def server_trouble(link: BaseException) -> bool:  # a hub answer that says try again later (429, 5xx)
        status = getattr(getattr(link, "response", None), "status_code", None)
        return isinstance(link, hub.HfHubHTTPError) and isinstance(status, int) and (status == 429 or status >= 500)

    connection = connection_errors()
    unreachable = next((link for link in chain if isinstance(link, connection) or server_trouble(link)), None)
    if unreachable is None:
        return None
    where = f" --revision {revision}" if revision else ""
    return OfflineError(f"could not load {repo!r} from the Hugging Face hub ({type(unreachable).__name__}: "
                        f"{unreachable}). Connect to the internet, or download it beforehand with `hf download "
                        f"{repo}{where}` (and `hf download {repo}` for the tokenizer) into the hub cache, or pass a "
                        "local folder holding config.json, model.safetensors and the tokenizer files.")
