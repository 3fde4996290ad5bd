"""The matching experiment of notebook 05: pick the pairs, fine-tune one classifier per pretrained encoder on
train, score dev and test; the TF-IDF floor on the same pairs (CDLM paper §3.3, Table 4)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from transformers import set_seed

from ..encoders import max_input_length
from ..finetuning import DECISION_THRESHOLD, TrainSetup, decide
from ..profiles import SEED
from ..recipe_search import RecipeCache, SearchResult
from .inputs import EncodingStats, encode_pairs
from .metrics import best_threshold, pair_scores

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..profiles import MatchingConfig

TFIDF = "tfidf"  # the run name of the lexical floor


@dataclass
class MatchingRun:
    """What one system produced on the pairs, for the notebook's tables and figures."""

    model: str
    threshold: float  # P(related) (or cosine) at or above which a pair is called related
    dev: dict[str, float]  # pair_scores ({} when dev was not scored: `run_classifier(score_dev=False)`)
    test: dict[str, float]
    test_scores: np.ndarray  # P(related) or cosine, per test pair
    train_seconds: float
    pairs_per_second: float  # scoring test pairs
    losses: list[float] = field(default_factory=list)
    encoding: EncodingStats | None = None  # the test pairs' cuts
    recipe: SearchResult | None = None  # the dev search that chose the training recipe (`config.search`)


def evaluate_at(scores: np.ndarray, rows: "Dataset", threshold: float) -> dict[str, float]:
    """Accuracy and F1 (overall and by pair kind) of calling a pair related when its score >= threshold."""
    return pair_scores(rows["label"], (scores >= threshold).astype(int), rows["kind"])


def run_matching(name: str, encoder: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                 splits: Mapping[str, Any], config: "MatchingConfig", *, device: str = "cpu",
                 seed: int = SEED, cache: RecipeCache | None = None) -> MatchingRun:
    """Fine-tune a pair classifier on `encoder` (a new head) on train, score dev and test (`run_classifier`)."""
    from .model import pair_classifier

    set_seed(seed)  # the new head starts alike whatever ran before
    return run_classifier(name, pair_classifier(encoder), tokenizer, splits, config, device=device, seed=seed,
                          cache=cache)


def recipe_cache(run_dir: str | Path | None, task: str = "matching") -> RecipeCache | None:
    """Where the recipe searches of a run are cached (`<run_dir>/recipes/<task>`; None: not cached)."""
    return RecipeCache.in_run(run_dir, task)


def run_classifier(name: str, model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                   splits: Mapping[str, Any], config: "MatchingConfig", *, device: str = "cpu",
                   seed: int = SEED, cache: RecipeCache | None = None, score_dev: bool = True) -> MatchingRun:
    """Fine-tune a ready pair classifier on train, score dev and test; a pair is related when P(related) >= 0.5
    (`finetuning.DECISION_THRESHOLD`).
    With `config.search`, the recipe is chosen on dev first (`search_recipe`), and test is scored once with the
    chosen weights; else `config`'s one recipe is trained (`score_dev=False`: dev is not scored, for callers that
    show only test, e.g. notebook 09's variants)."""
    from .training import fine_tune, score

    max_length = max_input_length(model, config.max_length)
    encoded = {split: encode_pairs(splits[split], tokenizer, max_length, config.protocol)
               for split in ("train", "dev", "test")}
    start = time.perf_counter()
    recipe = None
    if config.search is not None:
        recipe, losses = search_recipe(name, model, tokenizer, encoded, splits, config, device=device, seed=seed,
                                       cache=cache)
    else:
        setup = TrainSetup(config.epochs, config.batch_size, config.learning_rate, seed, warmup=config.warmup)
        losses = fine_tune(model, encoded["train"][0], splits["train"]["label"], setup,
                           pad_id=tokenizer.pad_token_id, protocol=config.protocol, device=device,
                           per_device_batch=config.per_device_batch, class_weighted=config.class_weighted)
    # with a search: training its chosen recipe (as first measured, when the search was read from the cache)
    train_seconds = recipe.train_seconds if recipe is not None else time.perf_counter() - start
    scored = {split: score(model, encoded[split][0], pad_id=tokenizer.pad_token_id,
                           batch_size=config.score_batch_size, protocol=config.protocol, device=device)
              for split in (("dev", "test") if score_dev else ("test",))}
    model.to("cpu")
    dev = evaluate_at(scored["dev"].probabilities, splits["dev"], DECISION_THRESHOLD) if score_dev else {}
    test = evaluate_at(scored["test"].probabilities, splits["test"], DECISION_THRESHOLD)
    return MatchingRun(name, DECISION_THRESHOLD, dev, test, scored["test"].probabilities, train_seconds,
                       scored["test"].pairs_per_second, losses, encoded["test"][1], recipe)


