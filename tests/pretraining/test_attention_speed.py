"""Notebook 02's one-step comparison of the two self-attention implementations."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from cdlm_nb.longformer_attention import uses_fast_attention
from cdlm_nb.pretraining.attention_speed import attention_speed, cdlm_batch, speed_metrics, speed_reading
from cdlm_nb.profiles import get_profile


def _smoke(max_length: int = 128):
    smoke = get_profile("smoke")
    return smoke.override(pretrain=replace(smoke.pretrain, max_length=max_length, per_device_batch_size=2))


def test_the_batch_is_cdlms_masked_tokens_made_global(tiny_encoder, word_clusters):
    batch = cdlm_batch(_smoke(), word_clusters, tiny_encoder)
    predicted = batch["labels"] != -100
    assert batch["input_ids"].shape[0] == 1 and predicted.any()  # one input: HF's attention keeps its scores
    assert cdlm_batch(_smoke(), word_clusters, tiny_encoder, size=2)["input_ids"].shape[0] == 2
    assert (batch["global_attention_mask"].bool() | ~predicted).all()  # every predicted token is global


def test_attention_speed_times_both_implementations_on_copies(tiny_encoder, word_clusters):
    table = attention_speed(_smoke(), word_clusters, tiny_encoder, repeats=1)
    assert list(table.index) == ["hf", "ours"] and (table["seconds_per_step"] > 0).all()
    assert table.loc["hf", "speed-up"] == 1.0
    assert uses_fast_attention(tiny_encoder.model)  # the encoder itself is not swapped


def test_speed_metrics_and_reading_come_from_the_table():
    table = pd.DataFrame({"seconds_per_step": [2.0, 0.5], "tokens_per_s": [100.0, 400.0], "speed-up": [1.0, 4.0]},
                         index=pd.Index(["hf", "ours"], name="attention"))
    assert speed_metrics(table) == {"pretrain/step_tokens_per_s/hf": 100.0, "pretrain/step_tokens_per_s/ours": 400.0,
                                    "pretrain/attention_speedup": 4.0}
    assert "2.00 s with Hugging Face's attention and 0.50 s" in speed_reading(table)
    assert "4.0x faster" in speed_reading(table)
    table["speed-up"] = [1.0, 0.5]
    assert "2.0x slower" in speed_reading(table)
