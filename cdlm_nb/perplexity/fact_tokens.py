"""Perplexity on the tokens that state a fact of the event, where the CDLM paper's argument lives: information one
document gives and a related one lacks (names, places, numbers, dates of the shared event).

The embedded world knows those tokens (it wrote them; `facts` gives each statement's characters), so every masked
token of a held-out example falls in one group: a fact statement whose fact another packed document of the cluster
also states correctly (`facts_elsewhere`: the other documents hold the answer), a fact statement no other packed
document states (`facts_alone`), or any other token (`other`: mostly function and template words any model predicts
from its window). Same masks as `evaluate_perplexity`, so the groups split the same masked tokens.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..cross_document_probe import locate_facts
from ..inputs import PackedExample
from ..masking import IGNORE_INDEX
from ..pretraining.heldout import EVAL_MASK_SEED, masked_batches, masked_token_nll, perplexity
from .bootstrap import PerplexityResult, bootstrap_interval
from .evaluate import require_doc_ids, sum_by_cluster

if TYPE_CHECKING:
    import pandas as pd
    from datasets import Dataset
    from matplotlib.figure import Figure
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..encoders import Encoder
    from ..profiles import Profile

#: The groups, in order (their index is what `token_groups` returns per token), with their labels.
FACT_GROUPS = {"facts_elsewhere": "fact stated in another document", "facts_alone": "fact stated nowhere else",
               "other": "every other token"}
ELSEWHERE, ALONE, OTHER = range(3)


def located_statements(row: Mapping, documents: Sequence[str], facts: Sequence[Mapping],
                       tokenizer: "PreTrainedTokenizerBase") -> list[dict]:
    """`locate_facts` for one packed row (`pack_clusters`: `input_ids`, `doc_ids`, `sources`) of a world cluster."""
    packed = [int(source.rsplit("/", 1)[1]) for source in row["sources"]]
    return locate_facts(PackedExample(row["input_ids"], row["doc_ids"], packed), documents, facts, tokenizer)


def token_groups(row: Mapping, documents: Sequence[str], facts: Sequence[Mapping],
                 tokenizer: "PreTrainedTokenizerBase") -> np.ndarray:
    """The group (`ELSEWHERE`, `ALONE`, `OTHER`) of every token of one packed row (`pack_clusters`: `input_ids`,
    `doc_ids`, `sources` = "<cluster>/<document index>") of a world cluster with these `documents` and `facts`."""
    located = located_statements(row, documents, facts, tokenizer)
    stated_by: dict[str, set[int]] = defaultdict(set)
    for statement in located:
        if statement["correct"]:
            stated_by[statement["fact"]].add(statement["doc"])
    groups = np.full(len(row["input_ids"]), OTHER)
    for statement in located:
        groups[statement["positions"]] = ELSEWHERE if stated_by[statement["fact"]] - {statement["doc"]} else ALONE
    return groups


def world_rows(examples: "Dataset", clusters: "Dataset", facts: "Dataset",
               caller: str) -> Iterator[tuple[dict, list[str], list[dict]]]:
    """Every packed example with its cluster's documents and fact statements (the world's, of the same split)."""
    require_doc_ids(examples, caller)
    documents = dict(zip(clusters["cluster_id"], clusters["documents"]))
    by_cluster: dict[str, list[dict]] = defaultdict(list)
    for fact in facts:
        by_cluster[fact["cluster_id"]].append(fact)
    for row in examples:
        yield row, documents[row["cluster_id"]], by_cluster[row["cluster_id"]]


def world_token_groups(examples: "Dataset", clusters: "Dataset", facts: "Dataset",
                       tokenizer: "PreTrainedTokenizerBase") -> list[np.ndarray]:
    """`token_groups` of every packed example, from the world's clusters and fact statements of the same split."""
    return [token_groups(row, documents, row_facts, tokenizer)
            for row, documents, row_facts in world_rows(examples, clusters, facts, "world_token_groups")]


def perplexity_by_fact_group(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                             groups: Sequence[np.ndarray], variant: str, seed: int = EVAL_MASK_SEED,
                             batch_size: int = 8, n_resamples: int = 1000) -> dict[str, PerplexityResult | None]:
    """Per group, the perplexity of `variant`'s masked tokens of that group as a `PerplexityResult` (per-cluster
    sums, so `bootstrap.paired_difference` compares two models); None for a group with no masked token."""
    sums, counts = np.zeros((len(FACT_GROUPS), len(examples))), np.zeros((len(FACT_GROUPS), len(examples)), int)
    row = 0
    for _, batch in masked_batches(model, tokenizer, examples, variant, seed, batch_size):
        nll, offset = masked_token_nll(model, batch), 0
        for labels in batch["labels"].numpy():
            positions = np.flatnonzero(labels != IGNORE_INDEX)
            where = groups[row][positions]
            np.add.at(sums, (where, row), nll[offset:offset + len(where)])
            np.add.at(counts, (where, row), 1)
            offset, row = offset + len(positions), row + 1
    results: dict[str, PerplexityResult | None] = {}
    for g, name in enumerate(FACT_GROUPS):
        ids, nll_sums, token_counts = sum_by_cluster(examples["cluster_id"], sums[g].tolist(), counts[g].tolist())
        if sum(token_counts) == 0:
            results[name] = None
            continue
        low, high = bootstrap_interval(np.array(nll_sums), np.array(token_counts), n_resamples, seed=seed)
        results[name] = PerplexityResult(variant, perplexity(np.array(nll_sums), np.array(token_counts)), low, high,
                                         int(sum(token_counts)), len(ids), tuple(ids), tuple(nll_sums),
                                         tuple(token_counts))
    return results


