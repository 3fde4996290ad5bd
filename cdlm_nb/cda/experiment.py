"""Notebook 10's experiment: notebook 05's pairs written as CDA benchmark files and read back (the same path a
user's CDA files take), every HAN / CDA variant trained on them, D2D and S2D scored on the test pairs.

Model names: `<encoder>[_<cda>][_add]` with encoder `gru_han`, `bert_han`, `bert_avg` or `aose` (AoSE's attention
pooling over the frozen sentence vectors, for notebook 11), cda `shallow` or `deep`,
and `_add` for the Table 10 ablation (addition instead of concatenation in eq. 2). `random` is the S2D floor:
random sentence scores and a coin-flip D2D decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError
from ..finetuning import decide
from ..profiles import SEED
from .alignment import S2DScores, expected_random_mrr, joint_s2d
from .han import GRUHAN, BertAVG, BertHAN, PooledSentences
from .inputs import PairSet, Vocabulary, sentence_vectors, vector_pairs, word_pairs
from .model import SiameseCDA
from .training import Fit, fit, fit_epochs, paper_setup, predict

if TYPE_CHECKING:
    from ..profiles import CDAConfig
    from ..recipe_search import RecipeCache, SearchResult

RANDOM = "random"
SPLITS = ("train", "dev", "test")


def model_spec(name: str) -> tuple[str, str, str]:
    """(encoder, cda, combine) of a model name."""
    combine = "add" if name.endswith("_add") else "concat"
    stem = name.removesuffix("_add")
    for cda in ("shallow", "deep"):
        if stem.endswith(f"_{cda}"):
            return stem.removesuffix(f"_{cda}"), cda, combine
    return stem, "none", combine


def through_csv(splits: Mapping[str, Any], folder: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """Each split written with `data.cda.write_cda` (atomically, with a manifest: `artefacts.save_file`) and read
    back with `load_cda` (the path a user's CDA files take); also how many pairs' doc_a came back as other
    sentences (0 unless a sentence held several)."""
    from ..artefacts import save_file
    from ..data.cda import load_cda, write_cda

    back, changed = {}, {}
    for split, rows in splits.items():
        back[split] = load_cda(save_file(folder / f"{split}.csv", partial(write_cda, rows)))
        changed[split] = sum(a != b for a, b in zip(rows["doc_a"], back[split]["doc_a"]))
    return back, changed


@dataclass
class Prepared:
    """The splits as GRU-HAN reads them (word ids) and as BERT-HAN reads them (frozen sentence vectors)."""

    words: dict[str, PairSet]
    vectors: dict[str, PairSet]
    vocabulary: Vocabulary


def prepare(splits: Mapping[str, Any], config: "CDAConfig", encoder=None, cache_dir=None,
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


def build_model(name: str, prepared: Prepared, config: "CDAConfig", **options: Any) -> SiameseCDA:
    """A fresh matcher for a model name; `options` reach the encoder (`mask_padding`, `word_state`) or the
    matcher (`softmax_over_batch`)."""
    encoder_name, cda, combine = model_spec(name)
    softmax_over_batch = options.pop("softmax_over_batch", False)
    if encoder_name == "gru_han":
        encoder = GRUHAN(len(prepared.vocabulary), config.embedding_dim, config.gru_hidden, **options)
    elif encoder_name == "bert_han":
        encoder = BertHAN(_vector_dim(prepared), config.bert_hidden, **options)
    elif encoder_name == "bert_avg":
        encoder = BertAVG(_vector_dim(prepared))
    elif encoder_name == "aose":
        encoder = PooledSentences(_vector_dim(prepared), **options)
    else:
        raise ConfigError(f"unknown CDA model {name!r} (the profile's cda.models); its encoder {encoder_name!r} must "
                          "be one of gru_han, bert_han, bert_avg, aose, with an optional _shallow/_deep and _add")
    return SiameseCDA(encoder, cda, combine, config.classifier_hidden, softmax_over_batch)


def _vector_dim(prepared: Prepared) -> int:
    if not prepared.vectors:
        raise ConfigError("BERT models need sentence vectors: call prepare(..., encoder=...) with a sentence encoder")
    return prepared.vectors["train"].docs_a[0].shape[1]


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
    recipe: "SearchResult | None" = None  # the dev search that chose its learning rate and epoch (`config.search`)


def d2d_scores(labels, predictions) -> dict[str, float]:
    """Accuracy and F1 of the related class (notebook 05's `pair_scores`, as notebook 10 names them: `acc`, `f1`)."""
    from ..matching.metrics import pair_scores

    scores = pair_scores(labels, predictions)
    return {"acc": scores["accuracy"], "f1": scores["f1"]}


def run_model(name: str, prepared: Prepared, config: "CDAConfig", seed: int = SEED, device: str = "cpu",
              cache: "RecipeCache | None" = None, **options: Any) -> CDARun:
    """Train one model on `device` on train (early stopping on dev) and score it on test; with `config.search`,
    its learning rate and epoch are chosen on dev first (`search_recipe`) and test is scored once with them."""
    import torch

    pairs = prepared.words if model_spec(name)[0] == "gru_han" else prepared.vectors
    recipe = None
    if config.search is not None:
        model, trained, recipe = search_recipe(name, prepared, pairs, config, seed, device, cache, **options)
    else:
        torch.manual_seed(seed)
        model = build_model(name, prepared, config, **options).to(device)
        trained = fit(model, pairs["train"], pairs["dev"],
                      paper_setup(config.epochs, config.batch_size, config.learning_rate, seed),
                      patience=config.patience, min_improvement=config.min_improvement)
    test = pairs["test"]
    predicted = predict(model, test, config.batch_size)
    decisions = decide(predicted.probabilities).tolist()
    oracle = {scorer: joint_s2d(test.labels, test.labels, scores, test.gold)
              for scorer, scores in (("attention", predicted.attention), ("cosine", predicted.cosine))}
    return CDARun(name, d2d_scores(test.labels, decisions),
                  joint_s2d(test.labels, decisions, predicted.attention, test.gold),
                  joint_s2d(test.labels, decisions, predicted.cosine, test.gold),
                  predicted.seconds, predicted.probabilities, trained, predicted.attention, oracle, model.eval(),
                  recipe)


def search_recipe(name: str, prepared: Prepared, pairs: Mapping[str, PairSet], config: "CDAConfig", seed: int,
                  device: str, cache: "RecipeCache | None" = None,
                  **options: Any) -> tuple[SiameseCDA, Fit, "SearchResult"]:
    """`recipe_search.search` over `config.search`: a fresh matcher (same seed) per learning rate, trained with
    the paper's early stopping on the dev loss (`patience`) for at most `search.epochs` epochs, dev D2D scores at
    P(aligned) >= 0.5 after every epoch; returns the matcher holding the chosen point's weights, its fit and the
    search."""
    import torch

    from ..artefacts import fingerprint
    from ..recipe_search import Search, dev_scores, setting

    data = fingerprint([[split.labels, [_digest(doc) for doc in split.docs_a + split.docs_b]]
                        for split in (pairs["train"], pairs["dev"])])
    search = Search(name, config.search, cache, fingerprint(name, setting(config), data, seed, sorted(options.items())))
    fits: dict[float, Fit] = {}
    for rate in search.rates():  # a fresh matcher (same seed) per rate; none on a cache hit
        torch.manual_seed(seed)
        model = build_model(name, prepared, config, **options).to(device)
        setup = paper_setup(config.search.epochs, config.batch_size, rate, seed)
        for epoch, fits[rate] in fit_epochs(model, pairs["train"], pairs["dev"], setup, patience=config.patience,
                                            min_improvement=config.min_improvement):
            decisions = decide(predict(model, pairs["dev"], config.batch_size).probabilities).tolist()
            search.keep(model, rate, epoch, dev_scores(pairs["dev"].labels, decisions))
    result = search.result({"fit": asdict(fits[search.chosen.learning_rate])} if fits else None)
    model = build_model(name, prepared, config, **options).to(device)
    model.load_state_dict(search.state)
    return model, Fit(**result.outcome["fit"]), result


def recipe_cache(run_dir: str | Path | None) -> "RecipeCache | None":
    """Where notebook 10's recipe searches are cached (`<run_dir>/recipes/cda`; None: not cached)."""
    from ..recipe_search import RecipeCache

    return RecipeCache.in_run(run_dir, "cda")


def _digest(document) -> str:
    """A document as the encoder reads it (word ids per sentence, or a sentence-vector array), in short."""
    from ..artefacts import fingerprint

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
    """The models of `models` that can train on `prepared`: the BERT-based ones read sentence vectors, so without a
    sentence encoder only the GRU-HAN ones (the others are named on stdout)."""
    skipped = [name for name in models if model_spec(name)[0] != "gru_han" and not prepared.vectors]
    if skipped:
        print(f"skipping {', '.join(skipped)}: no sentence encoder")
    return [name for name in models if name not in skipped]
