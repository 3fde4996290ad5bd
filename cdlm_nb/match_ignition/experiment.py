"""Notebook 09's experiment: a MiniLM cross-encoder fine-tuned with and without Match-Ignition's filters on
notebook 05's pairs, the inference-time λ sweep, and the word filter's speed measured on one fixed batch.

Trained variants (each from the packaged all-MiniLM-L6-v2, same pairs, same seed): `alpha_<a>`, both filters
(sentence filter with λ = `keep_sentences`, word filter with α = a; `alpha_0` is the sentence filter only, the
paper's "– word-level filter"); `no_filter`, the truncated cross-encoder (the paper's BERT-Finetuning);
`word_only`, the word filter at `ablation_alpha` on unfiltered documents ("– sentence-level filter").
Inference-time variants of the `alpha_<ablation_alpha>` model: λ ∈ `lambdas`, and the first λ sentences.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from .. import timing
from ..encoders import minilm_path
from ..finetuning import DECISION_THRESHOLD
from ..matching.experiment import ClassifierSearch, evaluate_at
from ..matching.inputs import encode_pairs
from ..matching.training import score
from ..profiles import SEED
from ..support.errors import ConfigError
from .sentence_filter import filter_pair
from .word_filter import WordFilterClassifier

if TYPE_CHECKING:
    from datasets import Dataset

    from ..profiles import MatchIgnitionConfig


def alpha_name(alpha: float) -> str:
    """`alpha_10` for α = 0.1 (the metric names' spelling)."""
    return f"alpha_{round(100 * alpha)}"


def minilm_tokenizer():
    """The packaged all-MiniLM-L6-v2's tokenizer (pairs become [CLS] doc1 [SEP] doc2 [SEP])."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(minilm_path())


def minilm_cross_encoder():
    """A fresh all-MiniLM-L6-v2 with a new two-class head, and its tokenizer."""
    from transformers import BertForSequenceClassification
    from transformers.utils import logging

    verbosity = logging.get_verbosity()
    logging.set_verbosity_error()  # "classifier weights newly initialized" is the point here
    try:
        model = BertForSequenceClassification.from_pretrained(minilm_path(), num_labels=2)
    finally:
        logging.set_verbosity(verbosity)
    return model, minilm_tokenizer()


def filter_sentences(rows: "Dataset", keep: int | None, mode: str = "pagerank") -> "Dataset":
    """The pairs with each document cut to its top `keep` sentences (None: unchanged)."""
    if keep is None:
        return rows
    return rows.map(lambda row: dict(zip(("doc_a", "doc_b"), filter_pair(row["doc_a"], row["doc_b"], keep, mode))),
                    desc=f"sentence filter (λ={keep}, {mode})")


def filter_splits(splits: Mapping[str, Any], keep: int | None) -> dict[str, Any]:
    """Every split through the PageRank sentence filter keeping `keep` sentences per document."""
    return {split: filter_sentences(rows, keep) for split, rows in splits.items()}


def cross_encoder_filters(system: str, config: "MatchIgnitionConfig") -> tuple[float, int | None]:
    """(α, sentences kept per document) of notebook 11's MiniLM cross-encoders: `match_ignition` (α = 10 %, the
    config's λ) or `minilm_cross` (no filter: the truncated cross-encoder)."""
    filters = {"match_ignition": (0.1, config.keep_sentences), "minilm_cross": (0.0, None)}
    if system not in filters:
        raise ConfigError(f"unknown cross-encoder {system!r}; choose one of {list(filters)}")
    return filters[system]


def variant_search(name: str, splits: Mapping[str, Any], alpha: float, config: "MatchIgnitionConfig", *,
                   device: str = "cpu", seed: int = SEED) -> ClassifierSearch:
    """One variant's training (notebook 05's `ClassifierSearch`, run by the caller's loop) from a fresh MiniLM with
    the word filter at `alpha`, on `splits` already through the sentence filter; dev chooses the epoch only."""
    torch.manual_seed(seed)
    classifier, tokenizer = minilm_cross_encoder()
    model = WordFilterClassifier(classifier, alpha, [tokenizer.cls_token_id, tokenizer.sep_token_id])
    return ClassifierSearch(name, model, tokenizer, splits, config.training, device=device, seed=seed, score_dev=False)


def variant_plan(config: "MatchIgnitionConfig") -> list[tuple[str, float, int | None]]:
    """(name, α, λ) of every trained variant of the module docstring (λ None: every sentence)."""
    return [*((alpha_name(a), a, config.keep_sentences) for a in config.alphas),
            ("no_filter", 0.0, None), ("word_only", config.ablation_alpha, None)]


def inference_variants(model, tokenizer, splits: Mapping[str, Any], config: "MatchIgnitionConfig",
                       device: str = "cpu") -> dict[str, dict[str, float]]:
    """Test scores of one trained model with other sentence filters: λ ∈ lambdas, and the first λ sentences."""
    results = {}
    for name, keep, mode in [*((f"lambda_{keep}", keep, "pagerank") for keep in config.lambdas),
                             (f"first_{config.keep_sentences}", config.keep_sentences, "first")]:
        rows = filter_sentences(splits["test"], keep, mode)
        inputs, _ = encode_pairs(rows, tokenizer, config.training.max_length, config.training.protocol)
        scored = score(model, inputs, pad_id=tokenizer.pad_token_id, batch_size=config.training.score_batch_size,
                       device=device)
        results[name] = evaluate_at(scored.probabilities, rows, DECISION_THRESHOLD)
    return results


def trace_pair(model: WordFilterClassifier, tokenizer, row: Mapping[str, Any], config: "MatchIgnitionConfig"):
    """(input tokens, surviving original positions per layer) of one pair, after its sentence filter, through a
    trained filtered model (on the model's device: `inference_variants` may have left it on the GPU)."""
    doc_a, doc_b = filter_pair(row["doc_a"], row["doc_b"], config.keep_sentences)
    inputs, _ = encode_pairs([{"doc_a": doc_a, "doc_b": doc_b}], tokenizer, config.training.max_length,
                             config.training.protocol)
    ids = torch.tensor([inputs[0].input_ids], device=next(model.parameters()).device)
    model.trace = []
    try:
        with torch.inference_mode():
            model.eval()(input_ids=ids, attention_mask=torch.ones_like(ids))
        positions = [kept[0].tolist() for kept in model.trace]
    finally:
        model.trace = None
    return tokenizer.convert_ids_to_tokens(inputs[0].input_ids), positions


@dataclass(frozen=True)
class Speed:
    """Seconds per batch at one α in each timed round (same batch, machine and run; a round times every α once)."""

    alpha: float
    eval_rounds: tuple[float, ...]
    train_rounds: tuple[float, ...]
    limit: float  # the operation-count limit of the speed-up (`operation_limit`)


def speedup(base: Speed, speed: Speed, kind: str = "eval") -> tuple[float, float, float]:
    """Base / `speed` seconds (`kind` "eval" or "train") paired by round: median, 95 % interval (`timing.ratio`)."""
    return timing.ratio(getattr(base, f"{kind}_rounds"), getattr(speed, f"{kind}_rounds"))


def speed_batch(rows: "Dataset", tokenizer, length: int, size: int) -> dict[str, torch.Tensor]:
    """`size` inputs of exactly `length` tokens, [CLS] a [SEP] b [SEP], from the test pairs' text joined (repeated
    when too short: the filter's cost depends on the length, not the words)."""
    texts = [" ".join([*row["doc_a"], *row["doc_b"]]) for row in rows]
    text_ids = [i for ids in tokenizer(texts, add_special_tokens=False)["input_ids"] for i in ids]
    body, half = torch.tensor(np.resize(text_ids, (size, length - 3))), (length - 3) // 2
    cls, sep = (torch.full((size, 1), token) for token in (tokenizer.cls_token_id, tokenizer.sep_token_id))
    ids = torch.cat([cls, body[:, :half], sep, body[:, half:], sep], dim=1)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def measure_speed(classifier, tokenizer, batch: Mapping[str, torch.Tensor], alphas: Sequence[float],
                  repeats: int, device: str = "cpu") -> list[Speed]:
    """Evaluation (forward, no gradient) and training (forward + backward) seconds per batch at each α on
    `device`, every α on a copy of the same weights; training mode keeps dropout as in fine-tuning."""
    config, protected = classifier.config, [tokenizer.cls_token_id, tokenizer.sep_token_id]
    models = [WordFilterClassifier(copy.deepcopy(classifier), alpha, protected).to(device) for alpha in alphas]
    batch = {name: tensor.to(device) for name, tensor in batch.items()}

    @torch.inference_mode()
    def evaluate(model):
        model.eval()(**batch)

    def train(model):
        model.train()(**batch).logits.sum().backward()
        model.zero_grad(set_to_none=True)

    eval_rounds, train_rounds = (timing.interleaved_times([partial(step, model) for model in models], repeats, device)
                                   for step in (evaluate, train))
    length, layers = batch["input_ids"].shape[1], config.num_hidden_layers
    return [Speed(alpha, evaluated, trained,
                  operation_limit(length, alpha, layers, config.hidden_size, config.intermediate_size))
            for alpha, evaluated, trained in zip(alphas, eval_rounds, train_rounds)]


def operation_limit(length: int, alpha: float, layers: int, hidden: int, intermediate: int) -> float:
    """FLOP(α = 0) / FLOP(α) of the encoder layers: layer l (1-based) runs on ⌊N(1−α)^{l−1}⌋ tokens; per layer
    4nh² (Q, K, V, output projections) + 2n·h·i (feed-forward) + 2n²h (scores and weighted sum). PageRank's own
    cost (T·n² per layer) and the embeddings are left out, so the measured speed-up stays below it."""
    def cost(n: int) -> float:
        return 4 * n * hidden ** 2 + 2 * n * hidden * intermediate + 2 * n * n * hidden

    return layers * cost(length) / sum(cost(int(length * (1 - alpha) ** layer)) for layer in range(layers))


def paper_time_cost(alpha: float, layers: int = 12) -> float:
    """The paper's eq. 11, TimeCost(α) = Σ_{l=0}^{L−1} (1−α)^{2l} (attention's n² term only)."""
    return sum((1 - alpha) ** (2 * layer) for layer in range(layers))
