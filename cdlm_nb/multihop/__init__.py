"""Multi-hop question answering on HotpotQA (Yang et al. 2018) as the CDLM paper does it (§3.4, after Beltagy et al.
2020): `inputs` (the marked input and its labels), `model` (one encoder, four heads, fine-tuning), `decoding` (the
official prediction format), `metric` (hotpot_evaluate_v1), `baselines`, `experiment` and `report` (notebook 06)."""
