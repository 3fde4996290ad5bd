"""Notebook 10's experiment: notebook 05's pairs written as CDA benchmark files and read back (the path a user's
CDA files take), every HAN / CDA variant trained on them, D2D and S2D scored on the test pairs.

Model names: `<encoder>[_<cda>][_add]`, encoder `gru_han`, `bert_han`, `bert_avg` or `aose` (AoSE's attention
pooling over the frozen sentence vectors, for notebook 11), cda `shallow` or `deep`, `_add` the Table 10 ablation
(addition instead of concatenation in eq. 2). `random` is the S2D floor: random sentence scores, a coin-flip D2D.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .. import timing
from ..finetuning import EarlyStopping, Epoch, TrainSetup, decide, pieces, predict_batches, train_epochs
from ..matching.metrics import pair_scores
from ..profiles import SEED, CDAConfig
from ..recipe_search import RecipeCache, Search, SearchResult, dev_scores, setting
from ..support.artefacts import fingerprint, save_file
from ..support.errors import ConfigError
from .alignment import S2DScores, expected_random_mrr, joint_s2d
from .inputs import PairSet, Vocabulary, sentence_vectors, side, vector_pairs, word_pairs
from .model import GRUHAN, BertHAN, Output, PooledSentences, SiameseCDA

RANDOM = "random"
SPLITS = ("train", "dev", "test")


def model_spec(name: str) -> tuple[str, str, str]:
    """(encoder, cda, combine) of a model name."""
    stem = name.removesuffix("_add")
    cda = next((cda for cda in ("shallow", "deep") if stem.endswith(f"_{cda}")), "none")
    return stem.removesuffix(f"_{cda}"), cda, "add" if name.endswith("_add") else "concat"


def through_csv(splits: Mapping[str, Any], folder: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """Each split written with `data.cda.write_cda` (atomically, with a manifest: `artefacts.save_file`) and read
    back with `load_cda`; also how many pairs' doc_a came back re-split (0 unless a sentence held several)."""
    from ..data.cda import load_cda, write_cda

    back = {split: load_cda(save_file(folder / f"{split}.csv", partial(write_cda, rows)))
            for split, rows in splits.items()}
    return back, {split: sum(a != b for a, b in zip(rows["doc_a"], back[split]["doc_a"]))
                  for split, rows in splits.items()}


def pairs_for(name: str, prepared: "Prepared") -> dict[str, PairSet]:
    """The splits as model `name` reads them: word ids for GRU-HAN, frozen sentence vectors for the others."""
    return prepared.words if model_spec(name)[0] == "gru_han" else prepared.vectors


@dataclass
class Prepared:
    """The splits as GRU-HAN reads them (word ids) and as BERT-HAN reads them (frozen sentence vectors)."""

    words: dict[str, PairSet]
    vectors: dict[str, PairSet]
    vocabulary: Vocabulary


def prepare(splits: Mapping[str, Any], config: CDAConfig, encoder=None, cache_dir=None,
            include_padding: bool = False) -> Prepared:
    """Word ids from a training-text vocabulary; sentence vectors from `encoder` (a sentence transformer) when a
    BERT model is asked for (`include_padding`: the released code's sentence means over padding)."""
    vocabulary = Vocabulary.build(splits["train"], config.vocab_size)
    words = {s: word_pairs(splits[s], vocabulary, config.max_sentences, config.max_words) for s in SPLITS}
    vectors = {}
    if encoder is not None:
        table = sentence_vectors(encoder, [row for s in SPLITS for row in splits[s]], config.sentence_tokens,
                                 cache_dir, include_padding)
        vectors = {s: vector_pairs(splits[s], table, config.max_sentences) for s in SPLITS}
    return Prepared(words, vectors, vocabulary)


