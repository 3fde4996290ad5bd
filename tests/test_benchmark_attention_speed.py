"""The attention benchmark's work bound (`benchmarks/attention_speed.py`), checked against a direct count."""

from __future__ import annotations

import importlib.util
import sys

import pytest
import torch

from tests.conftest import REPO_ROOT

spec = importlib.util.spec_from_file_location("attention_speed", REPO_ROOT / "benchmarks" / "attention_speed.py")
bench = sys.modules["attention_speed"] = importlib.util.module_from_spec(spec)  # dataclasses look it up
spec.loader.exec_module(bench)

SIZE = bench.Size("t", hidden_size=8, num_layers=2, num_heads=2, intermediate_size=8, vocab_size=50,
                  attention_window=6, dropout=0.0)


def _pairs_by_hand(is_global: torch.Tensor, one_side: int) -> int:
    """(query, key) pairs of the exact Longformer attention, one by one."""
    length = is_global.shape[0]
    pairs = 0
    for i in range(length):
        window = [j for j in range(max(0, i - one_side), min(length, i + one_side + 1)) if not is_global[j]]
        pairs += len(window) + int(is_global.sum())  # its window, then every global key
        pairs += length if is_global[i] else 0  # a global query reads every key
    return pairs


@pytest.mark.parametrize("length", [5, 17, 40])
def test_attention_gflop_counts_every_query_key_pair(length):
    is_global = bench.random_batch("hf", SIZE, length, 1, "cpu")["global_attention_mask"][0].bool()
    expected = 3 * 4 * _pairs_by_hand(is_global, 3) * SIZE.hidden_size * SIZE.num_layers / 1e9
    assert bench.attention_gflop(SIZE, length, 1) == pytest.approx(expected)


def test_bounds_add_the_attention_work_to_the_rest_of_the_step():
    rows = [{"config": "t", "tokens": 40, "impl": "floor", "seconds_per_step": 0.5},
            {"config": "t", "tokens": 40, "impl": "hf", "seconds_per_step": 2.0}]
    (bound,) = bench.bounds(rows, {"t": SIZE}, 1, gflops=1e-6)
    work = bench.attention_gflop(SIZE, 40, 1)
    assert bound["tokens_per_s"] == pytest.approx(40 / (0.5 + work / 1e-6))
    assert bench.bounds(rows[1:], {"t": SIZE}, 1, 1.0) == []  # only `floor` rows have a bound
