"""Match-Ignition's sentence-level filter (Pang, Lan & Cheng 2021, §3.1): PageRank over one sentence graph of both
documents, keeping each document's top λ sentences in their original order.

Edge weight between sentences s_i, s_j (TextRank's similarity): |common words| / (log|s_i| + log|s_j|), words
lower-cased with English stop words removed (scikit-learn's list), |s| = its number of such words. Two one-word
sentences would divide by log 1 + log 1 = 0: we divide by 1 instead. PageRank: networkx, damping 0.85.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence

import networkx as nx

from ..support.errors import ConfigError

#: PageRank's damping, the paper's (and networkx's default) for both of Match-Ignition's filters.
DAMPING = 0.85
_WORD = re.compile(r"\w+")


def content_words(sentence: str) -> list[str]:
    """The sentence's lower-cased words without English stop words."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return [word for word in _WORD.findall(sentence.lower()) if word not in ENGLISH_STOP_WORDS]


def edge_weight(words_a: Sequence[str], words_b: Sequence[str]) -> float:
    """|common words| / (log|a| + log|b|); 0 without a common word; the denominator 1 when it would be 0."""
    if not (common := len(set(words_a) & set(words_b))):
        return 0.0
    return common / ((math.log(len(words_a)) + math.log(len(words_b))) or 1.0)


def sentence_graph(doc_a: Sequence[str], doc_b: Sequence[str]) -> nx.Graph:
    """Nodes (document 0 or 1, sentence index); an edge wherever two sentences share a content word."""
    words = {(d, i): content_words(s) for d, doc in enumerate((doc_a, doc_b)) for i, s in enumerate(doc)}
    graph = nx.empty_graph(list(words))
    for x, y in itertools.combinations(words, 2):
        if (weight := edge_weight(words[x], words[y])) > 0:
            graph.add_edge(x, y, weight=weight)
    return graph


def sentence_scores(doc_a: Sequence[str], doc_b: Sequence[str]) -> dict[tuple[int, int], float]:
    """PageRank of every sentence of both documents on their joint graph."""
    graph = sentence_graph(doc_a, doc_b)
    return nx.pagerank(graph, alpha=DAMPING, weight="weight") if graph.number_of_nodes() else {}


def top_sentences(scores: dict[tuple[int, int], float], doc: Sequence[str], d: int, keep: int) -> list[int]:
    """The indices of document `d`'s `keep` best-ranked sentences (ties: the earlier), best first."""
    return sorted(range(len(doc)), key=lambda i: (-scores[(d, i)], i))[:keep]


def filter_pair(doc_a: Sequence[str], doc_b: Sequence[str], keep: int = 5,
                mode: str = "pagerank") -> tuple[list[str], list[str]]:
    """Each document's `keep` best-ranked sentences in text order (`mode="first"`: its first `keep`, the ablation)."""
    if mode not in ("pagerank", "first"):
        raise ConfigError(f"filter_pair: mode={mode!r} is not a sentence filter; use mode='pagerank' "
                          "(Match-Ignition's) or mode='first' (the first-λ-sentences ablation)")
    if mode == "first":
        return list(doc_a[:keep]), list(doc_b[:keep])
    scores = sentence_scores(doc_a, doc_b)
    return tuple([doc[i] for i in sorted(top_sentences(scores, doc, d, keep))] for d, doc in enumerate((doc_a, doc_b)))
