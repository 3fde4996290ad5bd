"""Every number the notebooks' prose quotes agrees with where it comes from.

A number in a markdown cell is one of:
- structural: a notebook, section, table, figure, exercise, step or list number, a year, a seed, an arXiv id;
- a setting: a literal of a profile (`cdlm_nb/profiles`), or that fraction as a percentage;
- a paper's value: a literal of one of the package's `PAPER_*` tables;
- a method constant the package defines (`CONSTANTS`: the masking shares, PageRank's damping, the interval level);
- a quote in `QUOTES`, checked here against its source: the published cpu run (`baselines/cpu.json`, and this
  checkout's `runs/cpu/results.json` when it has one), a file the repository keeps, or a paper's text.
Any other number fails, named with its notebook, cell and context: print it from the run instead, or add its source
here. The `**Time:**` line of each first cell is generated from the baselines (`tooling.chapter_times`, tested in
test_readme.py).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from cdlm_nb.tooling.chapter_times import TIME_LINE

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
BASELINE = ROOT / "baselines" / "cpu.json"
LOCAL_RUN = ROOT / "runs" / "cpu" / "results.json"

#: A number as prose writes it: 4,096 · 0.15 · 25k · 15 % · 1.4x (the suffix kept for the reading).
NUMBER = re.compile(r"(?<![\w.\-/^])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(k\b)?(?![\w.]\d)(\s?%)?")
#: What before a number makes it a label rather than a quantity.
STRUCTURAL_BEFORE = re.compile(
    r"(notebooks?|§|sections?|tables?|figures?|exercises?|steps?|seeds?|eq\.|appendix|arxiv:?|v|#+|,|and|or|to|-)"
    r"\s*$|^\s*([-*]\s*)?$", re.I)
#: Markup whose digits are not prose: code spans, link targets, LaTeX.
NOT_PROSE = re.compile(r"`[^`]*`|\]\([^)]*\)|\$[^$]*\$|<[^>]+>")


def _literals(paths: list[Path], targets: Callable[[list[ast.expr]], bool] = lambda _: True) -> set[float]:
    """Every int or float literal in the assignments of `paths` whose targets pass `targets`."""
    values: set[float] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                if not targets(node.targets if isinstance(node, ast.Assign) else [node.target]):
                    continue
                values |= {float(sub.value) for sub in ast.walk(node.value) if isinstance(sub, ast.Constant)
                           and isinstance(sub.value, (int, float)) and not isinstance(sub.value, bool)}
    return values


def settings() -> set[float]:
    """The profiles' literals (every field of smoke, cpu and gpu), and each fraction among them as a percentage."""
    values = _literals(sorted((ROOT / "cdlm_nb" / "profiles").glob("*.py")))
    return values | {round(100 * v, 6) for v in values if 0 < v < 1}


def paper_values() -> set[float]:
    """The literals of the package's `PAPER_*` tables (the papers' reported numbers, shown beside ours)."""
    def is_paper(targets: list[ast.expr]) -> bool:
        return any(isinstance(t, ast.Name) and t.id.startswith("PAPER") for t in targets)

    return _literals(sorted((ROOT / "cdlm_nb").rglob("*.py")), is_paper)


def constants() -> set[float]:
    """Method constants the prose names, read from the package that uses them."""
    from cdlm_nb.masking import MASK_SHARE, RANDOM_SHARE, CrossDocumentMLMCollator
    from cdlm_nb.match_ignition.sentence_filter import DAMPING
    from cdlm_nb.match_ignition.word_filter import ITERATIONS
    from cdlm_nb.pretraining.trainer import ADAM_BETAS
    from cdlm_nb.verdicts import CONFIDENCE

    mlm = CrossDocumentMLMCollator.__dataclass_fields__["mlm_probability"].default
    values = {MASK_SHARE, round(MASK_SHARE + RANDOM_SHARE, 9), mlm, DAMPING, round(1 - DAMPING, 9), ITERATIONS,
              *ADAM_BETAS}
    return values | {round(100 * v, 6) for v in values if 0 < v < 1} | {100 * CONFIDENCE}


