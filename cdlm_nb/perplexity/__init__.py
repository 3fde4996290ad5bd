"""Cross-document perplexity (notebook 03; the CDLM paper, §3.1 and Table 1): how well each pretrained model
predicts the masked tokens of held-out clusters when it can see all of the cluster's documents.

`evaluate` packs the held-out clusters, masks them with fixed evaluation masks and scores each model;
`bootstrap` puts cluster-bootstrap intervals on a perplexity and on the paired difference of two models;
`answer_location` splits the masked tokens by where their answer is visible; `reach` measures where a global
masked token's attention falls; `report` makes the tables, figure, computed readings and recorded metrics.
Evaluation reads notebook 02's models through `cdlm_nb.variants` and scores them with notebook 02's held-out
scoring (`pretraining.heldout`); it never imports the training code, and notebook 02 imports nothing from here.
"""
