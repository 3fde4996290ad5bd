"""`make install`'s torch choice (`tools/choose_torch.py`): the CPU build where no NVIDIA driver is, overrides kept."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "tools" / "choose_torch.py"
spec = importlib.util.spec_from_file_location("choose_torch", SCRIPT)
choose = importlib.util.module_from_spec(spec)
spec.loader.exec_module(choose)


@pytest.mark.parametrize(("platform", "has_nvidia_smi", "expected"), [
    ("linux", False, "cpu"),  # no driver: no use for PyPI's ~2 GB of CUDA libraries
    ("linux", True, "pypi"),
    ("darwin", False, "pypi"),  # PyPI's macOS wheel is a CPU/MPS build already
    ("win32", False, "pypi"),
])
def test_chosen_by_itself_from_the_platform_and_the_driver(platform, has_nvidia_smi, expected):
    assert choose.choose_torch(platform, has_nvidia_smi)[0] == expected


@pytest.mark.parametrize("override", ["cpu", "pypi"])
def test_an_explicit_torch_wins_over_everything(override):
    for platform, has_nvidia_smi in (("linux", False), ("linux", True), ("darwin", False)):
        for installed in ("", "cpu", "pypi"):
            build, why = choose.choose_torch(platform, has_nvidia_smi, override, installed)
            assert build == override and f"TORCH={override}" in why


@pytest.mark.parametrize("installed", ["cpu", "pypi"])
def test_an_existing_venv_keeps_its_build(installed):
    """No reinstall because the choice made by itself differs from what an earlier `make install` put there."""
    assert choose.choose_torch("linux", False, installed=installed)[0] == installed
    assert choose.choose_torch("linux", True, installed=installed)[0] == installed


def test_a_wrong_torch_names_the_choices():
    with pytest.raises(ValueError, match="TORCH=gpu is not a choice: use TORCH=cpu .* TORCH=pypi"):
        choose.choose_torch("linux", False, override="gpu")


def test_the_stamp_names_the_build_actually_installed():
    assert choose.build_of("2.13.0+cpu") == "cpu"
    assert choose.build_of("2.13.0") == "pypi"  # PyPI's wheel, also where the CPU index could not be reached


def test_the_script_prints_one_word_for_make_and_fails_on_a_wrong_torch():
    """The Makefile reads stdout as the build; a wrong TORCH prints nothing there and exits 2, said on stderr."""
    ok = subprocess.run([sys.executable, str(SCRIPT), "--override", "cpu", "--explain"], capture_output=True,
                        text=True, check=True)
    assert ok.stdout == "cpu\n" and "CPU-only" in ok.stderr
    wrong = subprocess.run([sys.executable, str(SCRIPT), "--override", "gpu"], capture_output=True, text=True)
    assert wrong.returncode == 2 and wrong.stdout == "" and "not a choice" in wrong.stderr
