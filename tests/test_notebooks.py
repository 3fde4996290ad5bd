"""Notebook hygiene: every tutorial notebook is clean, numbered, parameterised and badged."""

import ast
import re

import nbformat
import pytest

from cdlm_nb.support.paths import notebooks_dir
from cdlm_nb.tooling.runner import NOTEBOOK_NAME, discover_notebooks

NOTEBOOKS = discover_notebooks()


def test_there_are_notebooks_and_all_are_numbered():
    assert NOTEBOOKS, "no notebooks found"
    stray = [p.name for p in notebooks_dir().glob("*.ipynb") if not NOTEBOOK_NAME.match(p.name)]
    assert stray == [], f"rename to NN_snake_name.ipynb: {stray}"
    numbers = [p.name[:2] for p in NOTEBOOKS]
    assert len(numbers) == len(set(numbers)), f"duplicate notebook numbers: {numbers}"


@pytest.fixture(params=NOTEBOOKS, ids=lambda p: p.stem)
def notebook(request):
    return request.param, nbformat.read(request.param, as_version=4)


def test_no_outputs_or_execution_counts(notebook):
    path, nb = notebook
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name} cell {i} has outputs"
            assert cell.execution_count is None, f"{path.name} cell {i} has an execution count"


def test_every_cell_has_a_unique_id(notebook):
    """nbformat 4.5 requires cell ids; without them every run prints a MissingIDFieldWarning."""
    import json

    path, _ = notebook
    ids = [cell.get("id") for cell in json.loads(path.read_text())["cells"]]
    assert None not in ids and len(set(ids)) == len(ids), f"{path.name}: give every cell a unique id (cell-NN)"


def test_kernel_is_python3(notebook):
    path, nb = notebook
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", path.name


