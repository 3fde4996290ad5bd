"""Cross-document perplexity (seed 003, Section 3.1, Table 1): how well does each pretrained model predict masked
tokens of held-out clusters when it can see all of the cluster's documents?

Protocol. The held-out clusters are packed exactly as in pretraining (`cdlm_nb.inputs.pack_clusters`) and 15 % of
their tokens are masked with a fixed seed; the masks depend only on (seed, tokens), so every model sees the same
masked positions. Each model keeps its pretraining attention pattern: CDLM and Rand CDLM give the masked tokens
global attention, Prefix CDLM the first 15 % of the input, Longformer and Local CDLM local attention only.
Perplexity = exp(total NLL of the masked tokens / number of masked tokens), i.e. exp of the token-level loss.

Uncertainty. Held-out clusters are resampled with replacement (bootstrap, percentile interval). Because all
models are scored on the same masked tokens, the difference between two models is judged with a *paired*
bootstrap (the same resampled clusters for both), which removes the shared difficulty of the clusters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .errors import ConfigError, DataError
from .masking import IGNORE_INDEX, MASKED_GLOBAL_PATTERNS, CrossDocumentMLMCollator
from .variants import DISPLAY_NAMES as LABELS
from .variants import attention_pattern_of as collator_variant

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pandas as pd
    from datasets import Dataset
    from matplotlib.figure import Figure
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

EVAL_MASK_SEED = 2021  # the evaluation masks; the same for every model


@dataclass(frozen=True)
class PerplexityResult:
    """A model's perplexity on held-out clusters, its bootstrap interval, and the per-cluster sums behind them."""

    variant: str
    ppl: float
    ci_low: float
    ci_high: float
    n_tokens: int  # masked (predicted) tokens scored
    n_clusters: int
    cluster_ids: tuple[str, ...] = field(repr=False, default=())
    nll_sums: tuple[float, ...] = field(repr=False, default=())  # per cluster: summed NLL of its masked tokens
    token_counts: tuple[int, ...] = field(repr=False, default=())  # per cluster: masked tokens


def masked_token_nll(model: "PreTrainedModel", batch: dict) -> "np.ndarray":
    """Negative log-likelihood of every labelled (masked) token of a collated batch, row by row, left to right."""
    import torch
    import torch.nn.functional as F

    labels = batch["labels"].to(model.device)
    scored = labels != IGNORE_INDEX
    with torch.no_grad():
        logits = model(**model_inputs(model, batch)).logits[scored].float()  # only the masked positions: (n_masked, vocabulary)
    return F.cross_entropy(logits, labels[scored], reduction="none").cpu().numpy()


def model_inputs(model: "PreTrainedModel", batch: dict) -> dict:
    """A collated batch without its labels, on the model's device (the eval batches are built on the CPU)."""
    return {key: value.to(model.device) for key, value in batch.items() if key != "labels"}


def token_nll(model: "PreTrainedModel", batch: dict) -> tuple["np.ndarray", "np.ndarray"]:
    """Per-row summed negative log-likelihood of the labelled (masked) tokens, and how many there are."""
    scored = (batch["labels"] != IGNORE_INDEX).numpy()
    sums = np.zeros(len(scored))
    np.add.at(sums, scored.nonzero()[0], masked_token_nll(model, batch))
    return sums, scored.sum(axis=1)


def masked_batches(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset", variant: str,
                   seed: int = EVAL_MASK_SEED, batch_size: int = 8, desc: str | None = None) -> "Iterator[tuple[dict, dict]]":
    """The held-out examples in batches, each as (its rows, the collated batch with the evaluation masks and
    `variant`'s attention pattern). The masks depend only on (seed, tokens), so every model sees the same ones;
    `model` is in eval mode meanwhile and goes back to its mode after. `desc` shows a progress bar."""
    from .runtime import progress

    collate = CrossDocumentMLMCollator(tokenizer, pattern=collator_variant(variant), seed=seed)
    starts = range(0, len(dataset), batch_size)
    was_training = model.training
    model.eval()
    try:
        for start in progress(starts, desc=desc) if desc else starts:
            rows = dataset[start:start + batch_size]
            yield rows, collate([{"input_ids": ids} for ids in rows["input_ids"]])
    finally:
        model.train(was_training)


