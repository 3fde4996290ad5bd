"""Longformer self-attention on PyTorch's fused kernels: Hugging Face's function, from the same weights, faster.

Where Hugging Face einsums over overlapping chunks of 2w keys per w queries, `FastLongformerSelfAttention` runs
`scaled_dot_product_attention` over query blocks, each against its window (a band mask keeps |i - j| <= w) plus every
global key, or over one block of all queries for short inputs (`whole_sequence`); each global token attends to every
unpadded token with the global projections. Attention maps are left to Hugging Face's code. `use_fast_attention` /
`use_hf_attention` swap the modules in place (subclasses, ordinary children: no private transformers attribute set).
On the CPU with dropout both parts run `attention_dropout.blocked_attention` (the fused CPU kernel has no dropout).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from transformers.models.longformer.modeling_longformer import (
    LongformerEncoder,
    LongformerModel,
    LongformerSelfAttention,
)

from cdlm_nb.attention_dropout import CHUNK_SCORES, Blocks, blocked_attention

#: Short names of the two implementations (benchmark rows, recorded metrics, `PretrainResult.attention`).
IMPLEMENTATIONS = {"hf": "Hugging Face's LongformerSelfAttention", "ours": "cdlm_nb fused attention (sdpa)"}
PROJECTIONS = ("query", "key", "value", "query_global", "key_global", "value_global")


def _windows(x: torch.Tensor, block: int, one_side: int, fill=0) -> torch.Tensor:
    """Windows along dim 1 of `x` (B, L, ...): (B, L / block, ..., block + 2w), window n covering positions
    n * block - w ... (n + 1) * block + w - 1 (`fill` outside the sequence). A view, no copy."""
    padding = [0, 0] * (x.dim() - 2) + [one_side, one_side]
    return F.pad(x, padding, value=fill).unfold(1, block + 2 * one_side, block)


def global_slots(is_global: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's global positions in increasing order, padded to the row with most (B, G), and which are real."""
    count = is_global.sum(dim=1)
    slots = int(count.max())
    order = torch.argsort((~is_global).to(torch.int8), dim=1, stable=True)[:, :slots]
    return order, torch.arange(slots, device=is_global.device)[None, :] < count[:, None]


