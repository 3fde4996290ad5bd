"""The newcomer's path: a short README with the sections a reader needs, links that resolve, and every time and
figure it quotes generated from the published baselines (`chapter_times`), as are the notebooks' time lines."""

import json
import re
from pathlib import Path

import pytest

from cdlm_nb.tooling import chapter_times

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_readme_is_short_and_has_the_newcomers_sections():
    assert len(README.splitlines()) <= 100 and len(README.split()) <= 900
    headings = re.findall(r"^## (.+)$", README, re.M)
    for section in ("Read it without running", "Run it", "The chapters", "What the cpu run shows", "Go further"):
        assert section in headings, f"README.md needs a '## {section}' section"
    assert README.index("docs/notebooks/00_overview.ipynb") < README.index("## Run it")
    run_it = README.split("## Run it")[1].split("\n## ")[0]
    for command in ("make tutorial", "make test", "make lab"):  # the Makefile's three entry points for a newcomer
        assert command in run_it, f"README's 'Run it' should name `{command}`"


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))],
                         ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    missing = [target for target in LINK.findall(page.read_text(encoding="utf-8"))
               if not target.startswith(("http://", "https://", "mailto:")) and not (page.parent / target).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_readme_times_and_figure_are_the_baselines():
    cpu = chapter_times.measured_seconds(ROOT / "baselines" / "cpu.json")
    metrics = json.loads((ROOT / "baselines" / "cpu.json").read_text())["metrics"]
    assert chapter_times.chapters_markdown(cpu) in README, "run chapter_times.sync (cdlm-nb publish does)"
    assert chapter_times.findings_markdown(metrics) in README, "run chapter_times.sync (cdlm-nb publish does)"


def test_every_notebooks_time_line_is_the_baselines():
    cpu, smoke = (chapter_times.measured_seconds(ROOT / "baselines" / f"{p}.json") for p in ("cpu", "smoke"))
    gpu = chapter_times.gpu_minutes()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        first = json.loads(path.read_text())["cells"][0]
        text = "".join(first["source"]) if isinstance(first["source"], list) else first["source"]
        assert chapter_times.TIME_LINE.findall(text) == [chapter_times.time_line(path.stem, cpu, smoke, gpu)], (
            f"{path.name}: its **Time:** line differs from the baselines; run chapter_times.sync")


def findings_metrics(f1: float, acc: float) -> dict[str, float]:
    """The metrics the README's findings read: every encoder at `f1` and `acc`, both reference rows, copy gains."""
    metrics = {f"perplexity/{v}": 2.5 for v in ("longformer", "local", "rand", "prefix", "cdlm")}
    metrics |= {f"matching/world/{m}/{v}": value for v in ("longformer", "local", "rand", "prefix", "cdlm", "tfidf")
                for m, value in (("f1", f1), ("acc", acc))}
    metrics |= {"matching/world/reference/all_related/f1": 0.5, "matching/world/reference/none_related/acc": 2 / 3}
    return metrics | {f"copy_gain/{v}{end}": 0.02 + shift for v in ("local", "rand", "prefix", "cdlm")
                      for end, shift in (("", 0.0), ("/ci_low", -0.01), ("/ci_high", 0.01))}


@pytest.mark.parametrize(("f1", "acc", "learned"), [(0.5, 0.9, False), (0.51, 2 / 3, False), (0.51, 0.68, True)])
def test_findings_name_an_encoder_only_above_both_reference_rows(f1, acc, learned):
    line = chapter_times.findings_markdown(findings_metrics(f1, acc)).splitlines()[-1]
    assert ("above both reference rows: Longformer 51.0" in line) == learned
    assert ("learned nothing here" in line) == (not learned) and "best" not in line


def test_sync_rewrites_what_the_baselines_changed(tmp_path):
    (tmp_path / "baselines").mkdir()
    (tmp_path / "notebooks").mkdir()
    stems = [f"{c.number}_{c.name}" for c in chapter_times.CHAPTERS]
    for profile, seconds in (("cpu", 130.0), ("smoke", 20.0)):
        metrics = {f"perplexity/{v}": 2.5 for v in ("longformer", "local", "rand", "prefix", "cdlm")}
        metrics |= findings_metrics(f1=0.3, acc=0.6)
        (tmp_path / "baselines" / f"{profile}.json").write_text(json.dumps(
            {"notebooks": [{"name": stem, "seconds": seconds} for stem in stems], "metrics": metrics}))
    cell = {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# 05 · x\n\n**Time:** old\n\nmore"}
    (tmp_path / "notebooks" / "05_document_matching.ipynb").write_text(json.dumps({"cells": [cell]}))
    (tmp_path / "README.md").write_text("a\n<!-- chapters:start -->\nold\n<!-- chapters:end -->\n"
                                        "<!-- findings:start -->\n<!-- findings:end -->\n")
    changed = chapter_times.sync(tmp_path)
    assert {p.name for p in changed} == {"05_document_matching.ipynb", "README.md"}
    text = json.loads((tmp_path / "notebooks" / "05_document_matching.ipynb").read_text())["cells"][0]["source"]
    assert "`cpu` 2 min (measured, 2 CPU cores)" in text and text.endswith("\n\nmore")
    readme = (tmp_path / "README.md").read_text()
    assert "| **all twelve** (`make tutorial`) | | **26 min** |" in readme and "old" not in readme
    assert "every encoder (30.0-30.0) learned nothing here (F1 at or under the 50.0 of calling every pair" in readme
    assert "Local +0.020 (+0.010 to +0.030) · Rand +0.020 (+0.010 to +0.030)" in readme
    assert chapter_times.sync(tmp_path) == []  # nothing left to change
