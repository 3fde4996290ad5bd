"""Notebook 08's experiment: AoSE's segmentation (`segment`), and every model of AoSE's tables on one corpus.

Frozen (the sentence transformer runs once, its embeddings cached; only the top trains): `truncated` (the encoder
alone on the first 512 tokens: the paper's S-Roberta row), `mean` (sentence embeddings averaged, no attention),
`aose` (up to 8,192 tokens), `aose_<N>` (Table 7: documents cut after N tokens) and the `tfidf` floor (TF-IDF +
logistic regression). Fine-tuned (everything trains, on `finetune_docs` documents): `truncated` and `aose`, the
encoder at the paper's learning rate, the top at the frozen setting's, starting from random (the paper) or from the
frozen run's trained top (the two-stage recipe notebook 08 runs).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

import torch

from ..data.aose_sets import ClassificationSplits, stratified_sample
from ..data.text import split_sentences
from ..finetuning import Split, TrainSetup
from ..profiles import ClassificationConfig
from ..sentence_encoders import embed, max_positions
from ..support.progress import progress
from .model import DocumentClassifier, FineTunedClassifier, pad_groups
from .training import Forward, predict, train

LONG = 512  # "long" documents have more tokens than this (the encoder's tokenizer, special tokens excluded)
SPLITS = ("train", "test")


@dataclass(frozen=True)
class Segmented:
    """A document's segments and how many of its tokens they hold, and how many were cut at the limit."""

    segments: list[str]
    tokens: list[int]  # tokens per segment
    total_tokens: int  # tokens of the whole document (before the limit)
    cut_tokens: int  # tokens past the limit, not read

    @property
    def read_tokens(self) -> int:
        return sum(self.tokens)


def _pieces(text: str, tokenizer, max_tokens: int) -> list[tuple[str, int]]:
    """(text, tokens) of each sentence, a long one cut into `max_tokens`-token pieces at character offsets."""
    sentences = split_sentences(text)
    if not sentences:
        return []
    encoded = tokenizer(sentences, add_special_tokens=False, return_offsets_mapping=True)
    pieces = []
    for sentence, offsets in zip(sentences, encoded["offset_mapping"]):
        starts = _cut_points(sentence, offsets, max_tokens)
        for start, end in zip(starts, starts[1:] + [len(offsets)]):
            pieces.append((sentence[offsets[start][0]:offsets[end - 1][1]], end - start))
    return pieces


def _cut_points(text: str, offsets: list[tuple[int, int]], max_tokens: int) -> list[int]:
    """First token of each piece: at most `max_tokens` apart, moved back to a word's first token when one is in
    reach (a cut inside a word would tokenize differently on its own)."""
    starts = [0]
    while len(offsets) - starts[-1] > max_tokens:
        end = starts[-1] + max_tokens
        word_start = next((i for i in range(end, starts[-1], -1)
                           if offsets[i][0] > 0 and text[offsets[i][0] - 1].isspace()), end)
        starts.append(word_start)
    return starts


def _merge_short(pieces: list[tuple[str, int]], min_tokens: int) -> list[tuple[str, int]]:
    """Pieces shorter than `min_tokens` joined to the next one (a short last piece joins the previous one)."""
    merged: list[tuple[str, int]] = []
    pending = None
    for text, tokens in pieces:
        if pending:
            text, tokens = f"{pending[0]} {text}", pending[1] + tokens
        pending = (text, tokens) if tokens < min_tokens else None
        if pending is None:
            merged.append((text, tokens))
    if pending and merged:  # with nothing to join, the whole document is too short: no segment
        merged[-1] = (f"{merged[-1][0]} {pending[0]}", merged[-1][1] + pending[1])
    return merged


