"""Longformer self-attention on PyTorch's fused kernels: Hugging Face's function, from the same weights, faster.

Hugging Face's `LongformerSelfAttention` builds overlapping chunks of 2w keys for every w queries, pads them to a
diagonal layout and einsums over them; its cost barely follows the window. `FastLongformerSelfAttention` computes
the same function with `scaled_dot_product_attention` over blocks:

- local: queries in blocks of `block` tokens; each block attends to the keys of its window (the `block` + 2w
  positions around it, a band mask keeps |i - j| <= w) plus every global token's key, local projections for all;
  keys that are padding or global are dropped from the window (the global ones are already among the global keys);
- global: each global token attends to every unpadded token with the global projections, and its output replaces
  its local one.

Padding queries get a zero attention output, as in Hugging Face. `use_fast_attention(model)` swaps the modules of
any Longformer in place (parameters shared, state dict unchanged) and `use_hf_attention(model)` swaps them back.
A forward that asks for attention maps (`output_attentions=True`) runs Hugging Face's code on the same weights, so
attention analyses see exactly Hugging Face's maps.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from transformers.models.longformer.modeling_longformer import LongformerSelfAttention

#: Short names of the two implementations (benchmark rows, recorded metrics, `PretrainResult.attention`).
IMPLEMENTATIONS = {"hf": "Hugging Face's LongformerSelfAttention", "ours": "cdlm_nb fused attention (sdpa)"}
PROJECTIONS = ("query", "key", "value", "query_global", "key_global", "value_global")


def _band(block: int, one_side: int, device: torch.device) -> torch.Tensor:
    """(block, block + 2 * one_side) booleans: query r of a block sees key column c iff |c - one_side - r| <= w."""
    keys, queries = torch.arange(block + 2 * one_side, device=device), torch.arange(block, device=device)
    distance = keys[None, :] - one_side - queries[:, None]
    return distance.abs() <= one_side


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


def local_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, is_masked: torch.Tensor,
                    is_global: torch.Tensor, one_side: int, block: int, dropout: float = 0.0) -> torch.Tensor:
    """Sliding-window attention plus attention to the global keys, (B, L, H, d) in and out (local projections).

    Padding queries get zeros (their row only sees themselves, so that no row of the softmax is empty and no NaN
    reaches the gradients). The sequence is padded to a multiple of `block` here, and cut back.
    """
    batch, length, heads, dim = query.shape
    extra = -length % block
    if extra:
        query, key, value = (F.pad(x, (0, 0, 0, 0, 0, extra)) for x in (query, key, value))
        is_masked, is_global = F.pad(is_masked, (0, extra), value=True), F.pad(is_global, (0, extra), value=False)
        return local_attention(query, key, value, is_masked, is_global, one_side, block, dropout)[:, :length]
    blocks = length // block
    span = block + 2 * one_side
    usable = ~(is_masked | is_global)  # window keys: neither padding nor global (those come in as global keys)
    window_keys = _windows(usable, block, one_side, fill=False)  # (B, n, span)
    own = torch.zeros(block, span, dtype=torch.bool, device=query.device)
    own[torch.arange(block), one_side + torch.arange(block)] = True  # key column of the query itself
    pad_query = is_masked.view(batch, blocks, block, 1)
    mask = (_band(block, one_side, query.device) & window_keys[:, :, None, :]) | (pad_query & own)

    keys, values = (_windows(x, block, one_side).transpose(3, 4) for x in (key, value))  # (B, n, H, span, d)
    if is_global.any():
        slots, real = global_slots(is_global)
        index = slots[:, :, None, None].expand(-1, -1, heads, dim)
        global_keys = key.gather(1, index).transpose(1, 2)[:, None].expand(-1, blocks, -1, -1, -1)
        global_values = value.gather(1, index).transpose(1, 2)[:, None].expand(-1, blocks, -1, -1, -1)
        keys = torch.cat((global_keys, keys), dim=3)
        values = torch.cat((global_values, values), dim=3)
        global_mask = (real[:, None, None, :] & ~pad_query).expand(-1, blocks, block, -1)
        mask = torch.cat((global_mask, mask.expand(batch, -1, -1, -1)), dim=3)
    queries = query.view(batch, blocks, block, heads, dim).transpose(2, 3)
    flat = batch * blocks
    out = F.scaled_dot_product_attention(
        queries.reshape(flat, heads, block, dim), keys.reshape(flat, heads, -1, dim),
        values.reshape(flat, heads, -1, dim), attn_mask=mask.expand(batch, blocks, -1, -1).reshape(flat, 1, block, -1),
        dropout_p=dropout,
    )
    out = out.view(batch, blocks, heads, block, dim).transpose(2, 3).reshape(batch, length, heads, dim)
    return out.masked_fill(is_masked[:, :, None, None], 0.0)


def global_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, is_masked: torch.Tensor,
                     dropout: float = 0.0) -> torch.Tensor:
    """Every global query (B, G, H, d) against all unpadded keys (B, L, H, d): (B, G, H, d)."""
    mask = ~is_masked[:, None, None, :]
    out = F.scaled_dot_product_attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
                                         attn_mask=mask, dropout_p=dropout)
    return out.transpose(1, 2)


class FastLongformerSelfAttention(LongformerSelfAttention):
    """`LongformerSelfAttention` with the same parameters and outputs, computed by `scaled_dot_product_attention`
    over query blocks (see the module docstring); attention maps are left to Hugging Face's forward."""

    @classmethod
    def from_hf(cls, module: LongformerSelfAttention) -> "FastLongformerSelfAttention":
        """A fast module sharing `module`'s projections (no copy; training mode kept)."""
        fast = cls(module.config, module.layer_id)
        for name in PROJECTIONS:
            setattr(fast, name, getattr(module, name))
        return fast.train(module.training)

    def to_hf(self) -> LongformerSelfAttention:
        """A Hugging Face module sharing these projections."""
        plain = LongformerSelfAttention(self.config, self.layer_id)
        for name in PROJECTIONS:
            setattr(plain, name, getattr(self, name))
        return plain.train(self.training)

    query_block = 128  # queries per block: each block attends to block + 2w window keys and all the global keys

    def forward(self, hidden_states, attention_mask=None, is_index_masked=None, is_index_global_attn=None,
                is_global_attn=None, output_attentions=False):
        if output_attentions:
            return super().forward(hidden_states, attention_mask, is_index_masked, is_index_global_attn,
                                   is_global_attn, output_attentions)
        batch, length, width = hidden_states.shape
        shape = (batch, length, self.num_heads, self.head_dim)
        dropout = self.dropout if self.training else 0.0
        one_side = self.one_sided_attn_window_size
        out = local_attention(self.query(hidden_states).view(shape), self.key(hidden_states).view(shape),
                              self.value(hidden_states).view(shape), is_index_masked, is_index_global_attn,
                              one_side, block=self.query_block, dropout=dropout).reshape(batch, length, width)
        if is_global_attn:
            slots, real = global_slots(is_index_global_attn)
            chosen = hidden_states.gather(1, slots[:, :, None].expand(-1, -1, width))
            global_out = global_attention(
                self.query_global(chosen).view(batch, -1, self.num_heads, self.head_dim),
                self.key_global(hidden_states).view(shape), self.value_global(hidden_states).view(shape),
                is_index_masked, dropout,
            ).reshape(batch, -1, width)
            out = out.index_put((is_index_global_attn.nonzero(as_tuple=True)), global_out[real])
        return (out,)


def _swap(model: torch.nn.Module, convert) -> torch.nn.Module:
    for layer in model.modules():
        attention = getattr(layer, "self", None)
        if isinstance(attention, LongformerSelfAttention):
            layer.self = convert(attention)
    return model


def use_fast_attention(model: torch.nn.Module) -> torch.nn.Module:
    """Swap every Longformer self-attention of `model` for the fast one, in place (weights shared); returns it."""
    return _swap(model, lambda m: m if isinstance(m, FastLongformerSelfAttention) else FastLongformerSelfAttention.from_hf(m))


def use_hf_attention(model: torch.nn.Module) -> torch.nn.Module:
    """Swap every fast self-attention of `model` back to Hugging Face's, in place; returns it."""
    return _swap(model, lambda m: m.to_hf() if isinstance(m, FastLongformerSelfAttention) else m)


def uses_fast_attention(model: torch.nn.Module) -> bool:
    """Whether `model`'s Longformer layers run the fast attention."""
    return any(isinstance(m, FastLongformerSelfAttention) for m in model.modules())


def implementation(model: torch.nn.Module) -> str:
    """"ours" or "hf": the key of IMPLEMENTATIONS that `model` runs."""
    return "ours" if uses_fast_attention(model) else "hf"
