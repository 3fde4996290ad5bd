"""Notebook-level steps shared by notebooks 02, 03, 04 and 07, so that they all see the same clusters and models.

- `load_pretraining_clusters(profile)`: the pretraining clusters and the held-out ones (embedded world or Multi-News);
- `initial_encoder(profile, clusters)`: the encoder (and tokenizer) as the profile builds it, seeded;
- `pretrain_base(...)`: the one starting model every variant continues from (tiny encoders: after a base stage);
- `pretrain_variants(...)`: notebook 02's loop: reuse finished models, resume interrupted ones, train the rest;
- `load_pretrained_models(...)`: notebook 02's models for the later notebooks, with one clear error if any is missing;
- `starting_model(...)`: the model notebook 02's variants started from, reloaded for notebook 03;
- `heldout_examples(...)`, `paper_table1()`, `perplexity_findings(...)`: notebook 03's inputs, reference and reading;
- `answer_location_table(...)`, `attention_reach_table(...)`: notebook 03's look at where CDLM gains or loses.

Pretraining inputs per variant (related clusters, unrelated documents for Rand, single documents for Longformer)
are packed inside `cdlm_nb.pretraining.pretrain` from the same training clusters and seed.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import DataError
from .data.corpora import HELDOUT_SPLITS, PretrainingClusters
from .data.corpora import pretraining_clusters as load_pretraining_clusters
from .pretraining import LABELS, RESULT_FILE, PretrainResult, load_pretrained, load_result, model_dir, pretrain
from .variants import load_pretrained_models as _load_models
from .variants import shared_tokenizer


def load_pretrained_models(run_dir, profile, variants=None):
    """Notebook 02's models for a profile (all of `profile.pretrain.variants` unless `variants` names some)."""
    return _load_models(run_dir, tuple(variants or profile.pretrain.variants), profile.name)

if TYPE_CHECKING:
    import pandas as pd
    from datasets import Dataset
    from transformers import PreTrainedTokenizerBase

    from .encoders import Encoder
    from .perplexity import PerplexityResult
    from .profiles import PretrainConfig, Profile

HELDOUT_MIN_DOCUMENTS = 2  # a held-out cluster needs a second document for cross-document context

#: Cross-document perplexity on Multi-News (lower is better), as printed in the two versions of the paper.
#: "v1": Caciularu et al., "Cross-Document Language Modeling", arXiv:2101.00406v1 (2021), Table 1 (seed 000);
#: it has no Local or Prefix rows. "final": Caciularu et al., "CDLM: Cross-Document Language Modeling",
#: Findings of EMNLP 2021 (arXiv:2101.00406v2), Table 1 (seed 003).
PAPER_TABLE1 = {
    "v1": {"longformer": (2.03, 2.34), "rand": (1.88, 1.93), "cdlm": (1.69, 1.76)},
    "final": {"longformer": (3.89, 3.94), "local": (3.78, 3.84), "rand": (3.68, 3.81), "prefix": (3.20, 3.41),
              "cdlm": (3.23, 3.39)},
}


def starts_pretrained(profile: "Profile") -> bool:
    """True when the encoder is already pretrained (Longformer-base): the paper's setting, no random start."""
    return profile.encoder.kind != "tiny"


def initial_encoder(profile: "Profile", clusters: PretrainingClusters) -> "Encoder":
    """The starting model of every variant: a tiny Longformer with a BPE trained on the training documents, or
    Longformer-base; seeded, so a re-run (or another notebook) rebuilds exactly the same weights and vocabulary."""
    from transformers import set_seed

    from .encoders import load_encoder

    set_seed(profile.seed)
    texts = None if starts_pretrained(profile) else [doc for docs in clusters.train["documents"] for doc in docs]
    return load_encoder(profile.encoder, texts)


def pretrain_base(profile: "Profile", encoder: "Encoder", clusters: PretrainingClusters, run_dir: str | os.PathLike,
                  resume: bool = True, echo=print) -> tuple["Encoder", PretrainResult | None]:
    """The model every variant starts from, and the base-stage run that made it (None when there is none).

    A pretrained encoder (Longformer-base) is returned as it is. A random tiny one is first trained by
    single-document MLM with local attention (`base_stage_config`; trained once, then reused). Then, as Beltagy
    et al. made Longformer-base from RoBERTa, its trained positions are copied out to the full length and its
    global Q/K/V copied from the local ones. Every variant so starts from a model that already reads text at
    every position, as in the paper.
    """
    from .pretraining import base_stage_config

    config = profile.pretrain
    if starts_pretrained(profile) or config.base_steps <= 0:
        return encoder, None
    base = base_stage_config(config)
    result = reuse_or_pretrain("base", base, profile, encoder, clusters, run_dir, resume, echo,
                               inputs=f" on single documents of up to {base.max_length} tokens")
    return _after_longformer_recipe(load_pretrained(run_dir, "base"), trained=base.max_length), result


