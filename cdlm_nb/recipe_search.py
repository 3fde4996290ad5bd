"""One small recipe search on dev, the same for every system of a table, so no system wins by its recipe alone.

Every learning rate of the `SearchSpace` trains over the full schedule, dev is scored after every epoch and the best
point (`SearchPoint.rank`) keeps its weights, so test is scored once, with them; `RecipeCache` keeps the search.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .finetuning import LOOP_VERSION, Epoch, cpu_state
from .profiles import SearchSpace
from .verdicts import flat
from .widgets import blank_missing

if TYPE_CHECKING:
    import pandas as pd
    import torch

CACHE_FOLDER = "recipes"  # under the run folder


@dataclass(frozen=True)
class Recipe:
    """A chosen recipe: train `epochs` epochs of a `schedule_epochs`-epoch schedule at `learning_rate`."""

    learning_rate: float
    epochs: int
    schedule_epochs: int
    warmup: float

    def describe(self) -> str:
        warmup = f", {100 * self.warmup:g} % warm-up" if self.warmup else ""
        return f"lr {self.learning_rate:g}, {self.epochs} of {self.schedule_epochs} epochs{warmup}"


@dataclass(frozen=True)
class SearchPoint:
    """One point's dev score."""

    learning_rate: float
    epoch: int
    dev_f1: float  # of the positive class (the papers' test metric)
    dev_accuracy: float
    dev_macro_f1: float  # the mean of both classes' F1: the selection score
    one_class: bool = False  # every dev pair got the same decision: the label prior, not a learned rule
    seconds: float = 0.0  # training its learning rate up to this epoch took (dev scoring left out)

    def rank(self) -> tuple[bool, float, float, float, int, float]:
        """Larger is better: a point that tells the classes apart at all, then dev macro-F1 (calling every pair
        related reaches F1 50 where a third are related, but macro-F1 25), dev F1, dev accuracy, fewer epochs, the
        smaller learning rate (so among one-class points the majority class wins)."""
        return (not self.one_class, self.dev_macro_f1, self.dev_f1, self.dev_accuracy, -self.epoch, -self.learning_rate)


def dev_scores(labels: Sequence[int], decisions: Sequence[int]) -> dict[str, float]:
    """A search's dev scores: positive-class F1, accuracy, macro-F1, and whether every decision is one class."""
    from sklearn.metrics import accuracy_score, f1_score

    return {"f1": float(f1_score(labels, decisions, zero_division=0)),
            "accuracy": float(accuracy_score(labels, decisions)),
            "macro_f1": float(f1_score(labels, decisions, average="macro", labels=[0, 1], zero_division=0)),
            "one_class": len(set(decisions)) == 1}


@dataclass
class SearchResult:
    """Every point's dev score, the chosen recipe, the search's cost, and the chosen run's `outcome` (e.g. losses)."""

    system: str
    space: SearchSpace
    points: list[SearchPoint]
    chosen: Recipe
    search_seconds: float  # the full search (as first measured, when read from the cache)
    outcome: dict[str, Any] = field(default_factory=dict)
    cached: bool = False  # read from the run folder's cache with the chosen weights: nothing trained here

    @property
    def best(self) -> SearchPoint:
        return max(self.points, key=SearchPoint.rank)

    def describe(self) -> str:
        """The chosen recipe in words, and whether this run trained it or read it from the cache."""
        return self.chosen.describe() + ("; read from the run folder's cache, nothing trained" if self.cached else "")

    @property
    def train_seconds(self) -> float:
        """Training the chosen recipe took (its learning rate up to its epoch, dev scoring left out)."""
        return self.best.seconds

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if key != "cached"}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchResult:
        space = SearchSpace(**data["space"] | {"learning_rates": tuple(data["space"]["learning_rates"])})
        return cls(data["system"], space, [SearchPoint(**p) for p in data["points"]], Recipe(**data["chosen"]),
                   data["search_seconds"], data["outcome"], cached=True)


def setting(config: Any) -> dict[str, Any]:
    """A search's cache key of a task's config: every field but `models` (cached per system), and the loop version."""
    return {key: value for key, value in vars(config).items() if key != "models"} | {"loop": LOOP_VERSION}


