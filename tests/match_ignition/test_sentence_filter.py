"""The sentence-level filter: TextRank edge weights, PageRank on a hand-made graph, top λ in original order."""

import math

import networkx as nx
import pytest

from cdlm_nb.match_ignition.sentence_filter import (
    content_words,
    edge_weight,
    filter_pair,
    sentence_graph,
    sentence_scores,
)
from cdlm_nb.support.errors import ConfigError


def test_edge_weight_by_hand():
    a, b = ["quake", "struck", "city"], ["quake", "city", "damage", "roads"]
    assert edge_weight(a, b) == pytest.approx(2 / (math.log(3) + math.log(4)))
    assert edge_weight(["quake"], ["storm"]) == 0.0
    assert edge_weight(["quake"], ["quake"]) == 1.0  # log 1 + log 1 = 0: divided by 1 instead


def test_stop_words_do_not_link_sentences():
    assert content_words("The quake struck the city.") == ["quake", "struck", "city"]
    graph = sentence_graph(["The quake was in the city."], ["It was the best of times."])
    assert graph.number_of_edges() == 0


def test_pagerank_on_a_hand_made_graph_prefers_the_hub():
    doc_a = ["Quake hits city.", "Weather mild today.", "Quake damage city roads."]
    doc_b = ["City quake kills ten.", "Football match tonight."]
    scores = sentence_scores(doc_a, doc_b)
    expected = nx.pagerank(sentence_graph(doc_a, doc_b), alpha=0.85, weight="weight")
    assert scores == pytest.approx(expected)
    assert scores[(0, 0)] > scores[(0, 1)] and scores[(1, 0)] > scores[(1, 1)]


def test_filter_keeps_top_sentences_in_original_order():
    doc_a = ["Weather mild today.", "Quake hits city.", "Shops open late.", "Quake damage city roads."]
    doc_b = ["City quake kills ten.", "Football match tonight."]
    kept_a, kept_b = filter_pair(doc_a, doc_b, keep=2)
    assert kept_a == ["Quake hits city.", "Quake damage city roads."]  # the two quake sentences, in order
    assert kept_b == doc_b  # fewer than λ: all kept
    assert filter_pair(doc_a, doc_b, keep=2, mode="first") == (doc_a[:2], doc_b[:2])
    with pytest.raises(ConfigError, match="mode='last' is not a sentence filter"):
        filter_pair(doc_a, doc_b, mode="last")
