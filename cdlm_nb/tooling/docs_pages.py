"""Pages of the docs generated from the package, so they cannot go stale: the references table of
docs/references.md (`references_markdown`, from `overview.REFERENCES`) and the package map of docs/maintainers.md
(`package_table`, each module's first docstring sentence, read from the source)."""

from __future__ import annotations

import ast
import pkgutil
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..overview import REFERENCE_COLUMNS, reference_rows

if TYPE_CHECKING:
    import pandas as pd


def references_markdown() -> str:
    """The references as a Markdown table (docs/references.md holds exactly this text)."""
    lines = ["| " + " | ".join(REFERENCE_COLUMNS[:-1]) + " |", "|" + "---|" * (len(REFERENCE_COLUMNS) - 1)]
    for row in reference_rows():
        arxiv = f"[{row['arXiv']}]({row['link']})" if row["arXiv"] != "—" else f"— ([site]({row['link']}))"
        cells = (row["name"], row["authors"], f"*{row['title']}*", row["venue"], row["year"], arxiv)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)



_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bal)\.(\s|$)")


def summary_line(docstring: str | None, limit: int = 170) -> str:
    """The first sentence of a docstring's first paragraph, on one line (cut at `limit` characters with "…")."""
    paragraph = " ".join((docstring or "").strip().split("\n\n")[0].split())
    end = _SENTENCE_END.search(paragraph)
    sentence = paragraph[:end.start() + 1] if end else paragraph
    return sentence if len(sentence) <= limit else sentence[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def package_rows() -> list[dict[str, str]]:
    """One row per public module and subpackage of `cdlm_nb`, in name order, with the first sentence of its
    docstring (read from the source, nothing imported); subpackages are listed with their modules."""
    root = Path(__file__).resolve().parent.parent
    rows = []
    for info in sorted(pkgutil.iter_modules([str(root)]), key=lambda info: info.name):
        if info.name.startswith("_"):
            continue
        path = root / info.name / "__init__.py" if info.ispkg else root / f"{info.name}.py"
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        modules = sorted(m.name for m in pkgutil.iter_modules([str(root / info.name)]) if not m.name.startswith("_")
                         ) if info.ispkg else []
        rows.append({"name": f"cdlm_nb.{info.name}", "kind": "subpackage" if info.ispkg else "module",
                     "what": summary_line(docstring), "modules": ", ".join(modules)})
    return rows


def package_table() -> "pd.DataFrame":
    """`package_rows` as a DataFrame indexed by name: the flat shared layer first, then one subpackage per stage."""
    import pandas as pd

    table = pd.DataFrame(package_rows()).set_index("name")
    return pd.concat([table[table["kind"] == "module"].drop(columns="modules"), table[table["kind"] == "subpackage"]]
                     ).fillna("")
