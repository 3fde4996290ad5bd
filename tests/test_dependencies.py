"""The split of pyproject's dependencies: the core is what cdlm_nb needs inside a kernel that already exists (Colab's
pins its own ipykernel/IPython, and upgrading them in a live runtime can crash it), the `lab` extra the Jupyter stack
that `cdlm-nb run` executes notebooks with."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from cdlm_nb.widgets import NO_IPYWIDGETS_NOTE

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cdlm_nb"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

#: Jupyter's kernel and notebook-running packages (and `jupyter*`): none may be a core dependency
JUPYTER = {"ipykernel", "ipython", "notebook", "papermill", "nbformat", "nbclient", "ipywidgets", "traitlets"}


def names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(line).name) for line in requirements}


def is_jupyter(distribution: str) -> bool:
    name = canonicalize_name(distribution)
    return name in JUPYTER or name.startswith("jupyter")


def imported_modules(path: Path) -> set[str]:
    """The top-level modules a source file imports (absolute imports, anywhere in the file)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def third_party(modules: set[str]) -> set[str]:
    return {m for m in modules if m not in sys.stdlib_module_names and m not in ("cdlm_nb", "__future__")}


def distribution_of(module: str) -> str:
    found = packages_distributions().get(module)
    assert found, f"{module} is imported but no installed distribution provides it"
    return canonicalize_name(found[0])


def extra(name: str) -> set[str]:
    """The distributions an extra installs, its references to the project's other extras followed."""
    found = set()
    for line in PROJECT["optional-dependencies"][name]:
        requirement = Requirement(line)
        if canonicalize_name(requirement.name) == canonicalize_name(PROJECT["name"]):
            found |= set().union(*(extra(other) for other in requirement.extras))
        else:
            found.add(canonicalize_name(requirement.name))
    return found


def test_the_test_extra_holds_what_the_tests_import():
    """`pip install -e ".[test]"` is enough for `pytest`: every third-party module a test imports comes from the
    core or the test extra (nothing is installed here: the imports are read, not run)."""
    tests = ROOT / "tests"
    imported = set().union(*(imported_modules(path) for path in tests.rglob("*.py"))) - {"tests"}
    needed = {distribution_of(module) for module in third_party(imported)}
    assert "nbformat" in needed and "pytest" in needed
    undeclared = sorted(needed - names(PROJECT["dependencies"]) - extra("test"))
    assert not undeclared, f"tests import {undeclared}: declare them in pyproject's `test` extra"


def test_no_jupyter_package_is_a_core_dependency():
    jupyter = sorted(name for name in names(PROJECT["dependencies"]) if is_jupyter(name))
    assert not jupyter, (f"{jupyter} in pyproject's core dependencies: a Colab install would upgrade Colab's kernel; "
                         "move them to the `lab` extra")


def test_the_lab_extra_holds_what_the_tooling_imports():
    core, lab = names(PROJECT["dependencies"]), names(PROJECT["optional-dependencies"]["lab"])
    from cdlm_nb.tooling.runner import LAB_MODULES

    imported = set().union(*(imported_modules(path) for path in (PACKAGE / "tooling").rglob("*.py")))
    needed = {distribution_of(module) for module in third_party(imported)} | set(LAB_MODULES)
    assert {"papermill", "nbformat", "ipykernel"} <= needed  # what executes notebooks (ipykernel: the kernel)
    undeclared = sorted(needed - core - lab)
    assert not undeclared, f"cdlm_nb/tooling needs {undeclared}: declare them in the `lab` extra"
    jupyter_outside_lab = sorted(name for name in needed - lab if is_jupyter(name))
    assert not jupyter_outside_lab, f"{jupyter_outside_lab}: the Jupyter stack belongs in the `lab` extra"


def test_outside_the_tooling_the_package_imports_only_what_a_kernel_has():
    """IPython comes with every kernel (imported lazily); ipywidgets only in widgets.py, which falls back without
    it; nothing else of the Jupyter stack: a notebook runs on the core in any existing kernel."""
    allowed = {"ipython": None, "ipywidgets": {PACKAGE / "widgets.py"}}
    for path in PACKAGE.rglob("*.py"):
        if (PACKAGE / "tooling") in path.parents:
            continue
        for module in third_party(imported_modules(path)):
            name = canonicalize_name(module)
            if is_jupyter(name):
                assert name in allowed and (allowed[name] is None or path in allowed[name]), (
                    f"{path.relative_to(ROOT)} imports {module}, which the core does not install")


def test_the_package_runs_without_the_lab_extra(tmp_path):
    """With papermill, nbformat, ipykernel and ipywidgets missing (as in a kernel that brings none of them), cdlm_nb
    and its CLI import, explore renders once with its note, and `cdlm-nb run` names the install command."""
    script = """
import sys
for name in ("papermill", "nbformat", "nbclient", "ipykernel", "ipywidgets", "jupyter_client"):
    sys.modules[name] = None  # `import name` fails; importlib.util.find_spec(name) is None
import cdlm_nb, cdlm_nb.tooling.cli, cdlm_nb.widgets
cdlm_nb.widgets.explore(lambda rate=0.5: print("rendered", rate), rate=(0.0, 1.0, 0.25))
sys.exit(cdlm_nb.tooling.cli.main(["run", "--profile", "smoke", "--output", sys.argv[1]]))
"""
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "CDLM_NB_HEADLESS")}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "run")], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stdout.splitlines() == [NO_IPYWIDGETS_NOTE, "rendered 0.5"]
    assert ('needs the `lab` extra, and papermill, nbformat, ipykernel are not installed: pip install -e ".[lab]" in '
            "the clone (cdlm-nb is not on PyPI)" in done.stderr)
    assert "cdlm-nb[lab]" not in done.stderr  # not a PyPI name: it would install whoever registers it


def test_make_install_installs_the_lab_extra():
    assert re.search(r'-e "?\.\[[^\]]*\blab\b', (ROOT / "Makefile").read_text()), (
        "make install must install cdlm-nb with the `lab` extra (local users and CI run notebooks)")


def test_make_install_stops_on_an_older_python_and_says_which_to_install(tmp_path):
    """Before anything is installed: a venv of Python 3.10 (a stand-in that says so) is named, with the version
    pyproject requires and the command that makes the right one."""
    assert PROJECT["requires-python"].startswith(">=3.11")
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text('#!/bin/sh\n[ "$1" = "--version" ] && echo "Python 3.10.12" && exit 0\nexit 1\n')
    python.chmod(0o755)
    made = subprocess.run(["make", "-C", str(ROOT), "install", f"VENV={tmp_path / 'venv'}"], capture_output=True,
                          text=True, timeout=120)
    assert made.returncode != 0
    assert "Python 3.10.12" in made.stderr and "needs Python >= 3.11" in made.stderr, made.stderr
    assert "make install PYTHON=python3.11" in made.stderr and "pip" not in made.stdout


def test_requirements_lock_pins_the_core_and_the_lab_extra():
    """`make install` installs from requirements.lock with `--no-deps`: the lock must hold every package of the
    core and of `lab`, at a version their ranges accept."""
    from packaging.version import Version

    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            name, version = line.split("#")[0].strip().split("==")
            pins[canonicalize_name(name)] = Version(version)
    for line in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["lab"]:
        requirement = Requirement(line)
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"requirements.lock pins no {requirement.name}"
        assert requirement.specifier.contains(pinned, prereleases=True), f"requirements.lock: {requirement} vs {pinned}"
