"""The pair classifier: the encoder with Hugging Face's sequence-classification head on the first token (`<s>`
or `[CLS]`), two classes, cross-entropy (CDLM paper §3.3). The head is the library's own
(`AutoModelForSequenceClassification` for the encoder's architecture: dense + tanh + dropout + output for a
Longformer), so any encoder family fits the same harness."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedModel


def pair_classifier(encoder: "PreTrainedModel", num_labels: int = 2) -> "PreTrainedModel":
    """A sequence classifier over `encoder`'s own weights (shared, not copied; a new head). A masked-LM model is
    reduced to its base encoder; a Longformer keeps the fast attention (`longformer_attention`)."""
    from transformers import AutoModelForSequenceClassification

    from ..longformer_attention import use_fast_attention

    config = copy.deepcopy(encoder.config)
    config.num_labels = num_labels
    classifier = AutoModelForSequenceClassification.from_config(config)
    base = getattr(encoder, encoder.base_model_prefix, encoder)
    own = getattr(classifier, classifier.base_model_prefix)
    if getattr(own, "pooler", None) is not None and getattr(base, "pooler", None) is None:
        base.pooler = own.pooler  # BERT's head reads the pooler, which a masked-LM base lacks
    setattr(classifier, classifier.base_model_prefix, base)
    return use_fast_attention(classifier) if config.model_type == "longformer" else classifier
