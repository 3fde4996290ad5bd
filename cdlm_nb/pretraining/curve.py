"""Curves of a pretraining run, in the Trainer's log history: held-out perplexity from step 0 on, and the copy probe
along the copy stage. The evaluation masks have their own seeded generators: measuring leaves the run unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from transformers import TrainerCallback

from .copy_task import copy_task_gain
from .heldout import heldout_perplexity

if TYPE_CHECKING:
    from collections.abc import Callable

    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase, TrainerState

    from .copy_task import CopyTaskData

CURVE_KEY = "heldout_perplexity"  # the log-history entry of one curve point
COPY_KEY = "copy_probe"  # the log-history entry of one within-reach copy probe point (`CopyProbeCurve`)


class EveryCurve(TrainerCallback):
    """A measurement (`point`, under `key`) at the start, every `every` steps and at the end (main process)."""

    key = ""  # its log-history entry
    every: int  # optimizer steps between points

    def _measure(self, state: "TrainerState", model: "PreTrainedModel") -> None:
        if state.is_world_process_zero and not any(entry.get("step") == state.global_step and self.key in entry
                                                   for entry in state.log_history):
            state.log_history.append({"step": state.global_step, **self.point(state, model)})

    def on_train_begin(self, args, state: "TrainerState", control, model: "PreTrainedModel | None" = None, **kwargs):
        self._measure(state, model)

    def on_step_end(self, args, state: "TrainerState", control, model: "PreTrainedModel | None" = None, **kwargs):
        if state.global_step % self.every == 0 or state.global_step == state.max_steps:
            self._measure(state, model)


class PerplexityCurve(EveryCurve):
    """`heldout_perplexity` of the model on `examples` with `variant`'s attention pattern."""

    key = CURVE_KEY

    def __init__(self, tokenizer: "PreTrainedTokenizerBase", examples: "Dataset", variant: str, every: int,
                 batch_size: int = 8):
        self.tokenizer, self.examples, self.variant = tokenizer, examples, variant
        self.every, self.batch_size = every, batch_size

    def point(self, state: "TrainerState", model: "PreTrainedModel") -> dict:
        return {CURVE_KEY: heldout_perplexity(model, self.tokenizer, self.examples, self.variant, self.batch_size)}


class CopyProbeCurve(EveryCurve):
    """The within-reach copy probe (as repeated, halves swapped) against tokens trained: a copy circuit jumps."""

    key = COPY_KEY

    def __init__(self, same: "CopyTaskData", swapped: "CopyTaskData", every: int,
                 echo: "Callable[[str], object] | None" = None):
        self.same, self.swapped, self.every, self.echo = same, swapped, every, echo

    def point(self, state: "TrainerState", model: "PreTrainedModel") -> dict:
        gains = {"same": copy_task_gain(model, self.same)[1], "swapped": copy_task_gain(model, self.swapped)[1]}
        tokens = int(state.num_input_tokens_seen)
        if self.echo is not None:
            self.echo(f"    step {state.global_step:,} ({tokens:.2e} tokens): within-reach copy gain "
                      f"{gains['same']:+.3f} nats/token, halves swapped {gains['swapped']:+.3f}")
        return {"tokens": tokens, COPY_KEY: gains}


def copy_probe_points(log_history: list[dict]) -> list[tuple[int, int, float, float]]:
    """The (step, tokens trained, gain as repeated, gain with halves swapped) points of a run's copy probe curve."""
    return sorted((entry["step"], int(entry["tokens"]), entry[COPY_KEY]["same"], entry[COPY_KEY]["swapped"])
                  for entry in log_history if COPY_KEY in entry)


def curve_points(log_history: list[dict]) -> list[tuple[int, float]]:
    """The (step, held-out perplexity) points of a run's log history, in step order."""
    return sorted((entry["step"], entry[CURVE_KEY]) for entry in log_history if CURVE_KEY in entry)
