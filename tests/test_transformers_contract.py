"""What `longformer_attention` and `fast_dropout` rely on in the pinned transformers, checked so that a release which
changes it fails here rather than silently in a notebook; and that they plug in through public seams only (child
modules, public registries called explicitly), registering nothing at import."""

from __future__ import annotations

import copy
import inspect
import json
import subprocess
import sys

import torch
from torch import nn
from transformers import LongformerConfig, LongformerForMaskedLM
from transformers.models.longformer.modeling_longformer import (
    LongformerAttention,
    LongformerEncoder,
    LongformerLayer,
    LongformerModel,
    LongformerSelfAttention,
)

from cdlm_nb import fast_dropout
from cdlm_nb.longformer_attention import (
    PROJECTIONS,
    FastLongformerEncoder,
    FastLongformerSelfAttention,
    use_fast_attention,
    use_hf_attention,
)


def tiny_longformer(window: int = 8) -> LongformerForMaskedLM:
    torch.manual_seed(0)
    config = LongformerConfig(vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=48, attention_window=window, max_position_embeddings=300,
                              pad_token_id=1, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    return LongformerForMaskedLM(config).eval()


def parameter_names(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def own_state(module: nn.Module) -> set[str]:
    """The attributes a module sets beyond nn.Module's own bookkeeping (children and parameters excluded)."""
    return set(vars(module)) - set(vars(nn.Module()))


# --- The parts of Hugging Face's Longformer that the subclasses override or read ----------------------------------

def test_the_self_attention_forward_the_fast_one_overrides_has_the_same_parameters():
    expected = ["self", "hidden_states", "attention_mask", "is_index_masked", "is_index_global_attn", "is_global_attn",
                "output_attentions"]
    assert parameter_names(LongformerSelfAttention.forward) == expected
    assert parameter_names(FastLongformerSelfAttention.forward) == expected
    assert parameter_names(LongformerSelfAttention.__init__) == ["self", "config", "layer_id"]


def test_the_self_attention_holds_only_the_projections_the_fast_one_shares_and_the_sizes_it_reads():
    attention = tiny_longformer().longformer.encoder.layer[0].attention.self
    assert [name for name, _ in attention.named_children()] == list(PROJECTIONS)
    assert not list(attention.named_parameters(recurse=False)) and not list(attention.named_buffers())
    assert {"config", "layer_id", "num_heads", "head_dim", "dropout", "one_sided_attn_window_size"} <= own_state(
        attention)


def test_the_encoder_forward_the_fast_one_overrides_has_the_same_parameters():
    expected = ["self", "hidden_states", "attention_mask", "padding_len", "output_attentions", "output_hidden_states",
                "return_dict"]
    assert parameter_names(LongformerEncoder.forward) == expected
    assert parameter_names(FastLongformerEncoder.forward) == expected
    assert parameter_names(LongformerEncoder.__init__) == ["self", "config"]


def test_the_encoder_holds_only_what_the_swap_carries_over():
    """`FastLongformerEncoder.from_hf` carries `layer`, `config` and `gradient_checkpointing`: nothing else (the
    initialisation flag transformers' `post_init` leaves on every module guards parameters, which an encoder has
    none of)."""
    encoder = tiny_longformer().longformer.encoder
    assert [name for name, _ in encoder.named_children()] == ["layer"]
    assert not list(encoder.named_parameters(recurse=False)) and not list(encoder.named_buffers(recurse=False))
    assert {name for name in own_state(encoder) if not name.startswith("_")} == {"config", "gradient_checkpointing"}


def test_layers_hold_their_attention_where_the_swap_looks():
    model = tiny_longformer()
    assert isinstance(model.longformer, LongformerModel) and isinstance(model.longformer.encoder, LongformerEncoder)
    for layer in model.longformer.encoder.layer:
        assert isinstance(layer, LongformerLayer) and isinstance(layer.attention, LongformerAttention)
        assert isinstance(layer.attention.self, LongformerSelfAttention)


def test_the_model_hands_the_encoder_its_padding_by_keyword():
    """`LongformerModel` pads to a multiple of the window and says how much as `padding_len`, which the fast encoder
    cuts off; the fast layers then see the input's own length."""
    model = use_fast_attention(tiny_longformer(window=8))
    seen, lengths = [], []
    model.longformer.encoder.register_forward_pre_hook(
        lambda module, args, kwargs: seen.append(kwargs.get("padding_len")), with_kwargs=True)
    model.longformer.encoder.layer[0].attention.self.register_forward_pre_hook(
        lambda module, args, kwargs: lengths.append((args or (kwargs["hidden_states"],))[0].shape[1]),
        with_kwargs=True)
    with torch.no_grad():
        out = model(input_ids=torch.randint(3, 60, (2, 13)))
    assert seen == [3] and lengths == [13] and out.logits.shape[1] == 13


def test_the_fast_modules_are_the_ones_that_run():
    model = use_fast_attention(tiny_longformer())
    runs = []
    for module in model.modules():
        if isinstance(module, (FastLongformerSelfAttention, FastLongformerEncoder)):
            module.register_forward_pre_hook(lambda module, args: runs.append(type(module).__name__))
    with torch.no_grad():
        model(input_ids=torch.randint(3, 60, (1, 16)))
    assert runs == ["FastLongformerEncoder"] + ["FastLongformerSelfAttention"] * 2


# --- Public seams only ------------------------------------------------------------------------------------------

def test_the_swap_and_a_forward_leave_every_transformers_objects_own_attributes_alone():
    """No attribute of the model's modules (other than the swapped children) nor of its config is set or changed by
    the swap, during a forward or after it."""
    model = tiny_longformer()
    config_before = dict(vars(model.config))
    modules_before = {name: {key: value for key, value in vars(module).items() if key != "_modules"}
                      for name, module in model.named_modules() if not name.endswith(".attention.self")}
    during = []
    use_fast_attention(model)
    model.longformer.encoder.layer[0].register_forward_pre_hook(lambda *_: during.append(dict(vars(model.config))))
    with torch.no_grad():
        model(input_ids=torch.randint(3, 60, (1, 13)))
    assert during == [config_before] and dict(vars(model.config)) == config_before
    for name, attributes in modules_before.items():
        module = model.get_submodule(name)
        now = {key: value for key, value in vars(module).items() if key != "_modules"}
        if name == "longformer.encoder":  # a new module: its own bookkeeping differs, its state is the same
            assert {key: now[key] for key in ("config", "gradient_checkpointing", "training")} == {
                key: attributes[key] for key in ("config", "gradient_checkpointing", "training")}
        else:
            assert now.keys() == attributes.keys(), name
            assert all(now[key] is attributes[key] or now[key] == attributes[key] for key in now), name


def test_a_fast_models_config_builds_new_models_and_copies_swap_back():
    fast = use_fast_attention(tiny_longformer())
    LongformerForMaskedLM(fast.config)  # nothing in the config names an implementation of ours
    copied = copy.deepcopy(fast)
    assert isinstance(copied.longformer.encoder, FastLongformerEncoder)
    assert copied.longformer.encoder.layer is not fast.longformer.encoder.layer
    use_hf_attention(copied)
    assert type(copied.longformer.encoder) is LongformerEncoder and isinstance(fast.longformer.encoder,
                                                                             FastLongformerEncoder)
    lengths = []
    copied.longformer.encoder.layer[0].register_forward_pre_hook(lambda module, args: lengths.append(args[0].shape[1]))
    with torch.no_grad():
        copied(input_ids=torch.randint(3, 60, (1, 13)))
    assert lengths == [16]  # Hugging Face's attention: padded to the window again


def test_the_encoder_swap_shares_the_layers_and_draws_no_random_numbers():
    model = tiny_longformer()
    layers = model.longformer.encoder.layer
    model.longformer.encoder.gradient_checkpointing = True
    model.train()
    state = torch.get_rng_state()
    encoder = FastLongformerEncoder.from_hf(model.longformer.encoder)
    assert torch.equal(torch.get_rng_state(), state)
    assert encoder.layer is layers and encoder.config is model.config and encoder.gradient_checkpointing
    assert encoder.training and all(p.device.type == "cpu" for p in encoder.parameters())
    back = encoder.to_hf()
    assert type(back) is LongformerEncoder and back.layer is layers


def test_a_fast_model_trains_the_same_with_activation_checkpointing():
    reference = tiny_longformer().train()
    ids = torch.randint(3, 60, (2, 13), generator=torch.Generator().manual_seed(0))

    def gradients(model):
        model(input_ids=ids).logits.pow(2).mean().backward()
        return {name: p.grad for name, p in model.named_parameters() if p.grad is not None}

    expected = gradients(use_fast_attention(copy.deepcopy(reference)))
    checkpointed = use_fast_attention(copy.deepcopy(reference))
    checkpointed.activation_checkpointing_enable({"use_reentrant": False})
    assert all(layer.gradient_checkpointing for layer in checkpointed.longformer.encoder.layer)
    got = gradients(checkpointed)
    assert got.keys() == expected.keys()
    for name, grad in got.items():
        torch.testing.assert_close(grad, expected[name], atol=1e-6, rtol=0, msg=name)


IMPORT_REGISTERS = """
import json
from transformers import AttentionInterface
from transformers.masking_utils import AttentionMaskInterface

def snapshot():
    return {kind: {key: id(value) for key, value in interface().items()}
            for kind, interface in (("attention", AttentionInterface), ("mask", AttentionMaskInterface))}

before = snapshot()
import cdlm_nb, cdlm_nb.longformer_attention, cdlm_nb.fast_dropout
print(json.dumps({"same": snapshot() == before, "names": sorted(before["attention"]) + sorted(before["mask"])}))
"""


def test_importing_the_modules_registers_nothing_with_transformers():
    out = subprocess.run([sys.executable, "-c", IMPORT_REGISTERS], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["same"] and "sdpa" in result["names"] and "eager" in result["names"]
    assert fast_dropout.ATTENTION not in result["names"]


def test_fast_dropout_registers_only_when_asked_and_idempotently():
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface

    def registered():
        return AttentionInterface()[fast_dropout.ATTENTION], AttentionMaskInterface()[fast_dropout.ATTENTION]

    fast_dropout.register()
    first = registered()
    fast_dropout.register()
    assert registered() == first and first[0] is not None


def test_the_registry_calls_fast_dropout_makes_are_public_and_take_a_name_and_a_function():
    from transformers import AttentionInterface, PreTrainedModel
    from transformers.masking_utils import AttentionMaskInterface

    for interface in (AttentionInterface, AttentionMaskInterface):
        assert inspect.ismethod(interface.register) and parameter_names(interface.register) == ["key", "value"]
    assert parameter_names(PreTrainedModel.set_attn_implementation)[:2] == ["self", "attn_implementation"]
