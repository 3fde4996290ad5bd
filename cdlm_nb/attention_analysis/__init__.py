"""Notebook 07: the attention percentile-rank probe (CDLM paper, §3.5, Table 6, Figure 3) — does a pretrained
model's *global* attention already align two coreferring mentions in two different documents?

- `pairs`: mention pairs (coreferring or not, across documents) sampled from `data.corpora.analysis_corpus`;
- `inputs`: one pair as `<s> <doc-s> doc1 </doc-s> <doc-s> doc2 </doc-s> </s>`, mention positions tracked;
- `ranking`: the metric — token scores s(i|S), the target's percentile rank, the mean percentile rank (MPR);
- `run`: reading both attention directions out of a Longformer and analysing pairs with each pretrained model;
- `report`: Table 6 beside the paper, the recorded `mpr/...` metrics, the paired gaps, skips, position check;
- `figures`: the MPR bars and Figure 3 (a target document shaded by its tokens' scores), plot and HTML.
"""
