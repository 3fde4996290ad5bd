"""The models of the CDLM paper's Table 1, in its row order: what every profile pretrains and compares.

A leaf module (nothing of the package imported) so that the profiles, which name the list, and the model
registry `variants`, which knows how to load each model, both read it without importing each other.
"""

PAPER_MODELS = ("longformer", "local", "rand", "prefix", "cdlm")
#: The two of them the hub holds as released checkpoints (allenai/longformer-base-4096, biu-nlp/cdlm): what a gpu
#: run has without pretraining; the ablations (Local, Rand, Prefix) were not released.
RELEASED_MODELS = ("longformer", "cdlm")
