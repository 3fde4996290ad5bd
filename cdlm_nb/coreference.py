"""The CDLM pairwise cross-encoder for cross-document coreference (CDLM §3.2 / v1 §5.2, Appendix B.1).

One input per candidate pair of gold mentions:

    <s> <doc-s> DOC1 (… <m> mention i </m> …) </doc-s> <doc-s> DOC2 (… <m> mention j </m> …) </doc-s> </s>

Both *whole* documents go in (a within-document pair uses its one document, both mentions marked). The two
share the model's length: a document shorter than half keeps all of it, and a document longer than its share is
cut to a window centred on its mention (the released code cuts each to ~2,044 tokens, keeping the half of the
document that holds the mention). Cuts are counted, never silent. Global attention goes to `<s>`,
the `<m>`/`</m>` markers and the mention tokens. The pair vector is [s; m_i; m_j; m_i ∘ m_j] (s = the `<s>`
vector, a mention = the SUM of its token vectors) and an MLP turns it into one logit, trained with BCE.

The "sentences only" ablation (CDLM Table 3) replaces each document with just the sentence(s) holding its
mention(s), which is the input of the sentence-based prior work (Zeng et al., Yu et al. 2020).
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .coref.conll import MENTION_KINDS
from .coref.mentions import (Mention, MentionPair, WordIds, check_mention, collect_mentions, gold_clusters,
                             group_mentions, tokenize_documents)
from .errors import ConfigError, DataError
from .runtime import progress
from .tokenization import document_separator_ids, sequence_markers

if TYPE_CHECKING:
    import numpy as np
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

MENTION_START = "<m>"
MENTION_END = "</m>"
MENTION_MARKERS = (MENTION_START, MENTION_END)
CONTEXTS = ("document", "sentences")  # full documents (CDLM) or only the mentions' sentences (the ablation)

# ---------------------------------------------------------------------------------------------------------
# Mentions and documents
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpecialIds:
    """The ids a pair input is built from."""

    cls: int
    sep: int
    pad: int
    doc_start: int
    doc_end: int
    mention_start: int
    mention_end: int


def add_mention_markers(tokenizer: "PreTrainedTokenizerBase", model: "PreTrainedModel | None" = None) -> SpecialIds:
    """Add `<m>`/`</m>` as special tokens (if missing), grow `model`'s embeddings (random rows), return the ids.

    The tokenizer must already hold `<doc-s>`/`</doc-s>` (cdlm_nb.tokenization.add_document_separators).
    """
    missing = [token for token in MENTION_MARKERS if token not in tokenizer.get_vocab()]
    if missing:
        tokenizer.add_special_tokens({"extra_special_tokens": missing}, replace_extra_special_tokens=False)
    if model is not None and model.get_input_embeddings().num_embeddings < len(tokenizer):
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    doc_start, doc_end = document_separator_ids(tokenizer)
    cls, sep = sequence_markers(tokenizer)
    if tokenizer.pad_token_id is None:
        raise ConfigError(f"tokenizer {type(tokenizer).__name__} has no padding token")
    vocab = tokenizer.get_vocab()
    return SpecialIds(cls, sep, tokenizer.pad_token_id, doc_start, doc_end, vocab[MENTION_START], vocab[MENTION_END])


DATA_SOURCES = ("embedded", "ecbplus")


def load_coref_splits(source: str, profile, ecbplus_dir: str | None = None,
                      run_dir: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """train/dev/test COREF_FEATURES datasets from the embedded world or ECB+, and notes on what was chosen.

    ECB+ comes from `ecbplus_dir`, else (gpu profile) is downloaded into `<run_dir>/data/ecbplus`, else is the
    shared sample (topics 1-35). Without the test topics 36-45, the dev topics present are split in two: the
    first half tunes the threshold, the second half is the test set (said in the notes).
    """
    if source not in DATA_SOURCES:
        raise ConfigError(f"DATA={source!r} is unknown; use one of {DATA_SOURCES}")
    if source == "embedded":
        from .data.world import generate_world

        world = generate_world(profile.world)
        return dict(world.coref), [f"embedded world, seed {profile.world.seed}, splits by topic"]

    from .data.ecbplus import DEV_TOPICS, download_ecbplus, load_ecbplus
    from .paths import shared_data_dir

    if ecbplus_dir is None and profile.data_source == "hub":
        ecbplus_dir = download_ecbplus(Path(run_dir or ".") / "data" / "ecbplus")
    elif ecbplus_dir is None:
        shared = shared_data_dir()
        if shared is None or not (shared / "ecbplus").is_dir():
            raise DataError("no ECB+ folder: set ECBPLUS_DIR to a folder holding ECB+/ and "
                            "ECBplus_coreference_sentences.csv, or use DATA = 'embedded'")
        ecbplus_dir = shared / "ecbplus"
    topics = profile.coref.ecbplus_topics
    splits = dict(load_ecbplus(ecbplus_dir, topics=topics, keep_all_sentences=True))
    notes = [f"ECB+ from {ecbplus_dir}, topics {'all' if topics is None else list(topics)}, whole documents, "
             "gold mentions of the validated sentences"]
    if "train" not in splits or "dev" not in splits:
        raise ConfigError(f"ECB+ topics {topics} give splits {sorted(splits)}; train and dev topics are needed "
                          f"(dev topics: {DEV_TOPICS}); change CorefConfig.ecbplus_topics")
    if "test" not in splits:
        dev_topics = list(dict.fromkeys(splits["dev"]["topic"]))
        if len(dev_topics) < 2:
            raise ConfigError(f"no ECB+ test topics (36-45) and only dev topic(s) {dev_topics}: need two dev topics "
                              "to split into dev and test")
        tune, held_out = set(dev_topics[:len(dev_topics) // 2]), set(dev_topics[len(dev_topics) // 2:])
        dev, topic_of = splits["dev"], splits["dev"]["topic"]
        splits["dev"] = dev.select([i for i, topic in enumerate(topic_of) if topic in tune])
        splits["test"] = dev.select([i for i, topic in enumerate(topic_of) if topic in held_out])
        notes.append(f"no test topics (36-45) here: dev topics {sorted(tune)} tune the threshold and dev topics "
                     f"{sorted(held_out)} stand in as test")
    return splits, notes


def limit_subtopics(dataset, n: int | None):
    """The documents of the first `n` gold subtopics (corpus order) and how many subtopics were left out."""
    subtopics = list(dict.fromkeys(dataset["subtopic"]))
    if n is None or len(subtopics) <= n:
        return dataset, 0
    kept = set(subtopics[:n])
    return dataset.select([i for i, name in enumerate(dataset["subtopic"]) if name in kept]), len(subtopics) - n


def split_summary(splits: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per split: topics, subtopics, documents, mentions and clusters of each kind (the notebook's data table)."""
    rows = []
    for name, dataset in splits.items():
        row = {"split": name, "topics": len(set(dataset["topic"])), "subtopics": len(set(dataset["subtopic"])),
               "documents": len(dataset)}
        for kind in MENTION_KINDS:
            mentions = collect_mentions(dataset, kind)
            row[f"{kind} mentions"] = len(mentions)
            row[f"{kind} clusters"] = len(gold_clusters(mentions))
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------------------
# Candidate pairs
# ---------------------------------------------------------------------------------------------------------


