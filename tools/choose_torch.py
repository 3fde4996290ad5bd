"""Which torch build `make install` puts in .venv: PyPI's wheel or the same version's CPU-only build.

PyPI's Linux torch wheel pulls ~2 GB of CUDA libraries that a machine without an NVIDIA driver never uses, so on
Linux without `nvidia-smi` the default is the CPU-only build from the PyTorch CPU wheel index. `TORCH=pypi` and
`TORCH=cpu` override the choice; an existing .venv keeps the build it has (no reinstall because the choice was
made by itself). Standard library only, as it runs before .venv exists (so a plain ValueError, not the
package's ConfigError).

    python3 tools/choose_torch.py [--override TORCH] [--installed BUILD] [--explain]  -> prints `cpu` or `pypi`
    .venv/bin/python tools/choose_torch.py --build-of-installed                   -> the build .venv now has
"""

from __future__ import annotations

import argparse
import shutil
import sys
from importlib.metadata import PackageNotFoundError, version

BUILDS = ("pypi", "cpu")


def choose_torch(platform: str, has_nvidia_smi: bool, override: str = "", installed: str = "") -> tuple[str, str]:
    """(build, why): the explicit `override` if given, else the build an existing .venv has (`installed`), else
    `cpu` on Linux without `nvidia-smi` and `pypi` elsewhere (macOS and Windows wheels on PyPI are CPU builds
    already; a Linux machine with a driver wants PyPI's CUDA build)."""
    if override:
        if override not in BUILDS:
            raise ValueError(f"TORCH={override} is not a choice: use TORCH=cpu (the CPU-only build), TORCH=pypi "
                             "(PyPI's wheel, CUDA on Linux), or leave TORCH out to choose by itself")
        return override, f"TORCH={override} given"
    if installed in BUILDS:
        return installed, f"the build .venv already has; TORCH={_other(installed)} or deleting .venv changes it"
    if platform.startswith("linux") and not has_nvidia_smi:
        return "cpu", "Linux without nvidia-smi, so no NVIDIA driver to use CUDA; TORCH=pypi for PyPI's CUDA build"
    if platform.startswith("linux"):
        return "pypi", "Linux with nvidia-smi: PyPI's CUDA build; TORCH=cpu for the CPU-only one"
    return "pypi", f"{platform}: PyPI's wheel is a CPU build already"


def _other(build: str) -> str:
    """The other build than `build`."""
    return BUILDS[1 - BUILDS.index(build)]


def build_of(torch_version: str) -> str:
    """`cpu` for the CPU index's local version (`2.13.0+cpu`), else `pypi` (what PyPI serves, the fallback too)."""
    return "cpu" if torch_version.endswith("+cpu") else "pypi"


def main(argv: list[str] | None = None) -> int:
    """Print the chosen build (and why, to stderr, with --explain); exit 2 on a wrong TORCH."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--override", default="", help="TORCH as the user gave it (empty: choose by itself)")
    parser.add_argument("--installed", default="", help="the build an existing .venv has (its stamp), if any")
    parser.add_argument("--explain", action="store_true", help="also say why, on stderr")
    parser.add_argument("--build-of-installed", action="store_true",
                        help="print the build of the torch this interpreter has instead")
    args = parser.parse_args(argv)
    if args.build_of_installed:
        try:
            print(build_of(version("torch")))
        except PackageNotFoundError:
            print("torch is not installed in this interpreter: run `make install`", file=sys.stderr)
            return 2
        return 0
    try:
        build, why = choose_torch(sys.platform, shutil.which("nvidia-smi") is not None, args.override,
                                  args.installed.split()[0] if args.installed.split() else "")
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    if args.explain:
        print(f"torch: the {'CPU-only' if build == 'cpu' else 'PyPI'} build ({why})", file=sys.stderr)
    print(build)
    return 0


if __name__ == "__main__":
    sys.exit(main())