Results = Mapping[str, Mapping[str, "PerplexityResult | None"]]  # variant -> group -> result


def fact_table(results: Results, reference: str = "cdlm", n_resamples: int = 1000) -> "pd.DataFrame":
    """Per model and group: perplexity, its 95 % interval, the masked tokens, and the paired difference from
    `reference` (CDLM) with its interval; the groups' labels as the column level."""
    import pandas as pd

    from ..variants import display_name
    from .bootstrap import paired_difference

    rows = {}
    for variant, by_group in results.items():
        row = {}
        for name, label in FACT_GROUPS.items():
            result, ref = by_group.get(name), results.get(reference, {}).get(name)
            if result is None:
                continue
            row[(label, "perplexity")] = round(result.ppl, 2)
            row[(label, "95 % interval")] = f"{result.ci_low:.2f}-{result.ci_high:.2f}"
            row[(label, "masked tokens")] = result.n_tokens
            if ref is not None and variant != reference:
                diff, low, high = paired_difference(result, ref, n_resamples)
                row[(label, f"− {display_name(reference)}")] = f"{diff:+.2f} ({low:+.2f} to {high:+.2f})"
        rows[display_name(variant)] = row
    return pd.DataFrame.from_dict(rows, orient="index").fillna("")


def fact_metrics(results: Results) -> dict[str, float]:
    """`perplexity/<group>/<variant>` for results.json."""
    return {f"perplexity/{name}/{variant}": result.ppl for variant, by_group in results.items()
            for name, result in by_group.items() if result is not None}


def plot_fact_groups(results: Results) -> "Figure":
    """Perplexity per group (x) and model (bars), with the bootstrap intervals."""
    import matplotlib.pyplot as plt

    from ..variants import display_name

    fig, ax = plt.subplots(figsize=(8, 3.6))
    width = 0.8 / max(len(results), 1)
    for k, (variant, by_group) in enumerate(results.items()):
        shown = [(g, r) for g, r in enumerate(by_group.get(name) for name in FACT_GROUPS) if r is not None]
        x = [g + (k - (len(results) - 1) / 2) * width for g, _ in shown]
        ppl = [r.ppl for _, r in shown]
        errors = [[r.ppl - r.ci_low for _, r in shown], [r.ci_high - r.ppl for _, r in shown]]
        ax.bar(x, ppl, width, yerr=errors, capsize=2, label=display_name(variant))
    ax.set_xticks(range(len(FACT_GROUPS)), list(FACT_GROUPS.values()))
    ax.set(ylabel="perplexity (lower is better)", yscale="log", title="Masked tokens by what they state")
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    return fig


def fact_readings(results: Results, reference: str = "cdlm", n_resamples: int = 1000) -> list[str]:
    """Per group: is the reference (CDLM) below each other model beyond the bootstrap noise?"""
    from ..variants import display_name
    from .bootstrap import paired_difference

    lines = []
    for name, label in FACT_GROUPS.items():
        ref = results.get(reference, {}).get(name)
        if ref is None:
            continue
        verdicts = []
        for variant, by_group in results.items():
            if variant == reference or by_group.get(name) is None:
                continue
            diff, low, high = paired_difference(by_group[name], ref, n_resamples)
            verdict = ("lower than" if low > 0 else "higher than" if high < 0 else "within the noise of")
            verdicts.append(f"{verdict} {display_name(variant)} ({-diff:+.2f})")
        if verdicts:
            lines.append(f"- {label} ({ref.n_tokens} masked tokens): {display_name(reference)} is "
                         + "; ".join(verdicts) + ".")
    return lines


def world_fact_results(models: Mapping[str, "Encoder"], tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                       profile: "Profile") -> dict[str, dict[str, PerplexityResult | None]] | None:
    """`perplexity_by_fact_group` of every model on the packed test examples of the profile's world; None when
    the profile reads another corpus (only the world knows which of its tokens state facts)."""
    if profile.data_source != "embedded":
        return None
    from ..data.corpora import world

    made = world(profile.world)
    groups = world_token_groups(examples, made.clusters["test"], made.facts["test"], tokenizer)
    config = profile.pretrain
    return {variant: perplexity_by_fact_group(encoder.model, tokenizer, examples, groups, variant,
                                              batch_size=config.eval_batch_size,
                                              n_resamples=config.bootstrap_resamples)
            for variant, encoder in models.items()}