def published(metric: str) -> list[float]:
    """`metric` in the published cpu run, and in this checkout's own cpu run when it has one."""
    runs = [json.loads(BASELINE.read_text())["metrics"]]
    if LOCAL_RUN.exists():
        local = json.loads(LOCAL_RUN.read_text()).get("metrics", {})
        if metric in local:
            runs.append(local)
    return [run[metric] for run in runs]


def _gpu_tokens_billions() -> float:
    from cdlm_nb.profiles import get_profile

    pretrain = get_profile("gpu").pretrain
    batch = pretrain.per_device_batch_size * pretrain.gradient_accumulation_steps
    return pretrain.max_steps * batch * pretrain.max_length / 1e9


def _budget_curve_steps() -> float:
    measured = json.loads((ROOT / "benchmarks" / "measured" / "budget_curve_cpu.json").read_text())
    return max(step for curve in measured["curves"].values() for step, _ in curve)


def _budget_ratio() -> float:
    from cdlm_nb.profiles import get_profile

    return _budget_curve_steps() / get_profile("cpu").pretrain.max_steps


def _minilm_millions() -> float:
    from cdlm_nb.sentence_encoders import load_sentence_encoder
    from cdlm_nb.support.errors import ConfigError

    try:
        encoder = load_sentence_encoder("minilm")
    except ConfigError as error:
        pytest.skip(str(error))
    return sum(p.numel() for p in encoder.parameters()) / 1e6


def _paper_time_cost_limit() -> float:
    from cdlm_nb.match_ignition.experiment import paper_time_cost

    return paper_time_cost(0.0) / paper_time_cost(0.2)


def _paper_coref_gap() -> float:
    """Table 2's CoNLL F1 of CDLM with whole documents minus CDLM with sentences only (event coreference)."""
    from cdlm_nb.coref.report import PAPER_ABLATION_CONLL

    return round(PAPER_ABLATION_CONLL["CDLM"] - PAPER_ABLATION_CONLL["CDLM, sentences only"], 1)


def _paper_lemma_gaps() -> list[float]:
    """Table 2's event CoNLL F1 of each cross-encoder (Longformer, Rand CDLM, CDLM) minus the same-head-lemma's."""
    from cdlm_nb.coref.report import LEMMA_ROW, PAPER_EVENT_ROWS

    lemma = PAPER_EVENT_ROWS[LEMMA_ROW][-1]
    return [PAPER_EVENT_ROWS[model][-1] - lemma for model in ("Longformer", "Rand CDLM", "CDLM")]


@dataclass(frozen=True)
class Quote:
    """A number a notebook's prose quotes (`text`, as written around it) and where it comes from."""

    notebook: str  # the two-digit number
    text: str  # the words around the number, enough to find it once
    number: float
    source: Callable[[], float | list[float]] | str  # the value(s) it must agree with, or a paper's text cited
    digits: int = 1  # how the prose rounds it

    def agrees(self) -> bool:
        if isinstance(self.source, str):
            return True  # a paper's own words, cited in `source`
        values = self.source()
        return all(math.isclose(self.number, value, abs_tol=0.51 * 10 ** -self.digits)
                   for value in (values if isinstance(values, list) else [values]))


QUOTES = (
    Quote("02", "gives position 700 the embedding of position 700 mod 128", 700,
          "a worked example: any position past the 128 the start was trained on"),
    Quote("02", "≈ 6.6 billion tokens", 6.6, _gpu_tokens_billions),
    Quote("02", "packed input of 356 tokens", 356,
          lambda: published("masking/tokens_per_example"), digits=0),
    Quote("03", "**8,000 steps**", 8000, _budget_curve_steps, digits=0),
    Quote("03", "(8x notebook 02's budget", 8, _budget_ratio, digits=0),
    Quote("04", "1.4 for whole documents", 1.4, _paper_coref_gap),
    Quote("04", "lemma baseline by 7 to", 7, lambda: min(_paper_lemma_gaps()), digits=0),
    Quote("04", "to 9 points on events", 9, lambda: max(_paper_lemma_gaps()), digits=0),
    Quote("07", "target at 69 %", 69, "the CDLM paper's Figure 3 example (Caciularu et al., 2021)"),
    Quote("08", "a 22.7M-parameter sentence transformer", 22.7, _minilm_millions),
    Quote("10", "on 100k+ pairs", 100_000, "the CDA paper's training pairs (Zhou et al., 2020), a lower bound"),
    Quote("09", "(4.34× at α = 20 %)", 4.34, _paper_time_cost_limit, digits=2),
    Quote("11", "as a line (66.7 %)", 66.7, lambda: published("compare/world/reference/none_related/acc")),
)


