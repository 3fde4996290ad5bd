"""The shared padding collator: every field padded with its own value and dtype to its own longest row, the
attention mask of `input_ids`, rounding to a multiple, and position indicators."""

import pytest
import torch

from cdlm_nb.collate import indicator, pad_batch
from cdlm_nb.support.errors import ConfigError


def test_each_field_is_padded_with_its_value_and_dtype():
    rows = [{"input_ids": [5, 6, 7], "labels": [-100, 6, -100], "first_mask": [0.0, 1.0, 1.0],
             "span_mask": [True, False, True], "positions": [1]},
            {"input_ids": [8], "labels": [8], "first_mask": [1.0], "span_mask": [True], "positions": [0, 2, 4]}]
    batch = pad_batch(rows, {"input_ids": 1, "labels": -100},
                      dtypes={"first_mask": torch.float, "span_mask": torch.bool})
    assert list(batch) == ["input_ids", "attention_mask", "labels", "first_mask", "span_mask", "positions"]
    assert batch["input_ids"].tolist() == [[5, 6, 7], [8, 1, 1]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch["labels"].tolist() == [[-100, 6, -100], [8, -100, -100]]
    assert batch["first_mask"].tolist() == [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
    assert batch["span_mask"].tolist() == [[True, False, True], [True, False, False]]
    assert batch["positions"].tolist() == [[1, 0, 0], [0, 2, 4]]  # its own width, not the tokens'
    dtypes = {key: value.dtype for key, value in batch.items()}
    assert dtypes == {"input_ids": torch.long, "attention_mask": torch.long, "labels": torch.long,
                      "first_mask": torch.float, "span_mask": torch.bool, "positions": torch.long}


def test_tensor_rows_keep_their_values_and_take_the_field_dtype():
    rows = [{"input_ids": torch.tensor([3, 4], dtype=torch.int32)}, {"input_ids": torch.tensor([5])}]
    batch = pad_batch(rows, {"input_ids": 1})
    assert batch["input_ids"].dtype == torch.long and batch["input_ids"].tolist() == [[3, 4], [5, 1]]


def test_each_field_pads_with_its_value_and_the_width_is_at_least_one():
    batch = pad_batch([{"input_ids": [2] * 5, "labels": [2] * 5}, {"input_ids": [2] * 2, "labels": [2] * 2}],
                      {"input_ids": 1, "labels": -100})
    assert batch["input_ids"].tolist() == [[2] * 5, [2, 2, 1, 1, 1]]
    assert batch["labels"].tolist() == [[2] * 5, [2] * 2 + [-100] * 3]
    assert batch["attention_mask"].tolist() == [[1] * 5, [1] * 2 + [0] * 3]
    empty = pad_batch([{"input_ids": [4], "positions": []}, {"input_ids": [4], "positions": []}])
    assert empty["positions"].shape == (2, 1) and not empty["positions"].any()


def test_without_attention_mask_and_an_empty_batch():
    assert list(pad_batch([{"input_ids": [1, 2]}], attention_mask=False)) == ["input_ids"]
    with pytest.raises(ConfigError, match="empty batch"):
        pad_batch([])


def test_indicator_marks_positions():
    assert indicator([0, 2], 4).tolist() == [1, 0, 1, 0] and indicator([0, 2], 4).dtype == torch.long
    assert indicator([], 3).tolist() == [0, 0, 0]
    assert indicator([1], 2, torch.float).tolist() == [0.0, 1.0]