def segment(text: str, tokenizer, min_tokens: int = 5, max_tokens: int = 250, limit: int | None = None) -> Segmented:
    """AoSE's segmentation (Abdaoui & Dutta 2023, §3.1 and §4.2): the document as sentences of 5-250 tokens (the
    sentence transformer's own, without its special tokens). Our rules, in order (the paper names only the separators
    and the bounds):
    1. sentences by `data.text.split_sentences` (line breaks, then full stops / ! / ? before a capital);
    2. a sentence longer than `max_tokens` is cut into pieces of at most `max_tokens` tokens, between words;
    3. a piece shorter than `min_tokens` joins the next one (the last one joins the previous), so nothing is lost;
       a document of fewer than `min_tokens` tokens has no segment (callers skip it and count it);
    4. the document is read up to `limit` tokens (AoSE-N, or the 8,192 of the paper; None: all): later tokens are
       cut, counted."""
    pieces = _merge_short(_pieces(text, tokenizer, max_tokens), min_tokens)
    total = sum(tokens for _, tokens in pieces)
    kept, read = [], 0
    for piece, tokens in pieces:
        if limit is not None and read + tokens > limit:
            if limit - read >= min_tokens:  # the cut segment keeps its first `limit - read` tokens
                offsets = tokenizer(piece, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
                kept.append((piece[:offsets[limit - read - 1][1]], limit - read))
            break
        kept.append((piece, tokens))
        read += tokens
    counts = [n for _, n in kept]
    return Segmented([t for t, _ in kept], counts, total, total - sum(counts))


@dataclass
class Corpus:
    """One corpus ready for every model: texts, labels, token counts and AoSE's segments per split."""

    name: str
    label_names: list[str]
    texts: dict[str, list[str]]
    labels: dict[str, list[int]]
    tokens: dict[str, list[int]]  # whole document
    segmented: dict[str, list[Segmented]]  # read up to `max_document_tokens`
    notes: list[str] = field(default_factory=list)


def prepare(splits: ClassificationSplits, tokenizer, config: ClassificationConfig) -> Corpus:
    """Segment every document; one with no segment of `min_tokens` tokens is skipped and counted."""
    corpus = Corpus(splits.name, splits.label_names, {}, {}, {}, {}, list(splits.notes))
    for split, data in (("train", splits.train), ("test", splits.test)):
        texts, labels = list(data["text"]), list(data["label"])
        segmented = [segment(text, tokenizer, config.min_tokens, config.max_tokens, config.max_document_tokens)
                     for text in texts]
        kept = [i for i, pieces in enumerate(segmented) if pieces.segments]
        corpus.texts[split], corpus.labels[split] = [texts[i] for i in kept], [labels[i] for i in kept]
        corpus.segmented[split] = [segmented[i] for i in kept]
        corpus.tokens[split] = [segmented[i].total_tokens for i in kept]
        if skipped := len(texts) - len(kept):
            corpus.notes.append(f"{split}: {skipped} documents with fewer than {config.min_tokens} tokens skipped")
        if cut := sum(1 for i in kept if segmented[i].cut_tokens):
            corpus.notes.append(f"{split}: {cut} documents longer than {config.max_document_tokens} tokens cut")
    return corpus


def in_length_group(tokens: int, which: str) -> bool:
    """Whether a document of `tokens` tokens is in the group `which`: "all", "short" (<= LONG) or "long" (> LONG)."""
    return {"all": True, "short": tokens <= LONG, "long": tokens > LONG}[which]


@dataclass
class ClassificationRun:
    """One trained model's test predictions and what training cost."""

    model: str
    setting: str  # "frozen" or "finetuned"
    predictions: list[int]
    labels: list[int]
    tokens: list[int]
    train_seconds: float
    alphas: list[list[float]] = field(default_factory=list)  # attention per test document (AoSE only)
    head: DocumentClassifier | None = None  # the trained top (frozen runs): notebook 08 writes its pooling out
    test_vectors: list[torch.Tensor] = field(default_factory=list)  # frozen runs: `[segments, dim]` per test document

    def correct(self, which: str = "all") -> list[float]:
        """1 or 0 per test document of the length group `which` (`in_length_group`), in test order."""
        return [float(p == y) for p, y, n in zip(self.predictions, self.labels, self.tokens)
                if in_length_group(n, which)]

    def accuracy(self, which: str = "all") -> float:
        """Accuracy (%) on the test documents of the length group `which`; NaN if there are none."""
        right = self.correct(which)
        return 100.0 * sum(right) / len(right) if right else float("nan")


def _frozen_run(name: str, groups: dict[str, list[torch.Tensor]], corpus: Corpus, pooling: str,
                config: ClassificationConfig, seed: int, device: str) -> ClassificationRun:
    """Train a `DocumentClassifier` on cached vectors (`groups[split][i]`: `[sentences, dim]`), test it."""
    torch.manual_seed(seed)
    head = DocumentClassifier(groups["train"][0].shape[-1], len(corpus.label_names), pooling).to(device)

    def forward_on(split):
        return lambda batch: head(*pad_groups([groups[split][i] for i in batch]))

    lengths = {split: [len(group) for group in groups[split]] for split in SPLITS}
    setup = TrainSetup(config.frozen_epochs, config.batch_size, config.frozen_learning_rate, seed)
    seconds = train(forward_on("train"), head, corpus.labels["train"], lengths["train"], setup, device=device)
    predictions, alphas = predict(forward_on("test"), lengths["test"], config.batch_size * 4, device=device)
    return ClassificationRun(name, "frozen", predictions, corpus.labels["test"], corpus.tokens["test"], seconds,
                             alphas if pooling == "attention" else [], head, groups["test"])


def run_frozen(corpus: Corpus, config: ClassificationConfig, seed: int, embed_texts, tokenizer,
               device: str = "cpu") -> tuple[dict[str, ClassificationRun], float]:
    """Every frozen model, and the seconds spent embedding (`embed_texts(texts, max_length)`: `cached_embedder`);
    the tops train on `device`, the cached vectors moved there once."""
    started = time.perf_counter()
    views = {"full": corpus.segmented} | {
        limit: {split: [segment(text, tokenizer, config.min_tokens, config.max_tokens, limit)
                        for text in corpus.texts[split]] for split in SPLITS} for limit in config.truncations}
    # every distinct segment embedded once: the cut views share all but their last segment with the full one
    unique = list(dict.fromkeys(s for view in views.values() for split in SPLITS for pieces in view[split]
                                for s in pieces.segments))
    vectors = embed_texts(unique, config.max_tokens + 2).to(device)  # + 2: the special tokens
    row = {s: i for i, s in enumerate(unique)}
    groups = {name: {split: [vectors[[row[s] for s in pieces.segments]] for pieces in view[split]] for split in SPLITS}
              for name, view in views.items()}
    first = {split: [v[None] for v in embed_texts(corpus.texts[split], config.truncated_tokens + 2).to(device)]
             for split in SPLITS}
    embed_seconds = time.perf_counter() - started
    models = [("truncated", first, "mean"), ("mean", groups["full"], "mean"), ("aose", groups["full"], "attention"),
              *((f"aose_{limit}", groups[limit], "attention") for limit in config.truncations)]
    runs = {name: _frozen_run(name, inputs, corpus, pooling, config, seed, device) for name, inputs, pooling in models}
    return runs | {"tfidf": tfidf_run(corpus)}, embed_seconds


def tfidf_run(corpus: Corpus) -> ClassificationRun:
    """The lexical floor: TF-IDF (word uni- and bigrams seen at least twice, sublinear tf, fitted on the training
    texts) + logistic regression; scikit-learn's defaults otherwise, nothing tuned."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    started = time.perf_counter()
    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
                          LogisticRegression(max_iter=2000)).fit(corpus.texts["train"], corpus.labels["train"])
    seconds = time.perf_counter() - started
    predictions = [int(label) for label in model.predict(corpus.texts["test"])]
    return ClassificationRun("tfidf", "frozen", predictions, corpus.labels["test"], corpus.tokens["test"], seconds)


def run_finetuned(corpus: Corpus, load_encoder, config: ClassificationConfig, seed: int, device: str,
                  frozen: Mapping[str, ClassificationRun] | None = None) -> dict[str, ClassificationRun]:
    """The encoder alone and AoSE, each fine-tuned from a fresh copy of the sentence transformer. With `frozen`
    (`run_frozen`'s runs) each top starts from its frozen run's trained top: the two-stage recipe (train the top on
    the frozen encoder, then fine-tune everything; Kumar et al., ICLR 2022, arXiv:2202.10054); without, from random
    as in the AoSE paper."""
    train_index = list(range(len(corpus.labels["train"])))
    if config.finetune_docs is not None and config.finetune_docs < len(train_index):
        train_index, _ = stratified_sample(corpus.labels["train"], config.finetune_docs, seed)
    # documents as segment lists: all segments (AoSE) or the whole text cut by the encoder (truncated)
    inputs = {"aose": {split: [pieces.segments for pieces in corpus.segmented[split]] for split in SPLITS},
              "truncated": {split: [[text] for text in corpus.texts[split]] for split in SPLITS}}
    lengths = {split: [pieces.read_tokens for pieces in corpus.segmented[split]] for split in SPLITS}

    def budget(documents: list[list[str]]) -> Split:  # training and scoring both cut batches to the segment budget
        return partial(segment_budget, documents=documents, budget=config.max_segments_per_step)

    runs = {}
    for name in progress(("truncated", "aose"), desc="fine-tuning", leave=False):
        torch.manual_seed(seed)
        encoder = load_encoder().to(device)
        head = (copy.deepcopy(frozen[name].head) if frozen is not None else
                DocumentClassifier(encoder.get_embedding_dimension(), len(corpus.label_names),
                                   "attention" if name == "aose" else "mean")).to(device)
        max_length = (config.max_tokens if name == "aose" else config.truncated_tokens) + 2  # + 2 specials
        model = FineTunedClassifier(encoder, head, min(max_length, max_positions(encoder)))
        train_docs, test_docs = [inputs[name]["train"][i] for i in train_index], inputs[name]["test"]
        groups = [{"params": list(encoder.parameters()), "lr": config.finetune_learning_rate},  # pretrained
                  {"params": list(head.parameters()), "lr": config.frozen_learning_rate}]  # new, or probed
        setup = TrainSetup(config.finetune_epochs, config.batch_size, config.finetune_learning_rate, seed)
        seconds = train(_forward(model, train_docs), model, [corpus.labels["train"][i] for i in train_index],
                        [lengths["train"][i] for i in train_index], setup, parameters=groups,
                        split=budget(train_docs), device=device)
        predictions, alphas = predict(_forward(model, test_docs), lengths["test"], config.batch_size,
                                      [len(doc) for doc in test_docs], budget(test_docs), device)
        runs[name] = ClassificationRun(name, "finetuned", predictions, corpus.labels["test"], corpus.tokens["test"],
                                       seconds, alphas if name == "aose" else [])
    return runs


def _forward(model: FineTunedClassifier, documents: list[list[str]]) -> Forward:
    """`batch of indices -> (logits, α)` on `documents` (bound here, not by a lambda reading the loop's variables)."""
    return lambda batch: model([documents[i] for i in batch])


def segment_budget(batch: list[int], documents: list[list[str]], budget: int) -> list[list[int]]:
    """The batch cut into consecutive pieces of at most `budget` segments (a longer document is a piece alone)."""
    pieces, current, count = [], [], 0
    for index in batch:
        size = len(documents[index])
        if current and count + size > budget:
            pieces.append(current)
            current, count = [], 0
        current.append(index)
        count += size
    return pieces + ([current] if current else [])


def cached_embedder(encoder, name: str, batch_size: int, cache_dir):
    """`embed_texts(texts, max_length)` for `run_frozen`: the encoder's embeddings, cached under the run folder."""
    return lambda texts, max_length: embed(encoder, texts, max_length, batch_size, cache_dir, name)
