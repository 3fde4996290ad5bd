"""The `smoke` profile whole: tiny models and data, so that CI checks in seconds that every notebook runs.
It checks the plumbing, not the results. Each field's meaning: `profiles.sections` (`s`)."""

from __future__ import annotations

from dataclasses import replace

from . import sections as s

DESCRIPTION = 'tiny models and data; checks that every notebook executes (CI)'
DATA_SOURCE = 'embedded'  # "embedded" (generated offline) or "hub" (the real corpora, downloaded)
MINUTES_BUDGET = 8  # wall-clock budget of the whole suite on its target machine (0: not budgeted)

ENCODER = s.EncoderConfig(kind="tiny", max_length=512, attention_window=32, hidden_size=64, num_layers=2,
                          num_heads=2, intermediate_size=128, vocab_size=2000, sentence_markers=False, dropout=0.0)

WORLD = s.WorldConfig(topics=5, dev_topics=1, test_topics=1, task_topics=3, docs_per_cluster=(3, 5),
                      more_docs=0.6, words_per_doc=(50, 150), fact_overlap=0.7, noise=0.05, filler=0.3,
                      pairs_per_kind=1, qa_distractors=2)

PRETRAIN = s.PretrainConfig(variants=s.PAPER_MODELS, max_steps=4, per_device_batch_size=2,
                            gradient_accumulation_steps=1, learning_rate=1e-3, warmup_steps=1, lr_power=3.0,
                            weight_decay=0.01, fp16=True, max_length=256, logging_steps=1, save_steps=1000,
                            seeds=(s.SEED,), eval_batch_size=8, bootstrap_resamples=200, curve_steps=2, base_steps=4,
                            base_batch_size=4, base_max_length=64, base_long_steps=2, copy_steps=2, copy_batch_size=2,
                            copy_share=1.0, copy_span=16, copy_probe_steps=1, copy_positions=256)

ATTENTION = s.AttentionConfig(n_pairs=10, kinds=("event", "entity"), models=s.PAPER_MODELS, max_length=256,
                              exclude_punctuation=True, batch_size=16)

COREF = s.CorefConfig(models=("longformer", "cdlm"), kinds=("event",), sentences_ablation=False, max_length=256,
                      hidden_sizes=(64,), activation="tanh", dropout=0.1, negative_ratio=1.0, max_train_pairs=16,
                      epochs=1, batch_size=8, learning_rate=1e-3, score_batch_size=32, eval_subtopics=1,
                      max_pairs_per_subtopic=20, thresholds=s.FINE_THRESHOLDS, ecbplus_topics=(1, 2, 5))

MATCHING = s.MatchingConfig(models=("longformer", "cdlm"), max_length=256, protocol="paper", max_pairs=24,
                            pairs_per_kind=1, pan_like_pairs=6, epochs=2, batch_size=8, learning_rates=(1e-3,),
                            warmup=0.1, score_batch_size=32, ecbplus_topics=(1, 3, 2, 5), select_on_dev=True)

MULTIHOP = s.MultihopConfig(models=("longformer", "cdlm"), max_length=512, max_questions=16, epochs=1, batch_size=4,
                            learning_rate=1e-3, warmup=0.1, max_answer_tokens=30, score_batch_size=8)

MATCH_IGNITION = s.MatchIgnitionConfig(alphas=(0.0, 0.2), keep_sentences=5, lambdas=(3, 5), ablation_alpha=0.2,
                                       training=replace(MATCHING, models=(), max_length=128, max_pairs=16, epochs=1,
                                                        warmup=0.1, select_on_dev=False, class_weighted=False),
                                       speed_length=64, speed_batch=2, speed_repeats=2)

CLASSIFICATION = s.ClassificationConfig(encoder="minilm", min_tokens=5, max_tokens=250, max_document_tokens=1024,
                                        truncated_tokens=128, truncations=(128, 256), train_docs=40, test_docs=20,
                                        test_share=0.3, frozen_epochs=5, frozen_learning_rate=1e-3, batch_size=16,
                                        finetune_docs=16, finetune_epochs=1, finetune_learning_rate=2e-5,
                                        max_segments_per_step=64, embed_batch_size=64)

CDA = s.CDAConfig(models=("gru_han", "gru_han_deep", "bert_han_shallow", "bert_avg"), max_pairs=24,
                  max_sentences=12, max_words=30, sentence_tokens=64, vocab_size=2000, embedding_dim=16,
                  gru_hidden=16, bert_hidden=16, classifier_hidden=16, epochs=2, patience=1, batch_size=8,
                  learning_rates=(1e-3,), min_improvement=1e-3, select_on_dev=True)

COMPARISON = s.ComparisonConfig(systems=("tfidf", "minilm_cosine", "aose", "cda_gru_deep", "match_ignition", "cdlm"),
                                minilm_tokens=128, bootstrap=100, length_buckets=2, cross_encoder_epochs=None)
