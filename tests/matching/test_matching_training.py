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