def repository() -> str:
    """`owner/name` of the repository, from pyproject.toml's [project.urls] (the one place that names it)."""
    import tomllib

    url = tomllib.loads((notebooks_dir().parent / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    return url.removeprefix("https://github.com/").rstrip("/")


def release() -> str:
    """The tag of the release the badges and the Colab install point at: `v` + pyproject.toml's version (a release
    pushes that tag, docs/install.md), so a Colab user runs a notebook with the package it was published with."""
    import tomllib

    return "v" + tomllib.loads((notebooks_dir().parent / "pyproject.toml").read_text())["project"]["version"]


def badges(name: str, repo: str) -> tuple[str, str]:
    """The Colab and Binder links of notebook `name` in repository `repo`, at the release tag."""
    return (f"https://colab.research.google.com/github/{repo}/blob/{release()}/notebooks/{name}",
            f"https://mybinder.org/v2/gh/{repo}/{release()}?labpath=notebooks%2F{name}")


def test_every_link_to_the_repository_follows_project_urls(notebook):
    """Badges, the install cell, the README and docs/install.md name the repository of [project.urls]."""
    root = notebooks_dir().parent
    path, nb = notebook
    repo = repository()
    for link in badges(path.name, repo):
        assert link in nb.cells[0].source, f"{path.name}: the first cell must link {link} ([project.urls])"
    assert f"git+https://github.com/{repo}@{release()}\"" in COLAB_INSTALL
    assert all(link in (root / "README.md").read_text() for link in badges("00_overview.ipynb", repo))
    assert f"git+https://github.com/{repo}@{release()}" in (root / "docs" / "install.md").read_text()


def test_links_into_the_repository_open_anywhere_and_find_their_file(notebook):
    """A notebook opened on Colab has no `../docs` beside it: every link into the repository is the repository's
    address at the release tag ([project.urls]), and the file it names exists in this checkout (anchors not
    checked)."""
    root = notebooks_dir().parent
    path, nb = notebook
    base = f"https://github.com/{repository()}/blob/{release()}/"
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    relative = re.findall(r"\]\((\.\.?/[^)]*)\)", text)
    assert not relative, f"{path.name}: relative links open nothing on Colab: {relative}"
    targets = [link.split("#")[0] for link in re.findall(r"\]\(" + re.escape(base) + r"([^)]*)\)", text)]
    missing = [target for target in targets if not (root / target).exists()]
    assert not missing, f"{path.name}: links to files not in the repository: {missing}"


def test_first_cell_is_markdown_with_title_badges_and_timing(notebook):
    path, nb = notebook
    first = nb.cells[0]
    assert first.cell_type == "markdown", f"{path.name}: first cell must be markdown"
    assert first.source.startswith(f"# {path.name[:2]} "), f"{path.name}: title must start with '# {path.name[:2]} '"
    assert "colab.research.google.com/github/" in first.source and path.name in first.source
    assert "mybinder.org/v2/gh/" in first.source
    assert "What you will learn" in first.source
    assert re.search(r"smoke.*cpu.*gpu", first.source, re.S), f"{path.name}: give the time per profile"
    assert len(first.source.split()) <= MAX_FIRST_CELL_WORDS, (
        f"{path.name}: the first cell has {len(first.source.split())} words; run notes go to docs/run_notes.md")
    learn = first.source.split("**What you will learn**", 1)[1].split("\n\n", 1)[0]
    assert 1 <= learn.count("\n- ") <= 4, f"{path.name}: say what the reader will learn in at most 4 bullets"


def test_exactly_one_parameters_cell_of_literals(notebook):
    path, nb = notebook
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: {len(tagged)} cells tagged parameters"
    tree = ast.parse(tagged[0].source)
    names = []
    for node in tree.body:
        assert isinstance(node, ast.Assign) and len(node.targets) == 1, (
            f"{path.name}: the parameters cell may only assign literals ({ast.unparse(node)})")
        ast.literal_eval(node.value)  # raises ValueError on anything but a literal
        names.append(node.targets[0].id)
    assert names[:2] == ["PROFILE", "RUN_DIR"], f"{path.name}: start parameters with PROFILE and RUN_DIR"


def test_setup_is_called_with_the_notebooks_own_name(notebook):
    path, nb = notebook
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert f'notebook="{path.stem}"' in code, f"{path.name}: call cdlm_nb.setup(PROFILE, notebook=\"{path.stem}\", ...)"


#: The first code cell of every notebook, word for word (this is its one source; an edit here is copied into the 12
#: notebooks by a script). On Colab it installs the core and [minilm] only: the core leaves out the Jupyter stack, so
#: pip keeps Colab's pinned ipykernel/IPython; a failed install stops the notebook (Run all goes no further) and
#: says what to do.
COLAB_INSTALL = """\
# On Colab, install the helper package: its core and [minilm] only, so Colab's own ipykernel/IPython stay as they
# are (elsewhere `make install` already did).
import subprocess
import sys

if "google.colab" in sys.modules:
    package = "cdlm-nb[minilm] @ git+https://github.com/cdlm-notebooks/cdlm-notebooks@v0.1.0"
    if subprocess.run([sys.executable, "-m", "pip", "install", "-q", package]).returncode:
        raise RuntimeError(f"Installing {package} failed (pip says why above). Fix that (Colab's pip needs the "
                           f"internet), then run !pip install '{package}' and this notebook again.")
    print("Installed. If Colab asks to restart: Runtime > Restart session, then run from the next cell.")"""


def test_the_first_code_cell_is_the_guarded_colab_install(notebook):
    path, nb = notebook
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert first_code.source == COLAB_INSTALL, f"{path.name}: the first code cell must be COLAB_INSTALL, as written"


def test_the_colab_install_keeps_colabs_kernel_and_never_stops_the_notebook():
    assert '"google.colab" in sys.modules' in COLAB_INSTALL
    assert "check=True" not in COLAB_INSTALL and "--upgrade" not in COLAB_INSTALL and "-U" not in COLAB_INSTALL
    package = re.search(r'package = "(.+?)"', COLAB_INSTALL).group(1)
    assert package.startswith("cdlm-nb[minilm] @ ")  # the core and [minilm]: not [lab], the Jupyter stack
    assert "Runtime > Restart session, then run from the next cell" in COLAB_INSTALL
    assert len(COLAB_INSTALL.splitlines()) <= 12


MAX_LOGIC_LINES = 12
EXEMPT_TAGS = {"worked-example", "parameters"}  # a worked example is long on purpose; parameters are settings


def logic_lines(source: str) -> int:
    """Lines of logic in a code cell: every line that is neither blank nor only a comment.

    Deliberately simple: a call spread over three lines counts three, so long calls push towards a package function.
    """
    return sum(1 for line in source.splitlines() if line.strip() and not line.strip().startswith("#"))


def test_logic_lines_skip_blanks_and_comments():
    assert logic_lines("# setup\nx = 1\n\n  # note\nf(x,\n  y)  # two lines\n") == 3


def test_code_cells_are_short(notebook):
    path, nb = notebook
    long_cells = {i: logic_lines(c.source) for i, c in enumerate(nb.cells)
                  if c.cell_type == "code" and not EXEMPT_TAGS & set(c.metadata.get("tags", []))
                  and logic_lines(c.source) > MAX_LOGIC_LINES}
    assert not long_cells, (f"{path.name}: cells {long_cells} (index: lines) exceed {MAX_LOGIC_LINES} lines of "
                            "logic; move the code into a cdlm_nb function or tag the cell worked-example")



#: The anchors' scale (rasbt's chapter notebooks: a median of 18 words a markdown cell; Hugging Face's: 24): one idea a
#: cell, a sentence that reads the output under it; how a setting was measured goes to docs/experiments.md.
MAX_MARKDOWN_WORDS = 120
MEDIAN_MARKDOWN_WORDS = 40
MAX_TAKEAWAY_WORDS = 100  # "What to take away": what is true across reruns, in one breath
MAX_FIRST_CELL_WORDS = 120  # title, badges, what you will learn, the time: the lesson starts right after


def test_markdown_cells_are_short(notebook):
    import statistics

    path, nb = notebook
    words = {i: len(c.source.split()) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"}
    long_cells = {i: n for i, n in words.items() if n > MAX_MARKDOWN_WORDS}
    assert not long_cells, (f"{path.name}: markdown cells {long_cells} (index: words) exceed {MAX_MARKDOWN_WORDS} "
                            "words; split them, or move how a setting was measured to docs/experiments.md")
    median = statistics.median(words.values())
    assert median <= MEDIAN_MARKDOWN_WORDS, (f"{path.name}: the median markdown cell has {median} words (at most "
                                             f"{MEDIAN_MARKDOWN_WORDS}): one idea a cell")
    takeaways = {i: words[i] for i, c in enumerate(nb.cells)
                 if c.cell_type == "markdown" and c.source.startswith("## What to take away")}
    assert all(n <= MAX_TAKEAWAY_WORDS for n in takeaways.values()), (
        f"{path.name}: the takeaways {takeaways} (index: words) exceed {MAX_TAKEAWAY_WORDS} words")


#: Notebooks that write a method's core out in a cell tagged `key-lines` and check it against the package's function
#: on the notebook's own data (the smoke run of every notebook in `make test` executes the checks).
KEY_LINES_NOTEBOOKS = ("01", "02", "03", "04", "05", "06", "07", "08", "09", "10")
CHECKS = re.compile(r"\bassert\b|assert_close|np\.testing\.|torch\.testing\.")


@pytest.mark.parametrize("number", KEY_LINES_NOTEBOOKS)
def test_key_lines_are_written_out_and_checked(number):
    path = next(p for p in NOTEBOOKS if p.name.startswith(f"{number}_"))
    cells = [c for c in nbformat.read(path, as_version=4).cells
             if c.cell_type == "code" and "key-lines" in c.metadata.get("tags", [])]
    assert cells, f"{path.name}: tag the cell that writes the method's core out `key-lines`"
    assert any(CHECKS.search(c.source) for c in cells), (
        f"{path.name}: no key-lines cell checks its lines against the package's function "
        "(torch.testing.assert_close, np.testing, assert)")


def test_longformer_attention_is_written_out_in_notebook_01():
    """Local rows with the local projections, global rows with the global ones, checked against Hugging Face's."""
    path = next(p for p in NOTEBOOKS if p.name.startswith("01_"))
    sources = [c.source for c in nbformat.read(path, as_version=4).cells
               if c.cell_type == "code" and "key-lines" in c.metadata.get("tags", [])]
    assert any("query_global" in s and "hf_out" in s and "assert_close" in s for s in sources), (
        f"{path.name}: write Longformer's sliding-window + global attention out in a key-lines cell")


def test_the_check_pattern_finds_assertions_only():
    assert CHECKS.search("torch.testing.assert_close(a, b)") and CHECKS.search("assert a == b")
    assert CHECKS.search("np.testing.assert_allclose(a, b)")
    assert not CHECKS.search("print('asserted nothing')") and not CHECKS.search("reassert(x)")


# --- Closing cells: what to take away, and exercises with solutions in docs/solutions.md -------------------------

CLOSING_NOTEBOOKS = tuple(f"{n:02d}" for n in range(1, 12))  # every notebook but the overview
SOLUTIONS = notebooks_dir().parent / "docs" / "solutions.md"
BULLET = re.compile(r"^- ", re.M)
NUMBERED = re.compile(r"^\d+\. ", re.M)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a markdown heading: lower case, punctuation (`·` included) dropped, spaces to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def solution_anchors() -> dict[str, str]:
    """Notebook number -> the anchor of its `## NN · Title` section in docs/solutions.md."""
    text = SOLUTIONS.read_text(encoding="utf-8") if SOLUTIONS.is_file() else ""
    return {m.group(1): github_anchor(m.group(0)[3:]) for m in re.finditer(r"^## (\d\d) · .+$", text, re.M)}


def test_github_anchor_matches_the_links_the_notebooks_use():
    assert github_anchor("02 · Pretraining") == "02--pretraining"  # notebook 02 links experiments.md#02--pretraining
    assert github_anchor("06 · Multi-hop question answering") == "06--multi-hop-question-answering"


@pytest.mark.parametrize("number", CLOSING_NOTEBOOKS)
def test_notebook_ends_with_takeaways_then_exercises(number):
    path = next(p for p in NOTEBOOKS if p.name.startswith(f"{number}_"))
    cells = nbformat.read(path, as_version=4).cells
    assert len(cells) >= 2, path.name
    takeaway, exercises = cells[-2], cells[-1]
    assert takeaway.cell_type == "markdown" and takeaway.source.startswith("## What to take away"), (
        f"{path.name}: the last but one cell must be the markdown '## What to take away'")
    assert 3 <= len(BULLET.findall(takeaway.source)) <= 6, f"{path.name}: give 3-6 take-away bullets ('- ...')"
    assert exercises.cell_type == "markdown" and exercises.source.startswith("## Exercises"), (
        f"{path.name}: the last cell must be the markdown '## Exercises'")
    assert len(NUMBERED.findall(exercises.source)) >= 2, f"{path.name}: give at least 2 numbered exercises"
    anchor = solution_anchors().get(number)
    link = f"https://github.com/{repository()}/blob/{release()}/docs/solutions.md#{anchor}"
    assert anchor and link in exercises.source, f"{path.name}: link the exercises' solutions, {link}"


def test_solutions_have_a_section_for_every_notebook():
    assert SOLUTIONS.is_file(), "write docs/solutions.md: one '## NN · Title' section per notebook 01-11"
    missing = [n for n in CLOSING_NOTEBOOKS if n not in solution_anchors()]
    assert not missing, f"docs/solutions.md has no '## NN · Title' section for notebooks {missing}"


def test_notebook_00_is_the_readers_map_not_the_package_map():
    source = " ".join(c.source for c in nbformat.read(NOTEBOOKS[0], as_version=4).cells)
    assert "chapter_table()" in source and "package_table" not in source
