"""The run profiles' sections for the downstream tasks (coreference, matching, multi-hop QA, Match-Ignition,
long-document classification): one frozen dataclass per task and a {profile name: value} dict beside it, read
through `cdlm_nb.profiles` (which re-exports them)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .paper_models import PAPER_MODELS
from .search_space import SearchSpace, epoch_search


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
    batch_size: int  # pairs per optimizer step (paper: 128)
    learning_rate: float  # AdamW (the authors' released code: 1e-5 for Longformer-base; tiny models need more)
    score_batch_size: int  # pairs per forward pass when scoring
    eval_subtopics: int | None  # score only the first N gold subtopics of dev and of test (CPU budget; the
    #                             rest is counted and reported); None = all
    max_pairs_per_subtopic: int | None  # random cap on scored candidate pairs per subtopic (CPU budget; dropped
    #                                     pairs count as non-coreferent and are reported); None = all pairs
    thresholds: tuple[float, ...]  # distance thresholds tried on dev (released code: 0.5-0.7)
    ecbplus_topics: tuple[int, ...] | None  # ECB+ topics read when DATA = "ecbplus" (None: all)
    per_device_batch: int | None = None  # pairs per forward pass, gradients accumulated up to batch_size (None: all
    #                                      at once)


_FINE_THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(11))  # 0.3, 0.35, ..., 0.8
COREF = {
    "smoke": CorefConfig(models=("longformer", "cdlm"), kinds=("event",), sentences_ablation=False,
                         max_length=256, hidden_sizes=(64,), activation="tanh", dropout=0.1, negative_ratio=1.0,
                         max_train_pairs=16, epochs=1, batch_size=8, learning_rate=1e-3,
                         score_batch_size=32, eval_subtopics=1, max_pairs_per_subtopic=20,
                         thresholds=_FINE_THRESHOLDS, ecbplus_topics=(1, 2, 5)),
    "cpu": CorefConfig(models=("longformer", "local", "cdlm"), kinds=("event",), sentences_ablation=True,
                       max_length=512, hidden_sizes=(128,), activation="tanh", dropout=0.1, negative_ratio=2.0,
                       max_train_pairs=160, epochs=1, batch_size=16, learning_rate=5e-4,
                       score_batch_size=32, eval_subtopics=3, max_pairs_per_subtopic=100,
                       thresholds=_FINE_THRESHOLDS, ecbplus_topics=(1, 3, 2, 5)),
    "gpu": CorefConfig(models=PAPER_MODELS, kinds=("event", "entity"),
                       sentences_ablation=True, max_length=4096, hidden_sizes=(1024,), activation="tanh",
                       # paper: every training pair for 10 epochs at batch 128, every candidate pair of every dev
                       # and test subtopic. Here within an hour on a T4 at the H100-measured utilisation
                       # (`cdlm-nb plan --profile gpu --device t4`: ≈ 58 min): 2,000 training pairs per kind (was
                       # 4,000) for 2 epochs at an effective batch of 32; the first 8 dev and 8 test subtopics (was
                       # all 16 and 20; the rest counted and reported) rather than fewer pairs per subtopic, whose
                       # dropped pairs clustering would read as not coreferent; up to 800 scored pairs per subtopic
                       dropout=0.1, negative_ratio=5.0, max_train_pairs=2000, epochs=2, batch_size=32,
                       per_device_batch=4, learning_rate=1e-5, score_batch_size=32, eval_subtopics=8,
                       max_pairs_per_subtopic=800, thresholds=(0.5, 0.55, 0.6, 0.65, 0.7), ecbplus_topics=None),
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
    batch_size: int  # pairs per optimizer step (paper: 32)
    learning_rate: float  # AdamW (the released code: 2e-5 for Longformer-base; tiny models need more)
    warmup: float  # share of the steps with a linear learning-rate warm-up (then linear decay to 0)
    score_batch_size: int  # pairs per forward pass when scoring
    ecbplus_topics: tuple[int, ...] | None  # ECB+ topics read when DATA = "ecbplus" (None: all)
    per_device_batch: int | None = None  # pairs per forward pass, gradients accumulated up to batch_size (None: all
    #                                      at once); set by the plan (`cdlm_nb.plan`) to what fits the card
    search: SearchSpace | None = None  # the recipe searched on dev, the same for every encoder (`recipe_search`);
    #                                    replaces epochs, learning_rate and warmup; None: train that one recipe
    class_weighted: bool = False  # cross-entropy with balanced class weights (`matching.training.balanced_weights`):
    #                               our pairs are a third related, the CDA benchmark's balanced; the paper: none


MATCHING = {
    "smoke": MatchingConfig(models=("longformer", "cdlm"), max_length=256, protocol="paper", max_pairs=24,
                            pairs_per_kind=1, pan_like_pairs=6, epochs=1, batch_size=8, learning_rate=1e-3,
                            warmup=0.0, score_batch_size=32, ecbplus_topics=(1, 3, 2, 5),
                            search=SearchSpace(learning_rates=(1e-3,), epochs=2, warmup=0.1)),
    "cpu": MatchingConfig(models=PAPER_MODELS, max_length=512, protocol="paper", max_pairs=360, pairs_per_kind=2,
                          pan_like_pairs=60, epochs=3, batch_size=16, learning_rate=5e-4, warmup=0.0,
                          score_batch_size=32, ecbplus_topics=None,
                          # class-weighted: without the weights the encoders stay at the label prior on this space
                          #   (docs/experiments.md)
                          # 3e-3 left 22 of 25 points at one class; 3e-4 is where 04's and 06's encoders learn
                          search=SearchSpace(learning_rates=(3e-4, 1e-3), epochs=5, warmup=0.1), class_weighted=True),
    "gpu": MatchingConfig(models=PAPER_MODELS, max_length=4096, protocol="paper", max_pairs=None, pairs_per_kind=3,
                          pan_like_pairs=500, epochs=8, batch_size=32, learning_rate=2e-5, warmup=0.0,
                          score_batch_size=32, ecbplus_topics=None,
                          # the paper's recipe; only the epoch is chosen on dev
                          search=SearchSpace(learning_rates=(2e-5,), epochs=8, warmup=0.0)),
}


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
    per_device_batch: int | None = None  # questions per forward pass, gradients accumulated up to batch_size (None:
    #                                      all at once); set by the plan (`cdlm_nb.plan`) to what fits the card


MULTIHOP = {
    "smoke": MultihopConfig(models=("longformer", "cdlm"), max_length=512, max_questions=16, epochs=1, batch_size=4,
                            learning_rate=1e-3, warmup=0.1, max_answer_tokens=30, score_batch_size=8),
    "cpu": MultihopConfig(models=PAPER_MODELS, max_length=1024, max_questions=336, epochs=4, batch_size=8,
                          learning_rate=5e-4, warmup=0.1, max_answer_tokens=30, score_batch_size=8),
    "gpu": MultihopConfig(models=PAPER_MODELS, max_length=4096, max_questions=2500, epochs=5, batch_size=32,
                          # paper: all 90,447 training questions, 5 epochs. 2,500 of them (was 6,000), the paper's 5
                          # epochs kept: within an hour on a T4 at the H100-measured utilisation (`cdlm-nb plan
                          # --profile gpu --device t4`: ≈ 55 min, with the whole dev set predicted)
                          learning_rate=3e-5, warmup=0.1, max_answer_tokens=30, score_batch_size=16),
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



def _with_epoch_search(training: MatchingConfig) -> MatchingConfig:
    return replace(training, search=epoch_search(training))


MATCH_IGNITION = {
    "smoke": MatchIgnitionConfig(alphas=(0.0, 0.2), keep_sentences=5, lambdas=(3, 5), ablation_alpha=0.2,
                                 training=replace(MATCHING["smoke"], models=(), max_length=128, max_pairs=16,
                                                  warmup=0.1, search=None, class_weighted=False),
                                 speed_length=64, speed_batch=2, speed_repeats=2),
    "cpu": MatchIgnitionConfig(alphas=(0.0, 0.1, 0.2, 0.3), keep_sentences=5, lambdas=(3, 5, 8),
                               ablation_alpha=0.1,
                               training=_with_epoch_search(replace(
                                   MATCHING["cpu"], models=(), max_length=256, max_pairs=120, epochs=3, batch_size=4,
                                   learning_rate=1e-4, warmup=0.1, class_weighted=True)),
                               # chosen on dev (docs/experiments.md): a variant leaves the label prior after enough
                               #   optimizer steps at a high enough rate; small batches reach them with few tokens.
                               #   Class-weighted (a third of the pairs related) and the best dev epoch kept: seeds 14
                               #   and 15 left most variants at the prior without them
                               speed_length=400, speed_batch=4, speed_repeats=3),
    "gpu": MatchIgnitionConfig(alphas=(0.0, 0.05, 0.1, 0.2, 0.3), keep_sentences=5, lambdas=(3, 5, 8),
                               ablation_alpha=0.1,
                               training=replace(MATCHING["gpu"], models=(), max_length=400, max_pairs=None, epochs=10,
                                                batch_size=8, learning_rate=1e-5, warmup=0.1, search=None,
                                                class_weighted=False),
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
    #                             accumulated (a whole batch of long documents at once can exhaust the memory)
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
                                # fine-tuned on 4,000 documents for 5 epochs (paper: all, 20): within an hour on a T4
                                # at the H100-measured utilisation (`cdlm-nb plan`: ≈ 51 min)
                                train_docs=None, test_docs=None, test_share=0.3, frozen_epochs=50,
                                frozen_learning_rate=2e-5, batch_size=16, finetune_docs=4000, finetune_epochs=5,
                                finetune_learning_rate=2e-5, max_segments_per_step=256,
                                embed_batch_size=128),
}


@dataclass(frozen=True)
class CDAConfig:
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
    learning_rate: float  # Adam (paper: 1e-5, on 100k+ pairs; a few hundred pairs need more)
    min_improvement: float  # a dev loss is better only when it falls by at least this much (nats; the paper: not
    #                         given): at lr 1e-5 the loss creeps down by hairs, and any decrease would run every epoch
    search: SearchSpace | None = None  # learning rates tried on dev, the same for every model (`recipe_search`): each
    #   trained with the early stopping above for at most search.epochs epochs, the epoch of the best dev F1 kept;
    #   replaces epochs and learning_rate; None: that one recipe, the epoch of the best dev loss kept


CDA_MODELS = ("gru_han", "gru_han_shallow", "gru_han_deep", "bert_han", "bert_han_shallow", "bert_han_shallow_add",
              "bert_avg")
CDA = {
    "smoke": CDAConfig(models=("gru_han", "gru_han_deep", "bert_han_shallow", "bert_avg"), max_pairs=24,
                       max_sentences=12, max_words=30, sentence_tokens=64, vocab_size=2000, embedding_dim=16,
                       gru_hidden=16, bert_hidden=16, classifier_hidden=16, epochs=2, patience=1, batch_size=8,
                       learning_rate=1e-3, min_improvement=1e-3,
                       search=SearchSpace(learning_rates=(1e-3,), epochs=2, warmup=0.0, schedule="constant")),
    "cpu": CDAConfig(models=CDA_MODELS, max_pairs=360, max_sentences=30, max_words=40, sentence_tokens=128,
                     vocab_size=20000, embedding_dim=50, gru_hidden=50, bert_hidden=64, classifier_hidden=64,
                     # the paper's stopping on the dev loss kept: without it every matcher left the prior but none
                     #   passed the reference rows, at 5x the notebook's time (docs/experiments.md, issue 62)
                     epochs=40, patience=5, batch_size=32, learning_rate=1e-3, min_improvement=1e-3,
                     search=SearchSpace(learning_rates=(1e-3, 3e-3), epochs=40, warmup=0.0, schedule="constant")),
    "gpu": CDAConfig(models=CDA_MODELS, max_pairs=None, max_sentences=60, max_words=60, sentence_tokens=128,
                     vocab_size=50000, embedding_dim=50, gru_hidden=50, bert_hidden=128, classifier_hidden=128,
                     epochs=100, patience=5, batch_size=256, learning_rate=1e-5, min_improvement=1e-3,
                     # the paper's recipe; only the epoch is chosen on dev (by F1, not loss)
                     search=SearchSpace(learning_rates=(1e-5,), epochs=100, warmup=0.0, schedule="constant")),
}


@dataclass(frozen=True)
class ComparisonConfig:
    """Notebook 11: every system on the same pairs (each system's own section sets its training)."""

    systems: tuple[str, ...]  # of COMPARISON_SYSTEMS, in its order
    minilm_tokens: int  # tokens per document for the MiniLM bi-encoder's document vectors (its limit: 512)
    bootstrap: int  # resamples of the test pairs for the 95 % intervals
    length_buckets: int  # pair-length buckets (quantiles of the test pairs' words) for F1 by length
    cross_encoder_epochs: int | None  # MiniLM cross-encoders' epochs here (None: Match-Ignition's own); on `cpu`
    #   2: with 1 epoch they stay at the label prior (docs/experiments.md)


#: Notebook 11's systems that are not notebook 02's encoders, in the report's order (their labels:
#: `comparison.system_ids.BASELINE_LABELS`; their code: `comparison.systems`).
BASELINE_SYSTEMS = ("tfidf", "minilm_cosine", "aose", "cda_gru_deep", "cda_minilm_shallow", "match_ignition",
                    "minilm_cross")
#: Every system id of notebook 11: the baselines, then notebook 02's encoders fine-tuned as in notebook 05. Kept with
#: the profiles, which list them, so the profiles import nothing of the comparison's code.
COMPARISON_SYSTEMS = (*BASELINE_SYSTEMS, *PAPER_MODELS)
COMPARISON = {
    "smoke": ComparisonConfig(systems=("tfidf", "minilm_cosine", "aose", "cda_gru_deep", "match_ignition", "cdlm"),
                              minilm_tokens=128, bootstrap=100, length_buckets=2, cross_encoder_epochs=None),
    "cpu": ComparisonConfig(systems=COMPARISON_SYSTEMS, minilm_tokens=512, bootstrap=1000, length_buckets=3,
                            cross_encoder_epochs=2),
    "gpu": ComparisonConfig(systems=COMPARISON_SYSTEMS, minilm_tokens=512, bootstrap=1000, length_buckets=4,
                            cross_encoder_epochs=None),
}
