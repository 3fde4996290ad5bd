"""Where a global masked token's attention falls: the bins, and uniform attention giving the bins' sizes."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cdlm_nb.perplexity.evaluate import REACH_BINS, global_attention_reach, reach_bins, uniform_reach
from cdlm_nb.pretraining.heldout import EVAL_MASK_SEED
from cdlm_nb.support.errors import ConfigError


def test_reach_bins_places_every_position_relative_to_the_token():
    doc_ids = np.array([-1, 0, 0, 0, 0, 0, 0, 0, 1, 1, -1])
    bins = [REACH_BINS[k] for k in reach_bins(4, doc_ids, window=6)]
    assert bins[0] == bins[-1] == "outside any document"
    assert bins[2:7] == ["within 2 tokens"] * 5
    assert bins[1] == bins[7] == "rest of the local window"  # 3 tokens away, window +-3
    assert bins[8] == bins[9] == "other documents"  # 4-5 tokens away, in document 1
    assert REACH_BINS[reach_bins(1, doc_ids, window=6)[7]] == "own document, beyond the window"


def test_global_attention_reach_of_uniform_attention_is_the_share_of_positions(heldout, model):
    """With the global query zeroed, every masked token attends uniformly: its shares are the bins' sizes."""
    import torch

    from cdlm_nb.masking import CrossDocumentMLMCollator

    tokenizer, examples = heldout
    uniform = copy.deepcopy(model)
    for layer in uniform.longformer.encoder.layer:
        torch.nn.init.zeros_(layer.attention.self.query_global.weight)
        torch.nn.init.zeros_(layer.attention.self.query_global.bias)
    reach = global_attention_reach(uniform, tokenizer, examples, "cdlm", window=8, batch_size=4)
    batch = CrossDocumentMLMCollator(tokenizer, pattern="cdlm", seed=EVAL_MASK_SEED)(
        [{"input_ids": ids} for ids in examples["input_ids"]])  # masks depend on (seed, tokens) only
    expected, count = np.zeros(len(REACH_BINS)), 0
    for r, doc_ids in enumerate(examples["doc_ids"]):
        for i in np.flatnonzero(batch["labels"][r, :len(doc_ids)].numpy() != -100):
            expected += np.bincount(reach_bins(i, np.asarray(doc_ids), 8), minlength=len(REACH_BINS)) / len(doc_ids)
            count += 1
    assert list(reach.columns) == list(REACH_BINS) and len(reach) == model.config.num_hidden_layers
    for layer in range(len(reach)):  # uniform in every layer
        np.testing.assert_allclose(reach.iloc[layer].to_numpy(), expected / count, atol=1e-5)
    # the same shares counted without a model: the scale the notebook's table is read against
    np.testing.assert_allclose(uniform_reach(tokenizer, examples, "cdlm", window=8).to_numpy(), expected / count,
                               atol=1e-6)
    with pytest.raises(ConfigError, match="uniform_reach"):
        uniform_reach(tokenizer, examples, "local", window=8)
    trained = global_attention_reach(model, tokenizer, examples, "cdlm", window=8, batch_size=4)
    np.testing.assert_allclose(trained.sum(axis=1), 1.0, atol=1e-5)
    with pytest.raises(ConfigError, match="no masked token global attention"):
        global_attention_reach(model, tokenizer, examples, "local", window=8)
