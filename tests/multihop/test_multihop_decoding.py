"""Decoding: the best span within one sentence, the two best paragraphs, supporting sentences, yes/no."""

import numpy as np

from cdlm_nb.multihop.inputs import add_qa_markers, best_span, decode, encode_question, official_prediction


def test_best_span_stays_in_one_allowed_sentence_and_within_the_length():
    start = np.array([0, 5, 0, 0, 9, 0], dtype=float)
    end = np.array([0, 0, 1, 0, 0, 8], dtype=float)
    sentences = [-1, 0, 0, -1, 1, 1]
    assert best_span(start, end, sentences, {0, 1}, max_tokens=5) == (4, 5)
    assert best_span(start, end, sentences, {0}, max_tokens=5) == (1, 2)
    assert best_span(start, end, sentences, {1}, max_tokens=1) == (4, 4)
    assert best_span(start, end, sentences, set(), max_tokens=5) is None


def _logits(item, paragraph, sentence, kind, start_token=None, end_token=None):
    n = len(item.input_ids)
    start, end = np.zeros(n), np.zeros(n)
    if start_token is not None:
        start[start_token], end[end_token] = 10, 10
    return {"paragraph": np.array(paragraph, float), "sentence": np.array(sentence, float),
            "answer_type": np.array(kind, float), "start": start, "end": end}


def test_decode_restricts_everything_to_the_two_best_paragraphs(qa_row, qa_tokenizer):
    item = encode_question(qa_row, qa_tokenizer, add_qa_markers(qa_tokenizer), max_length=256)
    lyon = [t for t, s in enumerate(item.token_sentence) if s == 5][-3]  # a token of the last sentence
    decoded = decode(item, _logits(item, [-5, 3, 2], [9, 9, -9, -9, -9, 1], [5, 0, 0], lyon, lyon), 30)
    assert decoded.paragraphs == ["Acme Corp", "Jean Dupont"]
    # the distractor's sentences are never supporting; a chosen paragraph keeps at least its best sentence
    assert decoded.supporting == [("Acme Corp", 0), ("Jean Dupont", 1)]
    assert decoded.answer and decoded.answer in qa_row["context"]["sentences"][2][1]
    yes = decode(item, _logits(item, [-5, 3, 2], [0] * 6, [0, 5, 0]), 30)
    assert yes.answer == "yes"
    prediction = official_prediction({"q1": decoded})
    assert prediction == {"answer": {"q1": decoded.answer}, "sp": {"q1": [["Acme Corp", 0], ["Jean Dupont", 1]]}}
