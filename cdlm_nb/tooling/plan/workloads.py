"""What each notebook computes on a hub profile, as jobs the plan can cost: how many sequences of what length go
through which model, trained or not, in which batch.

Counts come from the profile (its caps, epochs, models) and a few stated facts about the corpora below; lengths
are typical ones (`TYPICAL_TOKENS`) for the time, and the longest input the profile allows for the memory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...profiles import RELEASED_MODELS
from .memory_model import MINILM, ROBERTA_BASE, Shape, Step

if TYPE_CHECKING:
    from ...profiles import Profile

#: Mean tokens per input, measured with the packaged MiniLM WordPiece tokenizer on the sample corpora beside the
#: checkout (../shared/data; RoBERTa's BPE gives similar counts): a Multi-News cluster (2.95 documents), an ECB+
#: document pair (2 x 370 words), a HotpotQA distractor question (10 paragraphs), an IMDB review, a 20 Newsgroups post.
TYPICAL_TOKENS = {"multinews": 2960, "ecbplus_pair": 900, "hotpotqa": 1190, "imdb": 310, "20ng": 800}
#: ECB+ topics per split (Cybulska & Vossen's corpus, the CDLM split: dev 8 topics, test 10, the other 25 train),
#: two subtopics each; Multi-News test/validation clusters, HotpotQA dev questions, IMDB and 20 Newsgroups sizes.
ECBPLUS_SUBTOPICS = {"train": 50, "dev": 16, "test": 20}
CORPUS_SIZES = {"multinews_heldout": 5622, "hotpotqa_dev": 7405, "imdb": 50_000, "20ng": 18_846}
MASKED_SHARE = 0.15  # CD-MLM: the masked tokens are predicted and global
#: Multi-News train clusters; notebook 02 packs those of >= 3 documents, which hold 71 % of the words in the sample
#: corpora's 150 clusters (59 % of the clusters, 2,276 words each against 1,891 over all).
MULTINEWS_TRAIN_CLUSTERS = 44_972
PACKED_WORD_SHARE = 0.71
#: Text tokens per second that notebook 02 tokenizes (`inputs.tokenize_clusters`, sentence markers) and then packs
#: (`inputs.pack_random_tokenized`, the slower of the two packings) on Colab's 2 vCPUs: measured with
#: `benchmarks/packing_rate.py` on 45,816 world clusters on 2 cores of an AMD EPYC (254,000 and 1,470,000; docs/
#: experiments.md, "02 · Packing Multi-News once"), rounded down; Colab's 2 vCPUs assumed equal.
TOKENIZE_TOKENS_PER_S = 250_000
PACK_TOKENS_PER_S = 1_400_000


@dataclass(frozen=True)
class Job:
    """`sequences` inputs (per model) through `step`, on `models` models; `batch` is the batch wanted per
    optimizer step (training) or per forward pass."""

    what: str
    step: Step | None  # at batch 1, the longest input; the plan fills in the batch. None: work of the CPU alone
    sequences: int
    models: int
    batch: int
    typical_tokens: int  # mean tokens per input, for the time
    batch_field: str | None = None  # "section.field" of the profile the planned per-device batch goes to
    accumulation_field: str | None = None  # where the accumulation steps go (None: the code derives them)
    checkpointing_field: str | None = None  # where the gradient-checkpointing choice goes
    opt_in: bool = False  # not part of a default run (its minutes are given apart)
    cpu_seconds: float = 0.0  # a job of the CPU alone (no step): its seconds, the same on every card


def longformer_shape(profile: "Profile") -> Shape:
    """Longformer-base (with `<doc-s>`, `</doc-s>`) as the profile's encoder section describes it."""
    e = profile.encoder
    return Shape(e.kind, e.hidden_size, e.num_layers, e.num_heads, e.intermediate_size, e.vocab_size + 2,
                 e.max_length + 2, window=e.attention_window, global_projections=True)


def _released(models: tuple[str, ...]) -> int:
    """Models of notebook 02 a default gpu run has (the released checkpoints) among those a notebook asks for."""
    return len([m for m in models if m in RELEASED_MODELS])


def _train(what, shape, tokens, sequences, models, batch, typical, **step) -> Job:
    return Job(what, Step(shape, 1, tokens, True, **step), sequences, models, batch, min(typical, tokens))


def _infer(what, shape, tokens, sequences, models, batch, typical, **step) -> Job:
    return Job(what, Step(shape, 1, tokens, False, **step), sequences, models, batch, min(typical, tokens))


#: Optimizer steps the plan prices opt-in pretraining at (per variant); the paper's schedule is 25 times this.
PRICED_STEPS = 1000


