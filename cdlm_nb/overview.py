"""The tutorial's map (notebook 00): the papers it cites, which notebook reproduces which section, and CDLM at a glance
(one tiny input per model, masked and given global attention by the package's own collator).

`REFERENCES` is the one source of truth for citations (docs/references.md is `tooling.docs_pages.references_markdown()`;
a test keeps the two equal). Text cites a paper by its `name` ("the CDLM paper, Table 6"), never by a file name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .profiles import SEED, get_profile, profile_names
from .support.errors import ConfigError
from .support.paths import repo_root

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

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
    if (found := next((ref for ref in REFERENCES if ref.key == key), None)) is None:
        raise ConfigError(f"unknown reference key {key!r}; known: {[ref.key for ref in REFERENCES]}")
    return found


def reference_rows() -> list[dict[str, str]]:
    """One row per reference, in `REFERENCE_COLUMNS` order (the data behind both renderings)."""
    return [{"name": ref.name, "authors": ref.authors, "title": ref.title, "venue": ref.venue,
             "year": str(ref.year), "arXiv": ref.arxiv or "—", "link": ref.link} for ref in REFERENCES]


def references_table() -> "pd.DataFrame":
    """The references as a DataFrame indexed by name (what notebook 00 shows)."""
    import pandas as pd

    return pd.DataFrame(reference_rows(), columns=REFERENCE_COLUMNS).set_index("name")


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
    Chapter("01", "cross_document_masking", "packing a document cluster into one input; global attention on masked "
            "tokens", (("cdlm", "§2.1-2.3, Figure 2"),)),
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
    Chapter("08", "aose", "attention over sentence embeddings for long-document classification", (("aose", "§3-4"),)),
    Chapter("09", "match_ignition", "PageRank sentence and token pruning for long-form matching",
            (("match-ignition", "§3-4"),)),
    Chapter("10", "cda", "cross-document attention over hierarchical attention networks", (("cda", "§3 and §5"),)),
    Chapter("11", "comparison", "every system on the same pairs: accuracy, cost and where each one fails",
            (("cdlm", "§3.3"), ("aose", "§3"), ("match-ignition", "§4"), ("cda", "§5"))),
)


def measured_seconds(baseline: str | Path) -> dict[str, float]:
    """Notebook stem -> seconds, from a published run's results (`baselines/cpu.json`)."""
    return {nb["name"]: float(nb["seconds"]) for nb in json.loads(Path(baseline).read_text())["notebooks"]}


def minutes(seconds: float) -> str:
    """`< 1 min`, or whole minutes."""
    return "< 1 min" if seconds < 60 else f"{round(seconds / 60)} min"


def chapter_table() -> "pd.DataFrame":
    """The tutorial's map, indexed by notebook: what each teaches, the paper sections it reproduces and, in a
    checkout, its minutes on the `cpu` profile measured by the published run (`baselines/cpu.json`)."""
    import pandas as pd

    root = repo_root()
    baseline = root / "baselines" / "cpu.json" if root else None
    seconds = measured_seconds(baseline) if baseline is not None and baseline.is_file() else {}
    table = pd.DataFrame([{"notebook": f"{ch.number}_{ch.name}", "teaches": ch.teaches, "paper": ch.paper}
                          for ch in CHAPTERS]).set_index("notebook")
    if seconds:
        table["cpu (measured)"] = [minutes(seconds[stem]) if stem in seconds else "—" for stem in table.index]
    return table


def profile_table() -> "pd.DataFrame":
    """The run profiles side by side: data source, suite budget and what each is for."""
    import pandas as pd

    rows = [{"profile": p.name, "data": p.data_source, "suite budget (min)": p.minutes_budget or "hours",
             "what": p.description} for p in map(get_profile, profile_names())]
    return pd.DataFrame(rows).set_index("profile")


# CDLM at a glance: one tiny input per model, built by the same functions the notebooks train with
GLANCE_MODELS = ("longformer", "local", "rand", "prefix", "cdlm")
GLANCE_WINDOW = 8  # a tiny local window (4 tokens each side) so that the strips show it; the paper's is 512


@dataclass(frozen=True)
class GlanceRow:
    """One model's input per token (document, predicted, global) and what the `probe` token `reads` (0 nothing,
    1 through the window, 2 through global attention: `attention_pattern.attention_kinds`)."""

    documents: str  # in words: "1 document", "3 related documents", "3 unrelated documents"
    doc_ids: list[int]
    predicted: list[bool]
    is_global: list[bool]
    probe: int
    reads: list[int]

    def global_rule(self) -> str:
        """Which tokens are global, read off the row: none, exactly the masked ones, or a prefix."""
        count = sum(self.is_global)
        if not count:
            return "no global attention"
        if self.is_global == self.predicted:
            return f"global attention on the {count} masked tokens"
        if all(self.is_global[:count]):
            return f"global attention on the first {count} tokens"
        return f"global attention on {count} tokens"