def build_model(name: str, prepared: Prepared, config: CDAConfig, **options: Any) -> SiameseCDA:
    """A fresh matcher for a model name; `options` reach the encoder (`mask_padding`, `word_state`) or the
    matcher (`softmax_over_batch`)."""
    encoder_name, cda, combine = model_spec(name)
    softmax_over_batch = options.pop("softmax_over_batch", False)
    if encoder_name == "gru_han":
        encoder = GRUHAN(len(prepared.vocabulary), config.embedding_dim, config.gru_hidden, **options)
    elif encoder_name not in ("bert_han", "bert_avg", "aose"):
        raise ConfigError(f"unknown CDA model {name!r} (the profile's cda.models); its encoder {encoder_name!r} must "
                          "be one of gru_han, bert_han, bert_avg, aose, with an optional _shallow/_deep and _add")
    elif not prepared.vectors:
        raise ConfigError("BERT models need sentence vectors: call prepare(..., encoder=...) with a sentence encoder")
    else:
        dim = prepared.vectors["train"].docs_a[0].shape[1]
        encoder = (BertHAN(dim, config.bert_hidden, **options) if encoder_name == "bert_han" else
                   PooledSentences(dim, pooling="mean") if encoder_name == "bert_avg" else
                   PooledSentences(dim, **options))
    return SiameseCDA(encoder, cda, combine, config.classifier_hidden, softmax_over_batch)


def forward(model: SiameseCDA, pairs: PairSet, indices: list[int]) -> Output:
    """The model on the pairs `indices`, batched on the model's device."""
    device = next(model.parameters()).device
    return model(side([pairs.docs_a[i] for i in indices]).to(device),
                 side([pairs.docs_b[i] for i in indices]).to(device))


def pair_loss(model: SiameseCDA, pairs: PairSet, indices: list[int]) -> torch.Tensor:
    """Binary cross-entropy of "aligned" on the pairs `indices`."""
    logits = forward(model, pairs, indices).logits
    targets = torch.tensor([pairs.labels[i] for i in indices], dtype=torch.float, device=logits.device)
    return torch.nn.functional.binary_cross_entropy_with_logits(logits, targets)


def dev_loss(model: SiameseCDA, pairs: PairSet, batch_size: int) -> float:
    """The mean loss over `pairs` (early stopping's criterion)."""
    model.eval()
    with torch.inference_mode():
        return sum(pair_loss(model, pairs, indices).item() * len(indices)
                   for indices in pieces(list(range(len(pairs))), batch_size)) / len(pairs)


@dataclass
class Fit:
    """What training did: losses per epoch, the epoch kept, and the seconds it took."""

    train_losses: list[float]
    dev_losses: list[float]
    best_epoch: int
    seconds: float


def predict(model: SiameseCDA, pairs: PairSet, batch_size: int
            ) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray], float]:
    """(P(aligned) per pair, doc_a's sentence scores by attention and by cosine, seconds), in consecutive batches
    (with the released code's `softmax_over_batch` a pair's score depends on its batch)."""
    model.eval()

    def scores(indices: list[int]) -> tuple[list[float], list[np.ndarray], list[np.ndarray]]:
        output = forward(model, pairs, indices)
        sizes = [len(pairs.docs_a[i]) for i in indices]
        return (torch.sigmoid(output.logits).tolist(),
                [output.attention_alignment[row, :n].cpu().numpy() for row, n in enumerate(sizes)],
                [output.cosine_alignment[row, :n].cpu().numpy() for row, n in enumerate(sizes)])

    outputs, seconds = predict_batches(scores, pieces(list(range(len(pairs))), batch_size),
                                       device=str(next(model.parameters()).device), desc="matching pairs")
    probabilities, attention, cosine = ([value for _, out in outputs for value in out[k]] for k in range(3))
    return np.array(probabilities), attention, cosine, seconds


@dataclass
class CDARun:
    """One model's test results: D2D accuracy and F1, S2D by attention and by cosine, and its cost."""

    name: str
    d2d: dict[str, float]
    s2d_attention: S2DScores
    s2d_cosine: S2DScores
    inference_seconds: float
    probabilities: np.ndarray | None = None  # P(aligned) per test pair
    fit: Fit | None = None
    attention: list[np.ndarray] | None = None  # doc_a's sentence scores per test pair
    oracle: dict[str, S2DScores] | None = None  # S2D given the gold D2D decision (the paper's Figure 3), by scorer
    model: SiameseCDA | None = None  # the trained matcher (notebook 10 writes its cross-document attention out)
    recipe: SearchResult | None = None  # the dev search that chose its learning rate and epoch (`config.search`)


