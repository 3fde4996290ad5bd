"""Mention pairs for the probe (coreferring pairs across documents of one gold cluster, non-coreferring pairs across
clusters of one topic, a coin flip for which mention is the source), and each pair as one model input,
`<s> <doc-s> doc1 </doc-s> <doc-s> doc2 </doc-s> </s>`, long documents cut to a window around their mention
(`inputs.share_room`, `inputs.window_start`)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..coref.mentions import Mention, MentionPair, WordIds, collect_mentions, group_mentions
from ..inputs import share_room, window_start
from ..support.errors import ConfigError
from ..tokenization import document_separator_ids, sequence_markers

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

#: The two pair labels of the results and of Table 6: coreferring (`pos`) and non-coreferring (`neg`) pairs.
PAIR_LABELS = ("pos", "neg")
SPECIAL_TOKENS_PER_INPUT = 6  # <s>, </s> and the two pairs of document separators


def pair_label(pair: MentionPair) -> str:
    return "pos" if pair.label else "neg"


def sample_mention_pairs(coref_dataset: Iterable[Mapping[str, Any]], n_pos: int, n_neg: int, kind: str,
                         seed: int) -> list[MentionPair]:
    """`n_pos` coreferring and `n_neg` non-coreferring mention pairs of one kind, each across two documents (fewer
    when the data has fewer): positives are two mentions of one gold cluster (a seeded sample of all such pairs),
    negatives two mentions of different clusters in the same topic (as ECB+'s within-topic candidate pairs), drawn
    without repeats. A coin flip picks the source (`first`) and the target (`second`), as in the paper."""
    if n_pos < 0 or n_neg < 0:
        raise ConfigError(f"n_pos={n_pos} and n_neg={n_neg} must be >= 0")
    rng = random.Random(seed)
    mentions = collect_mentions(coref_dataset, kind)
    positives = [(a, b) for members in group_mentions(mentions, "cluster_id").values()
                 for a, b in itertools.combinations(members, 2) if a.doc_id != b.doc_id]
    chosen = rng.sample(positives, min(n_pos, len(positives)))
    by_topic = {topic: members for topic, members in group_mentions(mentions, "topic").items()
                if len({m.doc_id for m in members}) > 1 and len({m.cluster_id for m in members}) > 1}
    pool = [m for members in by_topic.values() for m in members]
    negatives: set[tuple[str, str]] = set()
    for _ in range(50 * n_neg if pool else 0):  # rejection sampling; most draws succeed on real data
        if len(negatives) == n_neg:
            break
        a = rng.choice(pool)
        b = rng.choice(by_topic[a.topic])
        key = tuple(sorted((a.mention_id, b.mention_id)))
        if a.doc_id != b.doc_id and a.cluster_id != b.cluster_id and key not in negatives:
            negatives.add(key)
            chosen.append((a, b))
    return [MentionPair(*((a, b) if rng.random() < 0.5 else (b, a))) for a, b in chosen]


def sample_pairs_by_kind(coref_dataset: Sequence[Mapping[str, Any]], kinds: Sequence[str], n_pairs: int,
                         seed: int) -> dict[str, list[MentionPair]]:
    """`n_pairs` coreferring and as many non-coreferring pairs of every mention kind."""
    return {kind: sample_mention_pairs(coref_dataset, n_pairs, n_pairs, kind, seed=seed) for kind in kinds}


def shown_pairs(pairs: Mapping[str, Sequence[MentionPair]], per_group: int) -> list[MentionPair]:
    """The first `per_group` pairs of every (kind, label), coreferring first: the examples kept whole."""
    return [p for kind_pairs in pairs.values() for label in (1, 0)
            for p in [q for q in kind_pairs if q.label == label][:per_group]]


@dataclass(frozen=True)
class AttentionInput:
    """One encoded pair: token ids, the source and target positions, and where the target document lies."""

    input_ids: list[int]
    source_positions: list[int]  # tokens of S (the only global tokens)
    target_positions: list[int]  # tokens of T
    target_document: range  # positions of doc 2's tokens, between its separators
    truncated_documents: int  # documents cut to a window around their mention (0, 1 or 2)


def _document_with_mention(words: WordIds, mention: Mention) -> tuple[list[int], list[int]]:
    """A document's subword ids and the positions of `mention`'s subwords in them."""
    ids: list[int] = []
    positions: list[int] = []
    for s, sentence in enumerate(words):
        for w, word_ids in enumerate(sentence):
            if s == mention.sentence and mention.start <= w < mention.end:
                positions.extend(range(len(ids), len(ids) + len(word_ids)))
            ids.extend(word_ids)
    return ids, positions


def build_attention_input(pair: MentionPair, documents: Mapping[str, WordIds], tokenizer: "PreTrainedTokenizerBase",
                          max_length: int) -> AttentionInput | str:
    """The model input of one pair, or why it was skipped (a mention with no tokens, or too long)."""
    cls, sep = sequence_markers(tokenizer)
    doc_start, doc_end = document_separator_ids(tokenizer)
    parts = [_document_with_mention(documents[m.doc_id], m) for m in (pair.first, pair.second)]
    if any(not positions for _, positions in parts):
        return "mention has no tokens"
    budgets = share_room(len(parts[0][0]), len(parts[1][0]), max_length - SPECIAL_TOKENS_PER_INPUT)
    ids, spans, truncated, target_document = [cls], [], 0, range(0)
    for (doc_ids, positions), budget in zip(parts, budgets):
        start = window_start(len(doc_ids), positions, budget)
        if start is None:
            return "mention longer than its document's share of max_length"
        truncated += budget < len(doc_ids)
        ids.append(doc_start)
        spans.append([len(ids) - start + p for p in positions])
        target_document = range(len(ids), len(ids) + min(budget, len(doc_ids)))
        ids.extend(doc_ids[start:start + budget])
        ids.append(doc_end)
    return AttentionInput([*ids, sep], spans[0], spans[1], target_document, truncated)
