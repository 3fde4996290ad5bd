"""Package shape: no import cycles (function-level and `TYPE_CHECKING` imports count) and no module past the size
limit."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from cdlm_nb.paths import PACKAGE_DIR

MAX_LINES = 400
# Pure data tables (word lists), not logic: long by nature, allowed past MAX_LINES.
DATA_TABLES = {"data/world/lexicon.py"}


def module_name(path: Path) -> str:
    """`cdlm_nb/data/corpora.py` -> `cdlm_nb.data.corpora`; a package's `__init__.py` is the package itself."""
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package modules one file imports anywhere (top level, inside functions, or under `if TYPE_CHECKING:`:
    a cycle of names for type hints is still a cycle of ideas), relative imports resolved.

    `from P import N` counts as importing module `P.N` when that is a module, else module `P` (a package's
    `__init__` when P is a package), because that is where N is looked up.
    """
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                targets.add(full if full in modules else source)
    return {t for t in targets if t in modules and t != name}


def import_graph() -> nx.DiGraph:
    files = {module_name(p): p for p in PACKAGE_DIR.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        graph.add_edges_from((name, target) for target in imported_modules(path, set(files)))
    return graph


def test_the_import_graph_sees_relative_function_level_type_checking_and_package_imports():
    graph = import_graph()
    assert graph.has_edge("cdlm_nb", "cdlm_nb.runtime")  # __init__: from .runtime import ...
    assert graph.has_edge("cdlm_nb.cli", "cdlm_nb.runner")  # a function-level import in _run
    assert graph.has_edge("cdlm_nb.variants", "cdlm_nb.profiles")  # under TYPE_CHECKING: PretrainConfig


def test_no_import_cycles():
    cycles = sorted(nx.simple_cycles(import_graph()), key=len)
    readable = [" -> ".join(cycle + cycle[:1]) for cycle in cycles[:10]]
    assert not cycles, f"{len(cycles)} import cycle(s), shortest first:\n" + "\n".join(readable)


def test_no_module_is_longer_than_the_limit():
    too_long = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES and relative not in DATA_TABLES:
            too_long[relative] = lines
    assert not too_long, f"split these modules (limit {MAX_LINES} lines): {too_long}"
