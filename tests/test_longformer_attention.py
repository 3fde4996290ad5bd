import copy

import pytest
import torch
from transformers import LongformerConfig, LongformerForMaskedLM

from cdlm_nb import longformer_attention
from cdlm_nb.attention_dropout import blocked_attention
from cdlm_nb.longformer_attention import (
    FastLongformerSelfAttention,
    block_size,
    global_slots,
    layout,
    use_fast_attention,
    use_hf_attention,
    uses_fast_attention,
)

WINDOW = 8  # 4 tokens each side


def random_longformer(seed: int = 0, dropout: float = 0.0, window: int = WINDOW) -> LongformerForMaskedLM:
    torch.manual_seed(seed)
    config = LongformerConfig(vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=48, attention_window=window, max_position_embeddings=300,
                              pad_token_id=1, hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout)
    return LongformerForMaskedLM(config)


def global_mask(pattern: str, batch: int, length: int, generator: torch.Generator) -> torch.Tensor:
    """The global patterns the notebooks use: none, one token (a classifier's <s>), CD-MLM's masked tokens (15 %
    random positions, a different number per row), the first 15 % (a question's tokens)."""
    mask = torch.zeros(batch, length, dtype=torch.long)
    if pattern == "one":
        mask[:, 0] = 1
    elif pattern == "masked-tokens":
        mask = (torch.rand(batch, length, generator=generator) < 0.15).long()
    elif pattern == "first-15%":
        mask[:, : max(1, int(0.15 * length))] = 1
    return mask


