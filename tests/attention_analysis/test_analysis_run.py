import math

import numpy as np

from cdlm_nb.attention_analysis.pairs import sample_mention_pairs
from cdlm_nb.attention_analysis.run import analyse_pairs, last_layer_source_attention


def test_both_attention_directions_match_a_manual_computation(tiny_tokenizer, longformer):
    """α_ij from `attentions[..., :|S|]` and α_ji from `global_attentions`, recomputed from the last layer's
    projections (a window wider than the input, so local attention is a full softmax)."""
    import torch

    model = longformer(tiny_tokenizer, window=32)
    seq, source = 12, [3, 4]
    ids = torch.randint(7, len(tiny_tokenizer), (1, seq))
    global_mask = torch.zeros_like(ids)
    global_mask[0, source] = 1
    with torch.no_grad():
        out = model.base_model(input_ids=ids, attention_mask=torch.ones_like(ids), global_attention_mask=global_mask,
                               output_attentions=True, output_hidden_states=True)
        attn_to, attn_from = last_layer_source_attention(out, 0, len(source), seq)
        layer = model.base_model.encoder.layer[-1].attention.self
        hidden = out.hidden_states[-2][0]

        def heads(x):
            return x.view(seq, 2, 8).transpose(0, 1)

        local = torch.softmax(heads(layer.query(hidden)) @ heads(layer.key(hidden)).transpose(1, 2) / math.sqrt(8), -1)
        global_query = heads(layer.query_global(hidden))[:, source]
        glob = torch.softmax(global_query @ heads(layer.key_global(hidden)).transpose(1, 2) / math.sqrt(8), -1)
    outside = [i for i in range(seq) if i not in source]
    np.testing.assert_allclose(attn_to[:, outside], local[:, outside][:, :, source].numpy(), atol=1e-6)
    np.testing.assert_allclose(attn_from, glob.transpose(1, 2).numpy(), atol=1e-6)


def test_analyse_pairs_gives_one_row_per_pair_and_reports_skips(tiny_tokenizer, corpus, longformer):
    pairs = sample_mention_pairs(corpus, n_pos=3, n_neg=3, kind="event", seed=0)
    model = longformer(tiny_tokenizer, window=4)
    table = analyse_pairs(model, tiny_tokenizer, pairs, corpus, model_name="tiny", max_length=512, batch_size=4)
    assert len(table) == len(pairs) == 6
    assert (table["status"] == "ok").all() and set(table["label"]) == {"pos", "neg"}
    assert table["percentile"].between(0, 100).all() and (table["candidates"] > 1).all()
    assert list(table["source"]) == [p.first.text for p in pairs]  # rows in the order of `pairs`
    one_by_one = analyse_pairs(model, tiny_tokenizer, pairs, corpus, model_name="tiny", max_length=512, batch_size=1)
    np.testing.assert_allclose(one_by_one["score"], table["score"], rtol=1e-5)  # padding in a batch changes nothing
    skipped = analyse_pairs(model, tiny_tokenizer, pairs, corpus, model_name="tiny", max_length=7)
    assert len(skipped) == 6 and (skipped["status"] != "ok").all() and skipped["percentile"].isna().all()
