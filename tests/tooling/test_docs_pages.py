"""The generated docs pages: the references table of docs/references.md and the package map."""

from __future__ import annotations

from pathlib import Path

from cdlm_nb.overview import REFERENCE_COLUMNS, REFERENCES
from cdlm_nb.tooling.docs_pages import package_rows, package_table, references_markdown, summary_line

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_markdown_table_has_a_header_and_one_row_per_reference():
    lines = references_markdown().splitlines()
    assert lines[0].startswith("| name | authors | title |")
    assert len(lines) == 2 + len(REFERENCES)
    assert all(line.count(" | ") == len(REFERENCE_COLUMNS) - 2 for line in lines[2:])
    assert "[2101.00406v2](https://arxiv.org/abs/2101.00406v2)" in lines[2]


def test_the_references_page_is_the_rendered_table():
    page = (REPO_ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    assert references_markdown() in page, (
        "docs/references.md differs from overview.REFERENCES: paste tooling.docs_pages.references_markdown() there")


def test_summary_line_is_the_first_sentence_on_one_line():
    assert summary_line("One sentence, e.g. a test\nof lines. Second.\n\nNext paragraph.") == (
        "One sentence, e.g. a test of lines.")
    assert summary_line(None) == ""
    assert summary_line("word " * 100, limit=20).endswith(" …") and len(summary_line("word " * 100, limit=20)) <= 22


def test_package_table_lists_every_module_and_subpackage_of_the_package():
    import pkgutil

    import cdlm_nb

    public = {f"cdlm_nb.{m.name}" for m in pkgutil.iter_modules(cdlm_nb.__path__) if not m.name.startswith("_")}
    rows = {row["name"]: row for row in package_rows()}
    assert set(rows) == public and all(row["what"] for row in rows.values())
    assert rows["cdlm_nb.cda"]["kind"] == "subpackage" and "attention" in rows["cdlm_nb.cda"]["modules"].split(", ")
    table = package_table()
    assert list(table["kind"]).index("subpackage") == sum(row["kind"] == "module" for row in rows.values())
