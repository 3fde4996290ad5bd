"""Every system of notebook 11 as one function that trains it (when it learns) on the same train split, scores
the same test pairs and reports the same costs. Each reuses its own notebook's package (no copy):

- `tfidf`, `minilm_cosine`: lexical and frozen-embedding cosines, threshold at the best dev macro-F1;
- `aose`, `cda_gru_deep`, `cda_minilm_shallow`: the Siamese matchers of `cdlm_nb.cda` (AoSE's attention pooling
  over frozen MiniLM sentence vectors; GRU-HAN + DEEP; MiniLM-HAN + SHALLOW);
- `match_ignition`, `minilm_cross`: the MiniLM cross-encoder of `cdlm_nb.match_ignition` with both filters
  (α = 10 %) and with none;
- `longformer`, `local`, `rand`, `prefix`, `cdlm`: notebook 02's encoders fine-tuned as in notebook 05.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError
from ..finetuning import DECISION_THRESHOLD
from ..memory import peak_memory
from ..profiles import COMPARISON_SYSTEMS as SYSTEMS
from ..profiles import SEED
from ..variants import PretrainedShelf, display_name
from .system_ids import BASELINE_LABELS

if TYPE_CHECKING:
    from ..profiles import Profile

@dataclass
class System:
    """One system's test scores, decision threshold and costs."""

    id: str
    test_scores: np.ndarray
    threshold: float
    train_seconds: float
    pairs_per_second: float
    peak_mb: float
    trained_parameters: int
    total_parameters: int
    longest_input: str

    @property
    def label(self) -> str:
        return BASELINE_LABELS.get(self.id) or display_name(self.id)

    @property
    def decisions(self) -> np.ndarray:
        return (self.test_scores >= self.threshold).astype(int)


def parameters(model, trainable: bool = True) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable)


@dataclass
class Context:
    """What the systems share: the pairs, the profile, where to cache, and lazily built common inputs."""

    profile: "Profile"
    splits: dict[str, Any]
    run_dir: Path
    device: str = "cpu"
    seed: int = SEED
    minilm_tokens: int | None = None  # tokens of each document MiniLM cosine reads; None: the profile's
    notes: list[str] = field(default_factory=list)
    recipes: dict[str, Any] = field(default_factory=dict)  # system -> its dev recipe search (`recipe_search`)

    @cached_property
    def sentence_encoder(self):
        from ..sentence_encoders import load_sentence_encoder

        return load_sentence_encoder("minilm", self.device)

    @cached_property
    def cda_inputs(self):
        from ..cda.experiment import prepare

        return prepare(self.splits, self.profile.cda, self.sentence_encoder, self.run_dir)

    @cached_property
    def embedding_seconds(self) -> dict[str, float]:
        """Seconds to embed each split's sentences (uncached): the frozen-vector systems pay them too."""
        from ..sentence_encoders import embed

        seconds = {}
        for split, rows in self.splits.items():
            texts = sorted({s for part in ("doc_a", "doc_b") for doc in rows[part] for s in doc})
            start = time.perf_counter()
            embed(self.sentence_encoder, texts, self.profile.cda.sentence_tokens)
            seconds[split] = time.perf_counter() - start
        return seconds

    @cached_property
    def shelf(self) -> PretrainedShelf:
        return PretrainedShelf(self.run_dir, self.profile.name)


def _tfidf(ctx: Context) -> System:
    from ..matching.experiment import tfidf_run

    run = tfidf_run(ctx.splits)
    return System("tfidf", run.test_scores, run.threshold, run.train_seconds, run.pairs_per_second, 0.0, 0, 0,
                  "whole documents")


def _cosines(ctx: Context, split: str) -> np.ndarray:
    import torch

    from ..sentence_encoders import embed

    rows = ctx.splits[split]
    tokens = ctx.minilm_tokens or ctx.profile.comparison.minilm_tokens
    first = embed(ctx.sentence_encoder, [" ".join(doc) for doc in rows["doc_a"]], tokens)
    second = embed(ctx.sentence_encoder, [" ".join(doc) for doc in rows["doc_b"]], tokens)
    return torch.nn.functional.cosine_similarity(first, second, dim=-1).numpy()


def _minilm_cosine(ctx: Context) -> System:
    from ..matching.metrics import best_threshold

    start = time.perf_counter()
    threshold = best_threshold(ctx.splits["dev"]["label"], _cosines(ctx, "dev"))
    tuned = time.perf_counter()
    scores = _cosines(ctx, "test")
    seconds = time.perf_counter() - tuned
    total = parameters(ctx.sentence_encoder, trainable=False)
    return System("minilm_cosine", scores, threshold, tuned - start, len(scores) / seconds, 0.0, 0, total,
                  f"{ctx.minilm_tokens or ctx.profile.comparison.minilm_tokens} tokens per document")


