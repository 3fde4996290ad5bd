"""The copy probe: does a model read another document's statement of the fact it is asked to predict (the one mechanism
CD-MLM is built for)? Every statement of a fact that another packed document also states correctly (its *witnesses*) is
masked whole on top of the evaluation masks and scored with the witnesses readable, then masked (not predicted: the same
global attention). copy gain = NLL(hidden) - NLL(readable), nats per token (floor 0); intervals bootstrap the probed
facts, paired between models."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import torch

from ..collate import pad_batch
from ..data.corpora import world
from ..masking import IGNORE_INDEX, CrossDocumentMLMCollator
from ..pretraining.copy_task import copy_task_gain, within_reach_data
from ..pretraining.heldout import EVAL_MASK_SEED, heldout_examples, masked_token_nll
from ..support.errors import DataError
from ..support.progress import progress
from ..variants import attention_pattern_of, display_name
from ..verdicts import flat
from ..widgets import blank_missing
from .bootstrap import ratio_interval
from .evaluate import with_start
from .fact_tokens import located_statements, per_world_row

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from ..encoders import Encoder
    from ..profiles import PretrainConfig, Profile


@dataclass(frozen=True)
class CopyTarget:
    """One probed statement of one packed row: its token positions and those of its witnesses."""

    unit: str  # "<cluster>/<fact>": the bootstrap's unit
    target: tuple[int, ...]
    witnesses: tuple[int, ...]


@dataclass(frozen=True)
class CopyGain:
    """A model's copy gain, its bootstrap interval and the per-unit sums behind them."""

    variant: str
    gain: float  # nats per token: mean NLL with the witnesses hidden minus with them readable
    ci_low: float
    ci_high: float
    readable_nll: float  # nats per token, witnesses readable
    hidden_nll: float  # nats per token, witnesses masked
    n_tokens: int
    n_statements: int
    units: tuple[str, ...] = field(repr=False, default=())
    gain_sums: tuple[float, ...] = field(repr=False, default=())  # per unit: summed NLL(hidden) - NLL(readable)
    token_counts: tuple[int, ...] = field(repr=False, default=())


def copy_targets(row: Mapping, documents: Sequence[str], facts: Sequence[Mapping],
                 tokenizer: "PreTrainedTokenizerBase") -> list[CopyTarget]:
    """Every correct fact statement of one packed row whose fact another packed document states correctly too."""
    by_fact: dict[str, list[Mapping]] = defaultdict(list)
    for statement in located_statements(row, documents, facts, tokenizer):
        if statement["correct"]:
            by_fact[statement["fact"]].append(statement)
    targets = [CopyTarget(f"{row['cluster_id']}/{fact}", tuple(statement["positions"]),
                          tuple(p for other in stated if other["doc"] != statement["doc"] for p in other["positions"]))
               for fact, stated in by_fact.items() for statement in stated]
    return [target for target in targets if target.witnesses]


def probe_pair(original: torch.Tensor, masked: torch.Tensor, predicted: torch.Tensor, target: Sequence[int],
               witnesses: Sequence[int], mask_id: int, collator: CrossDocumentMLMCollator) -> tuple[dict, dict]:
    """The two inputs (witnesses readable, hidden) of a probed statement of a row, each labelling the statement only."""
    target, witnesses = list(target), list(witnesses)
    predicted = predicted.clone()
    predicted[witnesses], predicted[target] = False, True  # global attention alike in both inputs
    readable = masked.clone()
    readable[witnesses], readable[target] = original[witnesses], mask_id  # the other statements, as written
    hidden = readable.clone()
    hidden[witnesses] = mask_id  # ... or masked, and not predicted
    labels = torch.full_like(original, IGNORE_INDEX)
    labels[target] = original[target]
    is_global = collator.global_attention(original, predicted)
    return ({"input_ids": readable, "global_attention_mask": is_global, "labels": labels},
            {"input_ids": hidden, "global_attention_mask": is_global, "labels": labels})