@dataclass
class RecipeCache:
    """Searches under `<run_dir>/recipes/<task>` (a re-run, or another notebook training the same system on the same
    pairs, trains nothing), one per system and key: the points as JSON, the chosen point's weights beside them."""

    folder: Path

    @classmethod
    def in_run(cls, run_dir: str | Path | None, task: str) -> RecipeCache | None:
        return None if run_dir is None else cls(Path(run_dir) / CACHE_FOLDER / task)

    def path(self, system: str, key: str, suffix: str = "json") -> Path:
        return self.folder / f"{system}-{key}.{suffix}"

    def load(self, system: str, key: str) -> tuple[SearchResult, dict[str, "torch.Tensor"]] | None:
        """The cached search and its chosen weights; None (searched again) when either is missing or unreadable, or
        the points choose another recipe under today's `SearchPoint.rank` than the weights were kept for."""
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        path, weights = self.path(system, key), self.path(system, key, "safetensors")
        if not (path.is_file() and weights.is_file()):
            return None
        try:
            result = SearchResult.from_json(json.loads(path.read_text(encoding="utf-8")))
            state = load_file(weights)
        except (ValueError, KeyError, TypeError, OSError, SafetensorError):
            return None
        return (result, state) if _recipe(result.best, result.space) == result.chosen else None

    def save(self, result: SearchResult, key: str, state: dict[str, "torch.Tensor"]) -> None:
        """The weights first, then the JSON that makes them a cache hit."""
        from safetensors.torch import save_file

        from .support.artefacts import write_atomic, write_text_atomic

        # one copy per entry: safetensors refuses tensors that share memory (tied weights)
        tensors = {name: value.detach().cpu().contiguous().clone() for name, value in state.items()}
        write_atomic(self.path(result.system, key, "safetensors"), lambda temporary: save_file(tensors, temporary))
        write_text_atomic(self.path(result.system, key), json.dumps(result.to_json(), indent=1) + "\n")


@dataclass
class Search:
    """One system's search as the caller's loop runs it (notebook 05): train every rate of `rates()` (none on a cache
    hit), `keep` each epoch's dev scores, then `result`; `state`: the best point's weights, to load before test."""

    system: str
    space: SearchSpace
    cache: RecipeCache | None = None
    key: str = ""  # the cache key: everything the search depends on (`setting`, the data, the start, the seed)
    points: list[SearchPoint] = field(default_factory=list)
    state: dict[str, "torch.Tensor"] | None = None
    cached: SearchResult | None = None  # the search read from the cache: nothing to train
    started: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        if self.cache is not None and (hit := self.cache.load(self.system, self.key)) is not None:
            self.cached, self.state = hit

    def rates(self) -> list[float]:
        """The learning rates still to train, smallest first: all of the space's, or none on a cache hit."""
        return [] if self.cached is not None else sorted(self.space.learning_rates)

    def keep(self, model: "torch.nn.Module", learning_rate: float, epoch: Epoch, scores: dict[str, float]) -> None:
        """Record one point (`dev_scores` after `epoch` at `learning_rate`), and its weights when it ranks first."""
        point = SearchPoint(learning_rate, epoch.number, float(scores["f1"]), float(scores["accuracy"]),
                            float(scores["macro_f1"]), bool(scores["one_class"]), epoch.seconds)
        if not self.points or point.rank() > max(p.rank() for p in self.points):
            self.state = cpu_state(model)
        self.points.append(point)

    @property
    def chosen(self) -> Recipe:
        return self.cached.chosen if self.cached is not None else _recipe(max(self.points, key=SearchPoint.rank),
                                                                           self.space)

    def result(self, outcome: dict[str, Any] | None = None) -> SearchResult:
        """The search with what the caller keeps of the chosen run (`outcome`, JSON-able), saved to the cache."""
        if self.cached is not None:
            return self.cached
        result = SearchResult(self.system, self.space, self.points, self.chosen, time.perf_counter() - self.started,
                              outcome or {})
        if self.cache is not None:
            self.cache.save(result, self.key, self.state)
        return result