def _additive(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """0 where attention is allowed, -inf elsewhere (sdpa converts a boolean mask so on every call)."""
    return torch.zeros(allowed.shape, dtype=dtype, device=allowed.device).masked_fill_(~allowed, float("-inf"))


@dataclass(frozen=True)
class Layout:
    """What every layer of one forward shares: which tokens are padding, the global slots, and the two masks."""

    one_side: int  # w: tokens seen on each side
    block: int  # queries per block
    is_masked: torch.Tensor  # (B, L') padding, L' = L padded to a multiple of `block`
    slots: torch.Tensor  # (B, G) global positions, in order (`global_slots`)
    real: torch.Tensor  # (B, G) which slots hold a global token
    local_mask: torch.Tensor  # (B * L' / block, 1, block, G + block + 2w): global then window keys; whole: (B, 1, L, L)
    global_mask: torch.Tensor  # (B, 1, 1, L): every unpadded key
    whole: bool = False  # one block of every query against every key (`whole_sequence`): no window, no copies


def block_size(one_side: int, length: int, n_global: int, largest: int = 256) -> int:
    """Queries per block: w while G < w, else up to `largest` (never above L). Small blocks waste fewer window
    keys, large ones copy the G global keys fewer times (timings: docs/experiments.md)."""
    return one_side if n_global < one_side else max(one_side, min(largest, length))


def whole_sequence(one_side: int, length: int, n_global: int, block: int) -> bool:
    """Whether all L keys per query cost no more than blocks' G global + block + 2w window keys."""
    return length <= n_global + block + 2 * one_side


def layout(is_masked: torch.Tensor, is_global: torch.Tensor, one_side: int, dtype: torch.dtype,
           largest_block: int = 256) -> Layout:
    """The `Layout` of a batch (padding and global flags, (B, L)). A padding query sees only itself, so that no
    softmax row is empty and no NaN reaches the gradients (its output is zeroed afterwards)."""
    global_mask = _additive(~is_masked[:, None, None, :], dtype)
    slots, real = global_slots(is_global)
    block = block_size(one_side, is_masked.shape[1], slots.shape[1], largest_block)
    device = is_masked.device
    if whole_sequence(one_side, is_masked.shape[1], slots.shape[1], block):  # i sees j unpadded within w, or global
        length = is_masked.shape[1]
        positions = torch.arange(length, device=device)
        allowed = ((((positions[:, None] - positions[None, :]).abs() <= one_side) & ~is_masked[:, None, :])
                   | is_global[:, None, :])
        allowed = (allowed & ~is_masked[:, :, None]) | (is_masked[:, :, None] & torch.eye(length, dtype=torch.bool,
                                                                                          device=device))
        return Layout(one_side, length, is_masked, slots, real, _additive(allowed, dtype)[:, None], global_mask, True)
    extra = -is_masked.shape[1] % block
    is_masked, is_global = F.pad(is_masked, (0, extra), value=True), F.pad(is_global, (0, extra), value=False)
    batch, length = is_masked.shape
    span = block + 2 * one_side
    window_keys = _windows(~(is_masked | is_global), block, one_side, fill=False)  # (B, n, span)
    own = torch.zeros(block, span, dtype=torch.bool, device=device)
    own[torch.arange(block), one_side + torch.arange(block)] = True  # the key column of the query itself
    band = (torch.arange(span, device=device)[None, :] - one_side - torch.arange(block, device=device)[:, None]
            ).abs() <= one_side  # query r of a block sees key column c iff |c - w - r| <= w
    pad_query = is_masked.view(batch, length // block, block, 1)
    allowed = (band & window_keys[:, :, None, :]) | (pad_query & own)
    allowed = torch.cat((real[:, None, None, :] & ~pad_query, allowed), dim=3)
    local_mask = _additive(allowed, dtype).view(batch * (length // block), 1, block, -1)
    return Layout(one_side, block, is_masked, slots, real, local_mask, global_mask)


def _version(flags: torch.Tensor) -> int:
    """How often `flags` was changed in place (inference tensors keep no count, and cannot be: never)."""
    return -1 if flags.is_inference() else flags._version


_SHARED: dict[tuple, Layout] = {}  # the layout of the forward being run; dropped when its flag tensors are freed


def shared_layout(is_masked: torch.Tensor, is_global: torch.Tensor, one_side: int, dtype: torch.dtype,
                  largest_block: int = 256) -> Layout:
    """`layout`, built once per forward: Hugging Face hands every layer the same flag tensors, so it is kept while
    they live (a finalizer drops it when either is freed)."""
    key = (id(is_masked), id(is_global), _version(is_masked), _version(is_global), one_side, dtype, largest_block)
    if key not in _SHARED:
        _SHARED.clear()
        _SHARED[key] = layout(is_masked, is_global, one_side, dtype, largest_block)
        for flags in (is_masked, is_global):
            weakref.finalize(flags, _SHARED.pop, key, None)
    return _SHARED[key]


def local_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, shape: Layout,
                    dropout: float = 0.0) -> torch.Tensor:
    """Window plus global keys, (B, L, H, d) in and out; padding queries get zeros."""
    if dropout and query.device.type == "cpu":  # the fused CPU kernel has no dropout
        out = _local_with_dropout_on_cpu(query, key, value, shape, dropout)
    elif shape.whole:
        out = F.scaled_dot_product_attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
                                             attn_mask=shape.local_mask, dropout_p=dropout).transpose(1, 2)
    else:
        out = _blocked_attention(query, key, value, shape, dropout)
    return out.masked_fill(shape.is_masked[:, :, None, None], 0.0)[:, :query.shape[1]]


def _blocked_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, shape: Layout,
                       dropout: float) -> torch.Tensor:
    """`local_attention` over query blocks: (B, L, H, d) in, (B, L', H, d) out (L' = L padded to the block)."""
    batch, length, heads, dim = query.shape
    extra = shape.is_masked.shape[1] - length
    if extra:
        query, key, value = (F.pad(x, (0, 0, 0, 0, 0, extra)) for x in (query, key, value))
    blocks, block = shape.is_masked.shape[1] // shape.block, shape.block
    keys, values = (_windows(x, block, shape.one_side).transpose(3, 4) for x in (key, value))  # (B, n, H, span, d)
    if shape.slots.shape[1]:
        index = shape.slots[:, :, None, None].expand(-1, -1, heads, dim)
        keys, values = (torch.cat((x.gather(1, index).transpose(1, 2)[:, None].expand(-1, blocks, -1, -1, -1), w), 3)
                        for x, w in ((key, keys), (value, values)))
    flat = batch * blocks
    out = F.scaled_dot_product_attention(
        query.view(batch, blocks, block, heads, dim).transpose(2, 3).reshape(flat, heads, block, dim),
        keys.reshape(flat, heads, -1, dim), values.reshape(flat, heads, -1, dim), attn_mask=shape.local_mask,
        dropout_p=dropout)
    return out.view(batch, blocks, heads, block, dim).transpose(2, 3).reshape(batch, blocks * block, heads, dim)


def _local_with_dropout_on_cpu(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, shape: Layout,
                               dropout: float) -> torch.Tensor:
    """`local_attention` by `blocked_attention` (global keys gathered once, windows as views): (B, L', H, d)."""
    batch, length, heads, dim = query.shape
    query, key, value = (x.transpose(1, 2) for x in (query, key, value))  # (B, H, L, d)
    extra = shape.is_masked.shape[1] - length
    query = F.pad(query * dim**-0.5, (0, 0, 0, extra)).contiguous()
    if shape.whole:
        empty = key[:, :, :0]
        out = blocked_attention(query, key.contiguous(), value.contiguous(), empty, empty, shape.local_mask,
                                _all_keys(heads, length), dropout)
    else:
        index = shape.slots[:, None, :, None].expand(-1, heads, -1, dim)
        extra_key, extra_value = key.gather(2, index), value.gather(2, index)
        one_side = shape.one_side
        keys, values = (F.pad(x, (0, 0, one_side, one_side + extra)).contiguous() for x in (key, value))
        mask = shape.local_mask.view(batch, -1, shape.block, shape.local_mask.shape[-1])
        out = blocked_attention(query, keys, values, extra_key, extra_value, mask,
                                Blocks(shape.block, shape.block, shape.block + 2 * one_side), dropout)
    return out.transpose(1, 2)


def _all_keys(heads: int, length: int) -> Blocks:
    """Blocks of queries that all attend to every key, about CHUNK_SCORES scores each."""
    return Blocks(max(1, CHUNK_SCORES // (heads * length)), 0, length)


def global_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, shape: Layout,
                     dropout: float = 0.0) -> torch.Tensor:
    """Every global query (B, G, H, d) against all unpadded keys (B, L, H, d): (B, G, H, d)."""
    if dropout and query.device.type == "cpu":  # the fused CPU kernel has no dropout
        query, key, value = (x.transpose(1, 2).contiguous() for x in (query * query.shape[-1]**-0.5, key, value))
        empty = key[:, :, :0]
        return blocked_attention(query, key, value, empty, empty, shape.global_mask,
                                 _all_keys(query.shape[1], key.shape[2]), dropout).transpose(1, 2)
    out = F.scaled_dot_product_attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
                                         attn_mask=shape.global_mask, dropout_p=dropout)
    return out.transpose(1, 2)


class FastLongformerSelfAttention(LongformerSelfAttention):
    """`LongformerSelfAttention` by `scaled_dot_product_attention` over query blocks (module docstring)."""

    largest_block = 256  # `block_size`'s largest query block (timed: docs/experiments.md)

    @classmethod
    def from_hf(cls, module: LongformerSelfAttention) -> "FastLongformerSelfAttention":
        """A fast module sharing `module`'s projections (no copy; training mode kept)."""
        return _sharing_projections(cls(module.config, module.layer_id), module)

    def to_hf(self) -> LongformerSelfAttention:
        """A Hugging Face module sharing these projections."""
        return _sharing_projections(LongformerSelfAttention(self.config, self.layer_id), self)

    def forward(self, hidden_states, attention_mask=None, is_index_masked=None, is_index_global_attn=None,
                is_global_attn=None, output_attentions=False):
        if output_attentions:
            return super().forward(hidden_states, attention_mask, is_index_masked, is_index_global_attn,
                                   is_global_attn, output_attentions)
        batch, length, width = hidden_states.shape
        shape = (batch, length, self.num_heads, self.head_dim)
        dropout = self.dropout if self.training else 0.0
        query, key, value = (project(hidden_states).view(shape) for project in (self.query, self.key, self.value))
        plan = shared_layout(is_index_masked, is_index_global_attn, self.one_sided_attn_window_size, query.dtype,
                             self.largest_block)  # under autocast the mask takes the projections' dtype
        out = local_attention(query, key, value, plan, dropout).reshape(batch, length, width)
        if is_global_attn:
            chosen = hidden_states.gather(1, plan.slots[:, :, None].expand(-1, -1, width))
            global_out = global_attention(
                self.query_global(chosen).view(batch, -1, self.num_heads, self.head_dim),
                self.key_global(hidden_states).view(shape), self.value_global(hidden_states).view(shape), plan,
                dropout,
            ).reshape(batch, -1, width)
            out = out.index_put(is_index_global_attn.nonzero(as_tuple=True), global_out[plan.real])
        return (out,)


def _sharing_projections(module: LongformerSelfAttention, source: LongformerSelfAttention):
    """`module` holding `source`'s projections, in its training mode."""
    for name in PROJECTIONS:
        setattr(module, name, getattr(source, name))
    return module.train(source.training)


class FastLongformerEncoder(LongformerEncoder):
    """`LongformerEncoder` that cuts the `padding_len` positions `LongformerModel` appended (only Hugging Face's
    chunks need them) before the layers, not after, unless attention maps or a Hugging Face layer need them."""

    @classmethod
    def from_hf(cls, encoder: LongformerEncoder) -> "FastLongformerEncoder":
        """A fast encoder holding `encoder`'s layers (shared, not copied)."""
        return _rebuilt(cls, encoder)

    def to_hf(self) -> LongformerEncoder:
        """A Hugging Face encoder holding these layers."""
        return _rebuilt(LongformerEncoder, self)

    def forward(self, hidden_states, attention_mask=None, padding_len=0, output_attentions=False,
                output_hidden_states=False, return_dict=True):
        if padding_len and not output_attentions and all(
                isinstance(layer.attention.self, FastLongformerSelfAttention) for layer in self.layer):
            length = hidden_states.shape[1] - padding_len
            hidden_states, attention_mask, padding_len = hidden_states[:, :length], attention_mask[:, :length], 0
        return super().forward(hidden_states, attention_mask, padding_len, output_attentions, output_hidden_states,
                               return_dict)


def _rebuilt(cls: type[LongformerEncoder], encoder: LongformerEncoder) -> LongformerEncoder:
    """A `cls` encoder holding `encoder`'s layers, config, checkpointing flag and mode (built on the meta device:
    its throwaway layers neither allocate weights nor draw random numbers)."""
    with torch.device("meta"):
        rebuilt = cls(encoder.config)
    rebuilt.layer = encoder.layer
    rebuilt.gradient_checkpointing = encoder.gradient_checkpointing
    rebuilt.training = encoder.training
    return rebuilt


def use_fast_attention(model: torch.nn.Module) -> torch.nn.Module:
    """Swap every Longformer self-attention and encoder of `model` for the fast ones, in place; returns it."""
    for layer in model.modules():
        if isinstance(getattr(layer, "self", None), LongformerSelfAttention) and not isinstance(
                layer.self, FastLongformerSelfAttention):
            layer.self = FastLongformerSelfAttention.from_hf(layer.self)
    for longformer in [m for m in model.modules() if isinstance(m, LongformerModel)]:
        if not isinstance(longformer.encoder, FastLongformerEncoder):
            longformer.encoder = FastLongformerEncoder.from_hf(longformer.encoder)
    return model


def use_hf_attention(model: torch.nn.Module) -> torch.nn.Module:
    """Swap every fast self-attention and encoder of `model` back to Hugging Face's, in place; returns it."""
    for layer in model.modules():
        if isinstance(getattr(layer, "self", None), FastLongformerSelfAttention):
            layer.self = layer.self.to_hf()
    for longformer in [m for m in model.modules() if isinstance(m, LongformerModel)]:
        if isinstance(longformer.encoder, FastLongformerEncoder):
            longformer.encoder = longformer.encoder.to_hf()
    return model


def uses_fast_attention(model: torch.nn.Module) -> bool:
    """Whether `model`'s Longformer layers run the fast attention."""
    return any(isinstance(m, FastLongformerSelfAttention) for m in model.modules())


def implementation(model: torch.nn.Module) -> str:
    """"ours" or "hf": the key of IMPLEMENTATIONS that `model` runs."""
    return "ours" if uses_fast_attention(model) else "hf"


def self_attention_output(module: LongformerSelfAttention, hidden: torch.Tensor,
                          is_global: torch.Tensor) -> torch.Tensor:
    """One self-attention layer (Hugging Face's or the fast one) on one unpadded input, without gradients: `hidden`
    (L, width) and `is_global` (L,) in, (L, width) out, with the mask `LongformerModel` hands its layers (positive:
    global, 0: local). Hugging Face's module needs L to be a multiple of its window."""
    flags = 10_000.0 * is_global.to(hidden.dtype)[None]
    with torch.no_grad():
        out = module(hidden[None], attention_mask=flags, is_index_masked=flags < 0, is_index_global_attn=flags > 0,
                     is_global_attn=bool(is_global.any()))[0]
    return out[0]
