"""Notebook 07's experiment: every model of notebook 02 on the same mention pairs, a few kept whole for the figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..coref.mentions import MentionPair
from .ranking import PairAttention
from .run import analyse_pairs, explain_pairs

if TYPE_CHECKING:
    import pandas as pd
    from transformers import PreTrainedTokenizerBase

    from ..profiles import AttentionConfig
    from ..variants import PretrainedShelf


@dataclass
class ModelAnalyses:
    """What the models produced: one results row per (model, pair), and the kept pairs analysed in full."""

    results: "pd.DataFrame"  # rows of `run.analyse_pairs`, all models and kinds
    examples: dict[str, dict[int, PairAttention | str]]  # model -> index into the shown pairs -> analysis or skip
    tokenizers: dict[str, "PreTrainedTokenizerBase"]  # model -> its tokenizer (to decode the examples)


def analyse_models(shelf: "PretrainedShelf", config: "AttentionConfig", pairs: Mapping[str, Sequence[MentionPair]],
                   shown: Sequence[MentionPair], corpus: Sequence[Mapping[str, Any]],
                   device: Any = "cpu") -> ModelAnalyses:
    """Each of `config.models` from notebook 02's `shelf` in turn (a missing one skipped, a DataError when none is
    there): every kind's pairs analysed, the `shown` pairs explained in full."""
    import pandas as pd

    results, examples, tokenizers = [], {}, {}
    settings = dict(max_length=config.max_length, exclude_punctuation=config.exclude_punctuation,
                    batch_size=config.batch_size)
    for variant in config.models:
        if (encoder := shelf.load(variant)) is None:  # each model loaded once, and one in memory at a time
            continue
        model, tokenizer = encoder
        tokenizers[variant] = tokenizer
        model.to(device)
        results += [analyse_pairs(model, tokenizer, pairs[kind], corpus, model_name=variant, **settings)
                    for kind in config.kinds]
        examples[variant] = dict(explain_pairs(model, tokenizer, shown, corpus, **settings))
        del model, encoder
    if not results:
        shelf.load_all(config.models)  # raises the DataError naming what to run
    return ModelAnalyses(pd.concat(results, ignore_index=True), examples, tokenizers)
