"""Cross-document MLM pretraining (notebook 02; the CDLM paper, §2.2-2.3 and §3): CDLM and its ablations. Later
notebooks load the saved models through `cdlm_nb.variants`; nothing here imports notebook 03's `perplexity`."""
