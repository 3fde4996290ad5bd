"""The precision a device trains in, one rule for training (`precision`) and the plan (`precision_for` a card)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


def precision_for(capability: tuple[int, int]) -> str:
    """'bf16' from CUDA compute capability 8.0 up; 'fp16' (with a gradient scaler) below it, where bf16 is only
    emulated and memory-efficient attention has no bf16 kernel; 'fp32' on a CPU (capability (0, 0))."""
    return "fp32" if tuple(capability) == (0, 0) else "bf16" if tuple(capability) >= (8, 0) else "fp16"


def precision(device: "str | torch.device") -> str:
    """`precision_for` this device: its CUDA capability, or fp32 off CUDA."""
    import torch

    return precision_for(torch.cuda.get_device_capability(device)) if torch.device(device).type == "cuda" else "fp32"
