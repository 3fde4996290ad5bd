"""What a system that learned nothing scores on HotpotQA (`constant_prediction`: the training set's most frequent
answer, every sentence as support), and a non-neural reference (`tfidf_prediction`), both scored as the models:
- paragraphs: the two with the highest TF-IDF cosine to the question (title and text; idf from the record);
- supporting facts: each chosen paragraph's first sentence and its sentence closest to the question;
- answer: "yes" for a question opening with an auxiliary verb ("Did …"); the first option of a "…, A or B?"
  question; else the first capitalised phrase or number of the best-matching chosen sentence not in the question."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from .inputs import GOLD_PARAGRAPHS, Decoded

AUXILIARIES = ("is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will")
_OPTIONS = re.compile(r",\s*(?:the one (?:in|called by) |those in )?(.+?)\s+or\s+(?:the one (?:in|called by) |"
                      r"those in )?(.+?)\?\s*$")
_CANDIDATE = re.compile(r"(?:[A-Z][\w'.-]*(?:\s+(?:of|the|de|and)?\s*[A-Z][\w'.-]*)*)|\d[\d,.]*")


def heuristic_answer(question: str, sentence: str) -> str:
    """The answer rule of the module docstring."""
    words = question.strip().split()
    if words and words[0].lower() in AUXILIARIES:
        return "yes"
    if options := _OPTIONS.search(question):
        return options.group(1).strip()
    asked = question.lower()
    for match in _CANDIDATE.finditer(sentence):
        candidate = match.group(0).strip(" .,")
        if candidate and candidate.lower() not in asked:
            return candidate
    return ""


def tfidf_prediction(row: Mapping[str, Any]) -> Decoded:
    """The reference's prediction for one `QA_FEATURES` row."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    titles, paragraphs = row["context"]["title"], row["context"]["sentences"]
    sentences = [sentence for paragraph in paragraphs for sentence in paragraph]
    texts = [row["question"], *(f"{t} {' '.join(p)}" for t, p in zip(titles, paragraphs)), *sentences]
    vectors = TfidfVectorizer(stop_words="english").fit_transform(texts)
    similarity = (vectors[1:] @ vectors[0].T).toarray().ravel()  # rows are L2-normalised: cosines
    paragraph_scores, sentence_scores = similarity[:len(titles)], similarity[len(titles):]
    chosen = sorted(np.argsort(-paragraph_scores, kind="stable")[:GOLD_PARAGRAPHS].tolist())
    offsets = np.cumsum([0, *map(len, paragraphs)])
    keys, best = [], (-np.inf, "")
    for p in (p for p in chosen if paragraphs[p]):
        own = sentence_scores[offsets[p]:offsets[p + 1]]
        top = int(np.argmax(own))
        keys += [(titles[p], i) for i in sorted({0, top})]
        if own[top] > best[0]:
            best = (float(own[top]), paragraphs[p][top])
    return Decoded(heuristic_answer(row["question"], best[1]), keys, [titles[p] for p in chosen])


def most_frequent_answer(rows) -> str:
    """The training set's most frequent answer (ties: the first met): what a head that learned nothing answers."""
    return Counter(row["answer"] for row in rows).most_common(1)[0][0]


def constant_prediction(row: Mapping[str, Any], answer: str) -> Decoded:
    """The reference row's prediction: `answer`, every sentence as support (recall 1, precision the gold share)."""
    titles, paragraphs = row["context"]["title"], row["context"]["sentences"]
    return Decoded(answer, [(t, i) for t, p in zip(titles, paragraphs) for i in range(len(p))], list(titles))