def glance_rows(window: int = GLANCE_WINDOW, seed: int = SEED, documents: int = 3) -> dict[str, GlanceRow]:
    """`GlanceRow` per model: the first sentences of `documents` documents of the smoke world's first training
    cluster (Rand: of as many clusters; Longformer: one), packed and masked by the collator with the model's pattern
    (the shipped cpu tokenizer: nothing is downloaded); the probe is the last predicted token."""
    import random

    from transformers import AutoTokenizer

    from .attention_pattern import attention_kinds
    from .data.corpora import world
    from .data.text import split_sentences
    from .inputs import pack_cluster
    from .masking import IGNORE_INDEX, CrossDocumentMLMCollator
    from .pretraining.shipped_base import shipped_base_dir
    from .variants import SINGLE_DOCUMENT_VARIANTS, attention_pattern_of

    tokenizer = AutoTokenizer.from_pretrained(shipped_base_dir("cpu"))
    clusters = world(get_profile("smoke").world).clusters["train"]
    related = [split_sentences(document)[0] for document in clusters[0]["documents"][:documents]]
    unrelated = [split_sentences(docs[0])[0] for docs in clusters[:documents]["documents"]]
    rows = {}
    for model in GLANCE_MODELS:
        texts = related[:1] if model in SINGLE_DOCUMENT_VARIANTS else unrelated if model == "rand" else related
        example = pack_cluster(texts, tokenizer, 10_000, random.Random(seed))
        batch = CrossDocumentMLMCollator(tokenizer, pattern=attention_pattern_of(model), seed=seed)(
            [{"input_ids": example.input_ids}])
        predicted = (batch["labels"][0] != IGNORE_INDEX).tolist()
        kinds = attention_kinds(batch["attention_mask"][0], batch["global_attention_mask"][0], window)
        probe = max(i for i, p in enumerate(predicted) if p)
        kind = "document" if len(texts) == 1 else ("unrelated documents" if model == "rand" else "related documents")
        rows[model] = GlanceRow(f"{len(texts)} {kind}", list(example.doc_ids), predicted,
                                [bool(g) for g in batch["global_attention_mask"][0]], probe, kinds[probe].tolist())
    return rows


def glance_figure(rows: dict[str, GlanceRow] | None = None, window: int = GLANCE_WINDOW) -> "Figure":
    """For each model two strips of token cells: its input (colour: document, red edge: masked, ▼: global) and
    what the probe ★, a masked token, can attend to (solid: its local window, hatched: through global attention)."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import PatchCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    from .attention_pattern import GLOBAL_ATTENTION, LOCAL_ATTENTION, NO_ATTENTION
    from .plots import GLOBAL_MARK, MASKED_EDGE, NO_DOCUMENT_COLOUR, document_palette
    from .variants import display_name

    rows = rows or glance_rows(window)
    width = max(len(row.doc_ids) for row in rows.values())
    palette = document_palette(max(max(row.doc_ids) for row in rows.values()) + 1)
    fig, axes = plt.subplots(len(rows), 1, figsize=(10, 1.05 * len(rows) + 1.0), squeeze=False)
    for ax, (model, row) in zip(axes[:, 0], rows.items()):
        colours = [palette[d] if d >= 0 else NO_DOCUMENT_COLOUR for d in row.doc_ids]
        cells = range(len(colours))
        ax.add_collection(PatchCollection([Rectangle((j, 1.1), 0.9, 0.8) for j in cells], facecolors=colours,
                                          edgecolors=[MASKED_EDGE if m else "none" for m in row.predicted],
                                          linewidths=1.3))
        for kind, hatch in ((NO_ATTENTION, None), (LOCAL_ATTENTION, None), (GLOBAL_ATTENTION, "////")):
            chosen = [j for j in cells if row.reads[j] == kind]
            ax.add_collection(PatchCollection(
                [Rectangle((j, 0.0), 0.9, 0.8) for j in chosen], hatch=hatch, linewidths=0.5,
                facecolors=["white" if kind == NO_ATTENTION else colours[j] for j in chosen],
                edgecolors="#bbbbbb" if kind == NO_ATTENTION else "none"))
        marks = [j + 0.45 for j, is_global in enumerate(row.is_global) if is_global]
        ax.scatter(marks, [2.15] * len(marks), marker="v", s=14, color=GLOBAL_MARK, linewidths=0)
        ax.scatter([row.probe + 0.45], [1.5], marker="*", s=40, color="black", zorder=3)
        others = [j for j, d in enumerate(row.doc_ids) if d >= 0 and d != row.doc_ids[row.probe]]
        read = sum(row.reads[j] != NO_ATTENTION for j in others)
        reach = f"★ reads {read} of the {len(others)} tokens of other documents" if others else "★: one document"
        ax.set_title(f"{display_name(model)}: {row.documents}; {row.global_rule()}; {reach}", loc="left", fontsize=8.5)
        ax.text(-0.4, 1.5, "input", ha="right", va="center", fontsize=7)
        ax.text(-0.4, 0.4, "★ reads", ha="right", va="center", fontsize=7)
        ax.set(xlim=(-4, width + 0.5), ylim=(-0.15, 2.45))
        ax.axis("off")
    handles = [Patch(facecolor=palette[d], label=f"document {d + 1}") for d in range(len(palette))]
    handles += [Patch(facecolor="white", edgecolor=MASKED_EDGE, label="masked (predicted)"),
                Line2D([], [], marker="v", linestyle="none", color=GLOBAL_MARK, label="global attention"),
                Patch(facecolor="#dddddd", label="read through the window"),
                Patch(facecolor="#dddddd", hatch="////", label="read through global attention"),
                Patch(facecolor="white", edgecolor="#bbbbbb", label="out of reach")]
    fig.legend(handles=handles, loc="lower center", ncol=5, frameon=False, fontsize=7.5)
    fig.suptitle(f"CDLM at a glance: one tiny input per model (local window {window} tokens, {window // 2} each side; "
                 "the paper's: 512 of 4,096)", fontsize=10, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig
