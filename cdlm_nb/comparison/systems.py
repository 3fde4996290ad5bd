"""Every system of notebook 11, each from its own notebook's package: its training for the notebook's loop
(`search_for`) on the same train split, then its scores on the same test pairs with the same costs (`finish`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from ..cda.experiment import CDARun, ModelSearch, model_spec, prepare
from ..cda.experiment import recipe_cache as cda_cache
from ..encoders import max_input_length
from ..finetuning import DECISION_THRESHOLD
from ..match_ignition.experiment import cross_encoder_filters, filter_splits, variant_search
from ..matching.experiment import ClassifierSearch, MatchingRun, recipe_cache, tfidf_run
from ..matching.metrics import best_threshold
from ..profiles import COMPARISON_SYSTEMS as SYSTEMS
from ..profiles import SEED
from ..sentence_encoders import embed, load_sentence_encoder
from ..support.errors import ConfigError
from ..support.memory import PeakMemory
from ..variants import PretrainedShelf, display_name

if TYPE_CHECKING:
    from ..profiles import Profile
    from ..recipe_search import Trainable

#: The labels of the systems that are not notebook 02's encoders, in `profiles.BASELINE_SYSTEMS`' order.
BASELINE_LABELS = {"tfidf": "TF-IDF cosine", "minilm_cosine": "MiniLM cosine", "aose": "AoSE (Siamese)",
                   "cda_gru_deep": "CDA: GRU-HAN + DEEP", "cda_minilm_shallow": "CDA: MiniLM-HAN + SHALLOW",
                   "match_ignition": "Match-Ignition (α = 10 %)", "minilm_cross": "MiniLM cross-encoder"}


def system_label(system: str) -> str:
    """A baseline's label, else the encoder's display name."""
    return BASELINE_LABELS.get(system) or display_name(system)


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
        return system_label(self.id)

    @property
    def decisions(self) -> np.ndarray:
        return (self.test_scores >= self.threshold).astype(int)


def parameters(model, trainable: bool = True) -> int:
    """The model's trained parameters, or all of them."""
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
    recipes: dict[str, Any] = field(default_factory=dict)  # system -> its dev recipe search (`recipe_search`)
    peak: PeakMemory | None = None  # the running system's memory measurement (`search_for` to `finish`)

    @cached_property
    def sentence_encoder(self):
        return load_sentence_encoder("minilm", self.device)

    @cached_property
    def cda_inputs(self):
        return prepare(self.splits, self.profile.cda, self.sentence_encoder, self.run_dir)

    @cached_property
    def embedding_seconds(self) -> dict[str, float]:
        """Seconds to embed each split's sentences (uncached), which the frozen-vector systems pay too."""
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
    run = tfidf_run(ctx.splits)
    return System("tfidf", run.test_scores, run.threshold, run.train_seconds, run.pairs_per_second, 0.0, 0, 0,
                  "whole documents")


def _minilm_cosine(ctx: Context) -> System:
    """The cosine of the two documents' MiniLM vectors, threshold tuned on dev."""
    tokens = ctx.minilm_tokens or ctx.profile.comparison.minilm_tokens

    def cosines(split: str) -> np.ndarray:
        first, second = (embed(ctx.sentence_encoder, [" ".join(doc) for doc in ctx.splits[split][side]], tokens)
                         for side in ("doc_a", "doc_b"))
        return torch.nn.functional.cosine_similarity(first, second, dim=-1).numpy()

    start = time.perf_counter()
    threshold = best_threshold(ctx.splits["dev"]["label"], cosines("dev"))
    tuned = time.perf_counter()
    scores = cosines("test")
    seconds = time.perf_counter() - tuned
    return System("minilm_cosine", scores, threshold, tuned - start, len(scores) / seconds, 0.0, 0,
                  parameters(ctx.sentence_encoder, trainable=False), f"{tokens} tokens per document")


