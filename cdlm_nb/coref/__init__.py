"""Cross-document coreference (notebook 04): gold mentions, CoNLL I/O and the official scores, the same-head-lemma
baseline, agglomerative clustering, and the pairwise cross-encoder fine-tuned from notebook 02's models."""
