"""The tutorial's one default seed: every run, split and resample draws from it unless a notebook's `SEED`
parameter or a seed-spread run says otherwise. Seeding itself is transformers' `set_seed`."""

SEED = 13
