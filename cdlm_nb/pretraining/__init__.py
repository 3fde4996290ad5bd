"""Cross-document MLM pretraining (notebook 02; the CDLM paper, §2.2-2.3 and §3): CDLM and its ablations.

`inputs` packs each model's training examples; `trainer` runs one Hugging Face `Trainer` pretraining (the CDLM
preprint (v1)'s Appendix B optimizer and schedule, checkpoints, resuming); `stages` is notebook 02's order of work
(the starting model, the shared base stage, every variant, reuse of finished models); `report` makes notebook 02's
tables, figure and recorded metrics; `heldout` scores a model on held-out clusters (the learning curve, the start
check, and notebook 03's perplexity). Dependencies flow one way: stages -> trainer -> inputs. The script
(`cdlm-nb pretrain`) and building notebook 02's models for a later notebook (`on_demand`) are machinery, in
`cdlm_nb.tooling`. Later notebooks load the saved models through `cdlm_nb.variants`, never through this package
(except `stages.starting_model` for notebook 03 and `heldout` for its scoring); this package imports nothing of
notebook 03's.
"""