def prose(notebook: Path) -> list[tuple[int, str]]:
    """(cell index, text) of each markdown cell, without its markup and its generated time line."""
    cells = json.loads(notebook.read_text())["cells"]
    return [(index, NOT_PROSE.sub(" ", TIME_LINE.sub("", "".join(cell["source"]))))
            for index, cell in enumerate(cells) if cell["cell_type"] == "markdown"]


def unsourced(notebook: Path, allowed: set[float]) -> list[str]:
    """The numbers in `notebook`'s prose with no source, each with its cell and context."""
    quoted = [q for q in QUOTES if notebook.name.startswith(q.notebook)]
    missing = []
    for index, text in prose(notebook):
        spans = [(m.start(), m.end()) for q in quoted for m in re.finditer(_pattern(q.text), text)]
        for line_start, line in _lines(text):
            for match in NUMBER.finditer(line):
                where = line_start + match.start()
                if any(start <= where < end for start, end in spans):
                    continue
                digits = match.group(1)
                value = float(digits.replace(",", "")) * (1000 if match.group(2) else 1)
                if re.fullmatch(r"(19|20)\d\d", digits) or re.fullmatch(r"0\d|1[01]", digits):
                    continue  # a year, or a notebook's number (00-11)
                if STRUCTURAL_BEFORE.search(line[:match.start()]) and not match.group(3):
                    continue
                if value in allowed or round(value, 6) in allowed:
                    continue
                missing.append(f"cell {index}: {match.group(0)!r} in ...{line[max(0, match.start() - 40):][:90]}")
    return missing


def _pattern(quote: str) -> str:
    """`quote` as a regex in which any run of whitespace matches any other (prose wraps its lines anywhere)."""
    return r"\s+".join(map(re.escape, quote.split()))


def _lines(text: str) -> list[tuple[int, str]]:
    out, start = [], 0
    for line in text.split("\n"):
        out.append((start, line))
        start += len(line) + 1
    return out


@pytest.fixture(scope="module")
def allowed() -> set[float]:
    return settings() | paper_values() | constants()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_number_in_the_prose_has_a_source(notebook: Path, allowed: set[float]):
    missing = unsourced(notebook, allowed)
    assert not missing, (f"{notebook.name}: numbers in the prose with no source (print them from the run, or add "
                         f"their source to tests/test_prose_numbers.py):\n" + "\n".join(missing))


@pytest.mark.parametrize("quote", QUOTES, ids=lambda q: f"{q.notebook}:{q.text[:30]}")
def test_each_quote_is_in_its_notebook_and_agrees_with_its_source(quote: Quote):
    notebook = next(p for p in NOTEBOOKS if p.name.startswith(quote.notebook))
    text = "\n".join(text for _, text in prose(notebook))
    assert re.search(_pattern(quote.text), text), f"{notebook.name} no longer says {quote.text!r}: update QUOTES"
    numbers = [float(m.group(1).replace(",", "")) * (1000 if m.group(2) else 1) for m in NUMBER.finditer(quote.text)]
    assert quote.number in numbers, f"{quote.text!r} does not quote {quote.number}"
    assert quote.agrees(), f"{notebook.name}: {quote.text!r} disagrees with its source ({quote.source()})"


def test_the_check_catches_a_number_with_no_source(tmp_path: Path, allowed: set[float]):
    cell = {"cell_type": "markdown", "metadata": {}, "source": ["CDLM reaches 73.2 F1 here, with 4,096 tokens.\n"]}
    notebook = tmp_path / "04_coreference.ipynb"
    notebook.write_text(json.dumps({"cells": [cell]}))
    missing = unsourced(notebook, allowed)
    assert len(missing) == 1 and "'73.2'" in missing[0]  # 4,096 is the gpu profile's input length
    assert not Quote("11", "x", 66.7, lambda: 70.0).agrees() and Quote("11", "x", 66.7, lambda: 66.66).agrees()
