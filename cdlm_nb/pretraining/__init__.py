"""Cross-document MLM pretraining (notebook 02; the CDLM paper, §2.2-2.3 and §3): CDLM and its ablations.

`inputs` packs each model's examples, `trainer` runs one `Trainer` pretraining, `stages` is notebook 02's order of
work, `report` its tables and figures, `heldout` the held-out scoring. Dependencies flow one way (stages -> trainer
-> inputs); later notebooks load the saved models through `cdlm_nb.variants` (notebook 03 also imports `heldout` and
`stages.starting_model`), and nothing here imports notebook 03's code.
"""
