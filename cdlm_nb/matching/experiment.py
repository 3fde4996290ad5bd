"""The matching experiment of notebook 05: fine-tune one classifier per pretrained encoder on train, score dev and
test; the lexical floor (TF-IDF cosine, threshold tuned on dev) on the same pairs (CDLM paper §3.3, Table 4)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from transformers import set_seed

from ..encoders import max_input_length
from ..finetuning import DECISION_THRESHOLD, Epoch, ScoringResult, TrainSetup, decide
from ..profiles import SEED
from ..recipe_search import RecipeCache, Search, SearchResult, dev_scores, setting
from ..support.artefacts import fingerprint
from . import training
from .inputs import EncodingStats, encode_pairs
from .metrics import best_threshold, pair_scores
from .model import pair_classifier

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
    dev: dict[str, float]  # pair_scores ({}: dev not scored)
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


@dataclass
class ClassifierSearch:
    """One pair classifier's training, run by the caller's loop (notebook 05; `recipe_search.train_and_score`):
    each rate of `rates()` from `reset()`, each epoch of `fine_tune` to `keep`, then `finish()`. With `config.search`
    the (rate, epoch) of the best dev macro-F1 is kept (`recipe_search.Search`), else the one rate's last epoch.
    A pair is related when P(related) >= 0.5."""

    name: str
    model: "PreTrainedModel"  # the pair classifier, holding its starting weights
    tokenizer: "PreTrainedTokenizerBase"
    splits: Mapping[str, Any]
    config: "MatchingConfig"
    device: str = "cpu"
    seed: int = SEED
    cache: RecipeCache | None = None
    score_dev: bool = True  # False: dev not scored (callers that show only test, e.g. notebook 09's variants)
    encoded: dict[str, Any] = field(init=False)
    initial: dict[str, Any] = field(init=False)
    search: Search | None = field(init=False, default=None)
    losses: dict[float, list[float]] = field(init=False, default_factory=dict)
    seconds: float = field(init=False, default=0.0)  # training the last epoch kept took

    @classmethod
    def start(cls, name: str, encoder: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
              splits: Mapping[str, Any], config: "MatchingConfig", **options: Any) -> ClassifierSearch:
        """A search for a new pair classifier on `encoder` (its head seeded alike whatever ran before)."""
        set_seed(options.get("seed", SEED))
        return cls(name, pair_classifier(encoder), tokenizer, splits, config, **options)

    def __post_init__(self) -> None:
        max_length = max_input_length(self.model, self.config.max_length)
        self.encoded = {split: encode_pairs(self.splits[split], self.tokenizer, max_length, self.config.protocol)
                        for split in ("train", "dev", "test")}
        self.initial = {key: value.detach().clone() for key, value in self.model.state_dict().items()}
        if self.config.search is not None:
            train, dev = self.encoded["train"][0], self.encoded["dev"][0]
            data = fingerprint([item.input_ids for item in train], list(self.splits["train"]["label"]),
                               [item.input_ids for item in dev], list(self.splits["dev"]["label"]))
            weights = fingerprint([round(float(value.double().sum()), 6) for value in self.initial.values()])
            key = fingerprint(self.name, setting(self.config), data, weights, self.seed)
            self.search = Search(self.name, self.config.search, self.cache, key)

    def rates(self) -> list[float]:
        """The search's rates (none when cached), or the one rate."""
        return self.search.rates() if self.search is not None else [self.config.learning_rate]

    def reset(self) -> "PreTrainedModel":
        self.model.load_state_dict(self.initial)
        return self.model

    def fine_tune(self, model: "PreTrainedModel", learning_rate: float) -> Iterator[Epoch]:
        setup = TrainSetup(self.config.epochs, self.config.batch_size, learning_rate, self.seed,
                           warmup=self.config.warmup)
        return training.fine_tune(model, self.encoded["train"][0], self.splits["train"]["label"], setup,
                                  pad_id=self.tokenizer.pad_token_id, protocol=self.config.protocol,
                                  device=self.device, per_device_batch=self.config.per_device_batch,
                                  class_weighted=self.config.class_weighted)

    def keep(self, model: "PreTrainedModel", learning_rate: float, epoch: Epoch) -> None:
        """After an epoch: its losses kept; with a search, dev scored (`Search.keep`)."""
        self.losses.setdefault(learning_rate, []).extend(epoch.losses)
        self.seconds = epoch.seconds
        if self.search is not None:
            decisions = decide(self.probabilities(model, "dev").probabilities).tolist()
            self.search.keep(model, learning_rate, epoch, dev_scores(self.splits["dev"]["label"], decisions))

    def probabilities(self, model: "PreTrainedModel", split: str) -> ScoringResult:
        return training.score(model, self.encoded[split][0], pad_id=self.tokenizer.pad_token_id,
                              batch_size=self.config.score_batch_size, protocol=self.config.protocol,
                              device=self.device)

    def finish(self) -> MatchingRun:
        """The chosen weights loaded (with a search), dev and test scored once."""
        recipe, losses, seconds = None, self.losses.get(self.config.learning_rate, []), self.seconds
        if self.search is not None:
            chosen = self.search.chosen
            steps = chosen.epochs * -(-len(self.encoded["train"][0]) // self.config.batch_size)
            recipe = self.search.result({"losses": self.losses.get(chosen.learning_rate, [])[:steps]})
            losses, seconds = recipe.outcome["losses"], recipe.train_seconds
            self.model.load_state_dict(self.search.state)
        scored = {split: self.probabilities(self.model, split) for split in ("dev", "test")[not self.score_dev:]}
        self.model.to("cpu")
        scores = {split: evaluate_at(result.probabilities, self.splits[split], DECISION_THRESHOLD)
                  for split, result in scored.items()}
        return MatchingRun(self.name, DECISION_THRESHOLD, scores.get("dev", {}), scores["test"],
                           scored["test"].probabilities, seconds, scored["test"].pairs_per_second, losses,
                           self.encoded["test"][1], recipe)


def recipe_cache(run_dir: str | Path | None, task: str = "matching") -> RecipeCache | None:
    """Where a run's recipe searches are cached (None: not cached)."""
    return RecipeCache.in_run(run_dir, task)


def tfidf_run(splits: Mapping[str, Any]) -> MatchingRun:
    """The lexical floor: the cosine of each pair's TF-IDF vectors (vocabulary and idf from the training pairs),
    thresholded at the best dev macro-F1 (`metrics.best_threshold`)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    def texts(split: str, side: str) -> list[str]:
        return [" ".join(row[side]) for row in splits[split]]

    start = time.perf_counter()
    vectorizer = TfidfVectorizer(sublinear_tf=True).fit(texts("train", "doc_a") + texts("train", "doc_b"))
    dev, test = (np.asarray(vectorizer.transform(texts(split, "doc_a")).multiply(vectorizer.transform(
                 texts(split, "doc_b"))).sum(axis=1)).ravel() for split in ("dev", "test"))  # rows: l2-normalised
    threshold = best_threshold(splits["dev"]["label"], dev)
    seconds = time.perf_counter() - start
    return MatchingRun(TFIDF, threshold, evaluate_at(dev, splits["dev"], threshold),
                       evaluate_at(test, splits["test"], threshold), test, seconds,
                       len(test) / seconds if seconds > 0 else float("nan"))
