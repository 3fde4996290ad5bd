"""Notebook 11's systems, in the report's order, with the readable label of each that is not a pretrained model.

The one list of system ids: the profiles (`task_profiles.COMPARISON`) read it without importing the systems' code,
and `comparison.systems` builds each id. A leaf module apart from the paper's model list.
"""

from ..paper_models import PAPER_MODELS

#: The systems that are not notebook 02's encoders: id -> readable label (the encoders use `variants.display_name`).
BASELINE_LABELS = {
    "tfidf": "TF-IDF cosine",
    "minilm_cosine": "MiniLM cosine",
    "aose": "AoSE (Siamese)",
    "cda_gru_deep": "CDA: GRU-HAN + DEEP",
    "cda_minilm_shallow": "CDA: MiniLM-HAN + SHALLOW",
    "match_ignition": "Match-Ignition (α = 10 %)",
    "minilm_cross": "MiniLM cross-encoder",
}
#: Every system id, baselines first, then notebook 02's encoders fine-tuned as in notebook 05.
SYSTEMS = (*BASELINE_LABELS, *PAPER_MODELS)
