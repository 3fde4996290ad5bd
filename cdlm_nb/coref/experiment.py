"""The coreference experiment of notebook 04 (CDLM paper §3.2, Tables 2-3): fine-tune one pair scorer per pretrained
encoder on train, tune the clustering threshold on dev, cluster and score test. Clustering: inside each group of
documents (gold subtopics, or `predict_topics` as the released code's test set), average-linkage merges on the
distance 1 - P(coreferent) until the smallest average distance exceeds the threshold (released code: 0.5-0.7)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from transformers import set_seed

from ..encoders import max_input_length
from ..finetuning import ScoringResult, TrainSetup
from ..profiles import SEED, CorefConfig, Profile
from ..support.errors import ConfigError, DataError
from ..variants import PretrainedShelf
from .inputs import EncodingStats, SpecialIds, add_mention_markers, encode_pairs
from .mentions import (
    Mention,
    WordIds,
    collect_mentions,
    coref_clusters,
    gold_clusters,
    group_mentions,
    grouped,
    tokenize_documents,
)
from .metrics import CorefScores, score_coreference
from .model import PairScorer, build_pair_scorer
from .pairs import PairStats, candidate_pairs, training_pairs
from .training import score_pairs, train_scorer

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: Where dev/test candidate pairs come from: gold subtopics, or topics predicted by a document clustering.
EVALUATION_GROUPINGS = ("subtopic", "predicted")
SENTENCES_ONLY = "cdlm_sentences"  # the run name of the "sentences only" ablation (CDLM paper, Table 3)
Rows = Sequence[Mapping[str, Any]]  # COREF_FEATURES rows: a datasets.Dataset or a list of dicts
Clusters = list[list[str]]
#: One group's mentions and its average-linkage merge tree (None for a group of one mention).
Dendrogram = tuple[tuple[str, ...], np.ndarray | None]


@dataclass
class CorefData:
    """The train/dev/test splits a run uses, where they came from, and what the subtopic cap left out."""

    source: str  # "embedded" or "ecbplus"
    splits: dict[str, Any]  # split name -> COREF_FEATURES dataset
    notes: list[str]
    left_out: dict[str, int]  # dev/test -> gold subtopics left out by CorefConfig.eval_subtopics

    def describe(self, eval_subtopics: int | None) -> str:
        """What was chosen, in the notebook's words."""
        return "\n".join([*self.notes, f"subtopics left out by the cap (eval_subtopics={eval_subtopics}): "
                                       f"{self.left_out}"])


def limit_subtopics(dataset: "Dataset", n: int | None) -> tuple["Dataset", int]:
    """The documents of the first `n` gold subtopics (corpus order) and how many subtopics were left out."""
    subtopics = list(dict.fromkeys(dataset["subtopic"]))
    if n is None or len(subtopics) <= n:
        return dataset, 0
    kept = set(subtopics[:n])
    return dataset.select([i for i, name in enumerate(dataset["subtopic"]) if name in kept]), len(subtopics) - n


def coref_data(profile: Profile, data: str = "auto", ecbplus_dir: str | None = None,
               run_dir: str | Path | None = None) -> CorefData:
    """Notebook 04's corpus (`data` "auto": the profile's, `resolve_source`), dev and test cut to `eval_subtopics`."""
    from ..data.corpora import COREF_SOURCES, coref_splits, resolve_source

    source = resolve_source(profile, data, COREF_SOURCES)
    splits, notes = coref_splits(profile, source, ecbplus_dir, run_dir)
    left_out = {}
    for name in ("dev", "test"):
        splits[name], left_out[name] = limit_subtopics(splits[name], profile.coref.eval_subtopics)
    return CorefData(source, splits, notes, left_out)


@dataclass
class SplitScoring:
    """One evaluation split: its mentions, candidate pairs and their probabilities, and the clustering trees."""

    mentions: list[Mention]
    pair_stats: PairStats
    encoding: EncodingStats
    scoring: ScoringResult
    dendrograms: dict[str, Dendrogram]  # group -> merge tree


