"""The probe's metric: every token's score s(i|S) for a source span S, the target span's percentile rank (PR)
among the candidate tokens of its document, and the mean percentile rank (MPR) — CDLM paper, §3.5.

One example = two documents with a source mention S in doc 1 and a target mention T in doc 2; only S's tokens
get global attention. From the **last layer** every token i outside S gets the score

    s(i|S) ∝ exp( Σ_heads Σ_{j∈S} (α_ij + α_ji) )        (normalised over the input's tokens outside S)

where α_ij is token i's attention to source token j and α_ji source token j's (global) attention to i. The
target score s(T|S) is the mean of s(i|S) over T's tokens, and its PR is the share of the other candidate tokens
of doc 2 that score below it. Candidates: doc 2's tokens except special tokens (`<s>`, `</s>`, `<doc-s>`,
`</doc-s>`, padding) and punctuation-only tokens (as in the authors' analysis); T's tokens count as one.

Deliberate differences from the authors' released analysis notebook: we use the last layer (it averaged over
layers), both directions (it read only `global_attentions`), sum over heads and source tokens inside the exp, and
read the target's own aggregated score (it read a shifted index after deleting tokens, i.e. another token's).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import softmax

from ..support.errors import ConfigError, DataError
from ..tokenization import document_separator_ids

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from ..coref.mentions import MentionPair
    from .pairs import AttentionInput


def token_scores(attn_to, attn_from, source_positions: Sequence[int]) -> np.ndarray:
    """s(i|S) for every position i of one input, NaN on S. attn_to[h, i, j] = α_{i,S_j} (token i attends to source
    token S_j), attn_from[h, i, j] = α_{S_j,i}: both (heads, seq, |S|), columns in `source_positions`' order."""
    source = list(source_positions)
    if not source:
        raise ConfigError("source_positions is empty: the source span needs at least one token")
    to, back = (np.asarray(attn, dtype=np.float64) for attn in (attn_to, attn_from))
    if to.ndim != 3 or to.shape != back.shape or to.shape[2] != len(source):
        raise ConfigError(f"attn_to {to.shape} and attn_from {back.shape} must both have shape (heads, seq, "
                          f"|S|={len(source)})")
    if min(source) < 0 or max(source) >= to.shape[1] or len(set(source)) != len(source):
        raise ConfigError(f"source_positions {source} must be distinct positions in [0, {to.shape[1]})")
    outside = np.ones(to.shape[1], dtype=bool)
    outside[source] = False
    scores = np.full(to.shape[1], np.nan)
    scores[outside] = softmax((to + back).sum(axis=(0, 2))[outside])  # Σ_heads Σ_{j∈S} (α_ij + α_ji)
    return scores


def percentile_rank(target_score: float, candidate_scores: Iterable[float]) -> float:
    """Percentile rank (%) of `target_score` among `candidate_scores`: the share strictly below, ties counting half."""
    candidates = np.asarray(list(candidate_scores), dtype=np.float64)
    if candidates.size == 0:
        raise DataError("percentile_rank needs at least one candidate score")
    if not math.isfinite(target_score) or not np.isfinite(candidates).all():
        raise DataError("percentile_rank got a non-finite score (a source-span token among the candidates?)")
    below = np.count_nonzero(candidates < target_score)
    tied = np.count_nonzero(candidates == target_score)
    return 100.0 * (below + 0.5 * tied) / candidates.size


def mention_pair_score(scores: np.ndarray, target_positions: Sequence[int],
                       candidate_positions: Sequence[int]) -> tuple[float, float]:
    """(s(T|S), PR): the target span's mean token score, and its percentile rank among the other candidates."""
    target = sorted(set(target_positions))
    if not target:
        raise DataError("target_positions is empty: the target span has no tokens")
    target_score = float(np.mean(scores[target]))
    if not math.isfinite(target_score):
        raise DataError(f"target positions {target} have no score: do they overlap the source span?")
    others = [p for p in candidate_positions if p not in target]
    if not others:
        raise DataError("no candidate tokens besides the target span: nothing to rank it against")
    return target_score, percentile_rank(target_score, scores[others])


def mean_percentile_rank(percentiles: Iterable[float]) -> float:
    """MPR: the mean of the per-pair percentile ranks (%)."""
    values = [float(p) for p in percentiles]
    if not values:
        raise DataError("mean_percentile_rank got no percentile ranks (were all pairs skipped?)")
    return float(np.mean(values))


def is_punctuation(text: str) -> bool:
    """True for a token whose visible text is only punctuation (or nothing), e.g. ',', ' .', '"', ' '."""
    return all(unicodedata.category(ch).startswith("P") for ch in text.strip())


def candidate_positions(input_ids: Sequence[int], document: range, excluded_ids: Set[int]) -> list[int]:
    """The positions of `document` whose token may be ranked (its id not in `excluded_token_ids`)."""
    return [p for p in document if input_ids[p] not in excluded_ids]


def excluded_token_ids(tokenizer: "PreTrainedTokenizerBase", exclude_punctuation: bool = True) -> set[int]:
    """Ids never ranked: the special tokens and document separators, and with `exclude_punctuation` every
    vocabulary entry whose text is only punctuation."""
    excluded = set(tokenizer.all_special_ids) | set(document_separator_ids(tokenizer))
    if exclude_punctuation:
        excluded |= {i for token, i in tokenizer.get_vocab().items()
                     if is_punctuation(tokenizer.convert_tokens_to_string([token]))}
    return excluded


@dataclass(frozen=True)
class PairAttention:
    """Everything about one analysed pair: its input, every token's score, the candidates and the result."""

    pair: "MentionPair"
    item: "AttentionInput"
    scores: np.ndarray  # s(i|S) per position (NaN on S)
    candidates: list[int]  # ranked positions of doc 2 (T's tokens included, counted as one)
    target_score: float  # s(T|S)
    percentile: float  # PR of s(T|S) among the other candidates, in %


def rank_target(pair: "MentionPair", item: "AttentionInput", scores: np.ndarray,
                excluded_ids: Set[int]) -> PairAttention:
    candidates = sorted(set(candidate_positions(item.input_ids, item.target_document, excluded_ids))
                        | set(item.target_positions))
    target_score, percentile = mention_pair_score(scores, item.target_positions, candidates)
    return PairAttention(pair, item, scores, candidates, target_score, percentile)