def search_recipe(name: str, model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                  encoded: Mapping[str, Any], splits: Mapping[str, Any], config: "MatchingConfig", *,
                  device: str = "cpu", seed: int = SEED,
                  cache: RecipeCache | None = None) -> tuple[SearchResult, list[float]]:
    """`recipe_search.search` over `config.search` for this classifier: every learning rate from the same
    starting weights, dev scores at P(related) >= 0.5 after each epoch; the model is left holding the chosen point's
    weights. Returns the search and the chosen run's batch losses (up to its last epoch; kept with the search, so a
    cache hit that trains nothing returns them too)."""
    from ..artefacts import fingerprint
    from ..recipe_search import dev_scores, search, setting
    from .training import fine_tune, score

    space = config.search
    initial = {key: value.detach().clone() for key, value in model.state_dict().items()}
    train_inputs, labels = encoded["train"][0], splits["train"]["label"]
    steps_per_epoch = -(-len(train_inputs) // config.batch_size)
    losses: dict[float, list[float]] = {}

    def dev_score(current) -> dict[str, float]:
        probabilities = score(current, encoded["dev"][0], pad_id=tokenizer.pad_token_id,
                              batch_size=config.score_batch_size, protocol=config.protocol, device=device).probabilities
        return dev_scores(splits["dev"]["label"], decide(probabilities).tolist())

    def fit(learning_rate: float, on_epoch) -> None:
        model.load_state_dict(initial)
        setup = TrainSetup(space.epochs, config.batch_size, learning_rate, seed, warmup=space.warmup)
        losses[learning_rate] = fine_tune(
            model, train_inputs, labels, setup, pad_id=tokenizer.pad_token_id, protocol=config.protocol,
            device=device, per_device_batch=config.per_device_batch,
            after_epoch=lambda epoch: on_epoch(model, epoch), class_weighted=config.class_weighted)

    data = fingerprint([item.input_ids for item in train_inputs], list(labels),
                       [item.input_ids for item in encoded["dev"][0]], list(splits["dev"]["label"]))
    weights = fingerprint([round(float(value.double().sum()), 6) for value in initial.values()])
    key = fingerprint(name, setting(config), data, weights, seed)
    result, state = search(name, space, fit, dev_score, cache=cache, key=key,
                           record=lambda chosen: {"losses": losses[chosen.learning_rate][:chosen.epochs
                                                                                          * steps_per_epoch]})
    model.load_state_dict(state)
    return result, result.outcome["losses"]


def tfidf_run(splits: Mapping[str, Any]) -> MatchingRun:
    """The lexical floor: TF-IDF cosine with the threshold of the best dev macro-F1 (`metrics.best_threshold`)."""
    from .baselines import tfidf_cosines

    start = time.perf_counter()
    dev, test = tfidf_cosines(splits["train"], splits["dev"], splits["test"])
    threshold = best_threshold(splits["dev"]["label"], dev)
    seconds = time.perf_counter() - start
    return MatchingRun(TFIDF, threshold, evaluate_at(dev, splits["dev"], threshold),
                       evaluate_at(test, splits["test"], threshold), test, seconds,
                       len(test) / seconds if seconds > 0 else float("nan"))
