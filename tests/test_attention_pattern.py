import random

import numpy as np
import pytest
import torch

from cdlm_nb.attention_pattern import (
    GLOBAL_ATTENTION,
    LOCAL_ATTENTION,
    NO_ATTENTION,
    attention_kinds,
    attention_pattern_matrix,
    attention_statistics,
    cross_document_reach,
    global_fraction,
    pattern_metrics,
    pattern_statistics,
)
from cdlm_nb.inputs import pack_cluster
from cdlm_nb.masking import CrossDocumentMLMCollator, collators_by_pattern
from cdlm_nb.support.errors import ConfigError

DOCUMENTS = [
    "Jurors convicted Yuki Petrov in Bulawayo. A fine of $978,703 was imposed. The trial lasted weeks.",
    "The trial lasted several weeks. Reporters waited outside. A fine of $978,703 was imposed on Petrov.",
    "Local radio stations interrupted their programmes. Yuki Petrov will appeal, his lawyers said.",
]


def longformer_definition(attention_mask, global_mask, window):
    """The rule written out token by token: i reads j when both are attended and |i-j| <= w/2 or one is global."""
    n = len(attention_mask)
    allowed = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            if attention_mask[i] and attention_mask[j]:
                allowed[i, j] = abs(i - j) <= window // 2 or bool(global_mask[i]) or bool(global_mask[j])
    return allowed


@pytest.mark.parametrize("seed", range(5))
def test_attention_pattern_matrix_follows_longformers_rule(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    attention_mask = np.ones(n, dtype=int)
    attention_mask[n - int(rng.integers(0, 4)):] = 0
    global_mask = (rng.random(n) < 0.2).astype(int)
    window = int(rng.choice([2, 4, 8]))
    expected = longformer_definition(attention_mask, global_mask, window)
    np.testing.assert_array_equal(attention_pattern_matrix(attention_mask, global_mask, window), expected)


def test_attention_kinds_separates_the_window_from_global_attention():
    kinds = attention_kinds(torch.tensor([[1, 1, 1, 1, 1, 1, 0]]), torch.tensor([[0, 0, 0, 0, 0, 1, 0]]), window=2)
    assert kinds[0, 1] == LOCAL_ATTENTION and kinds[1, 0] == LOCAL_ATTENTION and kinds[0, 2] == NO_ATTENTION
    assert kinds[0, 5] == GLOBAL_ATTENTION and kinds[5, 0] == GLOBAL_ATTENTION
    assert kinds[5, 4] == LOCAL_ATTENTION  # inside the window it counts as local
    assert (kinds[6] == NO_ATTENTION).all() and (kinds[:, 6] == NO_ATTENTION).all()  # padding


@pytest.mark.slow
def test_attention_pattern_matrix_matches_hugging_face_longformer():
    from transformers import LongformerConfig, LongformerModel

    window, n = 4, 21
    config = LongformerConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                              intermediate_size=32, attention_window=window, max_position_embeddings=64, pad_token_id=1)
    torch.manual_seed(0)
    model = LongformerModel(config).eval()
    input_ids = torch.randint(5, 50, (1, n))
    attention_mask = torch.ones(1, n, dtype=torch.long)
    attention_mask[0, -3:] = 0
    input_ids[0, -3:] = 1
    global_mask = torch.zeros(1, n, dtype=torch.long)
    global_mask[0, [0, 10]] = 1
    with torch.no_grad():
        out = model(input_ids, attention_mask=attention_mask, global_attention_mask=global_mask, output_attentions=True)
    local, from_global = out.attentions[0][0], out.global_attentions[0][0]  # (heads, seq, x + w + 1), (heads, seq, x)
    globals_ = global_mask[0].nonzero().flatten().tolist()
    x, half = len(globals_), window // 2
    seen = np.zeros((n, n), dtype=bool)
    for i in range(n):
        if i in globals_:
            seen[i] = (from_global[:, :n, globals_.index(i)] > 0).any(0).numpy()
            continue
        for k, j in enumerate(globals_):
            seen[i, j] |= bool((local[:, i, k] > 0).any())
        for offset in range(-half, half + 1):
            if 0 <= i + offset < n:
                seen[i, i + offset] |= bool((local[:, i, x + offset + half] > 0).any())
    np.testing.assert_array_equal(attention_pattern_matrix(attention_mask, global_mask, window), seen)


def test_attention_pattern_rejects_bad_input():
    with pytest.raises(ConfigError, match="even"):
        attention_pattern_matrix([1, 1], [0, 0], window=3)
    with pytest.raises(ConfigError, match="differ in length"):
        attention_pattern_matrix([1, 1, 1], [0, 0], window=2)
    with pytest.raises(ConfigError, match="one row"):
        attention_pattern_matrix(np.ones((2, 3)), np.zeros((2, 3)), window=2)


def test_global_fraction_counts_attended_tokens_only():
    assert global_fraction([1, 0, 0, 1]) == 0.5
    assert global_fraction([1, 0, 0, 1], attention_mask=[1, 1, 0, 0]) == 0.5
    with pytest.raises(ConfigError):
        global_fraction([0, 0], attention_mask=[0, 0])


def test_cross_document_reach_is_the_share_of_other_documents_tokens_read():
    doc_ids = [-1, 0, 0, 0, 1, 1, 1, -1]
    local = attention_pattern_matrix([1] * 8, [0] * 8, window=2)
    assert cross_document_reach(local, doc_ids, [3]) == pytest.approx(1 / 3)  # reads position 4 only
    assert cross_document_reach(local, doc_ids, [1]) == 0.0
    with_global = attention_pattern_matrix([1] * 8, [0, 1, 0, 0, 0, 0, 0, 0], window=2)
    assert cross_document_reach(with_global, doc_ids, [1]) == 1.0
    with pytest.raises(ConfigError):
        cross_document_reach(local, doc_ids, [0])  # <s> is in no document


def test_attention_statistics_average_over_examples(tiny_tokenizer):
    rng = random.Random(0)
    examples = [vars(pack_cluster(DOCUMENTS, tiny_tokenizer, 200, rng)) for _ in range(3)]
    cdlm = attention_statistics(CrossDocumentMLMCollator(tiny_tokenizer, pattern="cdlm", seed=1), examples, window=4)
    local = attention_statistics(CrossDocumentMLMCollator(tiny_tokenizer, pattern="local", seed=1), examples, window=4)
    assert cdlm["cross_doc_reach"] == 1.0 and cdlm["global_fraction"] == pytest.approx(0.15, abs=0.03)
    assert local["global_fraction"] == 0.0 and 0.0 <= local["cross_doc_reach"] < 0.05
    assert cdlm["examples"] == 3 and cdlm["single_document"] == 0




def test_pattern_statistics_and_their_recorded_keys(tiny_tokenizer):
    rng = random.Random(0)
    examples = [vars(pack_cluster(DOCUMENTS, tiny_tokenizer, 200, rng)) for _ in range(2)]
    stats = pattern_statistics(collators_by_pattern(tiny_tokenizer, ("cdlm", "local"), seed=1), examples, window=4)
    assert list(stats) == ["cdlm", "local"] and stats["local"]["global_fraction"] == 0.0
    assert pattern_metrics(stats) == {f"masking/{name}/{p}": stats[p][name] for p in ("cdlm", "local")
                                      for name in ("global_fraction", "cross_doc_reach")}
