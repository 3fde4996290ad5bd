"""Notebook 11's systems, in the report's order, with the readable label of each that is not a pretrained model.

The ids are the profiles' (`profiles.COMPARISON_SYSTEMS`), so the profiles read them without importing the
comparison's code; this module adds the labels, and `comparison.systems` builds each id.
"""


#: The systems that are not notebook 02's encoders: id -> readable label, in BASELINE_SYSTEMS' order (the encoders use
#: `variants.display_name`; `tests/comparison` checks the two lists agree).
BASELINE_LABELS = {
    "tfidf": "TF-IDF cosine",
    "minilm_cosine": "MiniLM cosine",
    "aose": "AoSE (Siamese)",
    "cda_gru_deep": "CDA: GRU-HAN + DEEP",
    "cda_minilm_shallow": "CDA: MiniLM-HAN + SHALLOW",
    "match_ignition": "Match-Ignition (α = 10 %)",
    "minilm_cross": "MiniLM cross-encoder",
}

__all__ = ["BASELINE_LABELS"]
