"""What each setting of a run profile means: one frozen dataclass per section (the encoder, the embedded world,
pretraining, the attention analysis, every task of notebooks 04-11), each field's meaning and the papers' value beside
it. Each profile's values: `smoke.py`, `cpu.py`, `gpu.py`; the rehearsal's sizes: `rehearsal.py`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..support.errors import ConfigError

#: The one default seed of every run, split and resample, unless a notebook's `SEED` or a seed-spread run says
#: otherwise (seeding itself: transformers' `set_seed`).
SEED = 13

#: The models of the CDLM paper's Table 1, in its row order: what every profile pretrains and compares.
PAPER_MODELS = ("longformer", "local", "rand", "prefix", "cdlm")
#: The two of them the hub holds as released checkpoints (allenai/longformer-base-4096, biu-nlp/cdlm): what a gpu
#: run has without pretraining; the ablations (Local, Rand, Prefix) were not released.
RELEASED_MODELS = ("longformer", "cdlm")


@dataclass(frozen=True)
class SearchSpace:
    """The recipes tried on dev: every learning rate, dev scored after each of `epochs` epochs of one schedule."""

    learning_rates: tuple[float, ...]
    epochs: int  # length of the schedule (warm-up then linear decay to zero over these epochs), or most epochs
    warmup: float  # share of the schedule's steps with a linear warm-up
    schedule: str = "linear"  # "linear" (warm-up, then decay to zero) or "constant" (Adam at a fixed rate)

    def describe(self) -> str:
        """The space in words, for tables and notes."""
        rates = ", ".join(f"{rate:g}" for rate in self.learning_rates)
        shape = (f"{100 * self.warmup:g} % warm-up, linear decay" if self.schedule == "linear" else
                 "constant rate, early stopping on the dev loss")
        return (f"learning rate in {{{rates}}} x epoch 1-{self.epochs} of a {self.epochs}-epoch schedule "
                f"({shape}); up to {len(self.learning_rates) * self.epochs} points")


class RatesOnDev:
    """A fine-tuning section's `learning_rates`, `epochs`, `select_on_dev`: with `select_on_dev` every rate tried, dev
    scored after each epoch (`search`), else its one rate trained (`learning_rate`); shape: `warmup`, `schedule`."""

    schedule: ClassVar[str] = "linear"

    def __post_init__(self) -> None:
        if not self.learning_rates or (len(self.learning_rates) > 1 and not self.select_on_dev):
            raise ConfigError(f"learning_rates={self.learning_rates!r}: give one rate, or several with "
                              "select_on_dev=True (tried on dev)")

    @property
    def search(self) -> SearchSpace | None:
        """The recipes tried on dev (`select_on_dev`), or None: train `learning_rate` alone."""
        return SearchSpace(self.learning_rates, self.epochs, self.warmup, self.schedule) if self.select_on_dev else None

    @property
    def learning_rate(self) -> float:
        return self.learning_rates[0]


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
    base_steps: int  # random-init encoders only: single-document MLM steps, full attention, making the shared start
    #                  as Longformer-base was for the paper (0: none); cpu's is shipped (`cdlm-nb pretrain-base`) and
    #                  long: the longer the base, the closer CDLM gets to Local after notebook 02 (docs/experiments.md)
    base_batch_size: int  # single documents per step in that base stage
    base_max_length: int  # tokens per base-stage input (cuts counted), then copied out to max_length: keep it near
    #                       the documents' length (an unreached position stays random)
    base_long_steps: int  # then MLM steps, full attention, batch per_device_batch_size, on unrelated documents packed
    #                       to max_length: trains every position the variants read, as Longformer's continued
    #                       pretraining at 4,096 did (0: positions past base_max_length stay copies)
    gradient_checkpointing: bool = False  # recompute each layer in the backward pass (set by `cdlm_nb.tooling.plan`)
    heldout_clusters: int | None = None  # held-out clusters per split (validation, test) read; None: all of them
    copy_steps: int = 0  # random-init encoders only: a last base stage on documents cut to 2 x copy_span + 4 tokens,
    #                      a `copy_share` with a span written again (`pretraining.repeated_spans`), so the start grows
    #                      the copy heads RoBERTa's pretraining gave Longformer-base (0: none)
    copy_batch_size: int = 0  # inputs per step in that stage: a small batch of short inputs reaches the copy heads'
    #                           phase change in fewer tokens (Aoyama et al., arXiv:2511.16893: N = T sqrt(B C))
    copy_share: float = 0.0  # share of the copy stage's inputs with a repeated span
    copy_span: int = 0  # most tokens of a repeated span (from the start of one of the input's documents)
    copy_probe_steps: int = 0  # the within-reach copy probe every this many steps of the copy stage (0: never)
    copy_positions: int = 0  # the copy stage's inputs start at random offsets below this, so every position stays
    #                          trained (0: all from the first)


@dataclass(frozen=True)
class AttentionConfig:
    """Attention percentile-rank analysis of the pretrained models (CDLM paper §3.5, Table 6)."""

    n_pairs: int  # positive pairs per mention kind, and as many negatives (paper: 1,000 + 1,000 per kind)
    kinds: tuple[str, ...]  # mention kinds analysed separately (paper: events and entities)
    models: tuple[str, ...]  # notebook 02's variants compared (Table 6 rows)
    max_length: int  # tokens per input (paper: 4,096), capped at the pretraining length: every position was trained
    exclude_punctuation: bool  # punctuation-only tokens are not ranked (as in the authors' analysis)
    batch_size: int  # pairs per forward pass (all layers' attentions are returned: ~1 GB per 4,096-token pair)


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
    negative_ratio: float | None  # random negatives per positive (paper: not given); None: all (released code)
    max_train_pairs: int | None  # random cap on training pairs per kind (CPU budget); None = no cap
    epochs: int  # paper: 10
    batch_size: int  # pairs per optimizer step (paper: 128)
    learning_rate: float  # AdamW (the authors' released code: 1e-5 for Longformer-base; tiny models need more)
    score_batch_size: int  # pairs per forward pass when scoring
    eval_subtopics: int | None  # only the first N gold subtopics of dev and test scored (the rest counted); None: all
    max_pairs_per_subtopic: int | None  # random cap on scored pairs per subtopic (dropped ones count as non-coreferent,
    #                                     and are reported); None: all
    thresholds: tuple[float, ...]  # distance thresholds tried on dev (released code: 0.5-0.7)
    ecbplus_topics: tuple[int, ...] | None  # ECB+ topics read when DATA = "ecbplus" (None: all)
    per_device_batch: int | None = None  # pairs per forward pass, gradients accumulated to batch_size (None: all)


FINE_THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(11))  # 0.3, 0.35, ..., 0.8


@dataclass(frozen=True)
class MatchingConfig(RatesOnDev):
    """Document matching with a pair classifier (CDLM paper §3.3, Table 4; CDLM preprint (v1) §5.3, A.3, B.2)."""

    models: tuple[str, ...]  # notebook 02's encoders fine-tuned, one classifier each
    max_length: int  # tokens per pair input (paper: 4,096, i.e. 2,047 per document); capped by the positions
    protocol: str  # "paper", "local" (no global token) or "released" (the authors' code): `matching.inputs`
    max_pairs: int | None  # random cap on pairs per split (CPU budget; counted); None = every pair
    pairs_per_kind: int  # ECB+ / Multi-News pairs per subtopic and kind (the world has its own)
    pan_like_pairs: int  # PAN-like positive (and as many negative) pairs per split
    epochs: int  # length of the schedule (paper: 8)
    batch_size: int  # pairs per optimizer step (paper: 32)
    learning_rates: tuple[float, ...]  # AdamW peaks (released code: 2e-5; tiny models need more), tried on dev
    warmup: float  # share of the steps with a linear learning-rate warm-up (then linear decay to 0)
    score_batch_size: int  # pairs per forward pass when scoring
    ecbplus_topics: tuple[int, ...] | None  # ECB+ topics read when DATA = "ecbplus" (None: all)
    per_device_batch: int | None = None  # pairs per pass, gradients accumulated (None: all; `tooling.plan` sets it)
    select_on_dev: bool = False  # dev scored after each epoch of each rate, the best kept; False: one rate, last epoch
    class_weighted: bool = False  # cross-entropy with balanced class weights (`matching.training.balanced_weights`)


@dataclass(frozen=True)
class MultihopConfig:
    """Multi-hop QA on HotpotQA (CDLM paper §3.4, Table 5, after Beltagy et al. 2020's recipe)."""

    models: tuple[str, ...]  # notebook 02's encoders fine-tuned, one QA model each
    max_length: int  # tokens per input (paper: 4,096); capped by the positions, cut sentences counted
    max_questions: int | None  # random cap on training questions (None: all)
    epochs: int  # paper: 5
    batch_size: int  # questions per step
    learning_rate: float  # AdamW (paper: 3e-5; tiny models need more)
    warmup: float  # share of steps with a linear warm-up (paper: 10 %)
    max_answer_tokens: int  # longest decoded answer span
    score_batch_size: int  # questions per forward pass when predicting
    per_device_batch: int | None = None  # questions per forward pass, gradients accumulated to batch_size (None: all)


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
    max_segments_per_step: int  # most segments per piece of a fine-tuning batch (gradients accumulated): saves memory
    embed_batch_size: int  # segments per encoder forward pass


@dataclass(frozen=True)
class CDAConfig(RatesOnDev):
    """CDA (Zhou, Pappas & Smith 2020, §3-5 and Appendix A): HAN encoders with cross-document attention."""

    models: tuple[str, ...]  # of CDA_MODELS below (names read by cdlm_nb.cda.experiment.model_spec)
    max_pairs: int | None  # random cap on pairs per split (counted); None = all
    max_sentences: int  # sentences read per document (cuts counted)
    max_words: int  # words read per sentence by GRU-HAN (cuts counted)
    sentence_tokens: int  # tokens per sentence for the frozen MiniLM / BERT sentence vectors
    vocab_size: int  # GRU-HAN's vocabulary (training text; random initial word vectors: GloVe is offline-less)
    embedding_dim: int  # paper: 50 (GloVe-50)
    gru_hidden: int  # GRU-HAN hidden size per direction (paper: 50)
    bert_hidden: int  # BERT-HAN sentence GRU size per direction
    classifier_hidden: int  # the similarity network's hidden layer
    epochs: int  # most epochs (early stopping decides)
    patience: int  # epochs without a better dev loss before stopping (paper: 5)
    batch_size: int  # paper: 256
    learning_rates: tuple[float, ...]  # Adam, constant (paper: 1e-5 on 100k+ pairs; a few hundred need more)
    min_improvement: float  # the least fall in nats that makes a dev loss better (paper: not given): at lr 1e-5 the
    #                         loss creeps down by hairs, and any decrease would run every epoch
    select_on_dev: bool = False  # dev D2D scored after each epoch of each rate, the best kept; False: early stopping

    warmup: ClassVar[float] = 0.0  # the paper's Adam at a constant rate: no warm-up, no decay
    schedule: ClassVar[str] = "constant"


CDA_MODELS = ("gru_han", "gru_han_shallow", "gru_han_deep", "bert_han", "bert_han_shallow", "bert_han_shallow_add",
              "bert_avg")


@dataclass(frozen=True)
class ComparisonConfig:
    """Notebook 11: every system on the same pairs (each system's own section sets its training)."""

    systems: tuple[str, ...]  # of COMPARISON_SYSTEMS, in its order
    minilm_tokens: int  # tokens per document for the MiniLM bi-encoder's document vectors (its limit: 512)
    bootstrap: int  # resamples of the test pairs for the 95 % intervals
    length_buckets: int  # pair-length buckets (quantiles of the test pairs' words) for F1 by length
    cross_encoder_epochs: int | None  # MiniLM cross-encoders' epochs here (None: Match-Ignition's own)


#: Notebook 11's systems that are not notebook 02's encoders, in the report's order (`comparison.systems`).
BASELINE_SYSTEMS = ("tfidf", "minilm_cosine", "aose", "cda_gru_deep", "cda_minilm_shallow", "match_ignition",
                    "minilm_cross")
#: Every system id of notebook 11: the baselines, then notebook 02's encoders (kept here: the profiles list them).
COMPARISON_SYSTEMS = (*BASELINE_SYSTEMS, *PAPER_MODELS)
