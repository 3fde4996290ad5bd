"""The learning curve of a pretraining run: held-out perplexity every few steps, from the starting model (step 0)
on, so a reader sees where the variants' orderings cross, not only where the step budget stopped them.

Each point goes into the Trainer's log history (`CURVE_KEY`), which checkpoints save, so a resumed run keeps the
points it made before the interruption. The evaluation masks come from their own seeded generators
(`heldout`), so measuring the curve leaves the training run unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transformers import TrainerCallback

from .heldout import heldout_perplexity

if TYPE_CHECKING:
    from collections.abc import Callable

    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase, TrainerControl, TrainerState, TrainingArguments

    from .copy_task import CopyTaskData

CURVE_KEY = "heldout_perplexity"  # the log-history entry of one curve point
COPY_KEY = "copy_probe"  # the log-history entry of one within-reach copy probe point (`CopyProbeCurve`)


class EveryCurve(TrainerCallback):
    """A measurement at the start of training and every `every` optimizer steps (and the last), kept once per step
    under `key` in the log history (a resumed run keeps its earlier points) by the main process only; a subclass
    says what it measures (`point`)."""

    key = ""

    def __init__(self, every: int):
        self.every = every

    def point(self, state: "TrainerState", model: "PreTrainedModel") -> dict:
        """The log-history entry of one point (with `key`)."""
        raise NotImplementedError

    def _measure(self, state: "TrainerState", model: "PreTrainedModel") -> None:
        if not state.is_world_process_zero or any(entry.get("step") == state.global_step and self.key in entry
                                                  for entry in state.log_history):
            return
        state.log_history.append({"step": state.global_step, **self.point(state, model)})

    def on_train_begin(self, args: "TrainingArguments", state: "TrainerState", control: "TrainerControl",
                       model: "PreTrainedModel | None" = None, **kwargs) -> None:
        self._measure(state, model)

    def on_step_end(self, args: "TrainingArguments", state: "TrainerState", control: "TrainerControl",
                    model: "PreTrainedModel | None" = None, **kwargs) -> None:
        if state.global_step % self.every == 0 or state.global_step == state.max_steps:
            self._measure(state, model)


class PerplexityCurve(EveryCurve):
    """Measures `heldout_perplexity` at the start of training and every `every` optimizer steps (and the last)."""

    key = CURVE_KEY

    def __init__(self, tokenizer: "PreTrainedTokenizerBase", examples: "Dataset", variant: str, every: int,
                 batch_size: int = 8):
        super().__init__(every)
        self.tokenizer, self.examples, self.variant, self.batch_size = tokenizer, examples, variant, batch_size

    def point(self, state: "TrainerState", model: "PreTrainedModel") -> dict:
        return {CURVE_KEY: heldout_perplexity(model, self.tokenizer, self.examples, self.variant, self.batch_size)}


class CopyProbeCurve(EveryCurve):
    """The within-reach copy probe (`copy_task.WITHIN_REACH`) at the start of training and every `every`
    optimizer steps (and the last), against the tokens trained: the curve on which a copy circuit's phase change
    shows as a jump. Both forms of the probe, the span repeated as it is and with its halves swapped; each point
    is also said with `echo` (a base stage runs for many minutes: the jump can be watched)."""

    key = COPY_KEY

    def __init__(self, same: "CopyTaskData", swapped: "CopyTaskData", every: int,
                 echo: "Callable[[str], object] | None" = None):
        super().__init__(every)
        self.same, self.swapped, self.echo = same, swapped, echo

    def point(self, state: "TrainerState", model: "PreTrainedModel") -> dict:
        from .copy_task import copy_task_gain

        gains = {name: copy_task_gain(model, data)[1] for name, data in (("same", self.same),
                                                                        ("swapped", self.swapped))}
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