def evaluate_perplexity(
    model: "PreTrainedModel",
    tokenizer: "PreTrainedTokenizerBase",
    dataset: "Dataset",
    variant: str,
    seed: int = EVAL_MASK_SEED,
    batch_size: int = 8,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> PerplexityResult:
    """Cross-document perplexity of `model` on packed held-out examples (`input_ids`, `cluster_id`).

    `variant` is the model's pretraining variant and picks its attention pattern; `seed` fixes the masks.
    """
    if "input_ids" not in dataset.column_names:
        raise DataError("evaluate_perplexity needs packed examples with `input_ids` (cdlm_nb.inputs.pack_clusters)")
    if len(dataset) == 0:
        raise DataError("evaluate_perplexity got an empty held-out dataset")
    groups = dataset["cluster_id"] if "cluster_id" in dataset.column_names else [str(i) for i in range(len(dataset))]
    sums, counts = [], []
    for _, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size, desc=f"perplexity {variant}"):
        nll, n = token_nll(model, batch)
        sums.extend(nll.tolist())
        counts.extend(n.tolist())

    cluster_ids, nll_sums, token_counts = _sum_by_cluster(groups, sums, counts)
    low, high = bootstrap_interval(np.array(nll_sums), np.array(token_counts), n_resamples, confidence, seed)
    return PerplexityResult(
        variant=variant,
        ppl=perplexity(np.array(nll_sums), np.array(token_counts)),
        ci_low=low,
        ci_high=high,
        n_tokens=int(sum(token_counts)),
        n_clusters=len(cluster_ids),
        cluster_ids=tuple(cluster_ids),
        nll_sums=tuple(nll_sums),
        token_counts=tuple(token_counts),
    )


def perplexity(nll_sums: "np.ndarray", token_counts: "np.ndarray") -> float:
    """exp(total NLL / total tokens): the exponentiated token-level cross-entropy."""
    total = token_counts.sum()
    if total == 0:
        raise DataError("no masked tokens to score: the held-out examples have no maskable tokens")
    return float(np.exp(nll_sums.sum() / total))


