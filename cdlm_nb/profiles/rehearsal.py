"""The `gpu-rehearsal` profile's sizes: `gpu` with its steps, lengths, counts, batch sizes and windows shrunk, so
every notebook walks the gpu path on a CPU in seconds. Only integer sizes (or a count for `None`, "all") appear here:
`tests/test_profiles.py` checks that every other field equals gpu's, so the rehearsal takes every branch gpu takes.
Lengths keep gpu's proportions: 4,096 tokens over a 512-token window become 512 over 64."""

from __future__ import annotations

#: section name -> {field: rehearsal value}; nested sections (Match-Ignition's `training`, the recipe searches'
#: `search`) as a nested dict. Every loop bound is shrunk: a bound left at gpu's value (a 100-epoch search on
#: stand-ins whose dev loss keeps falling by a hair) makes the rehearsal's time a property of the CPU.
REHEARSAL_SIZES: dict[str, dict] = {
    "pretrain": dict(max_steps=2, per_device_batch_size=2, gradient_accumulation_steps=2, warmup_steps=1,
                     max_length=512, logging_steps=1, save_steps=1, eval_batch_size=2, bootstrap_resamples=50,
                     curve_steps=1, heldout_clusters=20),
    "attention": dict(n_pairs=3, max_length=512, batch_size=2),
    "encoder": dict(max_length=512, attention_window=64),
    "coref": dict(max_length=512, hidden_sizes=(32,), max_train_pairs=8, epochs=1, batch_size=8,
                  per_device_batch=4, score_batch_size=16, eval_subtopics=2, max_pairs_per_subtopic=10,
                  ecbplus_topics=(1, 3, 2, 5, 36, 37)),  # two topics of each split (train, dev, test)
    "matching": dict(max_length=512, max_pairs=24, pairs_per_kind=1, pan_like_pairs=6, epochs=2, batch_size=8,
                     score_batch_size=16),
    "multihop": dict(max_length=512, max_questions=12, epochs=1, batch_size=4, score_batch_size=8),
    "match_ignition": dict(training=dict(max_length=64, max_pairs=8, pairs_per_kind=1, pan_like_pairs=6, epochs=1,
                                         score_batch_size=16),
                           speed_length=64, speed_batch=2, speed_repeats=2),
    "classification": dict(max_document_tokens=512, truncated_tokens=128, truncations=(128, 256), train_docs=24,
                           test_docs=12, frozen_epochs=3, batch_size=8, finetune_docs=12, finetune_epochs=1,
                           max_segments_per_step=64, embed_batch_size=64),
    "cda": dict(max_pairs=12, max_sentences=6, max_words=20, sentence_tokens=32, vocab_size=2000, embedding_dim=16,
                gru_hidden=16, bert_hidden=16, classifier_hidden=16, epochs=2, patience=1, batch_size=8),
    "comparison": dict(minilm_tokens=64, bootstrap=100, length_buckets=2),
    "world": dict(topics=5, dev_topics=1, test_topics=1, task_topics=3, pairs_per_kind=1, qa_distractors=2),
}
REHEARSAL_MINUTES = 5  # the whole rehearsal on a 150 GFLOP/s 2-core CPU, as `make test` runs it (checked: budget.py)
