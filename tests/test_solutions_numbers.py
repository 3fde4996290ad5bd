"""docs/solutions.md against the published run: a sentence that says a number is the published run's must agree
with `baselines/cpu.json`. Numbers from another run (an exercise's parameters, another seed, an earlier start)
carry their date in the same sentence and are not the published run's; everything else is a setting, a constant,
a paper's value or structure, as in the notebooks' prose (tests/test_prose_numbers.py)."""

from __future__ import annotations

import json
import re

import pytest

from tests.test_prose_numbers import (
    BASELINE,
    NOT_PROSE,
    NUMBER,
    ROOT,
    STRUCTURAL_BEFORE,
    Quote,
    _pattern,
    constants,
    paper_values,
    settings,
)

SOLUTIONS = ROOT / "docs" / "solutions.md"
DATE = re.compile(r"20\d\d-\d\d-\d\d")
SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(*|])")


def metric(name: str, scale: float = 1.0):
    """The published value of `name` (times `scale`), as a quote's source."""
    return lambda: scale * json.loads(BASELINE.read_text())["metrics"][name]


#: Numbers a solution gives as the published run's, with the metric each one is (section "NN", as in QUOTES). No
#: timing is quoted: it moves with the machine and the run; a solution points at its table instead.
QUOTES = (
    Quote("08", "both score 100.0 %", 100.0, metric("aose/world/frozen/mean/acc")),
    Quote("10", "80 / 120 = 0.667: in the published run the row of BERT-AVG", 0.667,
          metric("cda/world/s2d/mrr/bert_avg"), digits=3),
    Quote("11", "TF-IDF (69.2 % in the published run)", 69.2, metric("compare/world/acc/tfidf")),
)


def sentences(text: str) -> list[tuple[str, str]]:
    """(section number, sentence) of every prose sentence of `text`: code blocks and spans, links and LaTeX out."""
    out, section = [], "00"
    for block in re.split(r"```.*?```", text, flags=re.S):
        for part in re.split(r"(?m)^(## \d\d · .*)$", block):
            if heading := re.match(r"## (\d\d) · ", part):
                section = heading.group(1)
                continue
            out += [(section, s) for s in SENTENCE.split(NOT_PROSE.sub(" ", part).replace("\n", " "))]
    return out


def unsourced(text: str, allowed: set[float]) -> list[str]:
    """Numbers of sentences that say "published" (and give no other run's date) with no source in QUOTES."""
    missing = []
    for section, sentence in sentences(text):
        if "published" not in sentence or DATE.search(sentence):
            continue
        spans = [m.span() for q in QUOTES if q.notebook == section for m in re.finditer(_pattern(q.text), sentence)]
        for match in NUMBER.finditer(sentence):
            value = float(match.group(1).replace(",", "")) * (1000 if match.group(2) else 1)
            if any(start <= match.start() < end for start, end in spans) or value in allowed:
                continue
            if STRUCTURAL_BEFORE.search(sentence[:match.start()]) and not match.group(3):
                continue
            missing.append(f"{section}: {match.group(0)!r} in {sentence[:140]!r}")
    return missing


@pytest.fixture(scope="module")
def allowed() -> set[float]:
    return settings() | paper_values() | constants()


def test_every_number_said_to_be_published_is_a_published_metric(allowed):
    missing = unsourced(SOLUTIONS.read_text(encoding="utf-8"), allowed)
    assert not missing, ("docs/solutions.md gives numbers as the published run's with no source: add the metric to"
                         " QUOTES in tests/test_solutions_numbers.py, or date the sentence's run:\n"
                         + "\n".join(missing))


@pytest.mark.parametrize("quote", QUOTES, ids=lambda q: f"{q.notebook}:{q.text[:30]}")
def test_each_quote_is_in_the_solutions_and_agrees_with_the_published_run(quote: Quote):
    text = " ".join(s for section, s in sentences(SOLUTIONS.read_text(encoding="utf-8")) if section == quote.notebook)
    assert re.search(_pattern(quote.text), text), f"docs/solutions.md ({quote.notebook}) no longer says {quote.text!r}"
    assert quote.agrees(), f"{quote.text!r} disagrees with the published run ({quote.source()})"


def test_the_check_catches_a_planted_wrong_number(allowed):
    planted = "## 11 · The comparison\n\nIn the published run TF-IDF scores 71.9 %. On 2026-11-29 it scored 71.9 %.\n"
    missing = unsourced(planted, allowed)
    assert len(missing) == 1 and "'71.9 %'" in missing[0]  # the dated sentence is another run's
    wrong = Quote("11", "TF-IDF (71.9 % in the published run)", 71.9, metric("compare/world/acc/tfidf"))
    assert not wrong.agrees()