def _after_longformer_recipe(base: "Encoder", trained: int) -> "Encoder":
    """The base-stage model with its `trained` positions copied out and its global Q/K/V copied from the local ones."""
    from .encoders import copy_global_from_local, copy_positions_out

    copy_positions_out(base.model, trained=trained)
    copy_global_from_local(base.model)
    return base


def starting_model(profile: "Profile", run_dir: str | os.PathLike) -> "Encoder | None":
    """The model every variant of notebook 02 started from: the saved base-stage model after the Longformer recipe,
    or the pretrained encoder itself (Longformer-base); None for a random tiny start with no base stage."""
    from .encoders import load_encoder

    if starts_pretrained(profile):
        return load_encoder(profile.encoder)
    if profile.pretrain.base_steps <= 0:
        return None
    base = load_pretrained_models(run_dir, profile, variants=("base",))["base"]
    return _after_longformer_recipe(base, trained=profile.pretrain.base_max_length)


# ---------------------------------------------------------------------------------------------------------------
def finished_result(run_dir: str | os.PathLike, variant: str, profile: "Profile", n_train: int,
                    config: "PretrainConfig | None" = None) -> PretrainResult | None:
    """The saved result of a finished run of `variant` with this profile's setup (or `config`), or None (not run,
    or changed)."""
    path = model_dir(run_dir, variant) / RESULT_FILE
    if not path.is_file() or not (path.parent / "model.safetensors").is_file():
        return None
    config = config or profile.pretrain
    saved = json.loads(path.read_text()).get("setup", {})
    expected = {"variant": variant, "seed": config.seeds[0], "config": asdict(config), "examples": n_train}
    return load_result(run_dir, variant) if saved == json.loads(json.dumps(expected)) else None


def save_unchanged(variant: str, encoder: "Encoder", run_dir: str | os.PathLike, source: str, seed: int) -> PretrainResult:
    """Save a model that is not further pretrained (Longformer-base, or the `biu-nlp/cdlm` release) as `variant`,
    in the same layout as `pretrain`'s models, so the later notebooks load it the same way."""
    folder = model_dir(run_dir, variant)
    folder.mkdir(parents=True, exist_ok=True)
    encoder.model.save_pretrained(folder)
    encoder.tokenizer.save_pretrained(folder)
    result = PretrainResult(variant=variant, seed=seed, model_dir=folder, steps=0)
    (folder / RESULT_FILE).write_text(json.dumps({**result.to_json(), "setup": {"source": source}}, indent=2))
    return result


def pretrain_variants(profile: "Profile", encoder: "Encoder", clusters: PretrainingClusters,
                      run_dir: str | os.PathLike, resume: bool = True, cdlm_release: bool = False,
                      echo=print) -> list[PretrainResult]:
    """Notebook 02: every variant of `profile.pretrain.variants`, each from `encoder`'s weights.

    With `resume`, a finished model with the same setup is reused and an interrupted one continues from its last
    checkpoint; `resume=False` retrains all. When the encoder is already pretrained (gpu profile), `longformer`
    is the starting checkpoint itself (the paper's "without additional pretraining"); `cdlm_release` takes the
    released `biu-nlp/cdlm` as the `cdlm` model instead of pretraining it.
    """
    results = []
    for variant in profile.pretrain.variants:
        if variant == "longformer" and starts_pretrained(profile):
            echo(f"{LABELS[variant]}: the starting checkpoint ({profile.encoder.kind}), saved without further training")
            results.append(save_unchanged(variant, encoder, run_dir, profile.encoder.kind, profile.seed))
        elif variant == "cdlm" and cdlm_release:
            from .encoders import from_hub

            echo(f"{LABELS[variant]}: the released biu-nlp/cdlm checkpoint, saved without further training")
            results.append(save_unchanged(variant, from_hub("cdlm-release"), run_dir, "biu-nlp/cdlm", profile.seed))
        else:
            results.append(reuse_or_pretrain(variant, profile.pretrain, profile, encoder, clusters, run_dir, resume,
                                             echo))
    return results


def reuse_or_pretrain(variant: str, config: "PretrainConfig", profile: "Profile", encoder: "Encoder",
                      clusters: PretrainingClusters, run_dir: str | os.PathLike, resume: bool, echo,
                      inputs: str = "") -> PretrainResult:
    """One run of `pretrain`, or its finished model when `resume` finds one with the same setup; says which."""
    done = finished_result(run_dir, variant, profile, len(clusters.train), config) if resume else None
    if done is not None:
        echo(f"{LABELS[variant]}: finished model found in {done.model_dir}, reused ({done.steps} steps)")
        return done
    echo(f"{LABELS[variant]}: pretraining {config.max_steps} steps{inputs} ...")
    result = pretrain(variant, config, encoder.model, encoder.tokenizer, clusters.train, run_dir, resume=resume,
                      sentence_markers=profile.encoder.sentence_markers)
    resumed = f", resumed from step {result.resumed_from_step}" if result.resumed_from_step else ""
    echo(f"    {result.steps} steps in {result.seconds:.1f} s{resumed}; last logged loss {result.final_loss:.3f}")
    return result


