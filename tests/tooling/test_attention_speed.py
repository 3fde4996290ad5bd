"""Notebook 02's timed steps: Hugging Face's attention against the fused one, and global attention's cost."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cdlm_nb.longformer_attention import uses_fast_attention
from cdlm_nb.profiles import get_profile
from cdlm_nb.tooling import attention_speed as speed


def _smoke(max_length: int = 128):
    smoke = get_profile("smoke")
    return smoke.override(pretrain=replace(smoke.pretrain, max_length=max_length, per_device_batch_size=2))


def test_attention_speed_times_every_step_in_rounds_on_copies(tiny_encoder, word_clusters):
    times = speed.attention_speed(_smoke(), word_clusters, tiny_encoder, rounds=2)
    assert set(times.rounds) == {"hf", "ours", "ours_local"} and times.tokens > 0
    assert all(len(seconds) == 2 and min(seconds) > 0 for seconds in times.rounds.values())
    assert uses_fast_attention(tiny_encoder.model)  # the encoder itself is not swapped


def _times(hf, local):
    ours = (1.0, 1.2, 0.9, 1.0, 1.1, 1.0)
    rounds = {"hf": tuple(hf * s for s in ours), "ours": ours, "ours_local": tuple(s / local for s in ours)}
    return speed.StepTimes(rounds, tokens=1000)


def test_speed_metrics_and_table_come_from_the_rounds():
    times = _times(hf=4.0, local=1.25)
    metrics = speed.speed_metrics(times)
    assert metrics["pretrain/step_tokens_per_s/ours"] == pytest.approx(1000.0)
    assert metrics["pretrain/step_tokens_per_s/hf"] == pytest.approx(250.0)
    assert metrics["pretrain/attention_speedup"] == pytest.approx(4.0)
    assert metrics["pretrain/global_attention_slowdown/ci_low"] == pytest.approx(1.25)
    table = speed.speed_table(times)
    assert table.loc["hf", "× fused CDLM step"] == 4.0 and table.loc["ours_local", "global tokens"] == "none"
    assert "6 timed rounds" in table.attrs["caption"]


@pytest.mark.parametrize(("hf", "local", "fused", "cost"), [
    (4.0, 1.25, "the fused attention is faster", "a cost beyond the timing noise"),
    (0.5, 0.8, "the fused attention is slower", "faster with them, beyond the timing noise"),
])
def test_readings_say_faster_or_a_cost_only_beyond_the_interval(hf, local, fused, cost):
    first, second = speed.speed_readings(_times(hf, local))
    assert first.endswith(f": {fused}.") and second.endswith(f": {cost}.") and "over 6 rounds" in first


def test_ratios_whose_interval_holds_1_are_read_as_no_difference():
    noisy = (1.0, 1.2, 0.8, 1.0, 1.1, 0.9)
    times = speed.StepTimes({"hf": noisy, "ours": (1.0,) * 6, "ours_local": noisy[::-1]}, tokens=10)
    first, second = speed.speed_readings(times)
    assert first.endswith("neither is faster beyond the timing noise.")
    assert second.endswith("no cost beyond the timing noise.")
