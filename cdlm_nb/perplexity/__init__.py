"""Cross-document perplexity (notebook 03; the CDLM paper, §3.1 and Table 1): how well each pretrained model predicts
the masked tokens of held-out clusters when it can see all of the cluster's documents. `evaluate` scores, `bootstrap`
puts intervals on it, `fact_tokens` and `copy_gain` split and probe it, `learning_curve` reads notebook 02's curves,
`report` makes the tables and readings; scoring is notebook 02's (`pretraining.heldout`).
"""
