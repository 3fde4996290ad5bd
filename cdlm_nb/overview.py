"""The tutorial's map: which notebook teaches what, and which paper section it reproduces."""

from __future__ import annotations

from dataclasses import dataclass

from .paths import repo_root


@dataclass(frozen=True)
class Chapter:
    number: str
    name: str
    teaches: str
    paper: str


CHAPTERS: tuple[Chapter, ...] = (
    Chapter("00", "overview", "multi-document NLP, why CDLM, how to run everything", "—"),
    Chapter("01", "cross_document_masking", "packing a document cluster into one input; global attention on masked tokens",
            "CDLM §2.1-2.3"),
    Chapter("02", "pretraining", "cross-document MLM pretraining next to Local / Rand / Prefix ablations",
            "CDLM §2.3, App. B"),
    Chapter("03", "cross_document_perplexity", "held-out cross-document perplexity", "CDLM Table 1"),
    Chapter("04", "coreference", "ECB+ cross-document coreference: scorer, lemma baseline, cross-encoder",
            "CDLM §3.1, Tables 2-3"),
    Chapter("05", "document_matching", "long-document matching on the CDA benchmark", "CDLM §3.2, Tables 4-5"),
    Chapter("06", "multihop_qa", "multi-hop question answering on HotpotQA", "CDLM §3.3, Table 5"),
    Chapter("07", "attention_analysis", "do learned global attentions align coreferring mentions?",
            "CDLM §3.5, Table 6"),
    Chapter("08", "aose", "attention over sentence embeddings for long-document classification", "AoSE"),
    Chapter("09", "match_ignition", "PageRank sentence and token pruning for long-form matching", "Match-Ignition"),
    Chapter("10", "cda", "cross-document attention over hierarchical attention networks", "CDA"),
)


def chapter_rows() -> list[dict[str, str]]:
    """One row per chapter, saying whether its notebook is in this checkout yet."""
    root = repo_root()
    present = {p.stem for p in (root / "notebooks").glob("*.ipynb")} if root else None
    rows = []
    for ch in CHAPTERS:
        stem = f"{ch.number}_{ch.name}"
        rows.append({"notebook": stem, "teaches": ch.teaches, "paper": ch.paper,
                     "status": "see the repository" if present is None else ("ready" if stem in present else "planned")})
    return rows
