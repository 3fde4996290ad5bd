"""Which process writes when several train together (`torchrun`, `accelerate launch`): the main one, while the
others wait for it; a process alone just runs. Accelerate's `PartialState` knows the job: it is the state the
Hugging Face `Trainer` itself reads, so these agree with the Trainer's own `main_process_first`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def is_main_process() -> bool:
    """True in the main process of a job, and in a process that runs alone."""
    from accelerate import PartialState

    return PartialState().is_main_process


@contextmanager
def main_process_first() -> Iterator[None]:
    """The main process runs the block first; the others run it once it is done (a barrier on each side), so what
    the main process wrote there (a saved model, a copied folder) is what they find."""
    from accelerate import PartialState

    with PartialState().main_process_first():
        yield
