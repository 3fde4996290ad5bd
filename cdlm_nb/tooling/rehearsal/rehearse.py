"""`cdlm-nb rehearse`: the gpu path, walked offline. Stand-ins of every download (hub models, hub datasets, ECB+)
are written where the libraries look for them, the hub is switched off, and the chosen notebooks run through the
normal runner with the `gpu-rehearsal` profile (gpu with only its sizes shrunk). The package itself does not know
it is rehearsed: only the files the hub would serve, and the sizes, differ.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...data.multinews import CHECKSUMS_VARIABLE
from ...support.paths import run_dir as default_run_dir
from .hub_datasets import STANDIN_CHECKSUMS

REHEARSAL_PROFILE = "gpu-rehearsal"
STANDINS = "standins"  # the scratch Hugging Face home inside the run folder


def hub_environment(home: Path) -> dict[str, str | None]:
    """The variables that point huggingface_hub, transformers and datasets at a scratch cache, with the hub off
    (None: unset; sentence-transformers would otherwise read its own cache folder)."""
    return {
        "SENTENCE_TRANSFORMERS_HOME": None,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HOME": str(home),
        "HF_HUB_CACHE": str(home / "hub"),
        "HF_DATASETS_CACHE": str(home / "datasets"),
        CHECKSUMS_VARIABLE: str(home / "hub" / STANDIN_CHECKSUMS),  # the stand-ins' raw files are not the real ones
    }


@contextmanager
def environment(variables: Mapping[str, str | None]) -> Iterator[None]:
    """Set `variables` in os.environ (inherited by the kernels papermill starts; None unsets), restoring them
    afterwards."""
    saved = {name: os.environ.get(name) for name in variables}
    try:
        _apply(variables)
        yield
    finally:
        _apply(saved)


def _apply(variables: Mapping[str, str | None]) -> None:
    for name, value in variables.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def tokenizer_texts() -> list[str]:
    """Texts to train the stand-in models' BPE on: every document of the smoke world (generated offline)."""
    from ...data.corpora import world
    from ...profiles import get_profile

    clusters = world(get_profile("smoke").world).clusters
    return [doc for split in clusters.values() for docs in split["documents"] for doc in docs]


def build_standins(home: Path, run_dir: Path, shape: str = "tiny", echo: Callable[[str], Any] = print) -> None:
    """Write every stand-in: hub models and datasets under `home`, ECB+ where the gpu path downloads it."""
    from .ecbplus_files import place_ecbplus
    from .hub_datasets import build_hub_datasets
    from .hub_models import SHAPES, build_hub_models

    models = build_hub_models(home / "hub", tokenizer_texts(), SHAPES[shape])
    datasets = build_hub_datasets(home / "datasets", hub_cache=home / "hub")  # Multi-News: also its raw files
    ecbplus = place_ecbplus(run_dir / "data" / "ecbplus")
    echo(f"stand-ins ({shape} models): {', '.join(models)}; datasets {', '.join(datasets)}; ECB+ at {ecbplus}")


def rehearse(output: str | os.PathLike | None = None, only: Sequence[str] | None = None, shape: str = "tiny",
             profile: str = REHEARSAL_PROFILE, log_output: bool = False, echo: Callable[[str], Any] = print,
             parameters: Mapping[str, Any] | None = None) -> dict:
    """Build the stand-ins in `<output>/standins` and run the chosen notebooks (default all) with `profile` from
    them, as `cdlm-nb run` would (`parameters` as its `-p`); returns (and writes) the same results.json, with each
    notebook's time against its share of the budget (`budget`) under `rehearsal_times`."""
    from ...support.artefacts import write_text_atomic
    from ..runner import run_notebooks
    from .budget import notebook_times, probe_of, timing_report, timing_section

    out_dir = default_run_dir(profile, output)
    home = out_dir / STANDINS
    variables = hub_environment(home)
    with environment(variables):
        build_standins(home, out_dir, shape, echo)
        results = run_notebooks(profile, list(only) if only else None, str(out_dir), log_output=log_output,
                                echo=echo, parameters=parameters)
    probe = probe_of(results)
    times = notebook_times(results, probe)
    echo(timing_report(times, probe))
    results["rehearsal_times"] = timing_section(times, probe)
    write_text_atomic(out_dir / "results.json", json.dumps(results, indent=2))
    return results
