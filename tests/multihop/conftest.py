"""Tiny HotpotQA rows and a tokenizer with the QA markers, shared by the multi-hop tests."""

import copy

import pytest


@pytest.fixture
def qa_row() -> dict:
    """One hand-made distractor-setting question: two gold paragraphs, one distractor."""
    return {
        "id": "q1", "question": "In which city was the founder of Acme Corp born?", "answer": "Lyon",
        "type": "bridge", "level": "",
        "supporting_facts": {"title": ["Acme Corp", "Jean Dupont"], "sent_id": [0, 1]},
        "context": {"title": ["Weather", "Acme Corp", "Jean Dupont"],
                    "sentences": [["It rained all week.", " Floods followed."],
                                  ["Acme Corp was founded by Jean Dupont.", " It sells anvils."],
                                  ["Jean Dupont is an engineer.", " He was born in Lyon in 1950."]]},
    }


@pytest.fixture
def qa_tokenizer(tiny_tokenizer):
    """A copy of the session tokenizer (markers get added to it)."""
    return copy.deepcopy(tiny_tokenizer)
