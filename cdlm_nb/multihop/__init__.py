"""Multi-hop QA on HotpotQA (Yang et al. 2018) as the CDLM paper does it (§3.4): `inputs` (the marked input, its labels
and decoding), `model` (one encoder, four heads), `metric` (hotpot_evaluate_v1), `baselines`, `experiment`, `report`."""
