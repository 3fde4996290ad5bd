"""Attention percentile-rank analysis (CDLM final paper, seed 003 §3.5, Table 6, Figure 3): does a pretrained
model's *global* attention already align two coreferring mentions in two different documents?

One example = two documents `<s> <doc-s> doc1 </doc-s> <doc-s> doc2 </doc-s> </s>` with a source mention S in doc 1
and a target mention T in doc 2. Only the tokens of S get global attention. From the **last layer** every token
i outside S gets the score

    s(i|S) ∝ exp( Σ_heads Σ_{j∈S} (α_ij + α_ji) )        (normalised over the input's tokens outside S)

where α_ij is token i's attention to source token j and α_ji source token j's (global) attention to i. The
target score s(T|S) is the mean of s(i|S) over T's tokens, and its percentile rank (PR) is the share of the other
candidate tokens of doc 2 that score below it. The mean PR (MPR) over positive (coreferring) and negative pairs
is Table 6.

Where the two directions live in Hugging Face's Longformer output (transformers 5.x, `output_attentions=True`;
row b of a padded batch, x = |S| = that row's global tokens, columns in increasing position order):

* α_ij — `outputs.attentions[-1][b, :, :, :x]`: each token's attention row starts with its probabilities for
  the global keys (the window part after them has the global positions masked out, so nothing is counted
  twice). Shape (heads, seq, x).
* α_ji — `outputs.global_attentions[-1][b, :, :, :x]`: the probabilities each global token computed over every
  position (with the separate query_global/key_global projections), transposed by HF to (heads, seq, x). It is
  *not* trimmed of Longformer's internal padding to a multiple of the window, so it is cut to the input length.

Candidates: the tokens of doc 2 except special tokens (`<s>`, `</s>`, `<doc-s>`, `</doc-s>`, padding) and
punctuation-only tokens (as in the authors' analysis); T's tokens count as one aggregated candidate.

Deliberate differences from the authors' notebook (REFERENCE_NOTES.md): we use the last layer (not an average
over layers), both directions (not only `global_attentions`), sum over heads and source tokens inside the exp,
and we read the target's own aggregated score (their code reads a shifted index after deleting tokens).
"""

from __future__ import annotations

import itertools
import math
import os
import random
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .coreference import Mention, MentionPair, WordIds, collect_mentions, tokenize_documents
from .errors import ConfigError, DataError
from .runtime import progress
from .tokenization import document_separator_ids, sequence_markers

if TYPE_CHECKING:
    import pandas as pd
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from .profiles import Profile

#: Table 6 of the CDLM paper (seed 003, §3.5): mean percentile rank (%) of the target span among the tokens of
#: its document, on 1,000 positive + 1,000 negative ECB+ pairs per mention kind, by pretrained model.
#: Keys: model -> (label, kind) -> MPR. "longformer" = Longformer-base without further pretraining.
PAPER_TABLE6_MPR: dict[str, dict[tuple[str, str], float]] = {
    "longformer": {("pos", "event"): 61.9, ("pos", "entity"): 59.7, ("neg", "event"): 54.8, ("neg", "entity"): 50.5},
    "local": {("pos", "event"): 62.2, ("pos", "entity"): 60.8, ("neg", "event"): 54.6, ("neg", "entity"): 52.6},
    "rand": {("pos", "event"): 70.6, ("pos", "entity"): 69.1, ("neg", "event"): 56.6, ("neg", "entity"): 53.2},
    "prefix": {("pos", "event"): 70.7, ("pos", "entity"): 69.4, ("neg", "event"): 58.5, ("neg", "entity"): 56.5},
    "cdlm": {("pos", "event"): 72.1, ("pos", "entity"): 70.3, ("neg", "event"): 58.0, ("neg", "entity"): 55.7},
}


def _as_head_token_source(name: str, tensor, n_source: int) -> np.ndarray:
    array = np.asarray(tensor, dtype=np.float64)
    if array.ndim != 3 or array.shape[2] != n_source:
        raise ConfigError(f"{name} must have shape (heads, seq, |S|={n_source}), got {array.shape}")
    return array


