"""Attention with dropout on the CPU, where PyTorch's fused attention has none and sdpa's math path keeps four tensors
per score for backward: `blocked_attention` uses plain matmuls over chunks of about `CHUNK_SCORES` scores (few, large
operations: each parallel one costs a scheduler slice on a small shared CPU), keeps 8 bytes per score and takes the
softmax's gradient through the dropout in three passes, faster than recomputing (docs/experiments.md)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import torch

CHUNK_SCORES = 2**24  # scores per chunk of blocks (64 MiB in fp32)


@dataclass(frozen=True)
class Blocks:
    """How queries meet keys: block n holds queries n * size ... (n + 1) * size - 1 (the last one may be shorter
    when step is 0) and attends to the extra keys, then keys n * step ... n * step + span - 1."""

    size: int
    step: int  # 0: every block sees the same keys (then blocks run one at a time)
    span: int


def dropped(shape: tuple[int, ...], p: float) -> torch.Tensor:
    """Which probabilities dropout zeroes: True with probability p (to 2^-16), from torch's generator, 16 bits of a
    64-bit draw each: faster on the CPU than `bernoulli_` (docs/experiments.md)."""
    count = math.prod(shape)
    bits = torch.randint(-2**63, 2**63 - 1, (-(-count // 4),), dtype=torch.int64)
    return bits.view(torch.int16)[:count].view(shape) < round(p * 2**16) - 2**15


def _chunks(query: torch.Tensor, keys: int, blocks: Blocks) -> Iterator[tuple[int, int, int]]:
    """(row b, first block, last block + 1) of every chunk of `query` (B, H, Lq, d) against `keys` keys each."""
    count = -(-query.shape[2] // blocks.size)
    per_chunk = max(1, CHUNK_SCORES // (query.shape[1] * blocks.size * keys)) if blocks.step else 1
    for b in range(query.shape[0]):
        for first in range(0, count, per_chunk):
            yield b, first, min(first + per_chunk, count)


def _rows(x: torch.Tensor, blocks: Blocks, b: int, first: int, last: int) -> torch.Tensor:
    """The queries (or outputs) of blocks first ... last - 1 of row b of `x` (B, H, Lq, d): a (c, H, r, d) view."""
    if blocks.step:
        return x[b].unflatten(1, (-1, blocks.size))[:, first:last].transpose(0, 1)
    return x[b, :, first * blocks.size:last * blocks.size][None]


def _keys(extra: torch.Tensor, keys: torch.Tensor, blocks: Blocks, b: int, first: int, last: int) -> torch.Tensor:
    """The keys (or values) of blocks first ... last - 1 of row b: (c, H, G + span, d), the extra ones first."""
    if blocks.step:
        window = keys[b].unfold(1, blocks.span, blocks.step)[:, first:last].permute(1, 0, 3, 2)
    else:
        window = keys[b, :, :blocks.span][None]
    if not extra.shape[2]:
        return window
    return torch.cat((extra[b].expand(window.shape[0], -1, -1, -1), window), dim=2)


def _mask(mask: torch.Tensor, blocks: Blocks, b: int, first: int, last: int) -> torch.Tensor:
    """The additive mask of blocks first ... last - 1 of row b (`mask` as `blocked_attention` takes it)."""
    if mask.shape[1] > 1:
        return mask[b, first:last, None]
    return mask[b, :, first * blocks.size:last * blocks.size] if mask.shape[2] > 1 else mask[b, None]


class _BlockedAttention(torch.autograd.Function):
    """`blocked_attention` a chunk at a time; each chunk's probabilities and dropped ones are saved tensors."""

    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, query, key, value, extra_key, extra_value, mask, blocks: Blocks, p: float):
        out, kept_for_backward = torch.empty_like(query), []
        for b, first, last in _chunks(query, extra_key.shape[2] + blocks.span, blocks):
            scores = torch.matmul(_rows(query, blocks, b, first, last),
                                  _keys(extra_key, key, blocks, b, first, last).transpose(2, 3))
            probs = torch.softmax(scores.add_(_mask(mask, blocks, b, first, last)), dim=-1)  # (c, H, r, G + span)
            drop = dropped(probs.shape, p) if p else None
            kept = probs.masked_fill(drop, 0.0) if p else probs
            _rows(out, blocks, b, first, last).copy_(torch.matmul(kept, _keys(extra_value, value, blocks, b,
                                                                                first, last)))
            if any(ctx.needs_input_grad):
                kept_for_backward += [probs, kept]
        ctx.save_for_backward(query, key, value, extra_key, extra_value, *kept_for_backward)
        ctx.blocks, ctx.p = blocks, p
        return out.mul_(1 / (1 - p)) if p else out

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, grad_out):
        query, key, value, extra_key, extra_value, *kept_for_backward = ctx.saved_tensors
        blocks, p, extra, kept_for_backward = ctx.blocks, ctx.p, extra_key.shape[2], iter(kept_for_backward)
        grad_out = grad_out / (1 - p)
        grads = [torch.zeros_like(x) for x in (query, key, value, extra_key, extra_value)]
        for b, first, last in _chunks(query, extra + blocks.span, blocks):
            probs, kept = next(kept_for_backward), next(kept_for_backward)
            grad_chunk = _rows(grad_out, blocks, b, first, last)
            grad_kept = torch.matmul(grad_chunk, _keys(extra_value, value, blocks, b, first, last).transpose(2, 3))
            grad_value = torch.matmul(kept.transpose(2, 3), grad_chunk)
            # softmax backward through the dropout: with g the gradient of the probabilities (grad_kept where kept,
            # 0 where dropped), P ⊙ (g - Σ g ⊙ P) = t - P ⊙ Σ t, t = kept ⊙ grad_kept, since kept = P where kept
            grad_scores = grad_kept.mul_(kept)
            grad_scores.addcmul_(probs, grad_scores.sum(-1, keepdim=True), value=-1)
            _rows(grads[0], blocks, b, first, last).copy_(
                torch.matmul(grad_scores, _keys(extra_key, key, blocks, b, first, last)))
            grad_key = torch.matmul(grad_scores.transpose(2, 3), _rows(query, blocks, b, first, last))
            for grad_extra, grad_window, chunk in ((grads[3], grads[1], grad_key), (grads[4], grads[2], grad_value)):
                grad_extra[b] += chunk[:, :, :extra].sum(0)
                for n, block in enumerate(chunk[:, :, extra:], start=first):
                    grad_window[b, :, n * blocks.step:n * blocks.step + blocks.span] += block
        return (*grads, None, None, None)


def blocked_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, extra_key: torch.Tensor,
                      extra_value: torch.Tensor, mask: torch.Tensor, blocks: Blocks, p: float = 0.0) -> torch.Tensor:
    """Attention of `query` (B, H, Lq, d; already scaled) over blocks: block n of queries against the extra keys
    and values (B, H, G, d), then its window of `key` and `value` (B, H, Lk, d), plus the additive `mask`
    (B, 1 or one per block, 1 or block size or Lq, G + span); attention dropout p. (B, H, Lq, d) out."""
    return _BlockedAttention.apply(query, key, value, extra_key, extra_value, mask, blocks, p)