def input_summary(profile: "Profile", clusters: PretrainingClusters, tokenizer: "PreTrainedTokenizerBase") -> "pd.DataFrame":
    """One packing of the training clusters per variant: how many inputs, how long, how many documents each."""
    import pandas as pd

    from .pretraining import pretraining_inputs

    rows = []
    for variant in profile.pretrain.variants:
        examples = pretraining_inputs(variant, clusters.train, tokenizer, profile.pretrain.max_length, n_examples=1,
                                      seed=profile.seed, sentence_markers=profile.encoder.sentence_markers)
        lengths = [len(ids) for ids in examples["input_ids"]]
        documents = [len(sources) for sources in examples["sources"]]
        rows.append({"model": LABELS[variant], "inputs": len(examples), "mean tokens": sum(lengths) / len(lengths),
                     "max tokens": max(lengths), "mean documents": sum(documents) / len(documents)})
    return pd.DataFrame(rows).set_index("model")


def throughput_table(results: list[PretrainResult]) -> "pd.DataFrame":
    """Steps, time, tokens seen and training tokens per second of each run (of the session that trained it)."""
    import pandas as pd

    rows = [{"model": LABELS[r.variant], "steps": r.steps, "seconds": r.seconds, "tokens": r.tokens,
             "tokens_per_s": r.tokens_per_second, "final_loss": r.final_loss} for r in results]
    return pd.DataFrame(rows).set_index("model")


