"""The lexical floor of notebook 08: TF-IDF features and a logistic regression (scikit-learn)."""

from __future__ import annotations

import time
from collections.abc import Sequence


def tfidf_predictions(train_texts: Sequence[str], train_labels: Sequence[int],
                      test_texts: Sequence[str]) -> tuple[list[int], float]:
    """(test predictions, training seconds) of TF-IDF (word uni- and bigrams seen at least twice, sublinear tf,
    fitted on the training texts) + logistic regression; scikit-learn's defaults otherwise, nothing tuned."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    started = time.perf_counter()
    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
                          LogisticRegression(max_iter=2000))
    model.fit(list(train_texts), list(train_labels))
    seconds = time.perf_counter() - started
    return [int(label) for label in model.predict(list(test_texts))], seconds
