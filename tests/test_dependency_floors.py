"""pyproject's dependency floors stay at or above what the package's APIs need: each API that sets a floor is named
here with the release it needs, and while cdlm_nb still uses it (a regular expression over its sources) the floor
may not go below that release. An API no longer used fails too, so the list (and pyproject's table) is kept true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

#: package -> [(pattern found in cdlm_nb's sources, the release that API needs, what it is)]
FLOOR_APIS: dict[str, list[tuple[str, str, str]]] = {
    "torch": [
        (r"\bfused=True\b", "2.4", "torch.optim.AdamW/Adam(fused=True) on a CPU (fused CPU kernels from 2.4)"),
        (r"torch\.amp\.custom_fwd\(device_type=", "2.4", "torch.amp.custom_fwd(device_type=...)"),
        (r"torch\.amp\.custom_bwd\(device_type=", "2.4", "torch.amp.custom_bwd(device_type=...)"),
        (r"torch\.amp\.GradScaler\(", "2.3", "torch.amp.GradScaler(device)"),
    ],
    "transformers": [
        (r"\bprocessing_class=", "4.46", "Trainer(processing_class=...)"),
        (r"\bAttentionMaskInterface\b", "4.53", "transformers.masking_utils.AttentionMaskInterface"),
    ],
    "datasets": [
        (r"from datasets import [^\n]*\bList\b", "4.0", "the datasets.List feature type"),
    ],
    "huggingface-hub": [
        (r"\(\"httpx\", \"TransportError\"\)", "1.0", "huggingface_hub's httpx transport (requests before 1.0)"),
    ],
    "adjustText": [
        (r"\bprevent_crossings=", "1.3", "adjustText.adjust_text(prevent_crossings=...)"),
    ],
}


def floors() -> dict[str, Version]:
    """{package: the lowest version pyproject's `>=` allows}, from [project].dependencies."""
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    found = {}
    for line in dependencies:
        requirement = Requirement(line)
        lows = [Version(spec.version) for spec in requirement.specifier if spec.operator in (">=", "==", "~=")]
        if lows:
            found[canonicalize_name(requirement.name)] = max(lows)
    return found


def sources() -> str:
    return "\n".join(path.read_text() for path in sorted((ROOT / "cdlm_nb").rglob("*.py")))


CASES = [(package, *api) for package, apis in FLOOR_APIS.items() for api in apis]


@pytest.mark.parametrize("package, pattern, needs, what", CASES, ids=[f"{c[0]}: {c[3]}" for c in CASES])
def test_no_floor_is_below_an_api_in_use(package, pattern, needs, what):
    assert re.search(pattern, sources()), (
        f"cdlm_nb no longer uses {what} ({pattern!r}): drop it from FLOOR_APIS and from pyproject's floor table")
    floor = floors().get(canonicalize_name(package))
    assert floor is not None, f"{package} has no floor in pyproject.toml, but {what} needs {needs}"
    assert floor >= Version(needs), f"{package}>={floor} in pyproject.toml, but {what} needs {needs}"


def test_pyprojects_floor_table_names_the_floors_as_they_are():
    """The comment table above the dependencies names each floor-setting package with its current floor."""
    table = dict(re.findall(r"^#\s+([A-Za-z0-9_.-]+)>=([0-9][0-9.]*)", PYPROJECT.read_text(), re.MULTILINE))
    current = floors()
    for package in FLOOR_APIS:
        assert package in table, f"pyproject's floor table does not name {package}"
        assert Version(table[package]) == current[canonicalize_name(package)], (
            f"pyproject's floor table says {package}>={table[package]}, its dependencies >={current[package]}")


def test_the_floors_are_read_from_pyproject():
    current = floors()
    assert current["torch"] >= Version("2.4") and current["datasets"] >= Version("4.0")
    assert "numpy" in current and "scikit-learn" in current
