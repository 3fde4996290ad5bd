"""Repeated spans: where a span comes from, what is appended, and the share of inputs that get one."""

from __future__ import annotations

from itertools import permutations

import torch

from cdlm_nb.masking import CrossDocumentMLMCollator
from cdlm_nb.pretraining.copy_task import sentences
from cdlm_nb.pretraining.repeated_spans import RepeatedSpanCollator, repeat_span, spread_positions, text_runs

SEP, STOP = 2, 9  # `</s>` and a full stop in these made-up rows


def test_text_runs_are_the_maximal_maskable_stretches_of_at_least_the_minimum():
    maskable = torch.tensor([False, True, True, True, False, True, False, True, True])
    assert text_runs(maskable, minimum=2) == [(1, 4), (7, 9)]
    assert text_runs(maskable, minimum=1) == [(1, 4), (5, 6), (7, 9)]


def test_a_repeated_span_is_a_documents_start_with_its_sentences_reordered_and_the_row_fits():
    row = torch.tensor([0, 5, *range(10, 20), STOP, *range(20, 30), STOP, 6, 5, *range(40, 60), 6, 2])
    maskable = row > 6
    for seed in range(5):
        out = repeat_span(row, maskable, {STOP}, span=16, max_length=40, separator=SEP,
                          generator=torch.Generator().manual_seed(seed))
        keep = 40 - 16 - 2
        assert len(out) <= 40 and torch.equal(out[:keep], row[:keep])
        again = out[keep + 1:-1].tolist()
        assert out[keep] == SEP and out[-1] == SEP and len(again) == 16
        starts = [start for start, _ in text_runs(maskable[:keep], minimum=8)]
        orders = {tuple(token for part in order for token in part)
                  for s in starts for order in permutations(sentences(row[s:s + 16].tolist(), {STOP}))}
        assert tuple(again) in orders


def test_a_row_without_a_long_enough_document_is_left_as_it_is():
    row = torch.tensor([0, 5, 11, 12, 6, 2])
    assert torch.equal(repeat_span(row, row > 6, {STOP}, span=16, max_length=64, separator=SEP), row)


def test_the_collator_repeats_a_span_in_about_its_share_of_the_rows(tiny_tokenizer):
    text = "The trial was held in Harare. Jurors convicted Yuki Petrov. The court met again on Monday. " * 3
    ids = tiny_tokenizer(text)["input_ids"][:100]
    torch.manual_seed(0)
    every = RepeatedSpanCollator(CrossDocumentMLMCollator(tiny_tokenizer, pattern="local"), 1.0, 24, 128)
    batch = every([{"input_ids": ids}] * 4)
    assert batch["input_ids"].shape[1] > len(ids) - 1  # cut to 128 - 26, then 26 tokens appended
    assert (batch["labels"] != -100).any()
    none = RepeatedSpanCollator(CrossDocumentMLMCollator(tiny_tokenizer, pattern="local"), 0.0, 24, 128)
    assert none([{"input_ids": ids}] * 4)["input_ids"].shape[1] == len(ids)


def test_spread_positions_start_each_row_at_an_offset_inside_the_positions_and_pad_with_the_padding_index():
    lengths, positions, padding = [5, 3, 7], 20, 1
    ids = spread_positions(lengths, positions, padding, torch.Generator().manual_seed(0))
    for row, length in zip(ids, lengths):
        used = row[:length]
        assert torch.equal(used, used[0] + torch.arange(length)) and (row[length:] == padding).all()
        assert padding + 1 <= used[0] and used[-1] <= padding + positions  # inside the embeddings trained
    starts = {int(spread_positions([4], 1024, padding)[0, 0]) for _ in range(20)}
    assert len(starts) > 10  # spread, not all from the first position


def test_the_collator_adds_position_ids_only_when_asked(tiny_tokenizer):
    ids = tiny_tokenizer("The trial was held in Harare. Jurors convicted Yuki Petrov.")["input_ids"]
    spread = RepeatedSpanCollator(CrossDocumentMLMCollator(tiny_tokenizer, pattern="local"), 1.0, 8, 64, positions=256)
    batch = spread([{"input_ids": ids}] * 3)
    assert batch["position_ids"].shape == batch["input_ids"].shape
    assert int(batch["position_ids"].max()) <= tiny_tokenizer.pad_token_id + 256
    plain = RepeatedSpanCollator(CrossDocumentMLMCollator(tiny_tokenizer, pattern="local"), 1.0, 8, 64)
    assert "position_ids" not in plain([{"input_ids": ids}])