def batch_for(length: int, pattern: str, seed: int = 0) -> dict:
    """Three rows: full, padded over its last third, and full again; ids and global mask from `seed`."""
    generator = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(3, 60, (3, length), generator=generator)
    attention_mask = torch.ones_like(input_ids)
    attention_mask[1, length - max(1, length // 3):] = 0
    input_ids[1][attention_mask[1] == 0] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask,
            "global_attention_mask": global_mask(pattern, 3, length, generator)}


def hidden_and_grads(model: LongformerForMaskedLM, batch: dict) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Last hidden states and the gradient of every parameter for a fixed, position-dependent loss."""
    model.zero_grad()
    hidden = model.longformer(**batch).last_hidden_state
    weights = torch.linspace(-1.0, 1.0, hidden.numel()).view_as(hidden)
    (hidden * weights).sum().backward()
    return hidden.detach(), {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}


def assert_same_function_and_gradients(reference: LongformerForMaskedLM, batch: dict) -> None:
    """The fast attention on a copy of `reference` gives its hidden states (1e-5) and every gradient (1e-4)."""
    fast = use_fast_attention(copy.deepcopy(reference))
    expected_hidden, expected_grads = hidden_and_grads(reference, batch)
    hidden, grads = hidden_and_grads(fast, batch)
    torch.testing.assert_close(hidden, expected_hidden, atol=1e-5, rtol=0)
    assert grads.keys() == expected_grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(grad, expected_grads[name], atol=1e-4, rtol=0, msg=name)


@pytest.mark.parametrize("length", [3, 8, 13, 40, 67])  # shorter than the window, not a multiple of it, ...
@pytest.mark.parametrize("pattern", ["none", "one", "masked-tokens", "first-15%"])
def test_fast_attention_computes_hugging_faces_function_and_gradients(length, pattern):
    assert_same_function_and_gradients(random_longformer(), batch_for(length, pattern, seed=length))


@pytest.mark.parametrize("largest_block", [2, 4, 16, 64])  # below, at and above the one-sided window of 4
@pytest.mark.parametrize("pattern", ["one", "masked-tokens"])  # blocks of w, blocks up to largest_block
def test_every_query_block_size_gives_the_same_function(largest_block, pattern, monkeypatch):
    reference = random_longformer()
    fast = use_fast_attention(copy.deepcopy(reference))
    monkeypatch.setattr(FastLongformerSelfAttention, "largest_block", largest_block)
    batch = batch_for(37, pattern)
    with torch.no_grad():
        torch.testing.assert_close(fast.longformer(**batch).last_hidden_state,
                                   reference.longformer(**batch).last_hidden_state, atol=1e-5, rtol=0)


def test_padding_tokens_get_the_same_zero_attention_output_as_in_hugging_face():
    fast = use_fast_attention(random_longformer())
    attention = fast.longformer.encoder.layer[0].attention.self
    hidden = torch.randn(1, 16, 32)
    mask = torch.zeros(1, 16)
    mask[0, 10:] = -10000.0
    mask[0, 3] = 10000.0
    out = attention(hidden, attention_mask=mask, is_index_masked=mask < 0, is_index_global_attn=mask > 0,
                    is_global_attn=True)[0]
    assert torch.isfinite(out).all()
    assert (out[0, 10:] == 0).all() and (out[0, :10] != 0).any(dim=-1).all()


def test_attention_maps_are_hugging_faces_own():
    reference = random_longformer()
    fast = use_fast_attention(copy.deepcopy(reference))
    batch = batch_for(20, "masked-tokens")
    with torch.no_grad():
        expected = reference.longformer(**batch, output_attentions=True)
        got = fast.longformer(**batch, output_attentions=True)
    for name in ("attentions", "global_attentions"):
        for a, b in zip(getattr(got, name), getattr(expected, name), strict=True):
            torch.testing.assert_close(a, b, atol=1e-6, rtol=0)


def test_inference_mode_runs_the_same_function():  # its tensors keep no version counter (coref scoring uses it)
    reference = random_longformer()
    fast = use_fast_attention(copy.deepcopy(reference))
    batch = batch_for(30, "masked-tokens")
    with torch.inference_mode():
        torch.testing.assert_close(fast.longformer(**batch).last_hidden_state,
                                   reference.longformer(**batch).last_hidden_state, atol=1e-5, rtol=0)


def test_dropout_applies_in_training_only():
    model = use_fast_attention(random_longformer(dropout=0.5))
    batch = batch_for(24, "masked-tokens")
    model.train()
    first, second = (model.longformer(**batch).last_hidden_state for _ in range(2))
    assert not torch.allclose(first, second)
    model.eval()
    first, second = (model.longformer(**batch).last_hidden_state for _ in range(2))
    torch.testing.assert_close(first, second, atol=0, rtol=0)


def test_the_swap_shares_weights_keeps_the_state_dict_and_goes_back():
    model = random_longformer()
    keys = list(model.state_dict())
    query = model.longformer.encoder.layer[0].attention.self.query
    use_fast_attention(model)
    assert uses_fast_attention(model) and list(model.state_dict()) == keys
    assert model.longformer.encoder.layer[0].attention.self.query is query
    assert use_fast_attention(model) is model  # swapping twice is harmless
    use_hf_attention(model)
    assert not uses_fast_attention(model) and model.longformer.encoder.layer[0].attention.self.query is query


def test_a_checkpoint_saved_either_way_loads_and_runs_either_way(tmp_path):
    reference = random_longformer()
    batch = batch_for(30, "masked-tokens")
    with torch.no_grad():
        expected = reference(**batch).logits
    use_fast_attention(reference).save_pretrained(tmp_path / "fast")
    loaded = LongformerForMaskedLM.from_pretrained(tmp_path / "fast", use_safetensors=True)
    with torch.no_grad():
        torch.testing.assert_close(loaded(**batch).logits, expected, atol=1e-5, rtol=0)
        torch.testing.assert_close(use_fast_attention(loaded)(**batch).logits, expected, atol=1e-5, rtol=0)


def test_blocks_are_the_window_without_global_tokens_and_larger_with_many():
    assert block_size(one_side=32, length=4096, n_global=0) == 32
    assert block_size(one_side=32, length=4096, n_global=614) == 256
    assert block_size(one_side=32, length=128, n_global=40) == 128  # never above the length
    assert block_size(one_side=256, length=4096, n_global=614) == 256


def test_short_inputs_with_a_wide_window_run_as_one_block_of_the_whole_sequence():
    flags = torch.zeros(1, 512, dtype=torch.bool)
    is_global = torch.rand(1, 512, generator=torch.Generator().manual_seed(0)) < 0.15
    assert layout(flags, is_global, one_side=256, dtype=torch.float32).whole  # Longformer-base at 512 tokens
    assert not layout(flags, is_global, one_side=32, dtype=torch.float32).whole  # the cpu profile's window
    long_flags, long_global = torch.zeros(1, 4096, dtype=torch.bool), torch.zeros(1, 4096, dtype=torch.bool)
    assert not layout(long_flags, long_global, one_side=256, dtype=torch.float32).whole


@pytest.mark.parametrize("length, largest_block, whole", [(40, 256, True), (40, 8, False)])
def test_both_layouts_compute_the_function_and_gradients(length, largest_block, whole, monkeypatch):
    monkeypatch.setattr(FastLongformerSelfAttention, "largest_block", largest_block)
    batch = batch_for(length, "masked-tokens", seed=1)
    shape = layout(batch["attention_mask"] == 0, batch["global_attention_mask"].bool(), one_side=WINDOW // 2,
                   dtype=torch.float32, largest_block=largest_block)
    assert shape.whole == whole
    assert_same_function_and_gradients(random_longformer(), batch)


def test_global_slots_lists_each_rows_global_positions_in_order():
    is_global = torch.tensor([[False, True, False, True], [False, False, False, False], [True, False, False, False]])
    slots, real = global_slots(is_global)
    assert slots[0].tolist() == [1, 3] and slots[2][:1].tolist() == [0]
    assert real.tolist() == [[True, True], [False, False], [True, False]]


def test_a_fast_model_pads_to_the_window_only_for_attention_maps():
    """Its layers run over the input's own length; Hugging Face's chunks (attention maps) still get their padding."""
    fast = use_fast_attention(random_longformer(window=32))
    lengths = []
    fast.longformer.encoder.layer[0].register_forward_pre_hook(lambda module, args: lengths.append(args[0].shape[1]))
    batch = batch_for(20, "masked-tokens")
    with torch.no_grad():
        hidden = fast.longformer(**batch).last_hidden_state
        maps = fast.longformer(**batch, output_attentions=True)
    assert lengths == [20, 32] and hidden.shape[1] == maps.last_hidden_state.shape[1] == 20
    torch.testing.assert_close(hidden, maps.last_hidden_state, atol=1e-5, rtol=0)
    use_hf_attention(fast)
    with torch.no_grad():
        fast.longformer(**batch)
    assert lengths[-1] == 32  # Hugging Face's attention: padded again


@pytest.mark.parametrize("length, largest_block", [(13, 256), (40, 256), (67, 8), (67, 256)])
@pytest.mark.parametrize("pattern", ["none", "masked-tokens"])
def test_training_with_dropout_on_the_cpu_computes_the_same_function(length, largest_block, pattern, monkeypatch):
    """Attention dropout in training runs `blocked_attention` on the CPU; with p so small that nothing is dropped
    it is Hugging Face's function and gradients, for both layouts."""
    monkeypatch.setattr(FastLongformerSelfAttention, "largest_block", largest_block)
    calls = []
    monkeypatch.setattr(longformer_attention, "blocked_attention",
                        lambda *args: calls.append(args[-1]) or blocked_attention(*args))
    reference = random_longformer(dropout=1e-12).train()
    assert_same_function_and_gradients(reference, batch_for(length, pattern, seed=length))
    assert calls and set(calls) == {1e-12}


def test_one_layer_on_one_input_is_the_layer_inside_the_model():
    model = random_longformer()  # Hugging Face's attention; window 8, so 16 tokens need no padding
    batch = {"input_ids": torch.randint(3, 60, (1, 16), generator=torch.Generator().manual_seed(1)),
             "global_attention_mask": torch.zeros(1, 16, dtype=torch.long)}
    batch["global_attention_mask"][0, [0, 9]] = 1
    with torch.no_grad():
        hidden = model.longformer.embeddings(input_ids=batch["input_ids"])[0]
        expected = model.longformer(**batch, output_hidden_states=True).hidden_states[1][0]
    layer = model.longformer.encoder.layer[0]
    for attention in (layer.attention.self, FastLongformerSelfAttention.from_hf(layer.attention.self)):
        out = longformer_attention.self_attention_output(attention, hidden, batch["global_attention_mask"][0].bool())
        assert out.shape == hidden.shape and not out.requires_grad
        with torch.no_grad():  # the rest of the layer: attention output projection, feed-forward
            after = layer.output(layer.intermediate(attn := layer.attention.output(out, hidden)), attn)
        torch.testing.assert_close(after, expected, atol=1e-5, rtol=0)
