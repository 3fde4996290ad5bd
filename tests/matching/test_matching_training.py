"""Batching of encoded document pairs: padding, the attention mask of each protocol, the global first token."""

import torch

from cdlm_nb.matching.inputs import MatchInput
from cdlm_nb.matching.training import collate

INPUTS = [MatchInput([0, 7, 8, 2], 0), MatchInput([0, 9, 2], 1)]


def test_paper_protocol_pads_masks_padding_and_makes_the_first_token_global():
    batch = collate(INPUTS, pad_id=1)
    assert list(batch) == ["input_ids", "attention_mask", "global_attention_mask"]
    assert batch["input_ids"].tolist() == [[0, 7, 8, 2], [0, 9, 2, 1]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    assert batch["global_attention_mask"].tolist() == [[1, 0, 0, 0], [1, 0, 0, 0]]
    assert all(values.dtype == torch.long for values in batch.values())


def test_released_protocol_attends_padding_and_sets_no_global_mask():
    batch = collate(INPUTS, pad_id=1, protocol="released")
    assert list(batch) == ["input_ids", "attention_mask"] and batch["attention_mask"].all()
    assert "global_attention_mask" not in collate(INPUTS, pad_id=1, global_first=False)


def test_local_protocol_masks_padding_and_makes_no_token_global():
    batch = collate(INPUTS, pad_id=1, protocol="local")
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    assert not batch["global_attention_mask"].any()  # explicit zeros: the classifier adds none on <s> itself


def test_local_protocol_keeps_the_first_token_out_of_reach_of_document_b():
    """With no global token, <s> of a tiny Longformer reads only its window: changing the far end of the input
    leaves its vector unchanged, while under "paper" it moves."""
    from transformers import LongformerConfig, LongformerModel

    torch.manual_seed(0)
    model = LongformerModel(LongformerConfig(vocab_size=20, hidden_size=16, num_hidden_layers=1,
                                             num_attention_heads=2, intermediate_size=32, attention_window=4,
                                             max_position_embeddings=64, pad_token_id=1)).eval()
    first, second = MatchInput([0] + [5] * 20 + [2], 0), MatchInput([0] + [5] * 19 + [9, 2], 0)

    def cls(item, protocol):
        with torch.no_grad():
            return model(**collate([item], pad_id=1, protocol=protocol)).last_hidden_state[0, 0]

    assert torch.allclose(cls(first, "local"), cls(second, "local"))
    assert not torch.allclose(cls(first, "paper"), cls(second, "paper"))
