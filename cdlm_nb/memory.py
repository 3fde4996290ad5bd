"""Peak memory of a block of work: on a GPU, torch's peak allocation; on a CPU, the peak resident memory of the
process above what it held when the block began (sampled every few milliseconds by a thread: torch's CPU
allocations are invisible to tracemalloc)."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Peak:
    """Megabytes above the start of the block (filled in when the block ends)."""

    megabytes: float = 0.0


@contextmanager
def peak_memory(device: str = "cpu", interval: float = 0.005):
    """`with peak_memory() as peak: ...` then `peak.megabytes`."""
    import torch

    peak = Peak()
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
        start = torch.cuda.memory_allocated()
        yield peak
        peak.megabytes = (torch.cuda.max_memory_allocated() - start) / 2 ** 20
        return
    import psutil

    process = psutil.Process()
    start = highest = process.memory_info().rss
    done = threading.Event()

    def sample() -> None:
        nonlocal highest
        while not done.wait(interval):
            highest = max(highest, process.memory_info().rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()
        highest = max(highest, process.memory_info().rss)
        peak.megabytes = (highest - start) / 2 ** 20
