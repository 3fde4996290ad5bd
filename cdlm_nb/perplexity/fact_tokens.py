"""Perplexity on the tokens that state a fact of the event (names, places, numbers, dates: what one document gives
and a related one lacks, the CDLM paper's argument). The embedded world knows those tokens, so every masked token
(`evaluate_perplexity`'s masks) states a fact another packed document also states correctly (`facts_elsewhere`), one
no other document states (`facts_alone`), or neither (`other`: mostly function and template words)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pandas as pd

from .. import verdicts
from ..cross_document_probe import locate_facts
from ..data.corpora import world
from ..inputs import PackedExample
from ..masking import IGNORE_INDEX
from ..pretraining.heldout import EVAL_MASK_SEED
from ..variants import display_name
from ..widgets import blank_missing
from .bootstrap import PerplexityResult, cluster_result, lower_reading, paired_difference
from .evaluate import require_doc_ids, scored_rows

if TYPE_CHECKING:
    from datasets import Dataset
    from matplotlib.figure import Figure
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..encoders import Encoder
    from ..profiles import Profile

#: The groups, in order (their index is what `token_groups` returns per token), with their labels.
FACT_GROUPS = {"facts_elsewhere": "fact stated in another document", "facts_alone": "fact stated nowhere else",
               "other": "every other token"}
ELSEWHERE, ALONE, OTHER = range(3)
T = TypeVar("T")


def located_statements(row: Mapping, documents: Sequence[str], facts: Sequence[Mapping],
                       tokenizer: "PreTrainedTokenizerBase") -> list[dict]:
    """`locate_facts` for one packed row (`pack_clusters`: `input_ids`, `doc_ids`, `sources`) of a world cluster."""
    packed = [int(source.rsplit("/", 1)[1]) for source in row["sources"]]
    return locate_facts(PackedExample(row["input_ids"], row["doc_ids"], packed), documents, facts, tokenizer)


def token_groups(row: Mapping, documents: Sequence[str], facts: Sequence[Mapping],
                 tokenizer: "PreTrainedTokenizerBase") -> np.ndarray:
    """The group (`ELSEWHERE`, `ALONE`, `OTHER`) of every token of one packed row of a world cluster."""
    located = located_statements(row, documents, facts, tokenizer)
    stated_by: dict[str, set[int]] = defaultdict(set)
    for statement in located:
        if statement["correct"]:
            stated_by[statement["fact"]].add(statement["doc"])
    groups = np.full(len(row["input_ids"]), OTHER)
    for statement in located:
        groups[statement["positions"]] = ELSEWHERE if stated_by[statement["fact"]] - {statement["doc"]} else ALONE
    return groups


def per_world_row(examples: "Dataset", clusters: "Dataset", facts: "Dataset", tokenizer: "PreTrainedTokenizerBase",
                  function: Callable[..., T], caller: str) -> list[T]:
    """`function(row, documents, facts, tokenizer)` of every packed example, with its world cluster's documents."""
    require_doc_ids(examples, caller)
    documents = dict(zip(clusters["cluster_id"], clusters["documents"]))
    by_cluster: dict[str, list[dict]] = defaultdict(list)
    for fact in facts:
        by_cluster[fact["cluster_id"]].append(fact)
    return [function(row, documents[row["cluster_id"]], by_cluster[row["cluster_id"]], tokenizer) for row in examples]


def perplexity_by_fact_group(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                             groups: Sequence[np.ndarray], variant: str, seed: int = EVAL_MASK_SEED,
                             batch_size: int = 8, n_resamples: int = 1000) -> dict[str, PerplexityResult | None]:
    """Per group, the `PerplexityResult` of `variant`'s masked tokens in it (None for a group with none)."""
    sums, counts = np.zeros((len(FACT_GROUPS), len(examples))), np.zeros((len(FACT_GROUPS), len(examples)), int)
    for row, (_, _, labels, nll) in enumerate(scored_rows(model, tokenizer, examples, variant, seed, batch_size)):
        where = groups[row][np.flatnonzero(labels != IGNORE_INDEX)]
        sums[:, row] = np.bincount(where, nll, len(FACT_GROUPS))
        counts[:, row] = np.bincount(where, minlength=len(FACT_GROUPS))
    return {name: cluster_result(variant, examples["cluster_id"], sums[g], counts[g], n_resamples, seed=seed)
            if counts[g].any() else None for g, name in enumerate(FACT_GROUPS)}