@dataclass
class CorefRun:
    """What one fine-tuned scorer produced, for the notebook's tables, plots and readings."""

    model: str
    kind: str
    max_length: int
    train_pairs: PairStats
    losses: list[float]
    train_seconds: float
    threshold: float
    dev_curve: list[tuple[float, float]]  # (threshold, dev CoNLL F1)
    test: SplitScoring
    test_scores: CorefScores
    test_clusters: list[list[str]]


def pair_probabilities(pairs: Iterable[tuple[str, str]], probabilities: Iterable[float]) -> dict[frozenset, float]:
    """{frozenset({mention a, mention b}): P(coreferent)}, order-free, from parallel pair ids and scores."""
    return {frozenset(pair): float(p) for pair, p in zip(pairs, probabilities, strict=True)}


def build_dendrograms(groups: Mapping[str, Sequence[str]],
                      probabilities: Mapping[frozenset, float]) -> dict[str, Dendrogram]:
    """Average-linkage trees per group on distance 1 - P; a pair without a probability (capped away) counts as 1."""
    trees = {}
    for name, members in groups.items():
        members = tuple(members)
        if len(set(members)) != len(members):
            raise DataError(f"group {name!r} lists a mention id twice; mention ids must be unique")
        distances = [1.0 - probabilities.get(frozenset(pair), 0.0) for pair in itertools.combinations(members, 2)]
        trees[name] = members, linkage(np.array(distances), method="average") if distances else None
    return trees


def cut_dendrograms(trees: Mapping[str, Dendrogram], threshold: float) -> Clusters:
    """Flat clusters from every group: merges whose average distance is <= `threshold` are kept."""
    clusters: Clusters = []
    for members, tree in trees.values():
        labels = range(len(members)) if tree is None else fcluster(tree, t=threshold, criterion="distance")
        clusters.extend(grouped(members, dict(zip(members, labels)).get).values())
    return clusters


def tune_threshold(trees: Mapping[str, Dendrogram], key: Clusters, thresholds: Sequence[float],
                   evaluate: Callable[[Clusters, Clusters], float]) -> tuple[float, list[tuple[float, float]]]:
    """The threshold with the best `evaluate(key, response)` (e.g. CoNLL F1 on dev), and every (threshold, score)."""
    curve = [(float(t), float(evaluate(key, cut_dendrograms(trees, t)))) for t in thresholds]
    return max(curve, key=lambda item: item[1])[0], curve


