"""The tutorial's map: the papers it cites (one references table) and which notebook reproduces which section.

`REFERENCES` is the one source of truth for citations: notebook 00 shows it with `references_table()` and the
README's "References" section is `references_markdown()` (a test keeps the two equal). Text elsewhere cites a
paper by its `name` ("the CDLM paper, Table 6"), never by a file name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import ConfigError
from .paths import repo_root

if TYPE_CHECKING:
    import pandas as pd

CDLM_AUTHORS = "Avi Caciularu, Arman Cohan, Iz Beltagy, Matthew E. Peters, Arie Cattan, Ido Dagan"


@dataclass(frozen=True)
class Reference:
    """One cited work: `name` is how the repository's text cites it; `arxiv` (or `url`) is where to read it."""

    key: str  # short identifier used in code (`reference("cdlm")`, `Chapter.cites`)
    name: str  # how text cites it, e.g. "CDLM paper" -> "the CDLM paper, Table 6"
    authors: str
    title: str
    venue: str
    year: int
    arxiv: str = ""  # arXiv identifier, with a version where the version matters (e.g. "2101.00406v2")
    url: str = ""  # only for works without an arXiv identifier

    @property
    def link(self) -> str:
        """The page to read the work: its arXiv abstract page, else `url`."""
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else self.url


REFERENCES: tuple[Reference, ...] = (
    Reference("cdlm", "CDLM paper", CDLM_AUTHORS, "CDLM: Cross-Document Language Modeling",
              "Findings of EMNLP 2021", 2021, arxiv="2101.00406v2"),
    Reference("cdlm-v1", "CDLM preprint (v1)", CDLM_AUTHORS, "Cross-Document Language Modeling",
              "arXiv preprint (first version)", 2021, arxiv="2101.00406v1"),
    Reference("aose", "AoSE", "Amine Abdaoui, Sourav Dutta",
              "Attention over pre-trained Sentence Embeddings for Long Document Classification",
              "ReNeuIR'23 workshop (CEUR-WS)", 2023, arxiv="2307.09084"),
    Reference("match-ignition", "Match-Ignition", "Liang Pang, Yanyan Lan, Xueqi Cheng",
              "Match-Ignition: Plugging PageRank into Transformer for Long-form Text Matching",
              "arXiv preprint", 2021, arxiv="2101.06423"),
    Reference("cda", "CDA", "Xuhui Zhou, Nikolaos Pappas, Noah A. Smith",
              "Multilevel Text Alignment with Cross-Document Attention", "EMNLP 2020", 2020, arxiv="2010.01263"),
    Reference("longformer", "Longformer", "Iz Beltagy, Matthew E. Peters, Arman Cohan",
              "Longformer: The Long-Document Transformer", "arXiv preprint", 2020, arxiv="2004.05150"),
    Reference("roberta", "RoBERTa", "Yinhan Liu, Myle Ott, Naman Goyal, et al.",
              "RoBERTa: A Robustly Optimized BERT Pretraining Approach", "arXiv preprint", 2019, arxiv="1907.11692"),
    Reference("bert", "BERT", "Jacob Devlin, Ming-Wei Chang, Kenton Lee, Kristina Toutanova",
              "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding", "NAACL 2019", 2019,
              arxiv="1810.04805"),
    Reference("ecbplus", "ECB+", "Agata Cybulska, Piek Vossen",
              "Using a Sledgehammer to Crack a Nut? Lexical Diversity and Event Coreference Resolution", "LREC 2014",
              2014, url="https://github.com/cltl/ecbPlus"),
    Reference("multinews", "Multi-News", "Alexander R. Fabbri, Irene Li, Tianwei She, Suyi Li, Dragomir R. Radev",
              "Multi-News: a Large-Scale Multi-Document Summarization Dataset and Abstractive Hierarchical Model",
              "ACL 2019", 2019, arxiv="1906.01749"),
    Reference("hotpotqa", "HotpotQA", "Zhilin Yang, Peng Qi, Saizheng Zhang, et al.",
              "HotpotQA: A Dataset for Diverse, Explainable Multi-hop Question Answering", "EMNLP 2018", 2018,
              arxiv="1809.09600"),
)

REFERENCE_COLUMNS = ("name", "authors", "title", "venue", "year", "arXiv", "link")


def reference(key: str) -> Reference:
    """The reference with this `key`; a ConfigError lists the known keys."""
    for ref in REFERENCES:
        if ref.key == key:
            return ref
    raise ConfigError(f"unknown reference key {key!r}; known: {[ref.key for ref in REFERENCES]}")


