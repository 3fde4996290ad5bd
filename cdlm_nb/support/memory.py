"""Peak memory of a stretch of work: on a GPU, torch's peak allocation; on a CPU, the process's peak resident memory
above its start, sampled by a thread (torch's CPU allocations are invisible to tracemalloc)."""

from __future__ import annotations

import threading

import psutil
import torch


class PeakMemory:
    """Started on creation; `stop()` returns (and keeps in `megabytes`) the megabytes above the start."""

    def __init__(self, device: str = "cpu", interval: float = 0.005) -> None:
        self.device, self.interval, self.megabytes = device, interval, 0.0
        self._done, self._sampler = threading.Event(), None
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
            self._start = torch.cuda.memory_allocated()
            return
        self._start = self._highest = _resident()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while not self._done.wait(self.interval):
            self._highest = max(self._highest, _resident())

    def stop(self) -> float:
        """End the measurement; the peak in megabytes above the start."""
        if self._sampler is None:
            peak = torch.cuda.max_memory_allocated()
        else:
            self._done.set()
            self._sampler.join()
            peak = max(self._highest, _resident())
        self.megabytes = (peak - self._start) / 2 ** 20
        return self.megabytes


def _resident() -> int:
    return psutil.Process().memory_info().rss