def predict_topics(documents: Mapping[str, str], threshold: float = 0.8) -> dict[str, str]:
    """Predicted document topics (a simple stand-in for the released code's document clustering, for the setting
    without gold topics): TF-IDF vectors, average-linkage clustering on cosine distance, cut at `threshold`."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if len(documents) < 2:
        return dict.fromkeys(documents, "0")
    vectors = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(list(documents.values()))
    labels = fcluster(linkage(vectors.toarray(), method="average", metric="cosine"), t=threshold, criterion="distance")
    return {doc_id: str(int(label)) for doc_id, label in zip(documents, labels)}


def evaluation_groups(rows: Rows, mentions: Sequence[Mention], grouping: str) -> dict[str, list[Mention]]:
    """The groups candidate pairs are formed in: gold subtopics, or topics predicted by `predict_topics`."""
    if grouping not in EVALUATION_GROUPINGS:
        raise ConfigError(f"grouping={grouping!r} is unknown; use one of {EVALUATION_GROUPINGS}")
    if grouping == "subtopic":
        return group_mentions(mentions, "subtopic")
    topic_of = predict_topics({row["doc_id"]: " ".join(w for s in row["sentences"] for w in s) for row in rows})
    return grouped(mentions, lambda m: topic_of[m.doc_id])


def score_split(scorer: PairScorer, rows: Rows, kind: str, documents: Mapping[str, WordIds], special: SpecialIds,
                max_length: int, config: CorefConfig, context: str, seed: int, device: str,
                grouping: str = "subtopic") -> SplitScoring:
    """Score every (capped) candidate pair inside each group and build the clustering trees."""
    mentions = collect_mentions(rows, kind)
    groups = evaluation_groups(rows, mentions, grouping)
    pairs, pair_stats = candidate_pairs(groups, config.max_pairs_per_subtopic, seed)
    inputs, encoding = encode_pairs(pairs, documents, special, max_length, context)
    scoring = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=config.score_batch_size, device=device)
    table = pair_probabilities(((p.first.mention_id, p.second.mention_id) for p in pairs), scoring.probabilities)
    trees = build_dendrograms({name: [m.mention_id for m in members] for name, members in groups.items()}, table)
    return SplitScoring(mentions, pair_stats, encoding, scoring, trees)


def run_coreference(model_name: str, encoder: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                    splits: Mapping[str, Any], config: CorefConfig, kind: str, *, context: str = "document",
                    grouping: str = "subtopic", device: str = "cpu", seed: int = SEED) -> CorefRun:
    """Fine-tune a pairwise scorer on `splits["train"]` (pairs within gold topics), pick the threshold on "dev",
    cluster and score "test" (candidate pairs within gold subtopics, or within `"predicted"` topics)."""
    set_seed(seed)  # the new marker embeddings and the scorer's head start alike whatever ran before
    special = add_mention_markers(tokenizer, encoder)
    max_length = max_input_length(encoder, config.max_length)
    documents = tokenize_documents([row for name in ("train", "dev", "test") for row in splits[name]], tokenizer)

    groups = group_mentions(collect_mentions(splits["train"], kind), "topic")
    pairs, train_stats = training_pairs(groups, config.negative_ratio, config.max_train_pairs, seed)
    inputs, _ = encode_pairs(pairs, documents, special, max_length, context)
    scorer = build_pair_scorer(encoder, config.hidden_sizes, config.activation, config.dropout)
    start = time.perf_counter()
    setup = TrainSetup(config.epochs, config.batch_size, config.learning_rate, seed, decay=False)
    losses = train_scorer(scorer, inputs, [p.label for p in pairs], setup, pad_id=special.pad, device=device,
                          per_device_batch=config.per_device_batch)
    train_seconds = time.perf_counter() - start

    dev, test = (score_split(scorer, splits[name], kind, documents, special, max_length, config, context, seed,
                             device, grouping) for name in ("dev", "test"))
    threshold, curve = tune_threshold(dev.dendrograms, gold_clusters(dev.mentions), config.thresholds,
                                      lambda key, response: score_coreference(key, response).conll)
    clusters = cut_dendrograms(test.dendrograms, threshold)
    assignment = {mention: index for index, cluster in enumerate(clusters) for mention in cluster}
    rows = list(splits["test"])
    scores = score_coreference(coref_clusters(rows, kind), coref_clusters(rows, kind, assignment))
    scorer.to("cpu")
    return CorefRun(model_name, kind, max_length, train_stats, losses, train_seconds, threshold, curve, test, scores,
                    clusters)


CorefRuns = dict[tuple[str, str], CorefRun]  # (model, kind) -> run


def sentences_ablation(shelf: PretrainedShelf, splits: Mapping[str, Any], config: CorefConfig, *,
                       grouping: str = "subtopic", device: str = "cpu", seed: int = SEED) -> CorefRuns:
    """CDLM fine-tuned and scored on the mentions' sentences only, first kind (Table 3); empty if skipped or missing."""
    if not config.sentences_ablation or "cdlm" not in config.models or not config.kinds:
        return {}
    kind, encoder = config.kinds[0], shelf.load("cdlm")
    if encoder is None:
        return {}
    run = run_coreference(SENTENCES_ONLY, encoder.model, encoder.tokenizer, splits, config, kind, context="sentences",
                          grouping=grouping, device=device, seed=seed)
    print(f"CDLM, sentences only, {kind}: test CoNLL F1 {100 * run.test_scores.conll:.1f}")
    return {(SENTENCES_ONLY, kind): run}
