"""Cross-document coreference (notebook 04): gold mentions (`mentions`), candidate and training pairs (`pairs`),
the pair inputs (`inputs`), the pair scorer (`model`) and its training (`training`), CoNLL reading and the official
scores (`conll`, `metrics`), the same-head-lemma baseline (`baselines`), the experiment of the notebook with its
clustering (`experiment`) and its tables, figure and readings (`report`)."""
