"""The processes of a pretraining job (`torchrun`, `accelerate launch`): the main one writes while the others wait,
and they leave together; a process alone just runs. Accelerate's `PartialState` is what the `Trainer` reads too."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerate import PartialState


def job() -> "PartialState":
    """The job's state, set up by the first call (without CUDA, told to train on CPUs over gloo: else one process)."""
    import torch
    from accelerate import PartialState

    return PartialState(cpu=not torch.cuda.is_available())


def is_main_process() -> bool:
    """True in the main process of a job, and in a process that runs alone."""
    return job().is_main_process


def main_process_first():
    """The main process runs the block first, the others once it is done: they find what it wrote there."""
    return job().main_process_first()


def end_job() -> None:
    """Each process waits for the others, then closes the process group (one that exits early makes gloo abort)."""
    state = job()
    if state.num_processes > 1:
        state.wait_for_everyone()
        state.destroy_process_group()
