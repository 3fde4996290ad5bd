"""Notebook 06's experiment: the encoders fine-tuned on the world's questions (HotpotQA's on the hub profile), every
system scored officially on the test questions and on real HotpotQA dev records (out of domain for world models)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from transformers import set_seed

from ..encoders import max_input_length
from ..finetuning import EarlyStopping, TrainSetup
from ..profiles import SEED, MultihopConfig, Profile
from .baselines import constant_prediction, tfidf_prediction
from .inputs import Decoded, EncodedQuestions, QAMarkers, add_qa_markers, encode_questions, official_prediction
from .metric import HotpotScores, evaluate
from .model import MultiHopQA, fine_tune, predict

if TYPE_CHECKING:
    from datasets import Dataset

TFIDF = "tfidf"  # the run name of the non-neural reference
REFERENCE = "most_frequent"  # the run name of the reference row: what a model that learned nothing scores
QUESTION_TYPES = ("bridge", "comparison")


@dataclass
class QAData:
    """The questions by split, the real dev records besides (none when the splits are HotpotQA's), what was capped."""

    splits: dict[str, "Dataset"]
    real: "Dataset | None"
    real_source: str
    left_out: int  # training questions dropped by `max_questions`
    name: str = "world"  # the metric prefix of the test split (`hotpot/<name>/...`)
    label: str = "world test"  # the test split in tables and readings


def qa_data(profile: Profile, hotpot_file: str | None = None) -> QAData:
    """The training (capped at `multihop.max_questions`) and test questions: the world's, with real dev records
    besides, or on the hub profile HotpotQA's train and dev (validation) splits, as the CDLM paper's Table 5."""
    from ..data.corpora import hotpot_dev_records, world
    from ..data.hotpotqa import load_hotpotqa

    if profile.data_source == "hub":
        splits = {"train": load_hotpotqa(None, split="train"), "test": load_hotpotqa(None, split="validation")}
        real, source, name, label = None, "HotpotQA distractor dev (validation) is the test split", "hotpotqa", "dev"
    else:
        splits = dict(world(profile.world).qa)
        (real, source), name, label = hotpot_dev_records(profile, hotpot_file), "world", "world test"
    cap, left_out = profile.multihop.max_questions, 0
    if cap is not None and len(splits["train"]) > cap:
        left_out = len(splits["train"]) - cap
        splits["train"] = splits["train"].shuffle(seed=profile.seed).select(range(cap))
    return QAData(splits, real, source, left_out, name, label)


@dataclass
class QARun:
    """One system's predictions and official scores on one set of questions."""

    name: str
    scores: HotpotScores
    predictions: dict[str, Decoded]
    seconds: float  # answering (and, for the reference, ranking) time
    train_seconds: float = 0.0
    losses: list[float] = field(default_factory=list)
    encoding: EncodedQuestions | None = None
    kept_epoch: int | None = None  # the epoch whose weights were kept (best on dev); None: the last one


def score(name: str, predictions: dict[str, Decoded], rows: Sequence[Mapping], seconds: float, **extra: Any) -> QARun:
    """A run scored by the official metric."""
    return QARun(name, evaluate(official_prediction(predictions), rows), predictions, seconds, **extra)


def tfidf_run(rows: "Dataset") -> QARun:
    """The non-neural reference on `rows`."""
    start = time.perf_counter()
    return score(TFIDF, {row["id"]: tfidf_prediction(row) for row in rows}, rows, time.perf_counter() - start)


def reference_run(rows: "Dataset", answer: str) -> QARun:
    """The reference row on `rows` (`baselines.constant_prediction`: `answer`, every sentence as support)."""
    return score(REFERENCE, {row["id"]: constant_prediction(row, answer) for row in rows}, rows, 0.0)


@dataclass
class TrainedQA:
    """A fine-tuned model with what it needs to answer other questions."""

    model: MultiHopQA
    tokenizer: Any
    markers: QAMarkers
    max_length: int


def train_qa(variant: str, encoder, tokenizer, splits: Mapping[str, "Dataset"], config: MultihopConfig, *,
             device: str = "cpu", seed: int = SEED) -> tuple[QARun, TrainedQA]:
    """Fine-tune one encoder on the training questions; its run on the test questions."""
    set_seed(seed)  # the new marker embeddings and the answer head start alike whatever ran before
    markers = add_qa_markers(tokenizer, encoder)
    model = MultiHopQA(encoder)
    trained = TrainedQA(model, tokenizer, markers, max_input_length(model.encoder, config.max_length))
    train = encode_questions(splits["train"], tokenizer, markers, trained.max_length)
    start = time.perf_counter()
    setup = TrainSetup(config.epochs, config.batch_size, config.learning_rate, seed, warmup=config.warmup)
    keeper = best_dev_epoch(trained, splits["dev"], config, device) if "dev" in splits else None
    losses = []
    for epoch in fine_tune(model, train.inputs, train.labels, setup, pad_id=markers.pad, device=device,
                           per_device_batch=config.per_device_batch):
        losses += epoch.losses
        if keeper is not None:
            keeper(epoch.number)  # every epoch runs: the keeper only keeps the best one's weights
    if keeper is not None:
        keeper.restore()
    train_seconds = time.perf_counter() - start
    run = answer(variant, trained, splits["test"], config, device)
    run.train_seconds, run.losses, run.kept_epoch = train_seconds, losses, keeper.best_epoch if keeper else None
    return run, trained


def best_dev_epoch(trained: TrainedQA, dev: "Dataset", config: MultihopConfig, device: str) -> EarlyStopping:
    """Early stopping that never stops: the dev questions answered after every epoch, the best one's weights kept. The
    dev score is the mean of answer and supporting-fact F1: joint F1 is 0 for nearly every question at this scale."""
    def dev_loss() -> float:
        metrics = answer("dev", trained, dev, config, device).scores.metrics
        return -(metrics["f1"] + metrics["sp_f1"]) / 2

    return EarlyStopping(trained.model, dev_loss, patience=config.epochs)


def answer(name: str, trained: TrainedQA, rows: "Dataset", config: MultihopConfig, device: str = "cpu") -> QARun:
    """A trained model's run on `rows`."""
    encoded = encode_questions(rows, trained.tokenizer, trained.markers, trained.max_length)
    predictions, seconds = predict(trained.model, encoded.inputs, pad_id=trained.markers.pad,
                                   batch_size=config.score_batch_size, max_answer_tokens=config.max_answer_tokens,
                                   device=device)
    trained.model.to("cpu")
    return score(name, predictions, rows, seconds, encoding=encoded)


def real_runs(rows: "Dataset | None", models: Mapping[str, TrainedQA], config: MultihopConfig,
              device: str = "cpu", reference_answer: str | None = None) -> dict[str, QARun]:
    """The references (TF-IDF, and `reference_run` with an answer) and every model on real records (or nothing)."""
    if rows is None:
        return {}
    references = {} if reference_answer is None else {REFERENCE: reference_run(rows, reference_answer)}
    return {TFIDF: tfidf_run(rows)} | references | {name: answer(name, trained, rows, config, device)
                                                    for name, trained in models.items()}