def d2d_scores(labels, predictions) -> dict[str, float]:
    """Accuracy and F1 of the related class (notebook 05's `pair_scores`, as notebook 10 names them: `acc`, `f1`)."""
    scores = pair_scores(labels, predictions)
    return {"acc": scores["accuracy"], "f1": scores["f1"]}


@dataclass
class ModelSearch:
    """One matcher's training, run by the caller's loop as notebook 10 writes it out (notebook 05's loop, so one
    loop trains any system of notebook 11: `recipe_search.train_and_score`). With `config.search` the (rate, epoch)
    of the best dev macro-F1 is kept (`recipe_search.Search`, cached in the run folder); without, the one rate's
    early-stopped fit. `options` reach `build_model`."""

    name: str
    prepared: Prepared
    config: CDAConfig
    seed: int = SEED
    device: str = "cpu"
    cache: RecipeCache | None = None
    options: dict[str, Any] = field(default_factory=dict)
    pairs: Mapping[str, PairSet] = field(init=False)
    search: Search | None = field(init=False, default=None)
    fits: dict[float, Fit] = field(init=False, default_factory=dict)
    model: SiameseCDA | None = field(init=False, default=None)  # the last matcher trained

    def __post_init__(self) -> None:
        self.pairs = pairs_for(self.name, self.prepared)
        if self.config.search is not None:
            data = fingerprint([[split.labels, [_digest(doc) for doc in split.docs_a + split.docs_b]]
                                for split in (self.pairs["train"], self.pairs["dev"])])
            key = fingerprint(self.name, setting(self.config), data, self.seed, sorted(self.options.items()))
            self.search = Search(self.name, self.config.search, self.cache, key)

    def rates(self) -> list[float]:
        """The learning rates to train: the search's (none when read from the cache), or the one rate."""
        return self.search.rates() if self.search is not None else [self.config.learning_rate]

    def reset(self) -> SiameseCDA:
        """A new matcher on the device, its weights drawn from the seed (the same for every rate)."""
        torch.manual_seed(self.seed)
        self.model = build_model(self.name, self.prepared, self.config, **self.options).to(self.device)
        return self.model

    def fine_tune(self, model: SiameseCDA, learning_rate: float) -> Iterator[Epoch]:
        """`finetuning.train_epochs` with the paper's recipe (Appendix A.2: Adam at a constant rate on i.i.d.
        batches, binary cross-entropy), early-stopped on the dev loss (`report.stopping_rule`), the best epoch's
        weights restored at the end; each epoch's fit so far is kept in `fits`."""
        config, train, dev = self.config, self.pairs["train"], self.pairs["dev"]
        setup = TrainSetup(config.epochs, config.batch_size, learning_rate, self.seed, decay=False, optimizer="adam",
                           random_batches=True)
        stopping = EarlyStopping(model, lambda: dev_loss(model, dev, setup.batch_size), config.patience,
                                 config.min_improvement)
        batch_losses: list[float] = []  # this epoch's, times the batch's pairs
        train_losses: list[float] = []

        def batch_loss(indices: list[int]) -> torch.Tensor:
            loss = pair_loss(model, train, indices)
            batch_losses.append(loss.item() * len(indices))
            return loss

        lengths = [len(a) + len(b) for a, b in zip(train.docs_a, train.docs_b)]
        for epoch in train_epochs(model, lengths, batch_loss, setup, device=str(next(model.parameters()).device),
                                  what="document pairs"):
            train_losses.append(sum(batch_losses) / len(train))
            batch_losses.clear()
            stop = stopping(epoch.number)
            self.fits[learning_rate] = Fit(list(train_losses), list(stopping.losses), stopping.best_epoch,
                                           epoch.seconds)
            yield epoch
            if stop:
                break
        stopping.restore()

    def keep(self, model: SiameseCDA, learning_rate: float, epoch: Epoch) -> None:
        """After an epoch: with a search, dev D2D scored at P(aligned) >= 0.5 (`Search.keep`)."""
        if self.search is not None:
            decisions = decide(predict(model, self.pairs["dev"], self.config.batch_size)[0]).tolist()
            self.search.keep(model, learning_rate, epoch, dev_scores(self.pairs["dev"].labels, decisions))

    def finish(self) -> CDARun:
        """Load the chosen weights (with a search; a cache hit builds the matcher here), score test once."""
        recipe, fitted, model = None, self.fits.get(self.config.learning_rate), self.model
        if self.search is not None:
            chosen = self.search.chosen
            recipe = self.search.result({"fit": asdict(self.fits[chosen.learning_rate])} if self.fits else None)
            fitted = Fit(**recipe.outcome["fit"])
            model = build_model(self.name, self.prepared, self.config, **self.options).to(self.device)
            model.load_state_dict(self.search.state)
        test = self.pairs["test"]
        probabilities, attention, cosine, seconds = predict(model, test, self.config.batch_size)
        decisions = decide(probabilities).tolist()
        s2d, oracle = ({scorer: joint_s2d(test.labels, guess, scores, test.gold) for scorer, scores in
                        (("attention", attention), ("cosine", cosine))} for guess in (decisions, test.labels))
        return CDARun(self.name, d2d_scores(test.labels, decisions), s2d["attention"], s2d["cosine"], seconds,
                      probabilities, fitted, attention, oracle, model.eval(), recipe)


