"""Run profiles, defined in one place: `smoke` (CI, seconds), `cpu` (offline default, minutes) and `gpu`
(the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub), and `gpu-rehearsal`: gpu with
only its sizes shrunk (`rehearsal_sizes`), which `cdlm-nb rehearse` runs offline from stand-ins of the downloads.

A notebook's `parameters` cell holds only `PROFILE = "cpu"`; the next cell calls `setup(PROFILE, ...)` and
reads the sections it needs (e.g. `session.profile.world`). Each section is a frozen dataclass with one value
per profile, so a typo fails loudly and the three settings sit side by side. The downstream tasks' sections
live in `task_profiles` and are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import ConfigError
from .paper_models import PAPER_MODELS
from .rehearsal_sizes import REHEARSAL_MINUTES, REHEARSAL_SIZES
from .seeding import SEED
from .task_profiles import (  # the downstream tasks' sections, re-exported here
    CDA,
    CLASSIFICATION,
    COMPARISON,
    COREF,
    MATCH_IGNITION,
    MATCHING,
    MULTIHOP,
    CDAConfig,
    ClassificationConfig,
    ComparisonConfig,
    CorefConfig,
    MatchIgnitionConfig,
    MatchingConfig,
    MultihopConfig,
)

PROFILE_NAMES = ("smoke", "cpu", "gpu", "gpu-rehearsal")

# ---------------------------------------------------------------------------------------------------------
# Sections: one frozen dataclass per concept, and a dict {profile name: value} beside it.
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PretrainConfig:
    """Cross-document MLM pretraining (CDLM paper §2.3 and Appendix B; CDLM preprint (v1) §4)."""

    variants: tuple[str, ...]  # models notebook 02 makes: "longformer" (the start, unchanged) and the CD-MLM ablations
    max_steps: int  # optimizer steps per variant (paper: 25k)
    per_device_batch_size: int  # sequences per device per forward pass
    gradient_accumulation_steps: int  # effective batch = per-device batch x accumulation x devices (paper: 64)
    learning_rate: float  # peak learning rate (paper: 3e-5, continuing from Longformer-base)
    warmup_steps: int  # linear warm-up (paper: 500)
    lr_power: float  # polynomial decay power after warm-up (paper: 3)
    weight_decay: float  # AdamW weight decay (RoBERTa: 0.01)
    fp16: bool  # mixed precision on CUDA, fp16 or bf16 as the card trains (`precision.precision`); CPU: fp32
    max_length: int  # tokens per packed example (paper: 4,096)
    logging_steps: int  # loss is logged every this many steps
    save_steps: int  # a resumable checkpoint every this many steps
    seeds: tuple[int, ...]  # pretraining seeds; the first is the default run, more seeds measure seed noise
    eval_batch_size: int  # sequences per forward pass in the perplexity evaluation
    bootstrap_resamples: int  # resamples of held-out clusters for the perplexity interval
    curve_steps: int  # validation perplexity every this many steps (and at step 0): the learning curve (0: none)
    base_steps: int  # random-init (tiny) encoders only: single-document MLM steps with full attention that make
    #                  the shared starting model, as Longformer-base was for the paper (0: start from the encoder as
    #                  it is); cpu: shipped with the package (`cdlm-nb pretrain-base`), long, since the longer the
    #                  base, the closer CDLM gets to Local after notebook 02's steps (docs/experiments.md)
    base_batch_size: int  # single documents per step in that base stage
    base_max_length: int  # tokens per input in the base stage (longer documents are cut, and counted); these
    #                       positions are then copied out to max_length, so keep it near the documents' length
    #                       (an unreached position stays random)
    base_long_steps: int  # then MLM steps on unrelated documents packed to max_length, full attention, batch
    #                       per_device_batch_size: trains every position the variants read, as Longformer's continued
    #                       pretraining at 4,096 tokens did (0: positions past base_max_length stay copies)
    gradient_checkpointing: bool = False  # recompute each layer in the backward pass (set by the plan: `cdlm_nb.plan`)
    heldout_clusters: int | None = None  # held-out clusters per split (validation, test) read; None: all of them


PRETRAIN = {
    "smoke": PretrainConfig(
        variants=PAPER_MODELS, max_steps=4, per_device_batch_size=2,
        gradient_accumulation_steps=1, learning_rate=1e-3, warmup_steps=1, lr_power=3.0, weight_decay=0.01,
        fp16=True, max_length=256, logging_steps=1, save_steps=1000, seeds=(SEED,), eval_batch_size=8,
        bootstrap_resamples=200, curve_steps=2, base_steps=4, base_batch_size=4, base_max_length=64,
        base_long_steps=2,
    ),
    "cpu": PretrainConfig(  # lr 1e-3, linear decay: a higher peak leaves tiny models on the unigram plateau
        variants=PAPER_MODELS, max_steps=1000, per_device_batch_size=4,
        gradient_accumulation_steps=1, learning_rate=1e-3, warmup_steps=50, lr_power=1.0, weight_decay=0.01,
        fp16=True, max_length=1024, logging_steps=10, save_steps=100, seeds=(SEED,), eval_batch_size=8,
        bootstrap_resamples=1000, curve_steps=100, base_steps=12000, base_batch_size=16, base_max_length=128,
        base_long_steps=2000,
    ),
    "gpu": PretrainConfig(
        variants=PAPER_MODELS, max_steps=25_000, per_device_batch_size=8,
        gradient_accumulation_steps=8, learning_rate=3e-5, warmup_steps=500, lr_power=3.0, weight_decay=0.01,
        fp16=True, max_length=4096, logging_steps=50, save_steps=1000, seeds=(SEED,), eval_batch_size=4,
        bootstrap_resamples=1000, curve_steps=2500, base_steps=0, base_batch_size=0, base_max_length=0,
        base_long_steps=0,
        heldout_clusters=2000,  # of Multi-News's 5,622 per split: notebook 03 within 30 minutes on a T4 at the
        #                         H100-measured utilisation (`cdlm-nb plan`: ≈ 27 min)
    ),
}


@dataclass(frozen=True)
class AttentionConfig:
    """Attention percentile-rank analysis of the pretrained models (CDLM paper §3.5, Table 6)."""

    n_pairs: int  # positive pairs per mention kind, and as many negatives (paper: 1,000 + 1,000 per kind)
    kinds: tuple[str, ...]  # mention kinds analysed separately (paper: events and entities)
    models: tuple[str, ...]  # notebook 02's variants compared (Table 6 rows)
    max_length: int  # input tokens, both documents and the 6 special tokens (paper: 4,096); capped by the model;
    #                  kept at the pretraining length, so no position the models never trained is used
    exclude_punctuation: bool  # punctuation-only tokens are not ranked (as in the authors' analysis)
    batch_size: int  # pairs per forward pass (all layers' attentions are returned: ~1 GB per 4,096-token pair)


ATTENTION = {
    "smoke": AttentionConfig(n_pairs=10, kinds=("event", "entity"),
                             models=PAPER_MODELS, max_length=256,
                             exclude_punctuation=True, batch_size=16),
    "cpu": AttentionConfig(n_pairs=50, kinds=("event", "entity"),  # 1,000 forward passes in all
                           models=PAPER_MODELS, max_length=512,
                           exclude_punctuation=True, batch_size=16),
    "gpu": AttentionConfig(n_pairs=1000, kinds=("event", "entity"),
                           models=PAPER_MODELS, max_length=4096,
                           exclude_punctuation=True, batch_size=4),
}


@dataclass(frozen=True)
class EncoderConfig:
    """The encoder the notebooks pretrain and fine-tune (`cdlm_nb.encoders.load_encoder`)."""

    kind: str  # "tiny" (random init), "minilm" (longformerized all-MiniLM-L6-v2), "longformer-base", "cdlm-release"
    max_length: int  # longest input in tokens (position embeddings; paper: 4,096)
    attention_window: int  # local window, both sides together (Longformer-base: 512); below a document's length
    hidden_size: int  # tiny only: width
    num_layers: int  # tiny only
    num_heads: int  # tiny only
    intermediate_size: int  # tiny only: feed-forward width
    vocab_size: int  # tiny only: byte-level BPE trained on the corpus texts
    sentence_markers: bool  # <s> ... </s> around each sentence inside <doc-s> ... </doc-s> (the released code)
    dropout: float = 0.1  # tiny only: hidden and attention dropout (0 for runs of minutes, which do not overfit)


ENCODER = {
    "smoke": EncoderConfig(kind="tiny", max_length=512, attention_window=32, hidden_size=64, num_layers=2,
                           num_heads=2, intermediate_size=128, vocab_size=2000, sentence_markers=False, dropout=0.0),
    "cpu": EncoderConfig(kind="tiny", max_length=1024, attention_window=64, hidden_size=128, num_layers=2,
                         num_heads=2, intermediate_size=512, vocab_size=4000, sentence_markers=False, dropout=0.0),
    "gpu": EncoderConfig(kind="longformer-base", max_length=4096, attention_window=512, hidden_size=768,
                         num_layers=12, num_heads=12, intermediate_size=3072, vocab_size=50265,
                         sentence_markers=True),  # as biu-nlp/cdlm was pretrained
}


@dataclass(frozen=True)
class WorldConfig:
    """The embedded world (`cdlm_nb.data.world`): how many related-news clusters, and how facts spread over them."""

    topics: int  # topics; each has two sibling subtopics (same event type, different event), one cluster each
    dev_topics: int  # held-out topics for model selection (splits are by topic: unseen events)
    test_topics: int  # held-out topics for the final numbers
    task_topics: int  # train topics also turned into coref/pair/QA examples (dev and test: all of theirs)
    docs_per_cluster: tuple[int, int]  # fewest, most documents per cluster (skewed small, like Multi-News)
    more_docs: float  # P(a cluster gets one more document, up to the most): the skew; mean ~ fewest + p / (1 - p)
    words_per_doc: tuple[int, int]  # fewest, most words per document (filler sentences are added or dropped)
    fact_overlap: float  # P(a document states a given non-anchor fact); 1.0: every document states every fact
    noise: float  # P(a stated fact goes wrong in a document: another number, or a filler sentence instead)
    filler: float  # target share of filler sentences (stating no fact) per document
    pairs_per_kind: int  # document pairs per cluster and kind (positive, hard_negative, easy_negative)
    qa_distractors: int  # distractor paragraphs per question (HotpotQA: 8)
    preamble_share: float = 0.3  # share of `classification` documents that open with background naming no event
    preamble_words: tuple[int, int] = (450, 650)  # its fewest/most words: past 512 tokens, so the label comes late
    seed: int = SEED  # the world is a pure function of this config


#: cpu and gpu: calibrated against Multi-News's pretraining clusters (>= 3 documents) by
#: `python -m cdlm_nb.data.world_calibration` (docs/experiments.md): `more_docs` fitted to their mean size,
#: `fact_overlap` and `filler` the grid point closest on the share of fact words, of those another document states,
#: and of a document's facts another one lacks. Documents stay far shorter than Multi-News's: the cpu pretraining's
#: cost. smoke keeps an uncalibrated setting: it checks the plumbing, not the results.
WORLD = {
    "smoke": WorldConfig(topics=5, dev_topics=1, test_topics=1, task_topics=3, docs_per_cluster=(3, 5),
                         more_docs=0.6, words_per_doc=(50, 150), fact_overlap=0.7, noise=0.05, filler=0.3,
                         pairs_per_kind=1, qa_distractors=2),
    "cpu": WorldConfig(topics=200, dev_topics=10, test_topics=10, task_topics=180, docs_per_cluster=(3, 10),
                       more_docs=0.39, words_per_doc=(50, 150), fact_overlap=0.2, noise=0.05, filler=0.7,
                       pairs_per_kind=2, qa_distractors=4),
    "gpu": WorldConfig(topics=400, dev_topics=20, test_topics=20, task_topics=100, docs_per_cluster=(3, 10),
                       more_docs=0.39, words_per_doc=(50, 150), fact_overlap=0.2, noise=0.05, filler=0.7,
                       pairs_per_kind=3, qa_distractors=8),
}


# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """Everything that changes between a CI check, a laptop run and the papers' setting."""

    name: str
    description: str
    data_source: str  # "embedded" (generated offline) or "hub" (the real corpora, downloaded)
    wants_gpu: bool  # sized for a GPU: setup() says how to get one when it runs on a CPU
    seed: int
    minutes_budget: float  # wall-clock budget for the whole suite on its target machine (0: not budgeted)
    pretrain: PretrainConfig
    attention: AttentionConfig
    encoder: EncoderConfig
    coref: CorefConfig
    matching: MatchingConfig
    multihop: MultihopConfig
    match_ignition: MatchIgnitionConfig
    classification: ClassificationConfig
    cda: CDAConfig
    comparison: ComparisonConfig
    world: WorldConfig

    def override(self, **changes: Any) -> "Profile":
        """A copy with some fields replaced; unknown names raise ConfigError."""
        return override(self, changes, "profile")


