"""Cross-document perplexity (notebook 03; the CDLM paper, §3.1 and Table 1): how well each pretrained model predicts
the masked tokens of held-out clusters when it can see all of the cluster's documents (`pretraining.heldout`'s)."""
