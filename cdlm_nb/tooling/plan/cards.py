"""The cards people run the notebooks on, the precision each one trains in (`cdlm_nb.support.precision`), and the
card this session has.

Peaks are the vendors' dense tensor-core figures for the precision the card trains in (fp16 on a T4, bf16 from
compute capability 8.0 up); memory is the card's nominal size in GiB. A CUDA card not in the table is described
from what torch reports, with the peak of the nearest card below it in compute capability.

The share of the peak the notebooks reach was measured on one card, the H100; every card not measured itself uses
that share, and the plan says so ("measured on H100, assumed for T4"), until a run on that card measures it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...support.errors import ConfigError

GIB = 2**30
#: Share of a card's memory the plan may fill: the CUDA context and the allocator's fragmentation take the rest.
USABLE_SHARE = 0.92
#: Share of an H100's peak the notebooks' jobs reach, as `benchmarks/plan_check.py --typical` measures it (bf16,
#: random Longformer-base at the plan's batches; the figures: docs/experiments.md, "The gpu plan"). The only card
#: measured: every other card uses this share too (`Card.utilisation_note` says so).
H100_UTILISATION = 0.12
#: The card whose share of the peak was measured, as the plan's text names it.
MEASURED_CARD = "H100"


@dataclass(frozen=True)
class Card:
    """One device the plan is made for."""

    key: str  # the name `cdlm-nb plan --device` takes
    label: str
    memory_gib: float  # nominal memory
    capability: tuple[int, int]  # CUDA compute capability; (0, 0) for a CPU
    peak_tflops: float  # dense peak in the precision it trains in (NVIDIA data sheets); a CPU: measured fp32
    utilisation: float = H100_UTILISATION  # share of the peak the notebooks reach (the minutes' divisor)
    utilisation_measured: bool = False  # True: measured on this card; False: the H100's share, assumed here

    @property
    def usable_gib(self) -> float:
        return self.memory_gib * USABLE_SHARE

    @property
    def short_name(self) -> str:
        """The card as the plan's text names it: `T4`, `A100-80`, `this CPU`, or torch's name of another card."""
        if self.capability == (0, 0):
            return "this CPU"
        return self.key.upper() if self.key in CARDS else self.key

    @property
    def utilisation_note(self) -> str:
        """Where the share of the peak comes from, for the plan's text: measured on this card, or the H100's share
        assumed for this one (no run has measured it)."""
        if self.utilisation_measured:
            return f"measured on {self.short_name}"
        return f"measured on {MEASURED_CARD}, assumed for {self.short_name}"


CARDS = {card.key: card for card in (
    Card("t4", "NVIDIA T4 16 GB (Colab free tier)", 16e9 / GIB, (7, 5), 65.0),
    Card("l4", "NVIDIA L4 24 GB", 24e9 / GIB, (8, 9), 121.0),
    Card("a100-40", "NVIDIA A100 40 GB", 40e9 / GIB, (8, 0), 312.0),
    Card("a100-80", "NVIDIA A100 80 GB", 80e9 / GIB, (8, 0), 312.0),
    Card("h100", "NVIDIA H100 SXM 80 GB", 80e9 / GIB, (9, 0), 990.0, H100_UTILISATION, True),
)}


def get_card(key: str) -> Card:
    """The card called `key`; an unknown name raises ConfigError listing the known ones."""
    try:
        return CARDS[key]
    except KeyError:
        raise ConfigError(f"unknown device {key!r} for the plan; choose one of {sorted(CARDS)}") from None


def card_like(name: str, memory_gib: float, capability: tuple[int, int]) -> Card:
    """A CUDA card as torch describes it: a known one when name and memory match, else the nearest known card
    below it in compute capability, with this card's memory."""
    for card in CARDS.values():
        if card.key.split("-")[0] in name.lower().replace(" ", "") and abs(card.memory_gib - memory_gib) < 8:
            return card
    below = [card for card in CARDS.values() if card.capability <= capability] or [CARDS["t4"]]
    nearest = max(below, key=lambda card: (card.capability, card.peak_tflops))
    return replace(nearest, key=name, label=f"{name} (peak taken from the {nearest.key})", memory_gib=memory_gib,
                   capability=capability, utilisation=H100_UTILISATION, utilisation_measured=False)


def cpu_card(gflops: float) -> Card:
    """This machine's CPU: its memory, and its measured fp32 matrix-multiply rate (`gflops`) as the peak (0: not
    measured, and the plan gives no minutes); the share of it reached is the H100's, as for any unmeasured card."""
    import psutil

    return Card("cpu", "this CPU", psutil.virtual_memory().total / GIB, (0, 0), gflops / 1000)


def this_card(device: str, cpu_gflops: float = 0.0) -> Card:
    """The card of a session on `device` ('cuda': torch's description of GPU 0; anything else: the CPU, at
    `cpu_gflops`, e.g. `runtime.matmul_gflops()`; 0: not measured)."""
    if device != "cuda":
        return cpu_card(cpu_gflops)
    import torch

    props = torch.cuda.get_device_properties(0)
    return card_like(props.name, props.total_memory / GIB, (props.major, props.minor))
