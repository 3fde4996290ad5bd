"""Package shape: no import cycles (function-level and `TYPE_CHECKING` imports count) and no module past the size
limit."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

from cdlm_nb.support.paths import PACKAGE_DIR

MAX_LINES = 400
# Pure data tables (word lists), not logic: long by nature, allowed past MAX_LINES. None at present: the embedded
# world's vocabulary is data/world/lexicon.toml, which data/world/lexicon.py reads.
DATA_TABLES: set[str] = set()


def module_name(path: Path) -> str:
    """`cdlm_nb/data/corpora.py` -> `cdlm_nb.data.corpora`; a package's `__init__.py` is the package itself."""
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str], at_import_only: bool = False) -> set[str]:
    """The package modules one file imports anywhere (top level, inside functions, or under `if TYPE_CHECKING:`:
    a cycle of names for type hints is still a cycle of ideas), relative imports resolved. `at_import_only`: only
    those that importing the file runs (not inside a function, not under `if TYPE_CHECKING:`).

    `from P import N` counts as importing module `P.N` when that is a module, else module `P` (a package's
    `__init__` when P is a package), because that is where N is looked up.
    """
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    targets = set()
    for node in (_run_at_import(tree) if at_import_only else ast.walk(tree)):
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


def _run_at_import(node: ast.AST):
    """The nodes under `node` that run when its module is imported: function bodies and `if TYPE_CHECKING:`
    blocks left out (their `else:` kept)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for statement in child.orelse:
                yield statement
                yield from _run_at_import(statement)
            continue
        yield child
        yield from _run_at_import(child)


def import_graph() -> nx.DiGraph:
    files = {module_name(p): p for p in PACKAGE_DIR.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        graph.add_edges_from((name, target) for target in imported_modules(path, set(files)))
    return graph


def test_the_import_graph_sees_relative_function_level_type_checking_and_package_imports():
    graph = import_graph()
    assert graph.has_edge("cdlm_nb", "cdlm_nb.profiles")  # __init__: from .profiles import ...
    assert graph.has_edge("cdlm_nb.tooling.cli", "cdlm_nb.tooling.runner")  # a function-level import in _run
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


# ---------------------------------------------------------------------------------------------------------
# Layers: the teaching core below, the machinery (planning, running, rehearsing, publishing, comparing) above it.
# ---------------------------------------------------------------------------------------------------------

#: The machinery around the tutorial (the session and its run folder, the GPU plan, building missing models,
#: running, rehearsing, publishing, comparing); every other module of the package is its teaching core. A notebook
#: reaches the session through `cdlm_nb.setup` and friends, which `cdlm_nb/__init__.py` reads from
#: `tooling.runtime` on first use (so importing the core loads no machinery: the probe below).
MACHINERY = ("cdlm_nb.tooling", "cdlm_nb.__main__")


def is_machinery(name: str) -> bool:
    return any(name == top or name.startswith(f"{top}.") for top in MACHINERY)


def test_chapter_02_imports_nothing_of_chapter_03():
    """Notebook 03's perplexity builds on notebook 02's held-out scoring (`pretraining.heldout`), not the reverse."""
    graph = import_graph()
    upward = [f"{a} -> {b}" for a, b in graph.edges
              if a.startswith("cdlm_nb.pretraining") and b.startswith("cdlm_nb.perplexity")]
    assert graph.has_edge("cdlm_nb.perplexity.evaluate", "cdlm_nb.pretraining.heldout")
    assert not upward, f"pretraining imports perplexity: {upward}"


def test_the_core_imports_nothing_of_the_machinery():
    """Function-level and TYPE_CHECKING imports count; `cdlm_nb/__init__.py`'s lazy session calls are the one way
    in, and only on a notebook's first use (`test_the_session_calls_are_read_from_the_machinery_on_first_use`)."""
    graph = import_graph()
    upward = sorted(f"{a} -> {b}" for a, b in graph.edges if is_machinery(b) and not is_machinery(a))
    assert not upward, f"the core imports the machinery: {upward}"


def test_the_support_layer_imports_nothing_of_the_method_or_the_machinery():
    """`cdlm_nb.support` (files, paths, progress, memory, precision, processes, errors) is what the method code runs
    on: it may import only itself, so that the method reads as the method and the support can be read alone."""
    graph = import_graph()
    support = [name for name in graph if name.startswith("cdlm_nb.support")]
    assert {"cdlm_nb.support.artefacts", "cdlm_nb.support.hub_errors"} <= set(support)
    outward = sorted(f"{a} -> {b}" for a in support for b in graph.successors(a) if not b.startswith("cdlm_nb.support"))
    assert not outward, f"the support layer imports the rest of the package: {outward}"


def test_the_import_time_reading_skips_functions_and_type_checking_blocks():
    files = {module_name(p): p for p in PACKAGE_DIR.rglob("*.py")}
    runtime = imported_modules(files["cdlm_nb.tooling.runtime"], set(files), at_import_only=True)
    assert "cdlm_nb.profiles" in runtime and "cdlm_nb.tooling.plan" not in runtime
    assert "cdlm_nb.tooling.plan" in imported_modules(files["cdlm_nb.tooling.runtime"], set(files))


def test_the_session_calls_are_read_from_the_machinery_on_first_use():
    import cdlm_nb
    from cdlm_nb.tooling import runtime

    assert all(getattr(cdlm_nb, name) is getattr(runtime, name) for name in cdlm_nb.SESSION)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        cdlm_nb.nothing  # noqa: B018