# ---------------------------------------------------------------------------------------------------------------
def heldout_examples(clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", profile: "Profile") -> "Dataset":
    """Held-out clusters packed as in pretraining (one example per cluster, fixed seed), from 2 documents up:
    the paper's 5,622 Multi-News validation and test clusters include the 2-document ones."""
    from .inputs import pack_clusters

    return pack_clusters(clusters, tokenizer, profile.pretrain.max_length, seed=profile.seed,
                         sentence_markers=profile.encoder.sentence_markers, min_documents=HELDOUT_MIN_DOCUMENTS)


def answer_location_table(models: dict[str, "Encoder"], tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                          profile: "Profile") -> "pd.DataFrame":
    """Test perplexity of every model split by where the masked token's answer is visible (`perplexity.
    ANSWER_LOCATIONS`, with the profile's local window); the last row counts the masked tokens of each column."""
    import pandas as pd

    from .perplexity import perplexity_by_answer_location

    tables = {LABELS[variant]: perplexity_by_answer_location(
                  encoder.model, tokenizer, examples, variant, window=profile.encoder.attention_window,
                  batch_size=profile.pretrain.eval_batch_size)
              for variant, encoder in models.items()}
    table = pd.DataFrame({model: t["perplexity"] for model, t in tables.items()}).T
    counts = next(iter(tables.values()))["masked_tokens"].rename("masked tokens")
    return pd.concat([table, counts.to_frame().T])


def attention_reach_table(models: dict[str, "Encoder"], tokenizer: "PreTrainedTokenizerBase", examples: "Dataset",
                          profile: "Profile", start: "Encoder | None" = None) -> "pd.DataFrame":
    """Where the masked tokens of the models that make them global (CDLM, Rand CDLM) attend, per layer, in percent
    (`perplexity.global_attention_reach`, with the profile's local window); empty when no model does. With `start`
    (`starting_model`), a first row shows where the same masked tokens looked before any CD-MLM training."""
    import pandas as pd

    from .masking import MASKED_GLOBAL_PATTERNS
    from .perplexity import global_attention_reach

    measured = ([("start", start, "cdlm")] if start is not None else []) + [
        (variant, encoder, variant) for variant, encoder in models.items() if variant in MASKED_GLOBAL_PATTERNS]
    tables = {LABELS[name]: 100 * global_attention_reach(
                  encoder.model, tokenizer, examples, variant, window=profile.encoder.attention_window,
                  batch_size=profile.pretrain.eval_batch_size)
              for name, encoder, variant in measured}
    return pd.concat(tables, names=["model"]) if tables else pd.DataFrame()


def paper_table1() -> "pd.DataFrame":
    """The paper's Table 1 (both versions) with our model names; NaN where a version has no such row."""
    import pandas as pd

    variants = list(PAPER_TABLE1["final"])
    columns = {f"paper {version} {split}": [PAPER_TABLE1[version].get(v, (float("nan"),) * 2)[i] for v in variants]
               for version in PAPER_TABLE1 for i, split in enumerate(HELDOUT_SPLITS)}
    return pd.DataFrame(columns, index=pd.Index([LABELS[v] for v in variants], name="model"))


def our_table1(scores: dict[str, list["PerplexityResult"]]) -> "pd.DataFrame":
    """Our perplexity and 95 % interval per held-out split, beside `paper_table1()` (both versions), in the
    paper's row order; a model we did not evaluate keeps its paper row with our columns empty."""
    import pandas as pd

    parts = []
    for split, results in scores.items():
        index = pd.Index([LABELS[r.variant] for r in results], name="model")
        parts.append(pd.DataFrame({f"ours {split}": [r.ppl for r in results],
                                   f"ours {split} 95% CI": [f"[{r.ci_low:.2f}, {r.ci_high:.2f}]" for r in results]},
                                  index=index))
    ours, paper = pd.concat(parts, axis=1), paper_table1()
    order = [*paper.index, *(model for model in ours.index if model not in paper.index)]
    return ours.join(paper, how="outer").reindex(order)


def _paired_to(base: "PerplexityResult", result: "PerplexityResult", n_resamples: int,
               confidence: float) -> tuple[float, float, float]:
    """ppl(base) - ppl(result) with its paired bootstrap interval (negative: `base` is better)."""
    from .perplexity import paired_difference

    return paired_difference(base, result, n_resamples, confidence)


def perplexity_findings(results: list["PerplexityResult"], reference: str = "cdlm", n_resamples: int = 1000,
                        confidence: float = 0.95) -> list[str]:
    """One sentence per other model saying, from the numbers, whether `reference` is lower beyond the paired
    bootstrap interval of the difference, and whether the two models' own intervals overlap."""
    by_variant = {result.variant: result for result in results}
    if reference not in by_variant:
        raise DataError(f"no {reference!r} result among {sorted(by_variant)}")
    base = by_variant[reference]
    level = f"{confidence:.0%}"
    sentences = []
    for result in results:
        if result is base:
            continue
        diff, low, high = _paired_to(base, result, n_resamples, confidence)
        if high < 0:
            verdict = f"{LABELS[reference]} is lower, and the paired {level} interval of the difference excludes 0"
        elif low > 0:
            verdict = f"{LABELS[reference]} is higher (worse), and the paired {level} interval excludes 0"
        else:
            verdict = f"the paired {level} interval includes 0: these held-out clusters do not separate the two"
        overlap = result.ci_low <= base.ci_high and base.ci_low <= result.ci_high
        sentences.append(
            f"{LABELS[reference]} {base.ppl:.3f} vs {LABELS[result.variant]} {result.ppl:.3f}: "
            f"{LABELS[reference]} minus {LABELS[result.variant]} = {diff:+.3f} [{low:+.3f}, {high:+.3f}]; {verdict}. "
            f"Their own {level} intervals "
            f"{'overlap' if overlap else 'do not overlap'}."
        )
    return sentences


def perplexity_verdict(results: list["PerplexityResult"], reference: str = "cdlm",
                       against: tuple[str, ...] = ("longformer", "local", "rand"), n_resamples: int = 1000,
                       confidence: float = 0.95) -> str:
    """The headline of Table 1, computed: which of `against` `reference` beats beyond the paired interval."""
    by_variant = {result.variant: result for result in results}
    if reference not in by_variant:
        raise DataError(f"no {reference!r} result among {sorted(by_variant)}")
    compared = [v for v in against if v in by_variant]
    intervals = {v: _paired_to(by_variant[reference], by_variant[v], n_resamples, confidence) for v in compared}
    beaten = [v for v in compared if intervals[v][2] < 0]
    ahead = [v for v in compared if intervals[v][1] > 0]
    names = ", ".join(LABELS[v] for v in beaten)
    sentence = (f"{LABELS[reference]} has a lower perplexity than {len(beaten)} of the {len(compared)} models "
                f"{', '.join(LABELS[v] for v in compared)} by more than the paired {confidence:.0%} interval"
                + (f" ({names})." if beaten else "."))
    if ahead:
        sentence += (f" {', '.join(LABELS[v] for v in ahead)} even {'has' if len(ahead) == 1 else 'have'} a lower "
                     f"perplexity than {LABELS[reference]} beyond the interval.")
    if len(beaten) < len(compared):
        extent = "only partly" if beaten else "not"
        sentence += (f" The paper's ordering is therefore {extent} reproduced on these held-out clusters: a gap "
                     "inside the interval may be noise (more held-out clusters, or more pretraining, would tell).")
    else:
        sentence += " This agrees with the paper's ordering."
    return sentence
