"""`blocked_attention` (the CPU attention with dropout): the naive function, its gradients, dropout's rate."""

import pytest
import torch

from cdlm_nb import attention_dropout
from cdlm_nb.attention_dropout import Blocks, blocked_attention, dropped

HEADS, DIM = 3, 8


def _inputs(lq: int, lk: int, extra: int, seed: int = 0) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    shapes = [(2, HEADS, lq, DIM), (2, HEADS, lk, DIM), (2, HEADS, lk, DIM), (2, HEADS, extra, DIM),
              (2, HEADS, extra, DIM)]
    return [torch.randn(shape, generator=generator, dtype=torch.float64).requires_grad_() for shape in shapes]


def _mask(batch: int, count: int, rows: int, keys: int, seed: int = 1) -> torch.Tensor:
    """An additive mask hiding about a third of the keys, never a whole row."""
    hidden = torch.rand(batch, count, rows, keys, generator=torch.Generator().manual_seed(seed)) < 0.3
    hidden[..., 0] = False
    return torch.zeros(hidden.shape, dtype=torch.float64).masked_fill_(hidden, float("-inf"))


def _naive(query, key, value, extra_key, extra_value, mask, blocks: Blocks, p: float, drops: list) -> torch.Tensor:
    """The math formulation, block by block, with the given dropout masks (one per block, in order)."""
    count = -(-query.shape[2] // blocks.size)
    rows = []
    for b in range(query.shape[0]):
        outs = []
        for n in range(count):
            start = n * blocks.step
            keys = torch.cat((extra_key[b], key[b, :, start:start + blocks.span]), dim=1)
            values = torch.cat((extra_value[b], value[b, :, start:start + blocks.span]), dim=1)
            queries = query[b, :, n * blocks.size:(n + 1) * blocks.size]
            scores = queries @ keys.transpose(1, 2) + mask[b, n if mask.shape[1] > 1 else 0, :queries.shape[1]]
            probs = torch.softmax(scores, dim=-1)
            if p:
                probs = probs.masked_fill(drops.pop(0), 0.0) / (1 - p)
            outs.append(probs @ values)
        rows.append(torch.cat(outs, dim=1))
    return torch.stack(rows)


LAYOUTS = {  # name: (queries, keys, extra keys, Blocks, mask blocks, mask rows)
    "windows": (24, 24 + 2 * 3, 4, Blocks(size=6, step=6, span=6 + 2 * 3), 4, 6),
    "global queries, ragged last block": (10, 17, 0, Blocks(size=4, step=0, span=17), 1, 1),
    "whole sequence": (12, 12, 0, Blocks(size=12, step=0, span=12), 1, 12),
}


@pytest.mark.parametrize("chunk_scores", [1, 2**20])  # a block at a time, all blocks at once
@pytest.mark.parametrize("p", [0.0, 0.3])
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_blocked_attention_is_the_math_formulation_with_the_same_dropout_masks(name, p, chunk_scores, monkeypatch):
    lq, lk, extra, blocks, count, rows = LAYOUTS[name]
    inputs = _inputs(lq, lk, extra)
    mask = _mask(2, count, rows, extra + blocks.span)
    monkeypatch.setattr(attention_dropout, "CHUNK_SCORES", chunk_scores)
    drops = []
    monkeypatch.setattr(attention_dropout, "dropped", lambda *args: drops.append(dropped(*args)) or drops[-1])
    out = blocked_attention(*inputs, mask, blocks, p)
    expected = _naive(*inputs, mask, blocks, p, [block for chunk in drops for block in chunk])
    torch.testing.assert_close(out, expected, atol=1e-10, rtol=0)
    weights = torch.randn(out.shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    grads = torch.autograd.grad((out * weights).sum(), inputs)
    expected_grads = torch.autograd.grad((expected * weights).sum(), inputs)
    for grad, expected_grad in zip(grads, expected_grads, strict=True):
        torch.testing.assert_close(grad, expected_grad, atol=1e-10, rtol=0)


def test_blocked_attention_matches_sdpa_without_dropout_in_float32():
    lq, lk, extra, blocks, count, rows = LAYOUTS["whole sequence"]
    query, key, value, _, _ = (x.detach().float() for x in _inputs(lq, lk, extra))
    mask = _mask(2, count, rows, lk).float()
    empty = key[:, :, :0]
    torch.testing.assert_close(blocked_attention(query, key, value, empty, empty, mask, blocks),
                               torch.nn.functional.scaled_dot_product_attention(query, key, value, mask, scale=1.0),
                               atol=1e-5, rtol=0)


def test_dropout_zeroes_probabilities_at_its_rate_and_scales_the_kept_ones():
    """Uniform attention (zero queries) over one-hot values: each output row is the dropped probabilities."""
    p, keys = 0.1, 64
    query = torch.zeros(1, 4, 512, keys)
    value = torch.eye(keys).expand(1, 4, keys, keys)
    empty = value[:, :, :0]
    probs = blocked_attention(query, value, value, empty, empty, torch.zeros(1, 1, 1, keys),
                              Blocks(size=128, step=0, span=keys), p)
    zero = probs == 0
    assert zero.float().mean().item() == pytest.approx(p, abs=0.005)  # 131,072 probabilities
    torch.testing.assert_close(probs[~zero], torch.full_like(probs[~zero], 1 / keys / (1 - p)))


def test_the_seed_comes_from_torchs_generator():
    inputs = [x.detach() for x in _inputs(12, 12, 0)]
    mask, blocks = torch.zeros(2, 1, 1, 12, dtype=torch.float64), Blocks(size=5, step=0, span=12)
    torch.manual_seed(7)
    first = blocked_attention(*inputs, mask, blocks, 0.5)
    torch.manual_seed(7)
    assert torch.equal(first, blocked_attention(*inputs, mask, blocks, 0.5))
    assert not torch.equal(first, blocked_attention(*inputs, mask, blocks, 0.5))
