import pytest
import torch

from cdlm_nb import timing


def test_steps_are_timed_in_rounds_after_a_warm_up_round(monkeypatch):
    calls, clock = [], iter(range(100))
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(clock))
    times = timing.interleaved_times([lambda: calls.append("a"), lambda: calls.append("b")], rounds=3)
    assert calls == ["a", "b"] * 4  # one warm-up round, then three timed rounds, interleaved
    assert times == [(1, 1, 1), (1, 1, 1)]  # every fake step took one tick


def test_steps_on_a_gpu_are_timed_from_and_to_an_idle_device(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: calls.append("sync"))
    timing.interleaved_times([lambda: calls.append("a")], rounds=1, device="cuda")
    assert calls == ["sync", "a", "sync"] * 2  # CUDA kernels run asynchronously: the clock must wait for them
    calls.clear()
    timing.interleaved_times([lambda: calls.append("a")], rounds=1, device="cpu")
    assert calls == ["a", "a"]


@pytest.mark.parametrize(("low", "high", "side"), [(1.1, 1.3, "below"), (1.6, 1.8, "above"),
                                                   (1.3, 1.6, "not distinguishable from")])
def test_an_interval_is_below_or_above_a_limit_only_as_a_whole(low, high, side):
    assert timing.side(low, high, 1.5) == side


def test_a_ratio_pairs_rounds_and_takes_the_median():
    """Round 3 is a slow spell for both steps: paired, it does not move the ratio."""
    value, low, high = timing.ratio([2.0, 2.2, 8.0, 2.0, 2.1], [1.0, 1.1, 4.0, 1.0, 1.05])
    assert value == pytest.approx(2.0) and low == pytest.approx(2.0) and high == pytest.approx(2.0)
    value, low, high = timing.ratio([1.0, 3.0, 2.0], [1.0, 1.0, 1.0])
    assert value == 2.0 and low <= 2.0 <= high and low < high


def test_a_ratio_is_described_with_its_interval_and_rounds():
    assert timing.describe(1.414, 1.336, 1.49, 10, "faster") == "1.41× faster (95 % interval 1.34-1.49 over 10 rounds)"