@dataclass
class PairStats:
    """What pair construction kept and dropped, for the notebook to report."""

    groups: int = 0
    pairs: int = 0
    positives: int = 0
    dropped: int = 0  # pairs removed by a cap or by negative sampling
    per_group: dict[str, int] = field(default_factory=dict)  # pairs kept per group


def candidate_pairs(groups: Mapping[str, Sequence[Mention]], max_pairs_per_group: int | None = None,
                    seed: int = 13) -> tuple[list[MentionPair], PairStats]:
    """Every unordered pair of mentions inside each group (the pairs clustering needs scores for).

    `max_pairs_per_group` keeps a random sample of that many pairs in larger groups (a CPU budget); the
    dropped pairs count in `stats.dropped` and are treated as non-coreferent by clustering.
    """
    rng = random.Random(seed)
    pairs: list[MentionPair] = []
    stats = PairStats(groups=len(groups))
    for name, members in groups.items():
        group_pairs = [MentionPair(a, b) for a, b in itertools.combinations(members, 2)]
        if max_pairs_per_group is not None and len(group_pairs) > max_pairs_per_group:
            stats.dropped += len(group_pairs) - max_pairs_per_group
            group_pairs = rng.sample(group_pairs, max_pairs_per_group)
        stats.per_group[name] = len(group_pairs)
        pairs.extend(group_pairs)
    stats.pairs = len(pairs)
    stats.positives = sum(pair.label for pair in pairs)
    return pairs, stats