def _cda(ctx: Context, system: str, model: str) -> System:
    from ..cda.experiment import ModelSearch, build_model, model_spec, recipe_cache, run_model

    config, inputs = ctx.profile.cda, ctx.cda_inputs
    run = run_model(ModelSearch(model, inputs, config, ctx.seed, ctx.device, recipe_cache(ctx.run_dir)))  # 10's search
    ctx.recipes[system] = run.recipe
    built = build_model(model, inputs, config)
    words = model_spec(model)[0] == "gru_han"
    frozen = 0 if words else parameters(ctx.sentence_encoder, trainable=False)
    embedding = {} if words else ctx.embedding_seconds  # sentence vectors: paid for at training and at inference
    longest = (f"{config.max_sentences} sentences × {config.max_words} words" if words
               else f"{config.max_sentences} sentences × {config.sentence_tokens} tokens")
    trained = run.recipe.train_seconds if run.recipe is not None else run.fit.seconds  # the chosen recipe's
    train_seconds = trained + embedding.get("train", 0.0) + embedding.get("dev", 0.0)
    pairs_per_second = len(run.probabilities) / (run.inference_seconds + embedding.get("test", 0.0))
    return System(system, run.probabilities, DECISION_THRESHOLD, train_seconds, pairs_per_second, 0.0,
                  parameters(built), parameters(built) + frozen, longest)


def _match_ignition(ctx: Context, system: str) -> System:
    """A MiniLM cross-encoder: Match-Ignition with both filters or without them (`cross_encoder_filters`)."""
    from ..match_ignition.experiment import cross_encoder_filters, train_variant

    config = ctx.profile.match_ignition
    alpha, keep = cross_encoder_filters(system, config)
    # notebook 09's recipe, its epoch chosen on dev here (one schedule: the time of a wider search is not there)
    epochs = ctx.profile.comparison.cross_encoder_epochs
    searched = replace(config, training=replace(config.training, epochs=epochs or config.training.epochs,
                                                select_on_dev=True))
    run, model = train_variant(system, ctx.splits, alpha, keep, searched, device=ctx.device, seed=ctx.seed)
    ctx.recipes[system] = run.recipe
    longest = f"{config.training.max_length} tokens" + (f" of the top {keep} sentences each" if keep else "")
    return System(system, run.test_scores, DECISION_THRESHOLD, run.train_seconds, run.pairs_per_second, 0.0,
                  parameters(model), parameters(model), longest)


def _cross_encoder(ctx: Context, variant: str) -> System | None:
    from ..encoders import max_input_length
    from ..matching.experiment import ClassifierSearch, recipe_cache, run_classifier

    encoder = ctx.shelf.load(variant)
    if encoder is None:
        return None
    config = ctx.profile.matching
    # the new head starts as in notebook 05, so its search is re-used when its pairs are these
    search = ClassifierSearch.start(variant, encoder.model, encoder.tokenizer, ctx.splits, config, device=ctx.device,
                                    seed=ctx.seed, cache=recipe_cache(ctx.run_dir))
    run, model = run_classifier(search), search.model
    ctx.recipes[variant] = run.recipe
    return System(variant, run.test_scores, DECISION_THRESHOLD, run.train_seconds, run.pairs_per_second, 0.0,
                  parameters(model), parameters(model), f"{max_input_length(model, config.max_length)} tokens per pair")


#: How each baseline of `system_ids.BASELINE_LABELS` trains and scores (the pretrained models: `_cross_encoder`).
BUILDERS: dict[str, Callable[[Context], System]] = {
    "tfidf": _tfidf,
    "minilm_cosine": _minilm_cosine,
    "aose": partial(_cda, system="aose", model="aose"),
    "cda_gru_deep": partial(_cda, system="cda_gru_deep", model="gru_han_deep"),
    "cda_minilm_shallow": partial(_cda, system="cda_minilm_shallow", model="bert_han_shallow"),
    "match_ignition": partial(_match_ignition, system="match_ignition"),
    "minilm_cross": partial(_match_ignition, system="minilm_cross"),
}


def run_system(ctx: Context, system: str) -> System | None:
    """Train and score one system, its peak memory measured around both; None when its model is missing."""
    if system not in SYSTEMS:
        raise ConfigError(f"unknown system {system!r} (the profile's comparison.systems); choose from {list(SYSTEMS)}")
    with peak_memory(ctx.device) as peak:
        result = BUILDERS[system](ctx) if system in BUILDERS else _cross_encoder(ctx, system)
    if result is not None:
        result.peak_mb = peak.megabytes
    return result
