"""The machinery around the tutorial: `cdlm-nb` (cli), running notebooks (runner), rehearsing the gpu path
offline (rehearsal), publishing and regression-checking results (publish, regression, metric_kinds,
seed_spread) and the README's generated blocks (chapter_times). It imports the teaching core; the core never
imports it."""
