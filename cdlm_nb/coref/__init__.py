"""Cross-document coreference (notebook 04): gold `mentions`, `pairs`, pair `inputs`, the pair scorer (`model`) and
its `training`, the official scores (`metrics`), the same-head-lemma `baselines`, the notebook's `experiment` with its
clustering, and its tables, figure and readings (`report`). The CLI reads CoNLL files: `tooling.official_files`."""