def _cda(ctx: Context, system: str, run: CDARun) -> System:
    """A Siamese matcher of notebook 10, with the sentence vectors' cost where it reads them."""
    config = ctx.profile.cda
    words = model_spec(CDA_MODELS[system])[0] == "gru_han"
    frozen = 0 if words else parameters(ctx.sentence_encoder, trainable=False)
    embedding = {} if words else ctx.embedding_seconds  # sentence vectors: paid for at training and at inference
    reads = f"{config.max_words} words" if words else f"{config.sentence_tokens} tokens"
    trained = run.recipe.train_seconds if run.recipe is not None else run.fit.seconds  # the chosen recipe's
    return System(system, run.probabilities, DECISION_THRESHOLD,
                  trained + embedding.get("train", 0.0) + embedding.get("dev", 0.0),
                  len(run.probabilities) / (run.inference_seconds + embedding.get("test", 0.0)), 0.0,
                  parameters(run.model), parameters(run.model) + frozen, f"{config.max_sentences} sentences × {reads}")


def _classifier(ctx: Context, system: str, search: ClassifierSearch, run: MatchingRun) -> System:
    """A MiniLM cross-encoder, or one of notebook 02's encoders fine-tuned as in notebook 05."""
    if system in CROSS_ENCODERS:
        keep = cross_encoder_filters(system, ctx.profile.match_ignition)[1]
        longest = f"{search.config.max_length} tokens" + (f" of the top {keep} sentences each" if keep else "")
    else:
        longest = f"{max_input_length(search.model, search.config.max_length)} tokens per pair"
    return System(system, run.test_scores, DECISION_THRESHOLD, run.train_seconds, run.pairs_per_second, 0.0,
                  parameters(search.model), parameters(search.model), longest)


#: The baselines that train nothing here: a similarity with its threshold chosen on dev.
UNTRAINED: dict[str, Callable[[Context], System]] = {"tfidf": _tfidf, "minilm_cosine": _minilm_cosine}
#: Notebook 10's matchers in the comparison: system -> CDA model name (`cda.experiment.model_spec`).
CDA_MODELS = {"aose": "aose", "cda_gru_deep": "gru_han_deep", "cda_minilm_shallow": "bert_han_shallow"}
#: Notebook 09's MiniLM cross-encoders in the comparison (`match_ignition.experiment.cross_encoder_filters`).
CROSS_ENCODERS = ("match_ignition", "minilm_cross")


def search_for(ctx: Context, system: str) -> "Trainable | None":
    """The training `system` needs, for the caller's loop (as in notebooks 05 and 10), its recipe chosen on dev as
    in its own notebook (that search re-used on the same pairs); None when it trains nothing (`UNTRAINED`) or its
    pretrained model is missing. Peak memory is measured from here to `finish`."""
    if system not in SYSTEMS:
        raise ConfigError(f"unknown system {system!r} (the profile's comparison.systems); choose from {list(SYSTEMS)}")
    ctx.peak = PeakMemory(ctx.device)
    if system in UNTRAINED:
        return None
    if system in CDA_MODELS:
        return ModelSearch(CDA_MODELS[system], ctx.cda_inputs, ctx.profile.cda, ctx.seed, ctx.device,
                           cda_cache(ctx.run_dir))
    if system in CROSS_ENCODERS:  # with both filters or neither, on notebook 09's recipe, its epoch chosen on dev
        config = ctx.profile.match_ignition  # (one schedule: the time of a wider search is not there)
        alpha, keep = cross_encoder_filters(system, config)
        epochs = ctx.profile.comparison.cross_encoder_epochs or config.training.epochs
        searched = replace(config, training=replace(config.training, epochs=epochs, select_on_dev=True))
        return variant_search(system, filter_splits(ctx.splits, keep), alpha, searched, device=ctx.device,
                              seed=ctx.seed)
    encoder = ctx.shelf.load(system)
    return None if encoder is None else ClassifierSearch.start(
        system, encoder.model, encoder.tokenizer, ctx.splits, ctx.profile.matching, device=ctx.device, seed=ctx.seed,
        cache=recipe_cache(ctx.run_dir))


def finish(ctx: Context, system: str, search: "Trainable | None") -> System | None:
    """`system` scored on test (its search finished) with its costs and peak memory since `search_for`; None when
    its pretrained model is missing."""
    result = None
    if system in UNTRAINED:
        result = UNTRAINED[system](ctx)
    elif search is not None:
        run = search.finish()
        ctx.recipes[system] = run.recipe
        result = _cda(ctx, system, run) if system in CDA_MODELS else _classifier(ctx, system, search, run)
    megabytes = ctx.peak.stop()
    return None if result is None else replace(result, peak_mb=megabytes)