def copy_gain(model: "PreTrainedModel", tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
              targets: Sequence[Sequence[CopyTarget]], variant: str, seed: int = EVAL_MASK_SEED,
              batch_size: int = 8, n_resamples: int = 1000, name: str | None = None) -> CopyGain:
    """`variant`'s copy gain on `examples`, probing `targets[i]` in row i; `name` labels another model (the start)."""
    collator = CrossDocumentMLMCollator(tokenizer, pattern=attention_pattern_of(variant), seed=seed)
    pairs, units = [], []
    for ids, row_targets in zip(examples["input_ids"], targets):
        original = torch.as_tensor(ids, dtype=torch.long)
        masked = collator.mask_row(original)
        for probe in row_targets:
            pairs.append(probe_pair(original, masked.input_ids, masked.predicted, probe.target, probe.witnesses,
                                    tokenizer.mask_token_id, collator))
            units.append(probe.unit)
    if not pairs:
        raise DataError(f"copy_gain: no fact statement of {len(examples)} rows has a witness in another document")
    nll, was_training = ([], []), model.training  # per condition: witnesses readable, witnesses hidden
    model.eval()
    try:
        for start in progress(range(0, len(pairs), batch_size), desc=f"copy probe {variant}"):
            for k, scores in enumerate(nll):
                scores.append(masked_token_nll(model, pad_batch(
                    [pair[k] for pair in pairs[start:start + batch_size]],
                    {"input_ids": tokenizer.pad_token_id, "labels": IGNORE_INDEX})))
    finally:
        model.train(was_training)
    readable, hidden = map(np.concatenate, nll)
    counts = np.array([int((pair[0]["labels"] != IGNORE_INDEX).sum()) for pair in pairs])
    statement_gain = np.add.reduceat(hidden - readable, np.r_[0, np.cumsum(counts)[:-1]])
    unit_ids, index = np.unique(units, return_inverse=True)
    gain_sums, token_counts = np.bincount(index, statement_gain), np.bincount(index, counts).astype(int)
    low, high = ratio_interval(gain_sums, token_counts, n_resamples)
    n = counts.sum()
    return CopyGain(name or variant, float(gain_sums.sum() / n), low, high, float(readable.sum() / n),
                    float(hidden.sum() / n), int(n), len(pairs), tuple(unit_ids.tolist()), tuple(gain_sums.tolist()),
                    tuple(token_counts.tolist()))


def paired_gain_difference(result: CopyGain, reference: CopyGain,
                           n_resamples: int = 1000) -> tuple[float, float, float]:
    """gain(result) - gain(reference) and its paired-bootstrap interval (the same resampled facts for both)."""
    if result.units != reference.units or result.token_counts != reference.token_counts:
        raise DataError("paired_gain_difference needs two copy gains on the same probed statements")
    difference = np.array(result.gain_sums) - np.array(reference.gain_sums)
    low, high = ratio_interval(difference, np.array(result.token_counts), n_resamples)
    return result.gain - reference.gain, low, high


def world_copy_targets(examples: "Dataset", clusters: "Dataset", facts: "Dataset",
                       tokenizer: "PreTrainedTokenizerBase") -> list[list[CopyTarget]]:
    """`copy_targets` of every packed example, from the world's clusters and fact statements of the same split."""
    return per_world_row(examples, clusters, facts, tokenizer, copy_targets, "world_copy_targets")


def probe_set(examples: "Dataset", profile: "Profile", tokenizer: "PreTrainedTokenizerBase",
              split: str = "test") -> "tuple[Dataset, list[list[CopyTarget]]] | None":
    """The packed examples the probe reads and their `world_copy_targets`, or None (no witness). Only the world knows
    which tokens state a fact: on another corpus its `split` clusters are packed with `tokenizer` (the models' BPE)."""
    made = world(profile.world)
    if profile.data_source != "embedded":  # without sentence markers: the fact locator needs whole documents
        plain = profile.override(encoder=replace(profile.encoder, sentence_markers=False))
        examples = heldout_examples(made.clusters[split], tokenizer, plain)
    targets = world_copy_targets(examples, made.clusters[split], made.facts[split], tokenizer)
    return (examples, targets) if any(targets) else None


def copy_gains(models: "Mapping[str, Encoder]", tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
               targets: Sequence[Sequence[CopyTarget]], config: "PretrainConfig",
               start: "Encoder | None" = None) -> dict[str, CopyGain]:
    """`copy_gain` of every model (and first of the `start`, `evaluate.with_start`), with `config`'s batch and draws."""
    return {name: copy_gain(encoder.model, tokenizer, examples, targets, variant, batch_size=config.eval_batch_size,
                            n_resamples=config.bootstrap_resamples, name=name)
            for name, encoder, variant in with_start(models, start)}