def bootstrap_interval(nll_sums: "np.ndarray", token_counts: "np.ndarray", n_resamples: int = 1000,
                       confidence: float = 0.95, seed: int = EVAL_MASK_SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of the perplexity, resampling clusters with replacement."""
    resampled = _resample_indices(len(nll_sums), n_resamples, confidence, seed)
    values = np.exp(nll_sums[resampled].sum(axis=1) / token_counts[resampled].sum(axis=1))
    return _percentiles(values, confidence)


def paired_difference(result: PerplexityResult, reference: PerplexityResult, n_resamples: int = 1000,
                      confidence: float = 0.95, seed: int = EVAL_MASK_SEED) -> tuple[float, float, float]:
    """ppl(result) - ppl(reference) and its paired-bootstrap interval (same resampled clusters for both)."""
    if result.cluster_ids != reference.cluster_ids:
        raise ConfigError("paired_difference needs two results on the same held-out clusters, in the same order")
    if result.token_counts != reference.token_counts:
        raise ConfigError("paired_difference needs the same masked tokens: evaluate both with the same seed")
    counts = np.array(result.token_counts)
    a, b = np.array(result.nll_sums), np.array(reference.nll_sums)
    resampled = _resample_indices(len(counts), n_resamples, confidence, seed)
    total = counts[resampled].sum(axis=1)
    values = np.exp(a[resampled].sum(axis=1) / total) - np.exp(b[resampled].sum(axis=1) / total)
    low, high = _percentiles(values, confidence)
    return result.ppl - reference.ppl, low, high


def perplexity_table(results: list[PerplexityResult], reference: str | None = "cdlm", n_resamples: int = 1000,
                     confidence: float = 0.95) -> "pd.DataFrame":
    """Table 1 as a DataFrame: perplexity with its interval, and the paired difference to `reference`."""
    import pandas as pd

    by_variant = {result.variant: result for result in results}
    base = by_variant.get(reference) if reference else None
    rows = []
    for result in results:
        row = {
            "model": LABELS.get(result.variant, result.variant),
            "perplexity": result.ppl,
            "ci_low": result.ci_low,
            "ci_high": result.ci_high,
            "masked_tokens": result.n_tokens,
            "clusters": result.n_clusters,
        }
        if base is not None and result is not base:
            diff, low, high = paired_difference(result, base, n_resamples, confidence)
            row.update({f"minus_{reference}": diff, "diff_ci_low": low, "diff_ci_high": high,
                        "significant": bool(low > 0 or high < 0)})
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")


def plot_perplexity(results: list[PerplexityResult]) -> "Figure":
    """Bar chart of the perplexities with their bootstrap intervals as error bars (lower is better)."""
    import matplotlib.pyplot as plt

    names = [LABELS.get(result.variant, result.variant) for result in results]
    values = np.array([result.ppl for result in results])
    errors = np.array([[result.ppl - result.ci_low for result in results],
                       [result.ci_high - result.ppl for result in results]])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(names, values, yerr=errors, capsize=4,
           color=["tab:orange" if result.variant == "cdlm" else "tab:blue" for result in results])
    ax.set_ylabel("cross-document perplexity")
    ax.set_title("Held-out clusters, 15 % masked (lower is better)")
    ax.tick_params(axis="x", rotation=20)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------------------------
#: Where the answer to a masked token is visible in its input, checked in this order (`answer_locations`).
ANSWER_LOCATIONS = ("local window", "own document, outside the window", "another document only", "nowhere")


def answer_locations(input_ids: "np.ndarray", labels: "np.ndarray", doc_ids: "np.ndarray", window: int) -> "np.ndarray":
    """For each predicted position of one row, the index into ANSWER_LOCATIONS of the nearest place where its
    original token is visible in the (masked) input: within `window // 2` tokens, elsewhere in its own document,
    only in another document, or nowhere. Only "another document only" needs attention across documents."""
    positions = np.flatnonzero(labels != IGNORE_INDEX)
    locations = np.empty(len(positions), dtype=int)
    half = window // 2
    for k, i in enumerate(positions):
        same = input_ids == labels[i]
        same[i] = False
        near = same[max(0, i - half):i + half + 1].any()
        own = same & (doc_ids == doc_ids[i])
        other = same & (doc_ids != doc_ids[i]) & (doc_ids >= 0)
        locations[k] = 0 if near else 1 if own.any() else 2 if other.any() else 3
    return locations


def perplexity_by_answer_location(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase",
                                  dataset: "Dataset", variant: str, window: int, seed: int = EVAL_MASK_SEED,
                                  batch_size: int = 8) -> "pd.DataFrame":
    """`evaluate_perplexity`'s masked tokens split by where their answer is visible (`answer_locations`):
    perplexity and token count per location. Tells whether a model gains on the tokens only another document
    gives away, or on the ones its local window already shows. Needs `doc_ids` (packed examples)."""
    import pandas as pd

    _require_doc_ids(dataset, "perplexity_by_answer_location")
    nll_sums, counts = np.zeros(len(ANSWER_LOCATIONS)), np.zeros(len(ANSWER_LOCATIONS), dtype=int)
    for rows, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size):
        nll = masked_token_nll(model, batch)
        offset = 0
        for r, doc_ids in enumerate(rows["doc_ids"]):
            n = len(doc_ids)
            labels = batch["labels"][r, :n].numpy()
            where = answer_locations(batch["input_ids"][r, :n].numpy(), labels, np.asarray(doc_ids), window)
            np.add.at(nll_sums, where, nll[offset:offset + len(where)])
            np.add.at(counts, where, 1)
            offset += len(where)
    ppl = [float(np.exp(total / n)) if n else float("nan") for total, n in zip(nll_sums, counts)]
    return pd.DataFrame({"perplexity": ppl, "masked_tokens": counts}, index=pd.Index(ANSWER_LOCATIONS, name="answer"))


#: Where a global masked token's attention falls, relative to the token (`global_attention_reach`).
REACH_BINS = ("within 2 tokens", "rest of the local window", "own document, beyond the window", "other documents",
              "outside any document")


def reach_bins(position: int, doc_ids: "np.ndarray", window: int) -> "np.ndarray":
    """For every position of one row, the index into REACH_BINS of where it lies as seen from `position`."""
    distance = np.abs(np.arange(len(doc_ids)) - position)
    own = doc_ids == doc_ids[position]
    return np.select([doc_ids < 0, distance <= 2, distance <= window // 2, own], [4, 0, 1, 2], default=3)


def global_attention_reach(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", dataset: "Dataset",
                           variant: str, window: int, seed: int = EVAL_MASK_SEED, batch_size: int = 8) -> "pd.DataFrame":
    """Per layer, the mean share of a masked token's global attention (averaged over heads) in each of REACH_BINS,
    on the same masks as `evaluate_perplexity`. Only for variants whose masked tokens are global (CDLM, Rand): it
    shows whether they still read their neighbours, or spend their attention on other documents."""
    import pandas as pd
    import torch

    _require_doc_ids(dataset, "global_attention_reach")
    encoder = model.base_model
    totals, count = np.zeros((model.config.num_hidden_layers, len(REACH_BINS))), 0
    for rows, batch in masked_batches(model, tokenizer, dataset, variant, seed, batch_size):
        with torch.no_grad():
            outputs = encoder(**model_inputs(model, batch), output_attentions=True)
        attentions = [probs.float().cpu() for probs in outputs.global_attentions or ()]  # (batch, heads, seq, global)
        for r, doc_ids in enumerate(rows["doc_ids"]):
            n, doc_ids = len(doc_ids), np.asarray(doc_ids)
            global_positions = np.flatnonzero(batch["global_attention_mask"][r, :n].numpy())
            predicted = set(np.flatnonzero(batch["labels"][r, :n].numpy() != IGNORE_INDEX).tolist())
            for k, i in enumerate(global_positions):
                if i not in predicted:
                    continue
                bins = reach_bins(i, doc_ids, window)
                for layer, probs in enumerate(attentions):
                    np.add.at(totals[layer], bins, probs[r, :, :n, k].mean(0).numpy())
                count += 1
    if count == 0:
        raise ConfigError(f"variant {variant!r} gives no masked token global attention; global_attention_reach is "
                          f"for the variants that do ({', '.join(MASKED_GLOBAL_PATTERNS)})")
    return pd.DataFrame(totals / count, columns=list(REACH_BINS),
                        index=pd.Index([f"layer {layer + 1}" for layer in range(len(totals))], name="attention"))


def _require_doc_ids(dataset: "Dataset", caller: str) -> None:
    if "doc_ids" not in dataset.column_names:
        raise DataError(f"{caller} needs packed examples with `doc_ids` (inputs.pack_clusters)")


def _sum_by_cluster(groups: list[str], sums: list[float],
                    counts: list[int]) -> tuple[list[str], list[float], list[int]]:
    """Add up the rows of each cluster (a cluster may give several examples), in order of first appearance."""
    totals: dict[str, list[float]] = {}
    for group, nll, n in zip(groups, sums, counts):
        entry = totals.setdefault(group, [0.0, 0])
        entry[0] += nll
        entry[1] += n
    return list(totals), [entry[0] for entry in totals.values()], [int(entry[1]) for entry in totals.values()]


def _resample_indices(n: int, n_resamples: int, confidence: float, seed: int) -> "np.ndarray":
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, got {n_resamples}")
    if n == 0:
        raise DataError("no held-out clusters to resample")
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def _percentiles(values: "np.ndarray", confidence: float) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)
