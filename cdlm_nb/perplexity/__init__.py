"""Cross-document perplexity (notebook 03; the CDLM paper, §3.1 and Table 1): how well each pretrained model
predicts the masked tokens of held-out clusters when it can see all of the cluster's documents.

`evaluate` scores each model under fixed evaluation masks (its perplexity, split by where the answer is visible, and
where its global attention falls), `bootstrap` puts cluster-bootstrap intervals on it; `fact_tokens` splits the
masked tokens by the facts they state, `copy_gain` probes reading across documents, `learning_curve` reads notebook
02's curves; `report` makes the tables and readings. Scoring is notebook 02's (`pretraining.heldout`); notebook 02
imports nothing from here.
"""
