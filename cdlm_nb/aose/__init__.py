"""Long-document classification (notebook 08): AoSE, attention over pre-trained sentence embeddings
(Abdaoui & Dutta 2023), beside its same-encoder baselines (the TF-IDF floor in `experiment`), frozen and fine-tuned.
The attention layer is `cdlm_nb.attention_pooling` (shared with CDA's HAN); sentence embeddings come from
`cdlm_nb.sentence_encoders`, the corpora from `cdlm_nb.data.aose_sets`."""
