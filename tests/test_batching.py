"""The one length-grouped batcher (pretraining and fine-tuning)."""

from __future__ import annotations

import random

from cdlm_nb.batching import length_grouped_batches, length_grouped_order


def test_scoring_batches_cover_every_input_once_in_length_order():
    lengths = [7, 3, 9, 1, 4, 4, 8]
    batches = length_grouped_batches(lengths, batch_size=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    widths = [max(lengths[i] for i in b) for b in batches]
    assert widths == sorted(widths)


def test_training_batches_are_hugging_faces_length_grouped_order_drawn_from_the_seed():
    import torch
    from transformers.trainer_pt_utils import get_length_grouped_indices

    rng = random.Random(0)
    lengths = [rng.randint(5, 500) for _ in range(300)]
    batches = length_grouped_batches(lengths, batch_size=4, seed=7)
    flat = [i for b in batches for i in b]
    assert flat == get_length_grouped_indices(lengths, 4, generator=torch.Generator().manual_seed(7))
    assert sorted(flat) == list(range(300)) and all(len(b) == 4 for b in batches)
    assert batches == length_grouped_batches(lengths, batch_size=4, seed=7)
    assert batches != length_grouped_batches(lengths, batch_size=4, seed=8)

    def padding(bs):
        return sum(len(b) * max(lengths[i] for i in b) - sum(lengths[i] for i in b) for b in bs)

    shuffled = rng.sample(range(300), 300)
    assert padding(batches) < padding([shuffled[i:i + 4] for i in range(0, 300, 4)]) / 3


def test_pretraining_order_passes_over_the_examples_in_length_groups():
    rng = random.Random(0)
    lengths = [rng.randint(50, 1000) for _ in range(400)]
    order = length_grouped_order(lengths, batch_size=4, steps=250, seed=3)  # 1,000 examples: 2.5 passes
    assert len(order) == 1000 and sorted(order[:400]) == list(range(400))  # each pass reads every example once
    assert order[:400] != order[400:800]  # a new order for each pass
    assert order == length_grouped_order(lengths, batch_size=4, steps=250, seed=3)  # fixed by the seed

    def padding(indices):
        batches = [indices[i:i + 4] for i in range(0, len(indices), 4)]
        return sum(4 * max(lengths[i] for i in b) - sum(lengths[i] for i in b) for b in batches)

    shuffled = random.Random(1).sample(range(400), 400)
    assert padding(order[:400]) < padding(shuffled) / 5
