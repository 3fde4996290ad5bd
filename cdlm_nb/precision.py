"""The precision a device trains in, from its CUDA compute capability: the one rule the training code
(`finetuning.precision`) and the plan (`plan.cards`) share, kept here so the training code needs no planner."""

from __future__ import annotations


def precision_for(capability: tuple[int, int]) -> str:
    """'bf16' from CUDA compute capability 8.0 up; 'fp16' (with a gradient scaler) below it, where bf16 is only
    emulated and memory-efficient attention has no bf16 kernel; 'fp32' on a CPU (capability (0, 0))."""
    if tuple(capability) == (0, 0):
        return "fp32"
    return "bf16" if tuple(capability) >= (8, 0) else "fp16"