#: Run in a fresh interpreter: wraps torch's matrix products and `time.perf_counter` (timing calls from cdlm_nb
#: only) before importing `cdlm_nb` and every core module, then reports what ran and what got registered.
IMPORT_PROBE = r"""
import importlib, json, pkgutil, sys, time
import torch
from transformers import AttentionInterface
from transformers.masking_utils import AttentionMaskInterface

machinery = tuple(sys.argv[1].split(","))
calls = {"matrix products": 0, "timings from cdlm_nb": 0}

def counted(kind, function, ours_only=False):
    def wrapper(*args, **kwargs):
        if not ours_only or sys._getframe(1).f_globals.get("__name__", "").startswith("cdlm_nb"):
            calls[kind] += 1
        return function(*args, **kwargs)
    return wrapper

for name in ("matmul", "mm", "bmm"):
    setattr(torch, name, counted("matrix products", getattr(torch, name)))
torch.Tensor.__matmul__ = counted("matrix products", torch.Tensor.__matmul__)
time.perf_counter = counted("timings from cdlm_nb", time.perf_counter, ours_only=True)
registries = {"attention": AttentionInterface, "mask": AttentionMaskInterface}
before = {kind: set(registry().valid_keys()) for kind, registry in registries.items()}

def core(name):
    return not any(name == top or name.startswith(top + ".") for top in machinery)

import cdlm_nb
imported = ["cdlm_nb"]

def walk(package):
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        if core(info.name):
            module = importlib.import_module(info.name)
            imported.append(info.name)
            if info.ispkg:
                walk(module)

walk(cdlm_nb)
print(json.dumps({
    "imported": imported, "calls": calls,
    "registered": {kind: sorted(set(registry().valid_keys()) - before[kind]) for kind, registry in registries.items()},
    "machinery loaded": sorted(name for name in sys.modules if name.startswith("cdlm_nb") and not core(name)),
}))
"""


def test_importing_the_package_and_its_core_modules_registers_and_measures_nothing():
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", IMPORT_PROBE, ",".join(MACHINERY)], capture_output=True, text=True,
                          timeout=300, cwd=PACKAGE_DIR.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"cdlm_nb.profiles", "cdlm_nb.finetuning", "cdlm_nb.pretraining.heldout"} <= set(report["imported"])
    assert report["calls"] == {"matrix products": 0, "timings from cdlm_nb": 0}, report["calls"]
    assert report["registered"] == {"attention": [], "mask": []}, f"registered at import: {report['registered']}"
    assert report["machinery loaded"] == [], "importing the core loads the machinery (e.g. profiles -> rehearsal)"


def _sources() -> dict[str, str]:
    return {path.relative_to(PACKAGE_DIR).as_posix(): path.read_text() for path in PACKAGE_DIR.rglob("*.py")}


def test_fine_tuning_has_one_loop():
    """Every fine-tuning optimizer is made, stepped and scaled in `finetuning.py` (pretraining runs transformers'
    `Trainer`); a task module gives the loop its loss, not a loop of its own."""
    loops = re.compile(r"torch\.optim\.|optimizer\.step\(|GradScaler\(")
    elsewhere = sorted(name for name, text in _sources().items() if name != "finetuning.py" and loops.search(text))
    assert not elsewhere, f"training loops outside finetuning.py: {elsewhere}"


def test_no_private_attribute_of_another_object_is_set_and_no_argument_is_read_by_position():
    """Patching a library object's private attribute, or reading a hook's arguments by position, breaks silently
    when the pinned library changes (tests/test_transformers_contract.py pins what the package does rely on)."""
    private = re.compile(r"\b(?!self\b)\w+(\.\w+)*\._[a-z]\w*\s*=[^=]")
    positional = re.compile(r"\bargs\[\d+\]")
    found = [f"{name}:{number}: {line.strip()}" for name, text in _sources().items()
             for number, line in enumerate(text.splitlines(), 1) if private.search(line) or positional.search(line)]
    assert not found, "\n".join(found)


def test_token_lists_are_padded_in_one_place():
    """`collate.pad_batch` pads every batch of token lists; nothing else fills a padded tensor by hand."""
    by_hand = re.compile(r"torch\.(full|zeros|ones)\(\(len\(")
    elsewhere = sorted(name for name, text in _sources().items() if name != "collate.py" and by_hand.search(text))
    assert not elsewhere, f"hand-written padding outside collate.py: {elsewhere}"


def reexported_names(path: Path) -> list[str]:
    """Names a module imports from another module of the package and offers as its own (in `__all__`, or kept with
    `# noqa: F401`): one function reachable under two import paths."""
    source = path.read_text()
    tree = ast.parse(source, filename=str(path))
    imported = {alias.asname or alias.name: node.lineno for node in tree.body if isinstance(node, ast.ImportFrom)
                and node.level > 0 for alias in node.names}
    exported = [element.value for node in tree.body if isinstance(node, ast.Assign)
                and any(getattr(target, "id", "") == "__all__" for target in node.targets)
                for element in node.value.elts]
    kept = {name for name, line in imported.items() if "noqa: F401" in source.splitlines()[line - 1]}
    return sorted({name for name in exported if name in imported} | kept)


def test_no_module_re_exports_another_modules_names():
    """Each function has one import path: only a package's `__init__` gathers names from its modules."""
    offenders = {module_name(path): names for path in PACKAGE_DIR.rglob("*.py")
                 if path.name != "__init__.py" and (names := reexported_names(path))}
    assert not offenders, f"modules re-exporting other modules' names (import them from where they live): {offenders}"
