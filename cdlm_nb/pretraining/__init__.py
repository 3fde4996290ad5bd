"""Cross-document MLM pretraining (notebook 02; the CDLM paper, §2.2-2.3 and §3): CDLM and its ablations.

`inputs` packs each model's training examples; `trainer` runs one Hugging Face `Trainer` pretraining (the CDLM
preprint (v1)'s Appendix B optimizer and schedule, checkpoints, resuming); `stages` is notebook 02's order of work
(the starting model, the shared base stage, every variant, reuse of finished models); `script` is
`cdlm-nb pretrain --config`; `report` makes notebook 02's tables, figure and recorded metrics; `on_demand` builds
notebook 02's models for a later notebook run alone; `heldout` scores a model on held-out clusters (the learning
curve, the start check, and notebook 03's perplexity). Dependencies flow one way: script, on_demand -> stages ->
trainer -> inputs. Later notebooks load the saved models through `cdlm_nb.variants`, never through this package
(except `stages.starting_model` for notebook 03, `heldout` for notebook 03's scoring, and
`on_demand.ensure_pretrained`, which builds what is missing); this package imports nothing of notebook 03's.
"""