def training_pairs(groups: Mapping[str, Sequence[Mention]], negative_ratio: float | None, max_pairs: int | None = None,
                   seed: int = 13) -> tuple[list[MentionPair], PairStats]:
    """Training pairs: all coreferent pairs in each group, plus `negative_ratio` random negatives per positive.

    `negative_ratio=None` keeps every negative (the released code); `max_pairs` caps the total by a random
    sample that keeps the positive share. Both removals count in `stats.dropped`.
    """
    rng = random.Random(seed)
    labelled = [(name, MentionPair(a, b)) for name, members in groups.items()
                for a, b in itertools.combinations(members, 2)]
    positives = [item for item in labelled if item[1].label]
    negatives = [item for item in labelled if not item[1].label]
    if negative_ratio is not None:
        negatives = rng.sample(negatives, min(len(negatives), round(negative_ratio * len(positives))))
    if max_pairs is not None and len(positives) + len(negatives) > max_pairs:
        n_pos = min(len(positives), round(max_pairs * len(positives) / (len(positives) + len(negatives))))
        positives, negatives = rng.sample(positives, n_pos), rng.sample(negatives, max_pairs - n_pos)
    kept = positives + negatives
    rng.shuffle(kept)
    return [pair for _, pair in kept], PairStats(
        groups=len(groups), pairs=len(kept), positives=len(positives), dropped=len(labelled) - len(kept),
        per_group=dict(Counter(name for name, _ in kept)))


# ---------------------------------------------------------------------------------------------------------
# Pair inputs: markers, document windows, global attention
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairInput:
    """One encoded pair: token ids plus the positions the model reads."""

    input_ids: list[int]
    global_positions: list[int]  # <s>, <m>, </m> and the mention tokens
    first_positions: list[int]  # tokens of mention i (summed into m_i)
    second_positions: list[int]  # tokens of mention j
    truncated_documents: int  # documents cut to a window around their mention(s)
    split_document: bool  # a within-document pair whose mentions do not fit one window: two windows instead


@dataclass
class _Part:
    """One `<doc-s> … </doc-s>` segment body: ids, and positions within it."""

    ids: list[int]
    mentions: dict[str, list[int]]  # mention_id -> token positions
    markers: list[int]  # positions of <m> and </m>
    truncated: bool = False


def _marked_document(words: WordIds, sentences: Sequence[int], mentions: Sequence[Mention],
                     special: SpecialIds) -> _Part:
    """The kept sentences' ids in order, with `<m>` before and `</m>` after each of `mentions`."""
    part = _Part(ids=[], mentions={m.mention_id: [] for m in mentions}, markers=[])

    def close(sentence: int, word: int) -> None:
        for m in sorted(mentions, key=lambda m: -m.start):  # inner mentions close first
            if m.sentence == sentence and m.end == word:
                part.markers.append(len(part.ids))
                part.ids.append(special.mention_end)

    for sentence in sentences:
        for word, word_ids in enumerate(words[sentence]):
            close(sentence, word)
            for m in sorted(mentions, key=lambda m: -m.end):  # outer mentions open first
                if m.sentence == sentence and m.start == word:
                    part.markers.append(len(part.ids))
                    part.ids.append(special.mention_start)
            for m in mentions:
                if m.sentence == sentence and m.start <= word < m.end:
                    part.mentions[m.mention_id].extend(range(len(part.ids), len(part.ids) + len(word_ids)))
            part.ids.extend(word_ids)
        close(sentence, len(words[sentence]))
    return part