def override(section: Any, changes: dict | None, where: str) -> Any:
    """A copy of a frozen config dataclass with `changes` (JSON lists become tuples); unknown field names raise a
    ConfigError that says `where` they came from and lists the valid ones."""
    changes = dict(changes or {})
    known = {f.name for f in fields(section)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown {type(section).__name__} field(s) {unknown}; valid: {sorted(known)}")
    return replace(section, **{k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()})


def _build(name: str, description: str, data_source: str, minutes_budget: float) -> Profile:
    return Profile(
        name=name,
        description=description,
        data_source=data_source,
        wants_gpu=data_source == "hub",
        seed=SEED,
        minutes_budget=minutes_budget,
        pretrain=PRETRAIN[name],
        attention=ATTENTION[name],
        encoder=ENCODER[name],
        coref=COREF[name],
        matching=MATCHING[name],
        multihop=MULTIHOP[name],
        match_ignition=MATCH_IGNITION[name],
        classification=CLASSIFICATION[name],
        cda=CDA[name],
        comparison=COMPARISON[name],
        world=WORLD[name],
    )


def shrunk(section: Any, sizes: dict, where: str) -> Any:
    """A copy of a config section with some of its sizes replaced; a nested dict shrinks a nested section."""
    changes = {name: shrunk(getattr(section, name), value, f"{where}.{name}") if isinstance(value, dict) else value
               for name, value in sizes.items()}
    return override(section, changes, where)


def rehearsal_of(profile: Profile) -> Profile:
    """`profile` at the rehearsal's sizes (`rehearsal_sizes.REHEARSAL_SIZES`), every other field unchanged."""
    sections = {name: shrunk(getattr(profile, name), sizes, f"rehearsal sizes [{name!r}]")
                for name, sizes in REHEARSAL_SIZES.items()}
    return replace(profile, name=f"{profile.name}-rehearsal", minutes_budget=REHEARSAL_MINUTES,
                   description=f"{profile.name} with only its sizes shrunk: walks that path in minutes on a CPU, "
                               "from local stand-ins of the downloads (`cdlm-nb rehearse`)", **sections)


PROFILES: dict[str, Profile] = {
    "smoke": _build("smoke", "tiny models and data; checks that every notebook executes (CI)", "embedded", 8),
    "cpu": _build("cpu", "the offline default: embedded world, tiny Longformer, minutes on a 2-core CPU",
                  "embedded", 30),
    "gpu": _build("gpu", "the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub, one GPU",
                  "hub", 0),
}
PROFILES["gpu-rehearsal"] = rehearsal_of(PROFILES["gpu"])


def profile_names() -> list[str]:
    """The valid profile names, in increasing size."""
    return list(PROFILE_NAMES)


def get_profile(name: str) -> Profile:
    """The profile called `name`; an unknown name raises ConfigError listing the valid ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"unknown profile {name!r}; choose one of {profile_names()}") from None