def packing_seconds(profile: "Profile") -> float:
    """Notebook 02's CPU work on Multi-News train: tokenized once, then packed once per kind of input its trained
    models read (related clusters, unrelated documents), each packing kept in the run folder for the rest."""
    from ...pretraining.inputs import packing_of
    from ...pretraining.report import trained_models

    tokens = MULTINEWS_TRAIN_CLUSTERS * TYPICAL_TOKENS["multinews"] * PACKED_WORD_SHARE
    packings = len({packing_of(model) for model, _ in trained_models(profile)})
    return tokens / TOKENIZE_TOKENS_PER_S + packings * tokens / PACK_TOKENS_PER_S


def pretraining_jobs(profile: "Profile") -> list[Job]:
    """Notebook 02: the attention-speed comparison (one CDLM step per implementation, Hugging Face's keeping its
    scores), tokenizing and packing Multi-News train on the CPU, and, opt-in, the pretraining of one variant for
    `PRICED_STEPS` optimizer steps."""
    config, shape = profile.pretrain, longformer_shape(profile)
    masked = round(MASKED_SHARE * config.max_length)
    cdmlm = dict(global_tokens=masked, predicted=masked)
    jobs = [_train("attention speed, Hugging Face's", shape, config.max_length, 4, 1, 1, config.max_length,
                   keeps_scores=True, **cdmlm),
            _train("attention speed, fused", shape, config.max_length, 4, 1, 1, config.max_length, **cdmlm),
            Job("tokenizing and packing Multi-News train, once per run folder", None, 0, 1, 1, 0,
                cpu_seconds=packing_seconds(profile))]
    effective = config.per_device_batch_size * config.gradient_accumulation_steps
    pretraining = _train(f"opt-in pretraining of one variant, {PRICED_STEPS:,} steps", shape, config.max_length,
                         PRICED_STEPS * effective, 1, effective, TYPICAL_TOKENS["multinews"], **cdmlm)
    return [*jobs, replace(pretraining, opt_in=True, batch_field="pretrain.per_device_batch_size",
                           accumulation_field="pretrain.gradient_accumulation_steps",
                           checkpointing_field="pretrain.gradient_checkpointing")]


def perplexity_jobs(profile: "Profile") -> list[Job]:
    """Notebook 03: validation and test clusters, the test ones three times (perplexity, answer location, attention
    reach with every layer's attention maps)."""
    config, shape = profile.pretrain, longformer_shape(profile)
    clusters = min(config.heldout_clusters or CORPUS_SIZES["multinews_heldout"], CORPUS_SIZES["multinews_heldout"])
    models, masked = _released(config.variants), round(MASKED_SHARE * config.max_length)
    typical = TYPICAL_TOKENS["multinews"]
    jobs = [_infer("perplexity (validation, test) and answer location", shape, config.max_length, 3 * clusters,
                   models, config.eval_batch_size, typical, global_tokens=masked),
            _infer("attention reach (attention maps)", shape, config.max_length, clusters, models,
                   config.eval_batch_size, typical, global_tokens=masked, attention_maps=True)]
    return [replace(job, batch_field="pretrain.eval_batch_size") for job in jobs]


def coref_jobs(profile: "Profile") -> list[Job]:
    """Notebook 04: one scorer per model and mention kind (and CDLM on sentences only), trained on the capped
    training pairs, scoring the capped candidate pairs of every dev and test subtopic."""
    config, shape = profile.coref, longformer_shape(profile)
    runs = _released(config.models) * len(config.kinds) + int(config.sentences_ablation)
    train = (config.max_train_pairs or 20_000) * config.epochs
    subtopics = sum(min(config.eval_subtopics or n, n) for n in (ECBPLUS_SUBTOPICS["dev"], ECBPLUS_SUBTOPICS["test"]))
    scored = (config.max_pairs_per_subtopic or 2000) * subtopics
    typical = TYPICAL_TOKENS["ecbplus_pair"]
    return [replace(_train("fine-tuning", shape, config.max_length, train, runs,
                           config.batch_size, typical, global_tokens=8), batch_field="coref.per_device_batch"),
            replace(_infer("scoring dev and test pairs", shape, config.max_length, scored, runs,
                           config.score_batch_size, typical, global_tokens=8), batch_field="coref.score_batch_size")]


def ecbplus_pairs(pairs_per_kind: int, split: str) -> int:
    """Same-event document pairs of an ECB+ split: `pairs_per_kind` per subtopic and kind (3 kinds)."""
    return 3 * pairs_per_kind * ECBPLUS_SUBTOPICS[split]


def matching_jobs(profile: "Profile") -> list[Job]:
    """Notebook 05: each model fine-tuned on the ECB+ training pairs, scoring dev and test."""
    config, shape = profile.matching, longformer_shape(profile)
    train, dev, test = (ecbplus_pairs(config.pairs_per_kind, split) for split in ("train", "dev", "test"))
    models, typical = _released(config.models), TYPICAL_TOKENS["ecbplus_pair"]
    return [replace(_train("fine-tuning", shape, config.max_length, train * config.epochs, models, config.batch_size,
                           typical, global_tokens=1), batch_field="matching.per_device_batch"),
            replace(_infer("scoring dev and test pairs", shape, config.max_length, dev + test, models,
                           config.score_batch_size, typical, global_tokens=1), batch_field="matching.score_batch_size")]