def inference_rounds(runs: Mapping[str, CDARun], prepared: Prepared, batch_size: int, rounds: int = timing.ROUNDS,
                     device: str = "cpu") -> dict[str, tuple[float, ...]]:
    """Seconds of each trained matcher's inference on the test pairs (`predict`) in each of `rounds` rounds, every
    matcher once per round (`timing.interleaved_times`): what CDA costs, read as a ratio with its interval."""
    names = [name for name, run in runs.items() if run.model is not None]
    steps = [partial(predict, runs[name].model, pairs_for(name, prepared)["test"], batch_size) for name in names]
    return dict(zip(names, timing.interleaved_times(steps, rounds, device)))


def recipe_cache(run_dir: str | Path | None) -> RecipeCache | None:
    """Where notebook 10's recipe searches are cached (`<run_dir>/recipes/cda`; None: not cached)."""
    return RecipeCache.in_run(run_dir, "cda")


def _digest(document) -> str:
    """A document as the encoder reads it (word ids per sentence, or a sentence-vector array), in short."""
    if isinstance(document, np.ndarray):
        return fingerprint(document.shape, np.round(document.astype(float), 4).tobytes().hex()[:4096])
    return fingerprint(document)


def random_run(test: PairSet, seed: int = SEED) -> CDARun:
    """Random sentence scores and a coin-flip D2D decision, with E[MRR] computed exactly beside it."""
    rng = np.random.default_rng(seed)
    decisions = rng.integers(0, 2, len(test)).tolist()
    scores = [rng.random(len(doc)) for doc in test.docs_a]
    s2d = joint_s2d(test.labels, decisions, scores, test.gold)
    s2d.metrics["expected_mrr"] = expected_random_mrr(test.labels, [len(d) for d in test.docs_a], test.gold)
    oracle = joint_s2d(test.labels, test.labels, scores, test.gold)
    return CDARun(RANDOM, d2d_scores(test.labels, decisions), s2d, s2d, 0.0, np.array(decisions, float), None,
                  scores, {"attention": oracle, "cosine": oracle})


def runnable(models: Sequence[str], prepared: Prepared) -> list[str]:
    """The models that can train on `prepared`: without sentence vectors only GRU-HAN (the others named on stdout)."""
    skipped = [name for name in models if model_spec(name)[0] != "gru_han" and not prepared.vectors]
    if skipped:
        print(f"skipping {', '.join(skipped)}: no sentence encoder")
    return [name for name in models if name not in skipped]
