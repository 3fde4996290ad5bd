"""Cross-document coreference (notebook 04): gold mentions (`mentions`), candidate and training pairs (`pairs`),
the pair inputs (`inputs`), the pair scorer (`model`) and its training (`training`), clustering, CoNLL reading and the
official scores (`clustering`, `conll`, `metrics`), the same-head-lemma baseline (`baselines`), the experiment of
the notebook (`experiment`) and its tables and figure (`report`, `figures`)."""