Results = Mapping[str, Mapping[str, "PerplexityResult | None"]]  # variant -> group -> result


def _differences(results: Results, reference: str, n_resamples: int) -> dict[tuple[str, str], tuple]:
    """{(group, variant): `paired_difference` of its result and `reference`'s} for every other model and group."""
    base = results.get(reference, {})
    return {(name, variant): paired_difference(by_group[name], base[name], n_resamples)
            for name in FACT_GROUPS for variant, by_group in results.items()
            if variant != reference and by_group.get(name) is not None and base.get(name) is not None}


def fact_table(results: Results, reference: str = "cdlm", n_resamples: int = 1000) -> pd.DataFrame:
    """Per model and group: perplexity, its 95 % interval and the paired difference from `reference` with its own."""
    differences, rows = _differences(results, reference, n_resamples), {}
    for variant, by_group in results.items():
        row = rows.setdefault(display_name(variant), {})
        for name, label in FACT_GROUPS.items():
            if (result := by_group.get(name)) is None:
                continue
            group = f"{label} ({result.n_tokens} masked tokens)"
            row |= {(group, "perplexity"): round(result.ppl, 2),
                    (group, "95 % interval"): f"{result.ci_low:.2f}-{result.ci_high:.2f}"}
            if (name, variant) in differences:
                diff, low, high = differences[name, variant]
                row[(group, f"− {display_name(reference)}")] = f"{diff:+.2f} ({low:+.2f} to {high:+.2f})"
    return blank_missing(pd.DataFrame.from_dict(rows, orient="index"))


def fact_metrics(results: Results) -> dict[str, float]:
    """`perplexity/<group>/<variant>` for results.json."""
    return {f"perplexity/{name}/{variant}": result.ppl for variant, by_group in results.items()
            for name, result in by_group.items() if result is not None}


def plot_fact_groups(results: Results) -> "Figure":
    """Perplexity per group (x) and model (bars), with the bootstrap intervals."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.6))
    width = 0.8 / max(len(results), 1)
    for k, (variant, by_group) in enumerate(results.items()):
        shown = [(g, r) for g, r in enumerate(by_group.get(name) for name in FACT_GROUPS) if r is not None]
        ax.bar([g + (k - (len(results) - 1) / 2) * width for g, _ in shown], [r.ppl for _, r in shown], width,
               yerr=[[r.ppl - r.ci_low for _, r in shown], [r.ci_high - r.ppl for _, r in shown]], capsize=2,
               label=display_name(variant))
    ax.set_xticks(range(len(FACT_GROUPS)), list(FACT_GROUPS.values()))
    ax.set(ylabel="perplexity (lower is better)", yscale="log", title="Masked tokens by what they state")
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    return fig


def fact_readings(results: Results, reference: str = "cdlm", n_resamples: int = 1000,
                  profile: str | None = None) -> list[str]:
    """Per group, the noise rule's verdict (`lower_reading`) on `reference` being lower than each other model: its
    paired interval excludes 0 and it exceeds the seed band (`baselines/<profile>.spread.json`; else none holds)."""
    spread = verdicts.load_spread(profile) if profile else None
    differences, name, lines = _differences(results, reference, n_resamples), display_name(reference), []
    for group, label in FACT_GROUPS.items():
        read = []
        for (of, variant), difference in differences.items():
            if of == group:
                band = verdicts.seed_band(spread, f"perplexity/{group}/{variant}", f"perplexity/{group}/{reference}")
                read.append(f"{name} lower than {display_name(variant)}: "
                            f"{lower_reading(verdicts.Difference(*difference, band), 2)}")
        if read:
            lines.append(f"- {label} ({results[reference][group].n_tokens} masked tokens, {name} minus each model): "
                         f"{'; '.join(read)}.")
    return lines


def world_fact_results(models: Mapping[str, "Encoder"], tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                       profile: "Profile") -> dict[str, dict[str, PerplexityResult | None]] | None:
    """`perplexity_by_fact_group` of every model on the world's packed test examples; None on another corpus."""
    if profile.data_source != "embedded":
        return None
    made = world(profile.world)
    groups = per_world_row(examples, made.clusters["test"], made.facts["test"], tokenizer, token_groups,
                           "world_fact_results")
    return {variant: perplexity_by_fact_group(encoder.model, tokenizer, examples, groups, variant,
                                              batch_size=profile.pretrain.eval_batch_size,
                                              n_resamples=profile.pretrain.bootstrap_resamples)
            for variant, encoder in models.items()}
