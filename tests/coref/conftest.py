"""Fixtures of the coreference tests: a two-document hand-made corpus (an earthquake told twice, and an arrest),
its mentions, and copies of the shared tiny tokenizer/encoder with the `<m>`/`</m>` markers added."""

from __future__ import annotations

import copy

import pytest

SENTENCES_A = [
    "A strong earthquake struck the coastal town on Monday .".split(),
    "Officials said the quake damaged dozens of houses near the harbour .".split(),
    "Rescue teams searched the ruins through the night .".split(),
]
SENTENCES_B = [
    "The tremor hit the small town early in the week .".split(),
    "Police arrested a man after the robbery downtown .".split(),
]


def _mention(mid, kind, sentence, start, end, cluster, sentences):
    return {"mention_id": mid, "kind": kind, "type": "X", "sentence": sentence, "start": start, "end": end,
            "text": " ".join(sentences[sentence][start:end]), "cluster_id": cluster, "singleton": False}


def make_corpus() -> list[dict]:
    """Two documents of one subtopic: an earthquake (struck/quake/tremor) and an arrest (fresh dicts each call)."""
    doc_a = {"doc_id": "1_1ecb", "topic": "1", "subtopic": "1_ecb", "sentence_ids": [0, 1, 2],
             "sentences": SENTENCES_A, "mentions": [
                 _mention("a1", "event", 0, 3, 4, "quake", SENTENCES_A),  # struck
                 _mention("a2", "event", 1, 3, 4, "quake", SENTENCES_A),  # quake
                 _mention("a3", "event", 2, 2, 3, "search", SENTENCES_A),  # searched
                 _mention("a4", "entity", 0, 4, 7, "town", SENTENCES_A),  # the coastal town
             ]}
    doc_b = {"doc_id": "1_2ecb", "topic": "1", "subtopic": "1_ecb", "sentence_ids": [0, 1],
             "sentences": SENTENCES_B, "mentions": [
                 _mention("b1", "event", 0, 1, 2, "quake", SENTENCES_B),  # tremor
                 _mention("b2", "event", 1, 1, 2, "arrest", SENTENCES_B),  # arrested
             ]}
    return [doc_a, doc_b]


@pytest.fixture
def corpus() -> list[dict]:
    return make_corpus()


@pytest.fixture(scope="module")
def tokenizer(tiny_tokenizer):
    """A copy of the shared tokenizer (`<m>`/`</m>` get added to it)."""
    return copy.deepcopy(tiny_tokenizer)


@pytest.fixture(scope="module")
def encoder(tiny_encoder):
    """A copy of the shared tiny LongformerForMaskedLM (its embeddings grow by the markers)."""
    return copy.deepcopy(tiny_encoder.model)


@pytest.fixture(scope="module")
def special(tokenizer, encoder):
    from cdlm_nb.coref.inputs import add_mention_markers

    return add_mention_markers(tokenizer, encoder)


@pytest.fixture(scope="module")
def documents(tokenizer, special):
    from cdlm_nb.coref.mentions import tokenize_documents

    return tokenize_documents(make_corpus(), tokenizer)


@pytest.fixture(scope="module")
def events():
    from cdlm_nb.coref.mentions import collect_mentions

    return {m.mention_id: m for m in collect_mentions(make_corpus(), "event")}


@pytest.fixture(scope="module")
def word_ids(tokenizer):
    """word -> its subword ids as `tokenize_documents` encodes it (with a leading space)."""
    return lambda word: tokenizer(" " + word, add_special_tokens=False)["input_ids"]