def reference_rows() -> list[dict[str, str]]:
    """One row per reference, in `REFERENCE_COLUMNS` order (the data behind both renderings)."""
    return [{"name": ref.name, "authors": ref.authors, "title": ref.title, "venue": ref.venue,
             "year": str(ref.year), "arXiv": ref.arxiv or "—", "link": ref.link} for ref in REFERENCES]


def references_table() -> "pd.DataFrame":
    """The references as a DataFrame indexed by name (what notebook 00 shows)."""
    import pandas as pd

    return pd.DataFrame(reference_rows(), columns=REFERENCE_COLUMNS).set_index("name")


def references_markdown() -> str:
    """The references as a Markdown table (the README's "References" section holds exactly this text)."""
    lines = ["| " + " | ".join(REFERENCE_COLUMNS[:-1]) + " |", "|" + "---|" * (len(REFERENCE_COLUMNS) - 1)]
    for row in reference_rows():
        arxiv = f"[{row['arXiv']}]({row['link']})" if row["arXiv"] != "—" else f"— ([site]({row['link']}))"
        cells = (row["name"], row["authors"], f"*{row['title']}*", row["venue"], row["year"], arxiv)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Chapter:
    """One notebook: what it teaches and the paper sections it reproduces (`cites`: (reference key, where))."""

    number: str
    name: str
    teaches: str
    cites: tuple[tuple[str, str], ...] = ()

    @property
    def paper(self) -> str:
        """The sections reproduced, cited by paper name, e.g. "CDLM paper §3.5, Table 6"."""
        return "; ".join(f"{reference(key).name} {where}" for key, where in self.cites) or "—"


CHAPTERS: tuple[Chapter, ...] = (
    Chapter("00", "overview", "multi-document NLP, why CDLM, how to run everything"),
    Chapter("01", "cross_document_masking",
            "packing a document cluster into one input; global attention on masked tokens",
            (("cdlm", "§2.1-2.3, Figure 2"),)),
    Chapter("02", "pretraining", "cross-document MLM pretraining next to Local / Rand / Prefix ablations",
            (("cdlm", "§2.3 and §3 (baseline LMs)"), ("cdlm-v1", "§4 (hyper-parameters)"))),
    Chapter("03", "cross_document_perplexity", "held-out cross-document perplexity",
            (("cdlm", "§3.1, Table 1"), ("cdlm-v1", "§5.1, Table 1"))),
    Chapter("04", "coreference", "ECB+ cross-document coreference: scorer, lemma baseline, cross-encoder",
            (("cdlm", "§3.2, Tables 2-3"), ("cdlm-v1", "§5.2, Appendix B.1"))),
    Chapter("05", "document_matching", "long-document matching on the CDA benchmark",
            (("cdlm", "§3.3, Table 4"), ("cdlm-v1", "§5.3, Tables 4-5"))),
    Chapter("06", "multihop_qa", "multi-hop question answering on HotpotQA", (("cdlm", "§3.4, Table 5"),)),
    Chapter("07", "attention_analysis", "do learned global attentions align coreferring mentions?",
            (("cdlm", "§3.5, Table 6"),)),
    Chapter("08", "aose", "attention over sentence embeddings for long-document classification",
            (("aose", "§3-4"),)),
    Chapter("09", "match_ignition", "PageRank sentence and token pruning for long-form matching",
            (("match-ignition", "§3-4"),)),
    Chapter("10", "cda", "cross-document attention over hierarchical attention networks", (("cda", "§3 and §5"),)),
    Chapter("11", "comparison", "every system on the same pairs: accuracy, cost and where each one fails",
            (("cdlm", "§3.3"), ("aose", "§3"), ("match-ignition", "§4"), ("cda", "§5"))),
)


def chapter_rows() -> list[dict[str, str]]:
    """One row per chapter, saying whether its notebook is in this checkout yet."""
    root = repo_root()
    present = {p.stem for p in (root / "notebooks").glob("*.ipynb")} if root else None
    rows = []
    for ch in CHAPTERS:
        stem = f"{ch.number}_{ch.name}"
        status = "see the repository" if present is None else ("ready" if stem in present else "planned")
        rows.append({"notebook": stem, "teaches": ch.teaches, "paper": ch.paper, "status": status})
    return rows


def chapter_table() -> "pd.DataFrame":
    """The chapters as a DataFrame indexed by notebook (what notebook 00 shows)."""
    import pandas as pd

    return pd.DataFrame(chapter_rows()).set_index("notebook")


def profile_table() -> "pd.DataFrame":
    """The run profiles side by side: data source, suite budget and what each is for."""
    import pandas as pd

    from .profiles import get_profile, profile_names

    rows = [{"profile": p.name, "data": p.data_source, "suite budget (min)": p.minutes_budget or "hours",
             "what": p.description} for p in map(get_profile, profile_names())]
    return pd.DataFrame(rows).set_index("profile")
