"""The references table (one source of truth for citations) and the chapter map, and their agreement with the
README and notebook 00."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from cdlm_nb.overview import (
    CHAPTERS,
    GLANCE_MODELS,
    REFERENCE_COLUMNS,
    REFERENCES,
    chapter_table,
    glance_figure,
    glance_rows,
    profile_table,
    reference,
    reference_rows,
    references_table,
)
from cdlm_nb.profiles import profile_names
from cdlm_nb.support.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[1]
ARXIV_ID = re.compile(r"^\d{4}\.\d{5}(v\d+)?$")


def test_references_have_unique_keys_and_names_and_full_entries():
    assert len({ref.key for ref in REFERENCES}) == len(REFERENCES)
    assert len({ref.name for ref in REFERENCES}) == len(REFERENCES)
    for ref in REFERENCES:
        assert ref.authors and ref.title and ref.venue, ref.key
        assert 2000 < ref.year < 2100, ref.key
        assert ref.arxiv or ref.url, f"{ref.key} needs an arXiv id or a url"
        assert not ref.arxiv or ARXIV_ID.match(ref.arxiv), ref.arxiv
        assert ref.link.startswith("https://"), ref.key


def test_the_two_cdlm_versions_are_told_apart():
    paper, preprint = reference("cdlm"), reference("cdlm-v1")
    assert (paper.name, paper.arxiv, paper.venue) == ("CDLM paper", "2101.00406v2", "Findings of EMNLP 2021")
    assert (preprint.name, preprint.arxiv) == ("CDLM preprint (v1)", "2101.00406v1")
    assert paper.title == "CDLM: Cross-Document Language Modeling"
    assert preprint.title == "Cross-Document Language Modeling"
    assert paper.authors == preprint.authors and paper.authors.startswith("Avi Caciularu")


def test_the_related_methods_are_cited_by_their_arxiv_ids():
    assert {reference(key).arxiv for key in ("aose", "match-ignition", "cda", "longformer")} == {
        "2307.09084", "2101.06423", "2010.01263", "2004.05150"}


def test_unknown_reference_key_is_a_config_error_listing_the_keys():
    with pytest.raises(ConfigError, match=r"unknown reference key 'cdlm-v3'.*'cdlm-v1'"):
        reference("cdlm-v3")


def test_reference_rows_and_table_hold_every_reference_in_order():
    rows = reference_rows()
    assert [row["name"] for row in rows] == [ref.name for ref in REFERENCES]
    assert all(tuple(row) == REFERENCE_COLUMNS for row in rows)
    table = references_table()
    assert list(table.index) == [ref.name for ref in REFERENCES]
    assert table.loc["CDLM paper", "link"] == "https://arxiv.org/abs/2101.00406v2"
    assert table.loc["ECB+", "arXiv"] == "—"


def test_notebook_00_shows_the_chapter_and_reference_tables():
    nb = nbformat.read(REPO_ROOT / "notebooks" / "00_overview.ipynb", as_version=4)
    code = [cell.source.strip() for cell in nb.cells if cell.cell_type == "code"]
    assert "references_table()" in code and "chapter_table()" in code


def test_chapters_are_numbered_in_order_and_cite_known_papers():
    numbers = [int(ch.number) for ch in CHAPTERS]
    assert numbers == list(range(len(CHAPTERS)))
    for ch in CHAPTERS[1:]:
        assert ch.cites, f"chapter {ch.number} cites no paper section"
        for key, where in ch.cites:
            reference(key)  # raises for an unknown key
            assert where.strip()


def test_chapter_paper_column_cites_papers_by_name():
    papers = {ch.number: ch.paper for ch in CHAPTERS}
    assert papers["00"] == "—"
    assert papers["04"].startswith("CDLM paper §3.2, Tables 2-3")
    assert papers["05"].startswith("CDLM paper §3.3, Table 4")
    assert papers["06"] == "CDLM paper §3.4, Table 5"
    assert papers["07"] == "CDLM paper §3.5, Table 6"
    assert "CDLM preprint (v1) §5.1, Table 1" in papers["03"]


def test_every_notebook_in_the_checkout_is_a_chapter_with_its_measured_minutes():
    table = chapter_table()
    notebooks = sorted(p.stem for p in (REPO_ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks and sorted(table.index) == notebooks, "cdlm_nb.overview.CHAPTERS and notebooks/ must name the same"
    assert list(table.columns) == ["teaches", "paper", "cpu (measured)"]
    assert table.loc["02_pretraining", "cpu (measured)"].endswith("min")


def test_profile_table_has_one_row_per_profile():
    table = profile_table()
    assert list(table.index) == profile_names()
    assert list(table.columns) == ["data", "suite budget (min)", "what"]


# The strings are split so that this file does not match its own check.
_FORBIDDEN = re.compile("seed" + r" 00\d|" + "REFERENCE" + "_NOTES|" + "seeds" + "/", re.IGNORECASE)


def test_no_text_cites_files_readers_do_not_have():
    """Papers are cited by name (REFERENCES), never by the file names of a local paper collection."""
    paths = [REPO_ROOT / "README.md"]
    for folder in ("cdlm_nb", "notebooks", "tests", "benchmarks"):
        paths += [p for p in (REPO_ROOT / folder).rglob("*") if p.suffix in {".py", ".ipynb", ".md"}]
    hits = [f"{path.relative_to(REPO_ROOT)}:{n}" for path in paths
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if _FORBIDDEN.search(line)]
    assert not hits, f"cite papers by name (cdlm_nb.overview.REFERENCES) instead, at: {hits}"


def test_glance_rows_come_from_the_collator_and_show_what_each_model_changes():
    rows = glance_rows()
    assert tuple(rows) == GLANCE_MODELS
    documents = {model: len({d for d in row.doc_ids if d >= 0}) for model, row in rows.items()}
    assert documents == {"longformer": 1, "local": 3, "rand": 3, "prefix": 3, "cdlm": 3}
    for model in ("cdlm", "rand"):
        assert rows[model].is_global == rows[model].predicted and any(rows[model].predicted)
    for model in ("longformer", "local"):
        assert not any(rows[model].is_global) and rows[model].global_rule() == "no global attention"
    prefix = rows["prefix"]
    assert prefix.global_rule().startswith("global attention on the first") and prefix.is_global[0]
    assert rows["local"].predicted == rows["cdlm"].predicted  # one seed: the same masks, other global attention
    others = [j for j, d in enumerate(rows["cdlm"].doc_ids) if d >= 0 and d != rows["cdlm"].doc_ids[rows["cdlm"].probe]]
    assert all(rows["cdlm"].reads[j] for j in others) and not any(rows["local"].reads[j] for j in others)


def test_glance_figure_has_one_panel_per_model():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = glance_figure(glance_rows())
    assert len(fig.axes) == len(GLANCE_MODELS)
    assert [ax.get_title(loc="left").split(":")[0] for ax in fig.axes] == [
        "Longformer", "Local CDLM", "Rand CDLM", "Prefix CDLM", "CDLM"]
    plt.close(fig)
