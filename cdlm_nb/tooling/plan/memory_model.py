"""Memory and arithmetic of one pass of a transformer encoder: what the plan sizes batches and minutes from.

Peak = static (weights; when training also gradients, AdamW's two moments and the half-precision weight copies
autocast keeps) + activations + the vocabulary projection of the predicted tokens. Activations per layer and token:
`ACTIVATION_ELEMENTS` x hidden (the layer's input, Q/K/V and the global K/V, attention output, both LayerNorms,
the feed-forward's 4h input and output, dropout masks), plus, for a local-window model, the copies of the window
and global keys/values each query block gets (`cdlm_nb.longformer_attention`), plus the attention scores when the
attention kernel keeps them (PyTorch's math path, used on a CPU with attention dropout; CUDA's memory-efficient
kernel keeps none). With gradient checkpointing only each layer's input stays, and one layer is recomputed at a
time. `tests/tooling/plan/test_memory_model.py` checks the model against a training step measured on a CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Activation elements kept per token, layer and hidden unit in training. 24: counted from the layer (above), and
#: checked against a CPU training step of Longformer-base in fp32 (docs/experiments.md, "The gpu plan").
ACTIVATION_ELEMENTS = 24
#: A Longformer's under fp16/bf16 autocast, counted in 2-byte elements (LayerNorm, softmax and the residual sums stay
#: fp32 there), set from the training peaks `benchmarks/plan_check.py` measures on a GPU; dense models (RoBERTa-base)
#: stay below their 24-element estimate, so they keep 24 (the figures: docs/experiments.md, "The gpu plan").
HALF_ACTIVATION_ELEMENTS = 28
#: Elements alive per token and hidden unit in an inference forward (a layer's input, output and its transients).
INFERENCE_ELEMENTS = 10
BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}


@dataclass(frozen=True)
class Shape:
    """A transformer encoder's dimensions."""

    name: str
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    positions: int
    window: int = 0  # local window, both sides together (Longformer); 0: every token sees every token
    global_projections: bool = False  # Longformer's separate Q/K/V for global attention

    @property
    def layer_parameters(self) -> int:
        h, f = self.hidden, self.intermediate
        attention = (7 if self.global_projections else 4) * (h * h + h)
        return attention + 2 * h * f + f + h + 4 * h  # + the feed-forward and two LayerNorms

    @property
    def parameters(self) -> int:
        embeddings = (self.vocab + self.positions + 1) * self.hidden + 2 * self.hidden
        return embeddings + self.layers * self.layer_parameters + self.hidden * self.hidden + 3 * self.hidden


ROBERTA_BASE = Shape("roberta-base", 768, 12, 12, 3072, 50265, 514)  # nli-roberta-base-v2 (AoSE's encoder)
MINILM = Shape("all-MiniLM-L6-v2", 384, 6, 12, 1536, 30522, 512)  # Match-Ignition's and CDA's sentence encoder


@dataclass(frozen=True)
class Step:
    """One forward pass (and backward, when training) of `batch` sequences of `tokens` tokens."""

    shape: Shape
    batch: int
    tokens: int
    training: bool
    precision: str = "fp32"  # "fp32", "fp16" or "bf16" (autocast)
    global_tokens: int = 0  # per sequence
    predicted: int = 0  # tokens through the vocabulary projection, per sequence (masked-LM training)
    checkpointing: bool = False
    keeps_scores: bool = False  # the attention keeps its probabilities, dropped too (CPU, dropout on)
    attention_maps: bool = False  # every layer's attention probabilities returned (`output_attentions`)


def keys_per_query(step: Step) -> int:
    """Keys each query is scored against: every token, or (Longformer) the global tokens plus its block's window."""
    from ...longformer_attention import block_size, whole_sequence

    if step.shape.window <= 0:
        return step.tokens
    one_side = step.shape.window // 2
    block = block_size(one_side, step.tokens, step.global_tokens)
    if whole_sequence(one_side, step.tokens, step.global_tokens, block):
        return step.tokens
    return step.global_tokens + block + step.shape.window


def layer_bytes(step: Step, elements: int) -> float:
    """Activations of one layer for one sequence with `elements` per token and hidden unit."""
    shape, act = step.shape, BYTES[step.precision]
    keys = keys_per_query(step)
    total = step.tokens * shape.hidden * elements * act
    if shape.window > 0 and keys < step.tokens:  # each query block gets its own copy of its keys and values
        blocks = -(-step.tokens // (keys - step.global_tokens - shape.window))
        total += blocks * keys * shape.hidden * 2 * act
    if step.keeps_scores:  # probabilities and dropped probabilities (the CPU dropout path; Hugging Face's, + a mask)
        total += step.tokens * shape.heads * keys * 2 * act
    return total


def memory_parts(step: Step) -> dict[str, float]:
    """Bytes by part: weights, gradients, optimizer, activations, logits (peak = their sum)."""
    shape, params = step.shape, step.shape.parameters
    half_copy = 2 * params if step.precision != "fp32" else 0
    parts = {"weights": 4 * params + half_copy, "gradients": 0.0, "optimizer": 0.0, "logits": 0.0}
    if step.training:
        parts["gradients"], parts["optimizer"] = 4 * params, 8 * params
        half_longformer = step.precision != "fp32" and shape.window > 0
        elements = HALF_ACTIVATION_ELEMENTS if half_longformer else ACTIVATION_ELEMENTS
        per_layer = layer_bytes(step, elements)
        kept = (shape.layers * step.tokens * shape.hidden * BYTES[step.precision] + per_layer
                if step.checkpointing else shape.layers * per_layer)
        parts["activations"] = step.batch * kept
        parts["logits"] = step.batch * step.predicted * shape.vocab * (8 + BYTES[step.precision])
    else:
        parts["activations"] = step.batch * layer_bytes(step, INFERENCE_ELEMENTS)
    if step.attention_maps:  # probabilities of every layer and head, for the window (+1) and the global keys
        kept_keys = min(step.tokens, shape.window + 1 + step.global_tokens) if shape.window else step.tokens
        parts["activations"] += step.batch * shape.layers * shape.heads * step.tokens * kept_keys * 4
    return parts


def peak_bytes(step: Step) -> float:
    """The step's peak memory in bytes (`memory_parts` summed)."""
    return sum(memory_parts(step).values())


def step_flops(step: Step) -> float:
    """Floating-point operations of the step: 2 per weight and token forward, the attention scores and their use,
    the vocabulary projection of the predicted tokens; training triples it (a fourth pass with checkpointing)."""
    shape = step.shape
    dense = 2 * shape.layers * shape.layer_parameters * step.tokens
    attention = 4 * shape.layers * step.tokens * keys_per_query(step) * shape.hidden
    logits = 2 * step.predicted * shape.hidden * shape.vocab
    forward = step.batch * (dense + attention + logits)
    if not step.training:
        return forward
    return forward * (4 if step.checkpointing else 3)
