"""The plan's memory model: its parts behave as the arithmetic says, and its peak matches a training step measured
on this CPU (fp32, Longformer-base width, 512 and 1,024 tokens) within 25 %."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from cdlm_nb.tooling.plan.cards import GIB
from cdlm_nb.tooling.plan.memory_model import (
    ACTIVATION_ELEMENTS,
    HALF_ACTIVATION_ELEMENTS,
    Shape,
    Step,
    keys_per_query,
    memory_parts,
    peak_bytes,
    step_flops,
)

BASE_WIDTH = Shape("base-width, 4 layers", 768, 4, 12, 3072, 1000, 1026, window=512, global_projections=True)
LONGFORMER_BASE = Shape("longformer-base", 768, 12, 12, 3072, 50267, 4098, window=512, global_projections=True)


def cdmlm_step(shape: Shape, tokens: int, **changes) -> Step:
    """A CD-MLM training step: 15 % of the tokens predicted and global."""
    share = round(0.15 * tokens)
    return replace(Step(shape, 1, tokens, True, global_tokens=share, predicted=share), **changes)


def test_longformer_base_has_its_published_parameter_count():
    assert LONGFORMER_BASE.parameters == pytest.approx(148.7e6, rel=0.002)  # with <doc-s>, </doc-s>


def test_half_precision_roughly_halves_the_activations_and_checkpointing_keeps_one_layer():
    full = memory_parts(cdmlm_step(LONGFORMER_BASE, 4096))
    half = memory_parts(cdmlm_step(LONGFORMER_BASE, 4096, precision="fp16"))
    checkpointed = memory_parts(cdmlm_step(LONGFORMER_BASE, 4096, precision="fp16", checkpointing=True))
    # two bytes an element, with what autocast keeps in fp32 counted as more elements
    assert full["activations"] / 2 < half["activations"] < full["activations"] / 2 * HALF_ACTIVATION_ELEMENTS / (
        ACTIVATION_ELEMENTS - 1)
    assert checkpointed["activations"] < half["activations"] / 4
    assert half["weights"] == 1.5 * full["weights"]  # autocast's half copies beside the fp32 weights


#: Training peaks measured by `benchmarks/plan_check.py` on an H100 80GB HBM3 (torch 2.11, random Longformer-base
#: with the fast attention): (batch, tokens, precision, global tokens, predicted tokens, max_memory_allocated GiB).
MEASURED_ON_H100 = [
    (16, 4096, "bf16", 614, 614, 52.37),  # CD-MLM pretraining
    (4, 4096, "fp16", 614, 614, 14.59),
    (16, 2960, "bf16", 614, 614, 40.59),
    (16, 4096, "bf16", 8, 0, 41.36),  # coreference fine-tuning
    (4, 4096, "fp16", 8, 0, 11.82),
    (16, 900, "bf16", 8, 0, 11.01),
    (16, 4096, "bf16", 40, 0, 41.68),  # multi-hop QA fine-tuning
    (4, 4096, "fp16", 40, 0, 11.91),
    (16, 1190, "bf16", 40, 0, 13.86),
]


@pytest.mark.parametrize(("batch", "tokens", "precision", "global_tokens", "predicted", "measured"), MEASURED_ON_H100)
def test_half_precision_training_peaks_match_the_ones_measured_on_a_gpu(batch, tokens, precision, global_tokens,
                                                                        predicted, measured):
    step = Step(LONGFORMER_BASE, batch, tokens, True, precision, global_tokens=global_tokens, predicted=predicted)
    assert peak_bytes(step) / GIB == pytest.approx(measured, rel=0.05)


def test_batch_scales_activations_not_the_static_parts():
    one, four = (memory_parts(cdmlm_step(LONGFORMER_BASE, 4096, batch=b)) for b in (1, 4))
    assert four["activations"] == pytest.approx(4 * one["activations"])
    assert four["optimizer"] == one["optimizer"] == 8 * LONGFORMER_BASE.parameters


def test_a_window_model_scores_its_window_and_the_global_keys():
    assert keys_per_query(cdmlm_step(LONGFORMER_BASE, 4096)) == 614 + 256 + 512
    assert keys_per_query(cdmlm_step(LONGFORMER_BASE, 512)) == 512  # one block of the whole sequence
    assert keys_per_query(Step(replace(LONGFORMER_BASE, window=0), 1, 4096, False)) == 4096


def test_training_costs_three_forwards_and_checkpointing_four():
    inference = step_flops(replace(cdmlm_step(LONGFORMER_BASE, 4096), training=False))
    assert step_flops(cdmlm_step(LONGFORMER_BASE, 4096)) == 3 * inference
    assert step_flops(cdmlm_step(LONGFORMER_BASE, 4096, checkpointing=True)) == 4 * inference
    assert 0.9e12 < inference < 1.5e12  # ~2 x 106 M layer weights x 4,096 tokens, plus attention and logits


MEASURE = """
import json, sys
import torch
from transformers import LongformerConfig
from cdlm_nb.longformer_attention import use_fast_attention
from cdlm_nb.support.memory import PeakMemory
from cdlm_nb.pretraining.trainer import MaskedPositionsLongformer

tokens = int(sys.argv[1])
torch.manual_seed(0)
config = LongformerConfig(vocab_size=1000, hidden_size=768, num_hidden_layers=4, num_attention_heads=12,
                          intermediate_size=3072, attention_window=512, max_position_embeddings=1026,
                          pad_token_id=1, type_vocab_size=1)
model = use_fast_attention(MaskedPositionsLongformer(config)).train()
ids = torch.randint(5, 1000, (1, tokens))
predicted = torch.rand(1, tokens) < 0.15
batch = dict(input_ids=ids, attention_mask=torch.ones_like(ids), global_attention_mask=predicted.long(),
             labels=torch.where(predicted, ids, torch.full_like(ids, -100)))
peak = PeakMemory()
model(**batch).loss.backward()
peak.stop()
print(json.dumps({"megabytes": peak.megabytes, "predicted": int(predicted.sum())}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("tokens", [512, 1024])
def test_the_model_matches_a_training_step_measured_on_this_cpu(tokens):
    """Forward and backward from a loaded model (no optimizer state yet): the measured growth of the process's
    peak memory against the model's gradients + activations + logits (CPU: the math attention path keeps scores)."""
    out = subprocess.run([sys.executable, "-c", MEASURE, str(tokens)], capture_output=True, text=True, check=True)
    measured = json.loads(out.stdout.strip().splitlines()[-1])
    step = Step(BASE_WIDTH, 1, tokens, True, global_tokens=measured["predicted"], predicted=measured["predicted"],
                keeps_scores=True)
    parts = memory_parts(step)
    modelled = (parts["gradients"] + parts["activations"] + parts["logits"]) / 2**20
    assert modelled == pytest.approx(measured["megabytes"], rel=0.25), (modelled, measured["megabytes"])
    assert peak_bytes(step) > modelled * 2**20
