"""Notebook 07: the attention percentile-rank probe (CDLM paper, §3.5, Table 6, Figure 3): does a pretrained model's
*global* attention already align two coreferring mentions in two documents? `pairs` (the inputs), `ranking`
(s(i|S), percentile rank, MPR), `run` (both attention directions of a Longformer), `experiment`, `report`, `figures`."""