def token_scores(attn_to, attn_from, source_positions: Sequence[int]) -> np.ndarray:
    """s(i|S) for every position i of one input: softmax over the tokens outside S of the head- and source-summed
    attention in both directions; positions in S get NaN (the score is defined for i ∉ S only).

    attn_to[h, i, j] = α_{i,S_j} (token i attends to source token S_j); attn_from[h, i, j] = α_{S_j,i}
    (source token S_j attends to i); both (heads, seq, |S|), columns in the order of `source_positions`.
    """
    source = list(source_positions)
    if not source:
        raise ConfigError("source_positions is empty: the source span needs at least one token")
    to = _as_head_token_source("attn_to", attn_to, len(source))
    back = _as_head_token_source("attn_from", attn_from, len(source))
    if to.shape != back.shape:
        raise ConfigError(f"attn_to {to.shape} and attn_from {back.shape} must have the same shape")
    seq_len = to.shape[1]
    if min(source) < 0 or max(source) >= seq_len or len(set(source)) != len(source):
        raise ConfigError(f"source_positions {source} must be distinct positions in [0, {seq_len})")
    logits = (to + back).sum(axis=(0, 2))  # Σ_heads Σ_{j∈S} (α_ij + α_ji)
    outside = np.ones(seq_len, dtype=bool)
    outside[source] = False
    exp = np.exp(logits[outside] - logits[outside].max())  # stable softmax; the shift cancels out
    scores = np.full(seq_len, np.nan)
    scores[outside] = exp / exp.sum()
    return scores


def percentile_rank(target_score: float, candidate_scores: Iterable[float]) -> float:
    """Percentile rank (%) of `target_score` among `candidate_scores`: the share scoring strictly below it, ties
    counting one half (the usual definition; with no ties it is simply the fraction below)."""
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
    """(s(T|S), PR): the target span's mean token score, and its percentile rank against every candidate token of
    its document that is not part of T (T counts as one aggregated candidate)."""
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
    """The positions of `document` whose token may be ranked: every token whose id is not in `excluded_ids` (the
    special tokens `<s>`, `</s>`, `<doc-s>`, `</doc-s>`, padding and, by default, punctuation; see
    `excluded_token_ids`)."""
    return [p for p in document if input_ids[p] not in excluded_ids]


def excluded_token_ids(tokenizer: "PreTrainedTokenizerBase", exclude_punctuation: bool = True) -> set[int]:
    """Ids never ranked as candidates: all special tokens (`<s>`, `</s>`, `<pad>`, `<doc-s>`, `</doc-s>`, ...) and,
    if `exclude_punctuation`, every vocabulary entry whose text is only punctuation (`,`, ` .`, a bare space)."""
    excluded = set(tokenizer.all_special_ids) | set(document_separator_ids(tokenizer))
    if exclude_punctuation:
        excluded |= {i for token, i in tokenizer.get_vocab().items()
                     if is_punctuation(tokenizer.convert_tokens_to_string([token]))}
    return excluded


# ---------------------------------------------------------------------------------------------------------
# Mention pairs: positives across documents of one gold cluster, negatives across clusters of one topic
# ---------------------------------------------------------------------------------------------------------


def analysis_corpus(profile: "Profile", run_dir: str | os.PathLike) -> "Dataset":
    """The coreference documents the pairs are drawn from (nothing is trained on them, so every split may serve).

    Embedded profiles: the world's dev and test topics (events no model saw in pretraining). Hub profile: all of
    ECB+ (gold mentions of the validated sentences, whole documents as context), downloaded to
    `<run_dir>/data/ecbplus`; offline, the sample beside the checkout (topics 1-35) if it is there.
    """
    from datasets import concatenate_datasets

    if profile.data_source == "embedded":
        from .data.world import generate_world

        world = generate_world(profile.world)
        return concatenate_datasets([world.coref["dev"], world.coref["test"]])
    from .data.ecbplus import download_ecbplus, load_ecbplus
    from .errors import OfflineError
    from .paths import shared_data_dir

    try:
        folder = download_ecbplus(Path(run_dir) / "data" / "ecbplus")
    except OfflineError:
        shared = shared_data_dir()
        if shared is None or not (shared / "ecbplus").is_dir():
            raise
        folder = shared / "ecbplus"
        print(f"offline: using the ECB+ sample at {folder} (topics 1-35 only)")
    corpus = load_ecbplus(folder, keep_all_sentences=True)
    return concatenate_datasets([corpus[split] for split in corpus])