def _window(part: _Part, budget: int) -> _Part | None:
    """Cut `part` to `budget` tokens centred on its marked mentions; None if the mentions alone do not fit."""
    if len(part.ids) <= budget:
        return part
    low, high = min(part.markers), max(part.markers) + 1
    if high - low > budget:
        return None
    start = max(0, min(low - (budget - (high - low)) // 2, len(part.ids) - budget))

    def shift(positions: list[int]) -> list[int]:
        return [p - start for p in positions]

    return _Part(ids=part.ids[start:start + budget], mentions={k: shift(v) for k, v in part.mentions.items()},
                 markers=shift(part.markers), truncated=True)


def _segment(documents: Mapping[str, WordIds], mentions: Sequence[Mention], special: SpecialIds, context: str) -> _Part:
    """One document holding `mentions`, marked, as the whole document or only the mentions' sentences."""
    doc_id = mentions[0].doc_id
    if doc_id not in documents:
        raise DataError(f"mention {mentions[0].mention_id!r} refers to document {doc_id!r}, which was not tokenised")
    words = documents[doc_id]
    sentences = range(len(words)) if context == "document" else sorted({m.sentence for m in mentions})
    return _marked_document(words, sentences, mentions, special)


def _share(lengths: Sequence[int], room: int) -> list[int]:
    """Token budgets for two documents sharing `room`: a document shorter than half keeps all of it."""
    if sum(lengths) <= room:
        return list(lengths)
    short = min(lengths)
    if short <= room // 2:
        return [length if length == short else room - short for length in lengths]
    return [room // 2, room // 2]


def build_pair_input(pair: MentionPair, documents: Mapping[str, WordIds], special: SpecialIds, max_length: int,
                     context: str = "document") -> PairInput:
    """`<s> <doc-s> DOC1 </doc-s> [<doc-s> DOC2 </doc-s>] </s>` for one pair, documents cut to fit `max_length`.

    A within-document pair is one segment with both mentions marked when both fit one window; otherwise (and
    for a cross-document pair) each mention gets its own segment, the two sharing the length.
    """
    if context not in CONTEXTS:
        raise ConfigError(f"context={context!r} is unknown; use one of {CONTEXTS}")
    first, second = pair.first, pair.second
    parts: list[_Part | None] = [None]
    if first.doc_id == second.doc_id:
        parts = [_window(_segment(documents, [first, second], special, context), max_length - 4)]
    split = first.doc_id == second.doc_id and parts[0] is None
    if parts[0] is None:
        whole = [_segment(documents, [m], special, context) for m in (first, second)]
        budgets = _share([len(part.ids) for part in whole], max_length - 6)
        parts = [_window(part, budget) for part, budget in zip(whole, budgets)]
        if any(part is None for part in parts):
            raise ConfigError(f"max_length={max_length} is too short to hold mention {first.mention_id!r} or "
                              f"{second.mention_id!r} with its markers; raise CorefConfig.max_length")
    ids, global_positions = [special.cls], [0]
    positions: dict[str, list[int]] = {}
    for part in parts:
        ids.append(special.doc_start)
        offset = len(ids)
        ids.extend(part.ids)
        ids.append(special.doc_end)
        global_positions += [offset + p for p in part.markers]
        for mention_id, mention_positions in part.mentions.items():
            positions.setdefault(mention_id, [offset + p for p in mention_positions])
            global_positions += [offset + p for p in mention_positions]
    ids.append(special.sep)
    return PairInput(ids, sorted(set(global_positions)), positions[first.mention_id], positions[second.mention_id],
                     sum(part.truncated for part in parts), split)


def render_pair_input(item: PairInput, tokenizer: "PreTrainedTokenizerBase") -> str:
    """The pair input as readable text: subwords glued into words, tokens with global attention in [brackets]."""
    tokens = tokenizer.convert_ids_to_tokens(item.input_ids)
    specials = set(tokenizer.all_special_tokens)
    global_positions = set(item.global_positions)
    text, previous_special = "", True
    for position, token in enumerate(tokens):
        special = token in specials
        piece = token if special else token.lstrip("\u0120")  # byte-level BPE marks a word start with "Ġ"
        piece = f"[{piece}]" if position in global_positions else piece
        new_word = special or previous_special or token.startswith("\u0120")
        text += (" " if new_word and text else "") + piece
        previous_special = special
    return text


def preview_pair(rows: Sequence[Mapping[str, Any]], model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                 kind: str, max_length: int) -> str:
    """One candidate pair as the cross-encoder sees it (a cross-document coreferent pair where there is one),
    headed by its two mentions; adds the `<m>`/`</m>` markers to `tokenizer` and `model`."""
    special = add_mention_markers(tokenizer, model)
    documents = tokenize_documents(rows, tokenizer)
    pairs, _ = candidate_pairs(group_mentions(collect_mentions(rows, kind), "subtopic"))
    pair = next((p for p in pairs if p.label and p.first.doc_id != p.second.doc_id), pairs[0])
    item = build_pair_input(pair, documents, special, encoder_max_length(model, special.pad, max_length))
    header = (f"mentions: {pair.first.text!r} ({pair.first.doc_id}) and {pair.second.text!r} ({pair.second.doc_id}), "
              f"coreferent: {bool(pair.label)}; {len(item.input_ids)} tokens, {len(item.global_positions)} global")
    return f"{header}\n\n{render_pair_input(item, tokenizer)}"


@dataclass
class EncodingStats:
    """How pair inputs were shaped: lengths, truncations and split within-document pairs."""

    pairs: int
    truncated_pairs: int  # pairs with at least one document cut to a window
    truncated_documents: int
    split_documents: int
    mean_length: float
    max_length: int


def encode_pairs(pairs: Sequence[MentionPair], documents: Mapping[str, WordIds], special: SpecialIds, max_length: int,
                 context: str = "document") -> tuple[list[PairInput], EncodingStats]:
    """Build every pair's input and count the truncations (reported, never silent)."""
    inputs = [build_pair_input(pair, documents, special, max_length, context) for pair in pairs]
    lengths = [len(item.input_ids) for item in inputs] or [0]
    stats = EncodingStats(
        pairs=len(inputs),
        truncated_pairs=sum(item.truncated_documents > 0 for item in inputs),
        truncated_documents=sum(item.truncated_documents for item in inputs),
        split_documents=sum(item.split_document for item in inputs),
        mean_length=sum(lengths) / len(lengths),
        max_length=max(lengths),
    )
    return inputs, stats


def length_sorted_batches(inputs: Sequence[PairInput], batch_size: int, shuffle: bool = False,
                          seed: int = 13) -> list[list[int]]:
    """Indices of `inputs` in batches of similar length (little padding); batch order shuffled when training."""
    order = sorted(range(len(inputs)), key=lambda i: len(inputs[i].input_ids))
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if shuffle:
        random.Random(seed).shuffle(batches)
    return batches


def collate(inputs: Sequence[PairInput], pad_id: int) -> dict[str, "torch.Tensor"]:
    """Pad a batch: input_ids, attention_mask, global_attention_mask and the two mention masks."""
    import torch

    width = max(len(item.input_ids) for item in inputs)
    batch = {
        "input_ids": torch.full((len(inputs), width), pad_id, dtype=torch.long),
        "attention_mask": torch.zeros((len(inputs), width), dtype=torch.long),
        "global_attention_mask": torch.zeros((len(inputs), width), dtype=torch.long),
        "first_mask": torch.zeros((len(inputs), width)),
        "second_mask": torch.zeros((len(inputs), width)),
    }
    for row, item in enumerate(inputs):
        batch["input_ids"][row, :len(item.input_ids)] = torch.tensor(item.input_ids)
        batch["attention_mask"][row, :len(item.input_ids)] = 1
        batch["global_attention_mask"][row, item.global_positions] = 1
        batch["first_mask"][row, item.first_positions] = 1.0
        batch["second_mask"][row, item.second_positions] = 1.0
    return batch


# ---------------------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------------------


def _pair_scorer_class():
    import torch
    from torch import nn

    class PairScorer(nn.Module):
        """Longformer encoder + MLP over [s; m_i; m_j; m_i ∘ m_j] -> one coreference logit."""

        def __init__(self, encoder: nn.Module, hidden_sizes: Sequence[int] = (1024,), activation: str = "tanh",
                     dropout: float = 0.1):
            super().__init__()
            activations = {"tanh": nn.Tanh, "relu": nn.ReLU}
            if activation not in activations:
                raise ConfigError(f"activation={activation!r} is unknown; use one of {sorted(activations)}")
            self.encoder = encoder
            layers: list[nn.Module] = []
            width = 4 * encoder.config.hidden_size
            for size in hidden_sizes:
                layers += [nn.Dropout(dropout), nn.Linear(width, size), activations[activation]()]
                width = size
            layers += [nn.Dropout(dropout), nn.Linear(width, 1)]
            self.mlp = nn.Sequential(*layers)

        def pair_vectors(self, input_ids, attention_mask, global_attention_mask, first_mask, second_mask):
            """[s; m_i; m_j; m_i ∘ m_j]: the <s> vector and the summed token vectors of each mention."""
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  global_attention_mask=global_attention_mask).last_hidden_state
            first = torch.einsum("bl,bld->bd", first_mask.to(hidden.dtype), hidden)
            second = torch.einsum("bl,bld->bd", second_mask.to(hidden.dtype), hidden)
            return torch.cat([hidden[:, 0], first, second, first * second], dim=-1)

        def forward(self, **batch):
            return self.mlp(self.pair_vectors(**batch)).squeeze(-1)

    return PairScorer


def build_pair_scorer(encoder: "PreTrainedModel", hidden_sizes: Sequence[int] = (1024,), activation: str = "tanh",
                      dropout: float = 0.1):
    """The pairwise scorer on top of a Longformer encoder (a masked-LM model is reduced to its base encoder).

    The paper: one hidden layer of 1024 with tanh. The released code: 3072 -> 768 -> 128 -> 1 with ReLU, i.e.
    `hidden_sizes=(768, 128), activation="relu"`.
    """
    base = getattr(encoder, "base_model", encoder)
    return _pair_scorer_class()(base, hidden_sizes, activation, dropout)


# ---------------------------------------------------------------------------------------------------------
# Fine-tuning and scoring
# ---------------------------------------------------------------------------------------------------------


def _move(batch: dict[str, "torch.Tensor"], device: str) -> dict[str, "torch.Tensor"]:
    return {name: tensor.to(device) for name, tensor in batch.items()}


def _autocast(device: str):
    """bfloat16 mixed precision on a CUDA GPU (about twice as fast for Longformer-base), full precision elsewhere."""
    import torch

    return torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=device == "cuda")


def train_scorer(scorer, inputs: Sequence[PairInput], labels: Sequence[int], *, pad_id: int, epochs: int,
                 batch_size: int, learning_rate: float, grad_accumulation: int = 1, device: str = "cpu",
                 seed: int = 13) -> list[float]:
    """Fine-tune encoder and MLP together with BCE on the pair labels (AdamW); returns the loss of every batch."""
    import torch

    if not inputs:
        raise DataError("no training pairs: the training split holds no mention pairs of this kind")
    torch.manual_seed(seed)
    scorer.to(device).train()
    optimizer = torch.optim.AdamW(scorer.parameters(), lr=learning_rate)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    targets = torch.tensor(labels, dtype=torch.float)
    losses: list[float] = []
    for epoch in range(epochs):
        batches = length_sorted_batches(inputs, batch_size, shuffle=True, seed=seed + epoch)
        for step, indices in enumerate(progress(batches, desc=f"epoch {epoch + 1}/{epochs}")):
            batch = _move(collate([inputs[i] for i in indices], pad_id), device)
            with _autocast(device):
                logits = scorer(**batch)
            loss = loss_fn(logits.float(), targets[indices].to(device))
            (loss / grad_accumulation).backward()
            if (step + 1) % grad_accumulation == 0 or step + 1 == len(batches):
                optimizer.step()
                optimizer.zero_grad()
            losses.append(loss.item())
    return losses


@dataclass
class ScoringResult:
    """Coreference probabilities of a list of pairs, and how fast they were computed."""

    probabilities: "np.ndarray"
    seconds: float

    @property
    def pairs_per_second(self) -> float:
        return len(self.probabilities) / self.seconds if self.seconds > 0 else float("nan")


def score_pairs(scorer, inputs: Sequence[PairInput], *, pad_id: int, batch_size: int,
                device: str = "cpu") -> ScoringResult:
    """P(coreferent) for every pair (batched by length), with the wall-clock time for the throughput."""
    import numpy as np
    import torch

    scorer.to(device).eval()
    probabilities = np.zeros(len(inputs), dtype=np.float32)
    start = time.perf_counter()
    with torch.inference_mode():
        for indices in progress(length_sorted_batches(inputs, batch_size), desc="scoring pairs"):
            batch = _move(collate([inputs[i] for i in indices], pad_id), device)
            with _autocast(device):
                logits = scorer(**batch)
            probabilities[indices] = torch.sigmoid(logits.float()).cpu().numpy()
    if device == "cuda":
        torch.cuda.synchronize()
    return ScoringResult(probabilities, time.perf_counter() - start)


# ---------------------------------------------------------------------------------------------------------
# The experiment: fine-tune on train, tune the clustering threshold on dev, evaluate on test
# ---------------------------------------------------------------------------------------------------------


def encoder_max_length(model: "PreTrainedModel", pad_id: int, wanted: int) -> int:
    """The longest pair input the encoder's position embeddings allow (positions start at pad_id + 1), <= wanted."""
    return min(wanted, model.config.max_position_embeddings - pad_id - 1)


@dataclass
class SplitScoring:
    """One evaluation split: its candidate pairs, their probabilities and the clustering inputs."""

    mentions: list[Mention]
    pair_stats: PairStats
    encoding: EncodingStats
    scoring: ScoringResult
    dendrograms: dict  # group -> clustering.Dendrogram


@dataclass
class CorefRun:
    """Everything one fine-tuned scorer produced, for the notebook's tables and plots."""

    model: str
    kind: str
    context: str
    max_length: int
    train_pairs: PairStats
    train_encoding: EncodingStats
    losses: list[float]
    train_seconds: float
    threshold: float
    dev_curve: list[tuple[float, float]]  # (threshold, dev CoNLL F1)
    dev: SplitScoring
    test: SplitScoring
    test_scores: Any  # metrics.CorefScores
    test_clusters: list[list[str]]


GROUPINGS = ("subtopic", "predicted")  # gold subtopics, or topics predicted by a document clustering


def evaluation_groups(rows, mentions: Sequence[Mention], grouping: str) -> dict[str, list[Mention]]:
    """The groups candidate pairs are formed in: gold subtopics, or predicted topics (TF-IDF document clustering,
    the released code's test setting; see clustering.predict_topics)."""
    from .coref.clustering import predict_topics

    if grouping not in GROUPINGS:
        raise ConfigError(f"grouping={grouping!r} is unknown; use one of {GROUPINGS}")
    if grouping == "subtopic":
        return group_mentions(mentions, "subtopic")
    topic_of = predict_topics({row["doc_id"]: " ".join(w for s in row["sentences"] for w in s) for row in rows})
    groups: dict[str, list[Mention]] = defaultdict(list)
    for mention in mentions:
        groups[topic_of[mention.doc_id]].append(mention)
    return dict(groups)


def score_split(scorer, rows, kind: str, documents: Mapping[str, WordIds], special: SpecialIds, max_length: int,
                config, context: str, seed: int, device: str, grouping: str = "subtopic") -> SplitScoring:
    """Score every (capped) candidate pair inside each group and build the clustering trees."""
    from .coref.clustering import build_dendrograms, pair_probabilities

    mentions = collect_mentions(rows, kind)
    groups = evaluation_groups(rows, mentions, grouping)
    pairs, pair_stats = candidate_pairs(groups, config.max_pairs_per_subtopic, seed)
    inputs, encoding = encode_pairs(pairs, documents, special, max_length, context)
    scoring = score_pairs(scorer, inputs, pad_id=special.pad, batch_size=config.score_batch_size, device=device)
    table = pair_probabilities(((p.first.mention_id, p.second.mention_id) for p in pairs), scoring.probabilities)
    trees = build_dendrograms({name: [m.mention_id for m in members] for name, members in groups.items()}, table)
    return SplitScoring(mentions, pair_stats, encoding, scoring, trees)


def run_coreference(model_name: str, encoder: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                    splits: Mapping[str, Any], config, kind: str, *, context: str = "document",
                    grouping: str = "subtopic", device: str = "cpu", seed: int = 13) -> CorefRun:
    """Fine-tune a pairwise scorer on `splits["train"]`, pick the threshold on "dev", cluster and score "test".

    `config` is a `profiles.CorefConfig`. Training pairs are drawn within gold topics; dev and test candidate
    pairs within gold subtopics (`grouping="subtopic"`) or within topics predicted by a document clustering
    (`"predicted"`, the released code's test setting).
    """
    from .coref.clustering import cut_dendrograms, tune_threshold
    from .coref.conll import coref_clusters
    from .coref.metrics import score_coreference

    special = add_mention_markers(tokenizer, encoder)
    max_length = encoder_max_length(encoder, special.pad, config.max_length)
    documents = {}
    for name in ("train", "dev", "test"):
        documents.update(tokenize_documents(splits[name], tokenizer))

    groups = group_mentions(collect_mentions(splits["train"], kind), "topic")
    pairs, train_stats = training_pairs(groups, config.negative_ratio, config.max_train_pairs, seed)
    inputs, train_encoding = encode_pairs(pairs, documents, special, max_length, context)
    scorer = build_pair_scorer(encoder, config.hidden_sizes, config.activation, config.dropout)
    start = time.perf_counter()
    losses = train_scorer(scorer, inputs, [p.label for p in pairs], pad_id=special.pad, epochs=config.epochs,
                          batch_size=config.batch_size, learning_rate=config.learning_rate,
                          grad_accumulation=config.grad_accumulation, device=device, seed=seed)
    train_seconds = time.perf_counter() - start

    dev = score_split(scorer, splits["dev"], kind, documents, special, max_length, config, context, seed, device,
                      grouping)
    threshold, curve = tune_threshold(dev.dendrograms, gold_clusters(dev.mentions), config.thresholds,
                                      lambda key, response: score_coreference(key, response).conll)
    test = score_split(scorer, splits["test"], kind, documents, special, max_length, config, context, seed, device,
                       grouping)
    clusters = cut_dendrograms(test.dendrograms, threshold)
    assignment = {mention: index for index, cluster in enumerate(clusters) for mention in cluster}
    test_rows = list(splits["test"])
    scores = score_coreference(coref_clusters(test_rows, kind), coref_clusters(test_rows, kind, assignment))
    scorer.to("cpu")
    return CorefRun(model_name, kind, context, max_length, train_stats, train_encoding, losses, train_seconds,
                    threshold, curve, dev, test, scores, clusters)


# ---------------------------------------------------------------------------------------------------------
# Results in the papers' layout
# ---------------------------------------------------------------------------------------------------------

#: Table columns: (metric, R/P/F1) for MUC, B3, CEAF-e and LEA, then (CoNLL, F1); values in percent.
TABLE_COLUMNS = [(metric, part) for metric in ("MUC", "B3", "CEAF-e", "LEA") for part in ("R", "P", "F1")] + \
    [("CoNLL", "F1")]
NR = None  # not reported

#: ECB+ test, event coreference, gold mentions. Seed 000 (CD-LM v1) Table 2; the CDLM row is also seed 003
#: (final) Table 2, which adds Allaway et al. (2021). "Longformer" / "Rand CDLM" rows are v1's.
PAPER_EVENT_ROWS: dict[str, tuple[float | None, ...]] = {
    "Same Head-Lemma": (76.5, 80.0, 78.2, 71.8, 85.0, 77.8, 75.5, 71.8, 73.6, 57.0, 72.0, 63.7, 76.5),
    "Barhom et al. (2019)": (78.1, 84.0, 80.9, 76.8, 86.1, 81.2, 79.6, 73.3, 76.3, 64.6, 72.3, 68.3, 79.5),
    "Meged et al. (2020)": (78.8, 84.7, 81.6, 75.9, 85.9, 80.6, 81.1, 74.8, 77.8, 64.7, 73.4, 68.8, 80.0),
    "Cattan et al. (2020)": (85.1, 81.9, 83.5, 82.1, 82.7, 82.4, 75.2, 78.9, 77.0, 68.8, 72.0, 70.4, 81.0),
    "Zeng et al. (2020)": (85.6, 89.3, 87.5, 77.6, 89.7, 83.2, 84.5, 80.1, 82.3, NR, NR, NR, 84.3),
    "Yu et al. (2020)": (88.1, 85.1, 86.6, 86.1, 84.7, 85.4, 79.6, 83.1, 81.3, NR, NR, NR, 84.4),
    "Allaway et al. (2021)": (81.7, 82.8, 82.2, 80.8, 81.5, 81.1, 79.8, 78.4, 79.1, NR, NR, NR, 80.8),
    "Longformer": (85.2, 88.8, 86.9, 83.8, 87.7, 85.7, 83.4, 79.0, 81.1, 75.1, 77.3, 76.2, 84.6),
    "Rand CDLM": (81.8, 88.8, 85.2, 83.9, 84.5, 84.2, 83.3, 79.1, 81.1, 72.6, 74.4, 73.5, 83.5),
    "CDLM": (87.1, 89.2, 88.1, 84.9, 87.9, 86.4, 83.3, 81.2, 82.2, 76.7, 77.2, 76.9, 85.6),
}
#: ECB+ test, entity coreference. Seed 003 Table 2 (Barhom, Cattan, Allaway, CDLM); seed 000 Table 3 for the
#: head-lemma, Longformer and Rand CDLM rows, whose extracted text keeps only their MUC F1 and CoNLL F1.
PAPER_ENTITY_ROWS: dict[str, tuple[float | None, ...]] = {
    "Same Head-Lemma": (NR, NR, 76.7, NR, NR, NR, NR, NR, NR, NR, NR, NR, 67.4),
    "Barhom et al. (2019)": (81.0, 80.8, 80.9, 66.8, 75.5, 70.9, 62.5, 62.8, 62.7, 53.5, 63.8, 58.2, 71.5),
    "Cattan et al. (2020)": (85.7, 81.7, 83.6, 70.7, 74.8, 72.7, 59.3, 67.4, 63.1, 56.8, 65.8, 61.0, 73.1),
    "Allaway et al. (2021)": (83.9, 84.7, 84.3, 74.5, 70.5, 72.4, 70.0, 68.1, 69.2, NR, NR, NR, 75.3),
    "Longformer": (NR, NR, 87.9, NR, NR, NR, NR, NR, NR, NR, NR, NR, 80.4),
    "Rand CDLM": (NR, NR, 87.7, NR, NR, NR, NR, NR, NR, NR, NR, NR, 80.2),
    "CDLM": (88.1, 91.8, 89.9, 82.5, 81.7, 82.1, 81.2, 72.9, 76.8, 76.4, 73.0, 74.7, 82.9),
}
#: Seed 003 Table 3: ablations, CoNLL F1 on ECB+ test event coreference.
PAPER_ABLATION_CONLL: dict[str, float] = {
    "CDLM": 85.6, "CDLM, sentences only": 84.2, "Longformer": 84.6, "Local CDLM": 84.7, "Rand CDLM": 84.1,
    "Prefix CDLM": 85.1,
}


def score_row(scores) -> tuple[float, ...]:
    """A metrics.CorefScores as one table row in percent: R, P, F1 of MUC, B3, CEAF-e, LEA, then CoNLL F1."""
    values = []
    for name in ("muc", "bcub", "ceafe", "lea"):
        prf = getattr(scores, name)
        values += [100 * prf.recall, 100 * prf.precision, 100 * prf.f1]
    return (*values, 100 * scores.conll)


def results_table(ours: Mapping[str, Any], paper: Mapping[str, Sequence[float | None]], ours_label: str):
    """The papers' table layout: the paper's rows (ECB+ test) above ours (`{row label: CorefScores}`)."""
    import pandas as pd

    rows = {("paper: ECB+ test", label): values for label, values in paper.items()}
    rows |= {(ours_label, label): score_row(scores) for label, scores in ours.items()}
    table = pd.DataFrame.from_dict(rows, orient="index", columns=pd.MultiIndex.from_tuples(TABLE_COLUMNS))
    table.index = pd.MultiIndex.from_tuples(table.index, names=["source", "model"])
    return table.astype(float).round(1)
