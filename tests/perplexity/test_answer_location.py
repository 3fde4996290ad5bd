"""The split of the masked tokens by where their answer is visible: local window, own document, another document."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cdlm_nb.perplexity.evaluate import (
    ANSWER_LOCATIONS,
    answer_locations,
    evaluate_perplexity,
    perplexity_by_answer_location,
)
from cdlm_nb.support.errors import DataError


def test_answer_locations_finds_the_nearest_visible_copy():
    mask = 99
    #            doc 0 ---------------------------  doc 1 -------
    inputs = np.array([5, 6, mask, 7, 8, 9, 10, mask, 6, 11, 12, mask])
    originals = np.array([5, 6, 6, 7, 8, 9, 10, 5, 6, 11, 12, 13])
    doc_ids = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    labels = np.full(12, -100)
    labels[[2, 7, 11]] = originals[[2, 7, 11]]
    where = answer_locations(inputs, labels, doc_ids, window=4)
    # position 2 (token 6): 6 is visible 1 step away; position 7 (token 5): only at position 0, same document,
    # outside +-2; position 11 (token 13): nowhere
    assert [ANSWER_LOCATIONS[k] for k in where] == ["local window", "own document, outside the window", "nowhere"]
    labels[7], inputs[0] = 5, 4  # now 5 is visible only in document 1
    inputs[10] = 5  # 3 tokens away: outside the window of +-2
    assert ANSWER_LOCATIONS[answer_locations(inputs, labels, doc_ids, window=4)[1]] == "another document only"


def test_perplexity_by_answer_location_splits_the_same_masked_tokens(heldout, model):
    tokenizer, examples = heldout
    table = perplexity_by_answer_location(model, tokenizer, examples, "cdlm", window=8, batch_size=4)
    overall = evaluate_perplexity(model, tokenizer, examples, "cdlm", batch_size=4, n_resamples=10)
    assert list(table.index) == list(ANSWER_LOCATIONS)
    assert table["masked_tokens"].sum() == overall.n_tokens
    seen = table[table["masked_tokens"] > 0]
    total_nll = (np.log(seen["perplexity"]) * seen["masked_tokens"]).sum()
    assert math.exp(total_nll / overall.n_tokens) == pytest.approx(overall.ppl, rel=1e-4)
    with pytest.raises(DataError, match="doc_ids"):
        perplexity_by_answer_location(model, tokenizer, examples.remove_columns("doc_ids"), "cdlm", window=8)
