"""The processes of a pretraining job (`torchrun`, `accelerate launch`): which one writes (the main one, while the
others wait for it) and how they leave together; a process alone just runs (fine-tuning runs on one process).
Accelerate's `PartialState` knows the job: it is the state the Hugging Face `Trainer` itself reads, so these agree
with the Trainer's own `main_process_first`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerate import PartialState


def job() -> "PartialState":
    """The job's state. Without CUDA, several processes train on CPUs over gloo (accelerate treats a CPU job as one
    process unless told); the first call sets it up, later ones read it."""
    import torch
    from accelerate import PartialState

    return PartialState(cpu=not torch.cuda.is_available())


def is_main_process() -> bool:
    """True in the main process of a job, and in a process that runs alone."""
    return job().is_main_process


@contextmanager
def main_process_first() -> Iterator[None]:
    """The main process runs the block first; the others run it once it is done (a barrier on each side), so what
    the main process wrote there (a saved model, a copied folder) is what they find."""
    with job().main_process_first():
        yield


def end_job() -> None:
    """The processes leave together: each waits for the others, then closes the process group. A process that exits
    while a peer still reads its last message resets the peer's connection, and gloo aborts the peer."""
    state = job()
    if state.num_processes > 1:
        state.wait_for_everyone()
        state.destroy_process_group()