def multihop_jobs(profile: "Profile") -> list[Job]:
    """Notebook 06: each model fine-tuned on the capped HotpotQA training questions, predicting the dev set."""
    config, shape = profile.multihop, longformer_shape(profile)
    questions = config.max_questions or 90_447
    models, typical = _released(config.models), TYPICAL_TOKENS["hotpotqa"]
    return [replace(_train("fine-tuning", shape, config.max_length, questions * config.epochs, models,
                           config.batch_size, typical, global_tokens=40), batch_field="multihop.per_device_batch"),
            replace(_infer("predicting dev", shape, config.max_length, CORPUS_SIZES["hotpotqa_dev"], models,
                           config.score_batch_size, typical, global_tokens=40),
                    batch_field="multihop.score_batch_size")]


def attention_jobs(profile: "Profile") -> list[Job]:
    """Notebook 07: every sampled pair (positive and negative, per kind) through each model with its maps."""
    config, shape = profile.attention, longformer_shape(profile)
    pairs = 2 * config.n_pairs * len(config.kinds)
    return [replace(_infer("pair analyses (attention maps)", shape, config.max_length, pairs, _released(config.models),
                           config.batch_size, TYPICAL_TOKENS["ecbplus_pair"], global_tokens=4, attention_maps=True),
                    batch_field="attention.batch_size")]


def aose_jobs(profile: "Profile") -> list[Job]:
    """Notebook 08: the sentence encoder embeds the segments of the documents it uses (the profile's train and test
    samples, or the whole corpus) once (cached), then is fine-tuned on the capped training documents, for IMDB and
    20 Newsgroups."""
    config, jobs = profile.classification, []
    for corpus in ("imdb", "20ng"):
        docs, tokens = CORPUS_SIZES[corpus], TYPICAL_TOKENS[corpus]
        used = min(docs, (config.train_docs or docs) + (config.test_docs or docs))
        train_docs = min(config.finetune_docs or docs, docs)
        segments_per_doc = max(1, -(-tokens // config.max_tokens))
        jobs.append(replace(_infer(f"{corpus}: embedding segments", ROBERTA_BASE, config.max_tokens,
                                   used * segments_per_doc, 1, config.embed_batch_size, config.max_tokens),
                            batch_field="classification.embed_batch_size"))
        jobs.append(replace(_train(f"{corpus}: fine-tuning", ROBERTA_BASE, config.max_tokens,
                                   train_docs * segments_per_doc * config.finetune_epochs, 1,
                                   config.max_segments_per_step, config.max_tokens),
                            batch_field="classification.max_segments_per_step"))
    return jobs


def match_ignition_jobs(profile: "Profile") -> list[Job]:
    """Notebook 09: a MiniLM cross-encoder per α and ablation on the ECB+ training pairs."""
    config = profile.match_ignition
    training, variants = config.training, len(config.alphas) + 2
    train = ecbplus_pairs(training.pairs_per_kind, "train") * training.epochs
    scored = ecbplus_pairs(training.pairs_per_kind, "dev") + ecbplus_pairs(training.pairs_per_kind, "test")
    return [replace(_train("fine-tuning", MINILM, training.max_length, train, variants, training.batch_size,
                           training.max_length), batch_field="match_ignition.training.per_device_batch"),
            _infer("scoring", MINILM, training.max_length, scored * (1 + len(config.lambdas)), variants,
                   training.score_batch_size, training.max_length)]


def cda_jobs(profile: "Profile") -> list[Job]:
    """Notebook 10: the frozen sentence vectors of every pair's sentences (the HAN models themselves are small)."""
    config = profile.cda
    pairs = sum(ecbplus_pairs(profile.matching.pairs_per_kind, split) for split in ECBPLUS_SUBTOPICS)
    return [_infer("sentence vectors", MINILM, config.sentence_tokens, 2 * pairs * config.max_sentences, 1, 256,
                   40)]


def comparison_jobs(profile: "Profile") -> list[Job]:
    """Notebook 11: every system on the same pairs: notebook 05's fine-tuning, 09's cross-encoders, 10's vectors."""
    return [replace(job, what=f"as notebook {n}: {job.what}")
            for n, jobs in (("05", matching_jobs(profile)), ("09", match_ignition_jobs(profile)),
                            ("10", cda_jobs(profile))) for job in jobs]


NOTEBOOK_JOBS = {
    "02_pretraining": pretraining_jobs,
    "03_cross_document_perplexity": perplexity_jobs,
    "04_coreference": coref_jobs,
    "05_document_matching": matching_jobs,
    "06_multihop_qa": multihop_jobs,
    "07_attention_analysis": attention_jobs,
    "08_aose": aose_jobs,
    "09_match_ignition": match_ignition_jobs,
    "10_cda": cda_jobs,
    "11_comparison": comparison_jobs,
}