class Trainable(Protocol):
    """A system's training as the notebooks' loop drives it (e.g. `matching.experiment.ClassifierSearch`)."""

    def rates(self) -> list[float]: ...
    def reset(self) -> "torch.nn.Module": ...
    def fine_tune(self, model: "torch.nn.Module", learning_rate: float) -> Iterator[Epoch]: ...
    def keep(self, model: "torch.nn.Module", learning_rate: float, epoch: Epoch) -> None: ...
    def finish(self) -> Any: ...


def train_and_score(search: Trainable) -> Any:
    """The loop notebooks 05, 09, 10 and 11 write out, for callers that do not (tools, tests)."""
    for rate in search.rates():
        model = search.reset()
        for epoch in search.fine_tune(model, rate):
            search.keep(model, rate, epoch)
    return search.finish()


def _recipe(point: SearchPoint, space: SearchSpace) -> Recipe:
    return Recipe(point.learning_rate, point.epoch, space.epochs, space.warmup)


def space_table(results: dict[str, SearchResult], labels: Callable[[str], str] = str) -> "pd.DataFrame":
    """Dev macro-F1 (%) of every point, one row per system and learning rate, one column per epoch; the chosen
    point starred, ° where every dev pair got one class; the chosen recipe and the search's seconds beside it."""
    import pandas as pd

    rows = {}
    for name, r in results.items():
        chosen = (r.chosen.learning_rate, r.chosen.epochs)
        for rate in sorted({p.learning_rate for p in r.points}):
            points = sorted((p for p in r.points if p.learning_rate == rate), key=lambda p: p.epoch)
            rows[(labels(name), f"lr {rate:g}")] = {
                **{f"epoch {p.epoch}": f"{100 * p.dev_macro_f1:.1f}{'°' if p.one_class else ''}"
                                       f"{'*' if (rate, p.epoch) == chosen else ''}" for p in points},
                "chosen recipe": r.chosen.describe(), "search s": round(r.search_seconds, 1),
                "chosen's training s": round(r.train_seconds, 1), "from cache": r.cached}
    return blank_missing(pd.DataFrame(rows).T)


def search_metrics(prefix: str, results: dict[str, SearchResult]) -> dict[str, float]:
    """`<prefix>/recipe/<system>/{dev_f1,dev_acc,dev_macro_f1,learning_rate,epochs,search_seconds}` per system."""
    return flat(f"{prefix}/recipe", {name: {
        "dev_f1": r.best.dev_f1, "dev_acc": r.best.dev_accuracy, "dev_macro_f1": r.best.dev_macro_f1,
        "learning_rate": r.chosen.learning_rate, "epochs": float(r.chosen.epochs), "search_seconds": r.search_seconds,
    } for name, r in results.items()})


def search_note(results: dict[str, SearchResult], labels: Callable[[str], str] = str) -> str:
    """One paragraph: the space, each system's chosen recipe and dev scores, and the search's cost."""
    if not results:
        return "No system was fine-tuned, so no recipe was searched."
    spaces: dict[SearchSpace, list[str]] = {}
    for name, result in results.items():
        spaces.setdefault(result.space, []).append(labels(name))
    searched = (f"the same for every system: {next(iter(spaces)).describe()}" if len(spaces) == 1
                else "; ".join(f"{', '.join(names)}: {space.describe()}" for space, names in spaces.items()))
    lines = [f"Searched on dev, {searched}; the best dev macro-F1 wins (a point giving every dev pair one class ranks "
             "last) and test is scored once with its weights."]
    lines += [f"- {labels(name)}: {r.chosen.describe()}{' (cached)' * r.cached}; dev macro-F1 "
              f"{100 * r.best.dev_macro_f1:.1f}, F1 {100 * r.best.dev_f1:.1f}; search {r.search_seconds:.0f} s "
              f"({r.train_seconds:.0f} s the recipe)." for name, r in results.items()]
    if any(r.cached for r in results.values()):
        lines.append("- (cached): read from the run folder's cache, nothing trained here.")
    lines.append(f"- The whole search: {sum(r.search_seconds for r in results.values()):.0f} s of training and dev "
                 "scoring.")
    return "\n".join(lines)

