"""The lexical floor: TF-IDF cosine between the two documents, related when above a threshold tuned on dev
(scikit-learn's `TfidfVectorizer`, fitted on the training documents)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def tfidf_cosines(train: Sequence[Mapping], *splits: Sequence[Mapping]) -> list[np.ndarray]:
    """Cosine of the TF-IDF vectors of each pair's documents, per split; the vocabulary and idf come from the
    training pairs' documents only."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    def texts(rows: Sequence[Mapping], side: str) -> list[str]:
        return [" ".join(row[side]) for row in rows]

    vectorizer = TfidfVectorizer(sublinear_tf=True).fit(texts(train, "doc_a") + texts(train, "doc_b"))
    cosines = []
    for rows in splits:
        a, b = (vectorizer.transform(texts(rows, side)) for side in ("doc_a", "doc_b"))
        cosines.append(np.asarray(a.multiply(b).sum(axis=1)).ravel())  # rows are l2-normalised
    return cosines
