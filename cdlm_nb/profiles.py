"""Run profiles, defined in one place: `smoke` (CI, seconds), `cpu` (offline default, minutes) and `gpu`
(the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub).

A notebook's `parameters` cell holds only `PROFILE = "cpu"`; the next cell calls `setup(PROFILE, ...)` and
reads the sections it needs (e.g. `session.profile.world`). Each section is a frozen dataclass with one value
per profile, so a typo fails loudly and the three settings sit side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import ConfigError
from .variants import PAPER_MODELS

PROFILE_NAMES = ("smoke", "cpu", "gpu")

# ---------------------------------------------------------------------------------------------------------
# Sections: one frozen dataclass per concept, and a dict {profile name: value} beside it.
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PretrainConfig:
    """Cross-document MLM pretraining (CDLM paper §2.3 and Appendix B; CDLM preprint (v1) §4)."""

    variants: tuple[str, ...]  # models notebook 02 trains: "longformer" (single-document MLM) and the CD-MLM ablations
    max_steps: int  # optimizer steps per variant (paper: 25k)
    per_device_batch_size: int  # sequences per device per forward pass
    gradient_accumulation_steps: int  # effective batch = per-device batch x accumulation x devices (paper: 64)
    learning_rate: float  # peak learning rate (paper: 3e-5, continuing from Longformer-base)
    warmup_steps: int  # linear warm-up (paper: 500)
    lr_power: float  # polynomial decay power after warm-up (paper: 3)
    weight_decay: float  # AdamW weight decay (RoBERTa: 0.01)
    fp16: bool  # mixed precision; applied only where CUDA is available
    max_length: int  # tokens per packed example (paper: 4,096)
    logging_steps: int  # loss is logged every this many steps
    save_steps: int  # a resumable checkpoint every this many steps
    seeds: tuple[int, ...]  # pretraining seeds; the first is the default run, more seeds measure seed noise
    eval_batch_size: int  # sequences per forward pass in the perplexity evaluation
    bootstrap_resamples: int  # resamples of held-out clusters for the perplexity interval
    base_steps: int  # random-init (tiny) encoders only: single-document MLM steps that make the shared starting
    #                  model, as Longformer-base was for the paper (0: start from the encoder as it is)
    base_batch_size: int  # single documents per step in that base stage
    base_max_length: int  # tokens per input in the base stage (longer documents are cut, and counted); these
    #                       positions are then copied out to max_length, so keep it near the documents' length
    #                       (cpu world: 61-167 tokens, median 80; a position no document reaches stays random)


PRETRAIN = {
    "smoke": PretrainConfig(
        variants=PAPER_MODELS, max_steps=4, per_device_batch_size=2,
        gradient_accumulation_steps=1, learning_rate=1e-3, warmup_steps=1, lr_power=3.0, weight_decay=0.01,
        fp16=True, max_length=256, logging_steps=1, save_steps=1000, seeds=(13,), eval_batch_size=8,
        bootstrap_resamples=200, base_steps=4, base_batch_size=4, base_max_length=64,
    ),
    "cpu": PretrainConfig(  # measured: lr 3e-3 left every tiny model on the unigram plateau; 1e-3, linear decay learns
        variants=PAPER_MODELS, max_steps=1000, per_device_batch_size=4,
        gradient_accumulation_steps=1, learning_rate=1e-3, warmup_steps=50, lr_power=1.0, weight_decay=0.01,
        fp16=True, max_length=1024, logging_steps=10, save_steps=100, seeds=(13,), eval_batch_size=8,
        bootstrap_resamples=1000, base_steps=1500, base_batch_size=16, base_max_length=128,
    ),
    "gpu": PretrainConfig(
        variants=PAPER_MODELS, max_steps=25_000, per_device_batch_size=8,
        gradient_accumulation_steps=8, learning_rate=3e-5, warmup_steps=500, lr_power=3.0, weight_decay=0.01,
        fp16=True, max_length=4096, logging_steps=50, save_steps=1000, seeds=(13,), eval_batch_size=4,
        bootstrap_resamples=1000, base_steps=0, base_batch_size=0, base_max_length=0,
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
    "cpu": AttentionConfig(n_pairs=50, kinds=("event", "entity"),  # 1,000 forward passes: ~1 min on 2 cores
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
                         sentence_markers=False),
}


@dataclass(frozen=True)
class CorefConfig:
    """Cross-document coreference with the pairwise cross-encoder (CDLM paper §3.2; CDLM preprint (v1) §5.2, B.1)."""

    models: tuple[str, ...]  # notebook 02's encoders fine-tuned, one scorer each (CDLM paper, Tables 2-3)
    kinds: tuple[str, ...]  # mention kinds resolved: "event", "entity" (both in the CDLM paper's Table 2)
    sentences_ablation: bool  # also fine-tune CDLM on the mentions' sentences only (CDLM paper, Table 3)
    max_length: int  # tokens per pair input (paper: 4,096); capped by the encoder's position embeddings
    hidden_sizes: tuple[int, ...]  # MLP hidden layers (paper: (1024,) + tanh; released code: (768, 128) + ReLU)
    activation: str  # "tanh" (paper) or "relu" (released code)
    dropout: float  # before each MLP layer
    negative_ratio: float | None  # random negatives per positive training pair (paper: sampled, ratio not
    #                               given); None = every within-topic negative (released code)
    max_train_pairs: int | None  # random cap on training pairs per kind (CPU budget); None = no cap
    epochs: int  # paper: 10
    batch_size: int  # pairs per forward pass
    grad_accumulation: int  # effective batch = batch_size x grad_accumulation (paper: 128)
    learning_rate: float  # AdamW (the authors' released code: 1e-5 for Longformer-base; tiny models need more)
    score_batch_size: int  # pairs per forward pass when scoring
    eval_subtopics: int | None  # score only the first N gold subtopics of dev and of test (CPU budget; the
    #                             rest is counted and reported); None = all
    max_pairs_per_subtopic: int | None  # random cap on scored candidate pairs per subtopic (CPU budget; dropped
    #                                     pairs count as non-coreferent and are reported); None = all pairs
    thresholds: tuple[float, ...]  # distance thresholds tried on dev (released code: 0.5-0.7)
    ecbplus_topics: tuple[int, ...] | None  # ECB+ topics read when DATA = "ecbplus" (None: all)


_FINE_THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(11))  # 0.3, 0.35, ..., 0.8
COREF = {
    "smoke": CorefConfig(models=("longformer", "cdlm"), kinds=("event",), sentences_ablation=False,
                         max_length=256, hidden_sizes=(64,), activation="tanh", dropout=0.1, negative_ratio=1.0,
                         max_train_pairs=16, epochs=1, batch_size=8, grad_accumulation=1, learning_rate=1e-3,
                         score_batch_size=32, eval_subtopics=1, max_pairs_per_subtopic=20,
                         thresholds=_FINE_THRESHOLDS, ecbplus_topics=(1, 2, 5)),
    "cpu": CorefConfig(models=("longformer", "local", "cdlm"), kinds=("event",), sentences_ablation=True,
                       max_length=512, hidden_sizes=(128,), activation="tanh", dropout=0.1, negative_ratio=2.0,
                       max_train_pairs=160, epochs=1, batch_size=16, grad_accumulation=1, learning_rate=5e-4,
                       score_batch_size=32, eval_subtopics=3, max_pairs_per_subtopic=100,
                       thresholds=_FINE_THRESHOLDS, ecbplus_topics=(1, 3, 2, 5)),
    "gpu": CorefConfig(models=PAPER_MODELS, kinds=("event", "entity"),
                       sentences_ablation=True, max_length=4096, hidden_sizes=(1024,), activation="tanh",
                       dropout=0.1, negative_ratio=5.0, max_train_pairs=None, epochs=10, batch_size=4,
                       grad_accumulation=32, learning_rate=1e-5, score_batch_size=32, eval_subtopics=None,
                       max_pairs_per_subtopic=None, thresholds=(0.5, 0.55, 0.6, 0.65, 0.7), ecbplus_topics=None),
}


@dataclass(frozen=True)
class MatchingConfig:
    """Document matching with a pair classifier (CDLM paper §3.3, Table 4; CDLM preprint (v1) §5.3, A.3, B.2)."""

    models: tuple[str, ...]  # notebook 02's encoders fine-tuned, one classifier each
    max_length: int  # tokens per pair input (paper: 4,096, i.e. 2,047 per document); capped by the positions
    protocol: str  # "paper" (attention and global masks) or "released" (the authors' code: neither, 33-token
    #                sentences); see matching.inputs
    max_pairs: int | None  # random cap on pairs per split (CPU budget; counted); None = every pair
    pairs_per_kind: int  # ECB+ / Multi-News pairs per subtopic and kind (the world has its own)
    pan_like_pairs: int  # PAN-like positive (and as many negative) pairs per split
    epochs: int  # paper: 8
    batch_size: int  # pairs per step (paper: 32)
    learning_rate: float  # AdamW (the released code: 2e-5 for Longformer-base; tiny models need more)
    score_batch_size: int  # pairs per forward pass when scoring
    ecbplus_topics: tuple[int, ...] | None  # ECB+ topics read when DATA = "ecbplus" (None: all)


MATCHING = {
    "smoke": MatchingConfig(models=("longformer", "cdlm"), max_length=256, protocol="paper", max_pairs=24,
                            pairs_per_kind=1, pan_like_pairs=6, epochs=1, batch_size=8, learning_rate=1e-3,
                            score_batch_size=32, ecbplus_topics=(1, 3, 2, 5)),
    "cpu": MatchingConfig(models=PAPER_MODELS, max_length=512, protocol="paper", max_pairs=360, pairs_per_kind=2,
                          pan_like_pairs=60, epochs=3, batch_size=16, learning_rate=5e-4, score_batch_size=32,
                          ecbplus_topics=None),
    "gpu": MatchingConfig(models=PAPER_MODELS, max_length=4096, protocol="paper", max_pairs=None, pairs_per_kind=3,
                          pan_like_pairs=500, epochs=8, batch_size=32, learning_rate=2e-5, score_batch_size=32,
                          ecbplus_topics=None),
}


@dataclass(frozen=True)
class MatchIgnitionConfig:
    """Match-Ignition (Pang, Lan & Cheng 2021, §3-4): PageRank filters around a MiniLM cross-encoder."""

    alphas: tuple[float, ...]  # word reduction ratios trained and compared (paper: 0, 5, 10, 20 %)
    keep_sentences: int  # λ, sentences kept per document by the sentence filter (authors' code: 5)
    lambdas: tuple[int, ...]  # λ values compared at inference with the model trained at keep_sentences
    ablation_alpha: float  # α of the "word filter only" and "first λ sentences" ablations (paper's best: 10 %)
    training: MatchingConfig  # cross-encoder fine-tuning (paper: 400 tokens, batch 8, lr 1e-5, 10 epochs)
    speed_length: int  # tokens per input of the speed measurement (paper: 400)
    speed_batch: int  # inputs per batch of the speed measurement (paper: 8)
    speed_repeats: int  # timed repeats per α (the median is reported)


MATCH_IGNITION = {
    "smoke": MatchIgnitionConfig(alphas=(0.0, 0.2), keep_sentences=5, lambdas=(3, 5), ablation_alpha=0.2,
                                 training=replace(MATCHING["smoke"], models=(), max_length=128, max_pairs=16),
                                 speed_length=64, speed_batch=2, speed_repeats=2),
    "cpu": MatchIgnitionConfig(alphas=(0.0, 0.1, 0.2, 0.3), keep_sentences=5, lambdas=(3, 5, 8),
                               ablation_alpha=0.1,
                               training=replace(MATCHING["cpu"], models=(), max_length=256, max_pairs=120, epochs=6,
                                                batch_size=8, learning_rate=5e-5),  # dev-checked: 2 epochs stay at
                               #   the label prior (loss 0.60), 6 reach dev F1 97 (α = 10 %, 240 pairs)
                               speed_length=400, speed_batch=8, speed_repeats=5),
    "gpu": MatchIgnitionConfig(alphas=(0.0, 0.05, 0.1, 0.2, 0.3), keep_sentences=5, lambdas=(3, 5, 8),
                               ablation_alpha=0.1,
                               training=replace(MATCHING["gpu"], models=(), max_length=400, max_pairs=None, epochs=10,
                                                batch_size=8, learning_rate=1e-5),
                               speed_length=400, speed_batch=8, speed_repeats=20),
}


@dataclass(frozen=True)
class ClassificationConfig:
    """Long-document classification with AoSE (Abdaoui & Dutta 2023, §3-4) and its same-encoder baselines."""

    encoder: str  # sentence transformer: "minilm" (packaged all-MiniLM-L6-v2) or a hub id (paper: nli-roberta-base-v2)
    min_tokens: int  # fewest tokens per segment (paper: 5); a shorter sentence joins the next one
    max_tokens: int  # most tokens per segment (paper: 250); a longer sentence is cut into pieces
    max_document_tokens: int  # tokens AoSE reads per document (paper: 8,192); the rest is counted as cut
    truncated_tokens: int  # the encoder alone reads the first this many tokens (paper: 512)
    truncations: tuple[int, ...]  # AoSE-N of the paper's Table 7
    train_docs: int | None  # stratified sample of training documents (None: all)
    test_docs: int | None  # stratified sample of test documents (None: all)
    test_share: float  # held-out share of DATA_DIR when no TEST_DIR is given
    frozen_epochs: int  # paper: 50
    frozen_learning_rate: float  # paper: 2e-5 (for 25k-100k documents; small samples need more)
    batch_size: int  # documents per step (paper: 16)
    finetune_docs: int | None  # training documents of the fine-tuned setting (None: all of train_docs)
    finetune_epochs: int  # paper: 20 (IMDB, 20 Newsgroups), 10 (MIND)
    finetune_learning_rate: float  # the encoder's (paper: 2e-5); the new top keeps frozen_learning_rate
    max_segments_per_step: int  # fine-tuning: a batch is run in pieces of at most this many segments, gradients
    #                             accumulated (16 long documents at once exhaust memory: 24 GB at 20 Newsgroups)
    embed_batch_size: int  # segments per encoder forward pass


CLASSIFICATION = {
    "smoke": ClassificationConfig(encoder="minilm", min_tokens=5, max_tokens=250, max_document_tokens=1024,
                                  truncated_tokens=128, truncations=(128, 256), train_docs=40, test_docs=20,
                                  test_share=0.3, frozen_epochs=5, frozen_learning_rate=1e-3, batch_size=16,
                                  finetune_docs=16, finetune_epochs=1, finetune_learning_rate=2e-5,
                                  max_segments_per_step=64, embed_batch_size=64),
    "cpu": ClassificationConfig(encoder="minilm", min_tokens=5, max_tokens=250, max_document_tokens=8192,
                                truncated_tokens=512, truncations=(512, 1024, 2048, 4096), train_docs=800,
                                test_docs=400, test_share=0.3, frozen_epochs=50, frozen_learning_rate=1e-3,
                                batch_size=16, finetune_docs=36, finetune_epochs=2, finetune_learning_rate=2e-5,
                                max_segments_per_step=64, embed_batch_size=64),
    "gpu": ClassificationConfig(encoder="sentence-transformers/nli-roberta-base-v2", min_tokens=5, max_tokens=250,
                                max_document_tokens=8192, truncated_tokens=512, truncations=(512, 1024, 2048, 4096),
                                train_docs=None, test_docs=None, test_share=0.3, frozen_epochs=50,
                                frozen_learning_rate=2e-5, batch_size=16, finetune_docs=None, finetune_epochs=20,
                                finetune_learning_rate=2e-5, max_segments_per_step=256,
                                embed_batch_size=128),
}


@dataclass(frozen=True)
class WorldConfig:
    """The embedded world (`cdlm_nb.data.world`): how many related-news clusters, and how facts spread over them."""

    topics: int  # topics; each has two sibling subtopics (same event type, different event), one cluster each
    dev_topics: int  # held-out topics for model selection (splits are by topic: unseen events)
    test_topics: int  # held-out topics for the final numbers
    task_topics: int  # train topics also turned into coref/pair/QA examples (dev and test: all of theirs)
    docs_per_cluster: tuple[int, int]  # fewest, most documents per cluster (skewed small, like Multi-News)
    words_per_doc: tuple[int, int]  # fewest, most words per document (filler sentences are added or dropped)
    fact_overlap: float  # P(a document states a given non-anchor fact); 1.0: every document states every fact
    noise: float  # P(a stated fact goes wrong in a document: another number, or a filler sentence instead)
    filler: float  # target share of filler sentences (stating no fact) per document
    pairs_per_kind: int  # document pairs per cluster and kind (positive, hard_negative, easy_negative)
    qa_distractors: int  # distractor paragraphs per question (HotpotQA: 8)
    preamble_share: float = 0.3  # share of `classification` documents that open with background naming no event
    preamble_words: tuple[int, int] = (450, 650)  # its fewest/most words: past 512 tokens, so the label comes late
    seed: int = 13  # the world is a pure function of this config


WORLD = {
    "smoke": WorldConfig(topics=5, dev_topics=1, test_topics=1, task_topics=3, docs_per_cluster=(3, 5),
                         words_per_doc=(50, 150), fact_overlap=0.7, noise=0.05, filler=0.3, pairs_per_kind=1,
                         qa_distractors=2),
    "cpu": WorldConfig(topics=200, dev_topics=10, test_topics=10, task_topics=30, docs_per_cluster=(3, 10),
                       words_per_doc=(50, 150), fact_overlap=0.7, noise=0.05, filler=0.3, pairs_per_kind=2,
                       qa_distractors=4),
    "gpu": WorldConfig(topics=400, dev_topics=20, test_topics=20, task_topics=100, docs_per_cluster=(3, 10),
                       words_per_doc=(50, 150), fact_overlap=0.7, noise=0.05, filler=0.3, pairs_per_kind=3,
                       qa_distractors=8),
}


# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """Everything that changes between a CI check, a laptop run and the papers' setting."""

    name: str
    description: str
    data_source: str  # "embedded" (generated offline) or "hub" (the real corpora, downloaded)
    seed: int
    minutes_budget: float  # wall-clock budget for the whole suite on its target machine (0: not budgeted)
    pretrain: PretrainConfig
    attention: AttentionConfig
    encoder: EncoderConfig
    coref: CorefConfig
    matching: MatchingConfig
    match_ignition: MatchIgnitionConfig
    classification: ClassificationConfig
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
        seed=13,
        minutes_budget=minutes_budget,
        pretrain=PRETRAIN[name],
        attention=ATTENTION[name],
        encoder=ENCODER[name],
        coref=COREF[name],
        matching=MATCHING[name],
        match_ignition=MATCH_IGNITION[name],
        classification=CLASSIFICATION[name],
        world=WORLD[name],
    )


PROFILES: dict[str, Profile] = {
    "smoke": _build("smoke", "tiny models and data; checks that every notebook executes (CI)", "embedded", 8),
    "cpu": _build("cpu", "the offline default: embedded world, tiny Longformer, minutes on a 2-core CPU",
                  "embedded", 20),
    "gpu": _build("gpu", "the papers' setting: Longformer-base, 4,096 tokens, real corpora from the hub, one GPU",
                  "hub", 0),
}


def profile_names() -> list[str]:
    """The valid profile names, in increasing size."""
    return list(PROFILE_NAMES)


def get_profile(name: str) -> Profile:
    """The profile called `name`; an unknown name raises ConfigError listing the valid ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"unknown profile {name!r}; choose one of {profile_names()}") from None