def copy_table(gains: Mapping[str, CopyGain], reference: str = "cdlm", n_resamples: int = 1000) -> pd.DataFrame:
    """Per model: copy gain and interval, its two NLLs and the paired difference from `reference`; the floor first."""
    rows = {"floor: reads no other document": {"copy gain (nats/token)": 0.0}}
    for variant, r in gains.items():
        row = rows[display_name(variant)] = {
            "copy gain (nats/token)": round(r.gain, 3), "95 % interval": f"{r.ci_low:+.3f} to {r.ci_high:+.3f}",
            "NLL, witnesses readable": round(r.readable_nll, 3), "NLL, witnesses hidden": round(r.hidden_nll, 3),
            "statements": r.n_statements, "tokens": r.n_tokens}
        if reference in gains and variant != reference:
            diff, low, high = paired_gain_difference(r, gains[reference], n_resamples)
            row[f"− {display_name(reference)}"] = f"{diff:+.3f} ({low:+.3f} to {high:+.3f})"
    return blank_missing(pd.DataFrame.from_dict(rows, orient="index"))


def copy_metrics(gains: Mapping[str, CopyGain]) -> dict[str, float]:
    """`copy_gain/<variant>` and its interval (`/ci_low`, `/ci_high`) for results.json."""
    return {f"copy_gain/{variant}{suffix}": value for variant, result in gains.items()
            for suffix, value in (("", result.gain), ("/ci_low", result.ci_low), ("/ci_high", result.ci_high))}


#: A model *reads* the other documents when its copy gain's whole interval is above this (nats/token): the statement's
#: perplexity at least 10 % lower; copying outright saves several nats a token, so less is a trace, not reading.
READS_THRESHOLD = 0.1
#: A gain is told from the floor only when its interval clears 0 by this, either way (0.1 % of the perplexity); below,
#: it is float residue, not a trace (Local CDLM's gain on `cpu` is about 1e-7, its interval 1e-8 to 5e-7).
TRACE_THRESHOLD = 0.001
VERDICT_WORDS = {"reads": "reads the other documents' statements (interval above {threshold} nats/token)",
                 "trace": "a trace above the floor (interval above {trace}, not above {threshold} nats/token): does "
                          "not read them",
                 "floor": "does not read them: at the floor (interval not clear of 0 by {trace} nats/token)",
                 "hurt": "is hurt by them (interval below -{trace} nats/token)"}


def copy_verdict(low: float, high: float, threshold: float = READS_THRESHOLD, trace: float = TRACE_THRESHOLD) -> str:
    """`reads` (interval above `threshold`), `trace` (above `trace`), `hurt` (below -`trace`) or `floor`."""
    return "reads" if low > threshold else "trace" if low > trace else "hurt" if high < -trace else "floor"


def copy_readings(gains: Mapping[str, CopyGain], threshold: float = READS_THRESHOLD,
                  trace: float = TRACE_THRESHOLD) -> list[str]:
    """Per model: its gain, interval and `copy_verdict`; where it reads, the share of the NLL that reading saves."""
    lines = []
    for variant, r in gains.items():
        verdict = copy_verdict(r.ci_low, r.ci_high, threshold, trace)
        saving = (f", saving {r.gain / r.hidden_nll:.1%} of its {r.hidden_nll:.2f} nats/token"
                  if verdict == "reads" else "")
        lines.append(f"{display_name(variant)}: copy gain {r.gain:+.3f} nats/token ({r.ci_low:+.3f} to "
                     f"{r.ci_high:+.3f}) — {VERDICT_WORDS[verdict].format(threshold=threshold, trace=trace)}{saving}.")
    return lines


def within_reach_gains(models: "Mapping[str, Encoder]", tokenizer: "PreTrainedTokenizerBase", texts: Sequence[str],
                       start: "Encoder | None" = None) -> dict[str, dict[str, float]]:
    """The positive control per model (`"start"` first): the within-reach copy gain, as repeated and halves swapped."""
    data = {"same": within_reach_data(tokenizer, texts), "swapped": within_reach_data(tokenizer, texts, True)}
    return {name: {form: copy_task_gain(encoder.model, pairs)[1] for form, pairs in data.items()}
            for name, encoder, _ in with_start(models, start)}


def within_reach_metrics(gains: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """`within_reach/<model>/<form>` of `within_reach_gains` for results.json."""
    return flat("within_reach", gains)