def sample_mention_pairs(coref_dataset: Iterable[Mapping[str, Any]], n_pos: int, n_neg: int, kind: str,
                         seed: int) -> list[MentionPair]:
    """`n_pos` coreferring and `n_neg` non-coreferring mention pairs of one kind, each across two documents.

    Positives: two mentions of one gold cluster in different documents (all such pairs, then a seeded sample).
    Negatives: two mentions of different clusters in different documents of the same topic (so both documents
    are about the same kind of event, as in ECB+'s within-topic candidate pairs), sampled at random without
    repeats. In every pair a coin flip decides which mention is the source (`first`) and which the target
    (`second`), as in the paper. Fewer pairs than asked come back when the data has fewer (the caller reports it).
    """
    if n_pos < 0 or n_neg < 0:
        raise ConfigError(f"n_pos={n_pos} and n_neg={n_neg} must be >= 0")
    rng = random.Random(seed)
    mentions = collect_mentions(coref_dataset, kind)
    by_cluster = _group_by(mentions, "cluster_id")
    positives = [(a, b) for members in by_cluster.values() for a, b in itertools.combinations(members, 2)
                 if a.doc_id != b.doc_id]
    chosen = rng.sample(positives, min(n_pos, len(positives)))
    by_topic = {topic: members for topic, members in _group_by(mentions, "topic").items()
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


def _group_by(mentions: Iterable[Mention], attribute: str) -> dict[str, list[Mention]]:
    """Mentions grouped by one of their attributes (`cluster_id`, `topic`, ...), in corpus order."""
    groups: dict[str, list[Mention]] = {}
    for mention in mentions:
        groups.setdefault(getattr(mention, attribute), []).append(mention)
    return groups


# ---------------------------------------------------------------------------------------------------------
# Model inputs: <s> <doc-s> doc1 </doc-s> <doc-s> doc2 </doc-s> </s>, mention positions tracked
# ---------------------------------------------------------------------------------------------------------

SPECIAL_TOKENS_PER_INPUT = 6  # <s>, </s> and the two pairs of document separators


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


def window_start(length: int, span: Sequence[int], budget: int) -> int | None:
    """Where a window of `budget` tokens starts so that it holds `span`, centred on it; None if it cannot."""
    if length <= budget:
        return 0
    low, high = min(span), max(span) + 1
    if high - low > budget:
        return None
    return max(0, min(low - (budget - (high - low)) // 2, length - budget))


def document_budgets(length1: int, length2: int, room: int) -> tuple[int, int]:
    """Token budgets of the two documents: as much as each needs, a long one cut to what the other leaves (at
    least half of `room` each when both are long)."""
    if length1 + length2 <= room:
        return length1, length2
    first = min(length1, max(room // 2, room - length2))
    return first, room - first


def build_attention_input(pair: MentionPair, documents: Mapping[str, WordIds], tokenizer: "PreTrainedTokenizerBase",
                          max_length: int) -> AttentionInput | str:
    """The model input of one pair, or the reason it was skipped (a mention with no tokens, or too long)."""
    cls, sep = sequence_markers(tokenizer)
    doc_start, doc_end = document_separator_ids(tokenizer)
    parts = [_document_with_mention(documents[m.doc_id], m) for m in (pair.first, pair.second)]
    if any(not positions for _, positions in parts):
        return "mention has no tokens"
    budgets = document_budgets(len(parts[0][0]), len(parts[1][0]), max_length - SPECIAL_TOKENS_PER_INPUT)
    ids, spans, truncated, target_document = [cls], [], 0, range(0)
    for (doc_ids, positions), budget in zip(parts, budgets):
        start = window_start(len(doc_ids), positions, budget)
        if start is None:
            return "mention longer than its document's share of max_length"
        truncated += budget < len(doc_ids)
        ids.append(doc_start)
        offset = len(ids) - start
        spans.append([offset + p for p in positions])
        target_document = range(len(ids), len(ids) + min(budget, len(doc_ids)))
        ids.extend(doc_ids[start:start + budget])
        ids.append(doc_end)
    ids.append(sep)
    return AttentionInput(ids, spans[0], spans[1], target_document, truncated)


# ---------------------------------------------------------------------------------------------------------
# Running a model
# ---------------------------------------------------------------------------------------------------------


def last_layer_source_attention(outputs: Any, row: int, n_source: int, seq_len: int) -> tuple[np.ndarray, np.ndarray]:
    """(attn_to, attn_from), each (heads, seq, |S|), for batch row `row` of a Longformer output whose only global
    tokens are that row's source span: α_ij = `attentions[-1][row, :, :seq_len, :|S|]` and
    α_ji = `global_attentions[-1][row, :, :seq_len, :|S|]` (a row's own global tokens come first, in position
    order; columns beyond them belong to longer rows of the batch and hold zeros; rows are cut to the input's
    `seq_len`, dropping batch padding and the window padding HF leaves in `global_attentions`)."""
    global_attentions = getattr(outputs, "global_attentions", None)
    if global_attentions is None or outputs.attentions is None:
        raise ConfigError("the model returned no global_attentions: the analysis needs a Longformer called with "
                          "output_attentions=True and a non-empty global_attention_mask")
    local = outputs.attentions[-1][row]  # (heads, seq, max |S| in batch + window + 1)
    global_ = global_attentions[-1][row]  # (heads, padded seq, max |S| in batch)
    if global_.shape[-1] < n_source:
        raise ConfigError(f"expected {n_source} global tokens (the source span), the model reports {global_.shape[-1]}")
    attn_to = local[:, :seq_len, :n_source].detach().float().cpu().numpy()
    attn_from = global_[:, :seq_len, :n_source].detach().float().cpu().numpy()
    return attn_to, attn_from


def source_token_scores(model: "PreTrainedModel", items: Sequence[AttentionInput]) -> list[np.ndarray]:
    """s(i|S) for every position of each of `items`: one padded forward pass of the batch, global attention on
    each row's source span only (padding is masked, so a row's scores do not depend on its batch)."""
    import torch

    device = next(model.parameters()).device
    width = max(len(item.input_ids) for item in items)
    input_ids = torch.full((len(items), width), model.config.pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros_like(input_ids)
    global_mask = torch.zeros_like(input_ids)
    for row, item in enumerate(items):
        input_ids[row, :len(item.input_ids)] = torch.tensor(item.input_ids)
        attention_mask[row, :len(item.input_ids)] = 1
        global_mask[row, item.source_positions] = 1
    with torch.inference_mode():
        outputs = model.base_model(input_ids=input_ids.to(device), attention_mask=attention_mask.to(device),
                                   global_attention_mask=global_mask.to(device), output_attentions=True)
    scores = []
    for row, item in enumerate(items):
        directions = last_layer_source_attention(outputs, row, len(item.source_positions), len(item.input_ids))
        scores.append(token_scores(*directions, item.source_positions))
    return scores


@dataclass(frozen=True)
class PairAttention:
    """Everything about one analysed pair: its input, every token's score, the candidates and the result."""

    pair: MentionPair
    item: AttentionInput
    scores: np.ndarray  # s(i|S) per position (NaN on S)
    candidates: list[int]  # ranked positions of doc 2 (T's tokens included, counted as one)
    target_score: float  # s(T|S)
    percentile: float  # PR of s(T|S) among the other candidates, in %


def rank_target(pair: MentionPair, item: AttentionInput, scores: np.ndarray, excluded_ids: Set[int]) -> PairAttention:
    """Rank the target span of one scored pair against the candidate tokens of its document."""
    candidates = sorted(set(candidate_positions(item.input_ids, item.target_document, excluded_ids))
                        | set(item.target_positions))
    target_score, percentile = mention_pair_score(scores, item.target_positions, candidates)
    return PairAttention(pair, item, scores, candidates, target_score, percentile)


def max_input_length(model: "PreTrainedModel", max_length: int) -> int:
    """`max_length`, capped by the model's position embeddings (RoBERTa-style offset of pad_token_id + 1)."""
    config = model.config
    return min(max_length, config.max_position_embeddings - (config.pad_token_id or 0) - 1)


def encode_mention_pairs(pairs: Sequence[MentionPair], coref_dataset: Iterable[Mapping[str, Any]],
                         tokenizer: "PreTrainedTokenizerBase", max_length: int) -> list[AttentionInput | str]:
    """The input of every pair (or its skip reason), tokenising only the documents the pairs use."""
    needed = {m.doc_id for pair in pairs for m in (pair.first, pair.second)}
    documents = tokenize_documents([row for row in coref_dataset if row["doc_id"] in needed], tokenizer)
    return [build_attention_input(pair, documents, tokenizer, max_length) for pair in pairs]


def explain_pairs(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", pairs: Sequence[MentionPair],
                  coref_dataset: Iterable[Mapping[str, Any]], max_length: int, exclude_punctuation: bool = True,
                  batch_size: int = 8) -> Iterator[tuple[int, PairAttention | str]]:
    """(index into `pairs`, its analysis or the reason it was skipped), lazily: the skipped pairs first, then the
    others in batches of similar input length (one forward pass per batch)."""
    model.eval()
    excluded = excluded_token_ids(tokenizer, exclude_punctuation)
    items = encode_mention_pairs(pairs, coref_dataset, tokenizer, max_input_length(model, max_length))
    yield from ((i, item) for i, item in enumerate(items) if isinstance(item, str))
    encoded = sorted((i for i, item in enumerate(items) if not isinstance(item, str)),
                     key=lambda i: len(items[i].input_ids))
    for start in range(0, len(encoded), batch_size):
        batch = encoded[start:start + batch_size]
        for i, scores in zip(batch, source_token_scores(model, [items[i] for i in batch])):
            yield i, rank_target(pairs[i], items[i], scores, excluded)


def analyse_pairs(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", pairs: Sequence[MentionPair],
                  coref_dataset: Iterable[Mapping[str, Any]], model_name: str, max_length: int,
                  exclude_punctuation: bool = True, batch_size: int = 8) -> "pd.DataFrame":
    """One row per pair: model, pair (index into `pairs`), kind, label (pos/neg), s(T|S) and its percentile rank,
    plus the input's length, truncated documents and a status ("ok" or why the pair was skipped: skips are kept,
    never dropped)."""
    import pandas as pd

    rows = {}
    analyses = explain_pairs(model, tokenizer, pairs, coref_dataset, max_length, exclude_punctuation, batch_size)
    for i, result in progress(analyses, total=len(pairs), desc=f"attention {model_name}"):
        pair = pairs[i]
        row = {"model": model_name, "pair": i, "kind": pair.first.kind, "label": "pos" if pair.label else "neg",
               "source": pair.first.text, "target": pair.second.text, "source_doc": pair.first.doc_id,
               "target_doc": pair.second.doc_id, "score": np.nan, "percentile": np.nan, "candidates": 0,
               "length": 0, "truncated_documents": 0, "status": result if isinstance(result, str) else "ok"}
        if not isinstance(result, str):
            row.update(score=result.target_score, percentile=result.percentile, candidates=len(result.candidates),
                       length=len(result.item.input_ids), truncated_documents=result.item.truncated_documents)
        rows[i] = row
    return pd.DataFrame([rows[i] for i in range(len(pairs))])


# ---------------------------------------------------------------------------------------------------------
# Tables: Table 6 (ours beside the paper's) and the keys the notebook records
# ---------------------------------------------------------------------------------------------------------

LABELS = ("pos", "neg")


def analysed(results: "pd.DataFrame") -> "pd.DataFrame":
    """The rows of `analyse_pairs` results that were scored (status "ok")."""
    return results[results["status"] == "ok"]


def mpr_table(results: "pd.DataFrame", models: Sequence[str] | None = None) -> "pd.DataFrame":
    """Table 6's layout: one row per model, columns (label, kind) holding the MPR (%) of the scored pairs."""
    scored = analysed(results)
    table = scored.pivot_table(index="model", columns=["label", "kind"], values="percentile", aggfunc="mean")
    kinds = [k for k in ("event", "entity") if k in set(scored["kind"])]
    columns = [(label, kind) for label in LABELS for kind in kinds if (label, kind) in table.columns]
    order = [m for m in (models or table.index) if m in table.index]
    return table.reindex(index=order, columns=columns)


def table6_with_paper(results: "pd.DataFrame", models: Sequence[str] | None = None) -> "pd.DataFrame":
    """Our MPR next to the paper's Table 6 values: columns (label, kind, "ours" / "paper")."""
    import pandas as pd

    ours = mpr_table(results, models)
    columns = pd.MultiIndex.from_tuples([(label, kind, who) for label, kind in ours.columns
                                         for who in ("ours", "paper")],
                                        names=["label", "kind", ""])
    table = pd.DataFrame(index=ours.index, columns=columns, dtype=float)
    for label, kind in ours.columns:
        table[(label, kind, "ours")] = ours[(label, kind)]
        table[(label, kind, "paper")] = [PAPER_TABLE6_MPR.get(m, {}).get((label, kind), np.nan) for m in ours.index]
    return table


def pooled_mpr(results: "pd.DataFrame") -> dict[str, float]:
    """The recorded keys: `mpr/<label>/<model>` (events and entities pooled: the mean PR over all their pairs) and
    `mpr/<label>/<kind>/<model>` per mention kind."""
    scored = analysed(results)
    keys = {f"mpr/{label}/{model}": mean_percentile_rank(group["percentile"])
            for (label, model), group in scored.groupby(["label", "model"])}
    keys.update({f"mpr/{label}/{kind}/{model}": mean_percentile_rank(group["percentile"])
                 for (label, kind, model), group in scored.groupby(["label", "kind", "model"])})
    return keys


def paired_gap(results: "pd.DataFrame", model: str, baseline: str, label: str) -> tuple[float, float, int]:
    """(mean, standard error, pairs) of `model`'s PR minus `baseline`'s over the pairs of `label` both scored (pairs
    matched by kind and index, so both models must have analysed the same pair lists): the paired difference is
    far less noisy than two separate MPRs."""
    scored = analysed(results)
    index = ["kind", "pair"]
    a = scored[(scored["model"] == model) & (scored["label"] == label)].set_index(index)["percentile"]
    b = scored[(scored["model"] == baseline) & (scored["label"] == label)].set_index(index)["percentile"]
    gap = (a - b).dropna()  # pairs skipped by either model are left out, and counted in the third value
    if gap.empty:
        raise DataError(f"no {label} pairs scored by both {model!r} and {baseline!r}")
    return float(gap.mean()), float(gap.sem()) if len(gap) > 1 else float("nan"), len(gap)


def skip_report(results: "pd.DataFrame") -> "pd.DataFrame":
    """Per model: pairs scored and skipped (by reason), and pairs with a document cut to fit."""
    counts = results.pivot_table(index="model", columns="status", values="kind", aggfunc="size", fill_value=0)
    counts["truncated pairs"] = results.assign(cut=results["truncated_documents"] > 0).groupby("model")["cut"].sum()
    return counts


def plot_mpr(results: "pd.DataFrame", models: Sequence[str], names: Mapping[str, str] | None = None):
    """Bars: our MPR of positive and negative pairs per model (events and entities pooled), the paper's Table 6
    values (mean of its event and entity columns) as black marks, and the 50 % of a random ranking."""
    import matplotlib.pyplot as plt

    keys = pooled_mpr(results)
    names = names or {}
    shown = [m for m in models if f"mpr/pos/{m}" in keys or f"mpr/neg/{m}" in keys]
    fig, ax = plt.subplots(figsize=(1.3 * len(shown) + 2, 3.5))
    for offset, label, color in ((-0.2, "pos", "tab:red"), (0.2, "neg", "tab:blue")):
        xs = [i + offset for i in range(len(shown))]
        ax.bar(xs, [keys.get(f"mpr/{label}/{m}", np.nan) for m in shown], width=0.4, color=color,
               label={"pos": "coreferring pairs", "neg": "non-coreferring pairs"}[label])
        paper = [np.mean([PAPER_TABLE6_MPR[m][(label, k)] for k in ("event", "entity")]) if m in PAPER_TABLE6_MPR
                 else np.nan for m in shown]
        ax.scatter(xs, paper, marker="_", s=400, color="black", zorder=3, label="paper" if label == "pos" else None)
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(range(len(shown)), [names.get(m, m) for m in shown])
    ax.set_ylabel("mean percentile rank (%)")
    ax.set_ylim(0, 100)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def position_correlation(explained: PairAttention) -> float:
    """Spearman correlation between a candidate's position in its document and its score s(i|S): how much of the
    ranking follows position rather than content (about 0 for a model whose scores ignore position)."""
    from scipy.stats import spearmanr

    if len(explained.candidates) < 3:
        return float("nan")
    return float(spearmanr(explained.candidates, explained.scores[explained.candidates]).statistic)


# ---------------------------------------------------------------------------------------------------------
# Figure 3: the target document's tokens coloured by s(i|S)
# ---------------------------------------------------------------------------------------------------------


def token_shades(explained: PairAttention) -> dict[int, float]:
    """Each candidate position's percentile rank (0-1) among the candidates: a colour scale that reads the same
    whatever the softmax's absolute values (which shrink with the input's length)."""
    values = explained.scores[explained.candidates]
    order = values.argsort().argsort()
    return {p: float(r) / max(len(values) - 1, 1) for p, r in zip(explained.candidates, order)}


def document_tokens(explained: PairAttention,
                    tokenizer: "PreTrainedTokenizerBase") -> list[tuple[str, float | None, bool]]:
    """(token text, shade or None when not ranked, in T?) for every token of the target document."""
    from .plots import readable_tokens

    shades = token_shades(explained)
    target = set(explained.item.target_positions)
    document = explained.item.target_document
    texts = readable_tokens(tokenizer, explained.item.input_ids[document.start:document.stop])
    return [(text, shades.get(p), p in target) for text, p in zip(texts, document)]


def plot_target_document(explained: PairAttention, tokenizer: "PreTrainedTokenizerBase", title: str = "",
                         max_tokens: int = 160, line_chars: int = 90, ax=None):
    """Figure 3: the target document's first `max_tokens` tokens, shaded by their rank of s(i|S) (darker = more
    attention to/from the source span), the target span boxed, unranked tokens (punctuation) in grey."""
    import matplotlib.pyplot as plt

    tokens = document_tokens(explained, tokenizer)[:max_tokens]
    lines, line, width = [], [], 0
    for text, shade, in_target in tokens:
        shown = text.replace("\n", " ")
        if width + len(shown) > line_chars and line:
            lines.append(line)
            line, width = [], 0
        line.append((shown, shade, in_target, width))
        width += len(shown)
    lines.append(line)
    if ax is None:
        _, ax = plt.subplots(figsize=(line_chars * 0.11, 0.35 * len(lines) + 0.8))
    cmap = plt.get_cmap("Reds")
    for row, items in enumerate(lines):
        for shown, shade, in_target, column in items:
            color = "#dddddd" if shade is None else cmap(0.1 + 0.8 * shade)
            ax.text(column / line_chars, 1 - (row + 0.5) / len(lines), shown, family="monospace", fontsize=9,
                    va="center", ha="left", bbox={"facecolor": color, "edgecolor": "black" if in_target else color,
                                                  "linewidth": 1.5 if in_target else 0, "pad": 1.5})
    ax.set_axis_off()
    ax.set_title(title or f"target {explained.pair.second.text!r} | source {explained.pair.first.text!r}: "
                          f"PR {explained.percentile:.0f} %", fontsize=10, loc="left")
    return ax.figure


def html_target_document(explained: PairAttention, tokenizer: "PreTrainedTokenizerBase") -> str:
    """The same view as `plot_target_document`, as HTML spans (for the interactive browser)."""
    import html

    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    cmap = plt.get_cmap("Reds")
    spans = []
    for text, shade, in_target in document_tokens(explained, tokenizer):
        color = "#dddddd" if shade is None else to_hex(cmap(0.1 + 0.8 * shade))
        border = "border:2px solid black;" if in_target else ""
        spans.append(f'<span style="background:{color};{border}white-space:pre">{html.escape(text)}</span>')
    pair = explained.pair
    head = (f"<p><b>source</b> {html.escape(pair.first.text)} ({pair.first.doc_id}) → <b>target</b> "
            f"{html.escape(pair.second.text)} ({pair.second.doc_id}), "
            f"{'coreferring' if pair.label else 'not coreferring'}"
            f": s(T|S) = {explained.target_score:.3g}, PR = {explained.percentile:.1f} %</p>")
    return head + '<div style="font-family:monospace;line-height:1.8">' + "".join(spans) + "</div>"
