"""The recipes a dev search tries: a value of the profiles (`task_profiles`), kept apart from the search
itself (`recipe_search`) so the profiles load without the training code."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchSpace:
    """The recipes tried on dev: every learning rate, dev scored after each of `epochs` epochs of one schedule."""

    learning_rates: tuple[float, ...]
    epochs: int  # length of the schedule (warm-up then linear decay to zero over these epochs), or most epochs
    warmup: float  # share of the schedule's steps with a linear warm-up
    schedule: str = "linear"  # "linear" (warm-up, then decay to zero) or "constant" (Adam at a fixed rate)

    def describe(self) -> str:
        """The space in words, for tables and notes."""
        rates = ", ".join(f"{rate:g}" for rate in self.learning_rates)
        shape = (f"{100 * self.warmup:g} % warm-up, linear decay" if self.schedule == "linear" else
                 "constant rate, early stopping on the dev loss")
        return (f"learning rate in {{{rates}}} x epoch 1-{self.epochs} of a {self.epochs}-epoch schedule "
                f"({shape}); up to {len(self.learning_rates) * self.epochs} points")


def epoch_search(training) -> SearchSpace:
    """A training config's own schedule (`learning_rate`, `epochs`, `warmup`) as a one-rate search: dev is scored
    after every epoch and the best epoch kept, nothing else searched."""
    return SearchSpace((training.learning_rate,), training.epochs, training.warmup)
