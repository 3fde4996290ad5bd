"""What a results table may claim. Reference rows are what a system that learned nothing scores on the same test
items (calling every pair related, the majority class, chance); a row not above them is "learned nothing here" and
is never ranked. The noise rule: a difference between two systems is read only when it exceeds both its paired
bootstrap interval over the test items and the fine-tuning seed spread; otherwise it is "not resolved at this scale".
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .profiles import SEED

LEARNED_NOTHING = "learned nothing here"
HOLDS, REVERSED, UNRESOLVED = "holds here", "reversed here", "not resolved at this scale"
#: The level of every interval a table or a reading shows (the percentile bootstrap's two-sided coverage).
CONFIDENCE = 0.95
RESAMPLES = 1000  # bootstrap draws: the 2.5 % and 97.5 % percentiles move by well under a point past this
#: "Almost every": at most one test input in twenty gets another class (a matcher that calls 116 of 120 test pairs
#: unrelated has not learned a rule, whatever its few other calls score). Describes a row; never decides one.
ONE_CLASS_SHARE = 0.95
#: The classes of the pair tasks (matching, CDA's D2D, the comparison), by label.
PAIR_CLASSES = ("unrelated", "related")
Z95 = 1.96


#: A number the paper does not report: a blank cell (None, so pandas shows it as missing, not as 0).
NR = None


def reference_label(name: str) -> str:
    """The table row of a reference (what a system that learned nothing scores): `reference: all related`."""
    return f"reference: {name}"


def pair_references(labels: Sequence[int]) -> dict[str, dict[str, float]]:
    """What calling every test pair related, or none, scores: accuracy and F1 of the related class (fractions)."""
    share = float(np.mean(labels)) if len(labels) else 0.0
    return {"all related": {"acc": share, "f1": 2 * share / (1 + share)},
            "none related": {"acc": 1 - share, "f1": 0.0}}


def class_references(train_labels: Sequence, test_labels: Sequence) -> dict[str, float]:
    """Accuracy (fraction) of answering every test input with the training set's most frequent class, and the
    expected accuracy of guessing classes at their training shares (the label prior)."""
    classes, counts = np.unique(np.asarray(train_labels), return_counts=True)
    shares = dict(zip(classes.tolist(), counts / counts.sum()))
    test = np.asarray(test_labels)
    majority = classes[int(np.argmax(counts))]
    return {"majority class": float(np.mean(test == majority)),
            "label prior": float(sum(shares.get(label, 0.0) for label in test.tolist()) / max(len(test), 1))}


def floor(references: Mapping[str, float]) -> float:
    """The best reference score: a system must beat every reference row to have learned something."""
    return max(references.values())


def floors(references: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Per metric, the best score of any reference row ({row: {metric: value}} -> {metric: floor})."""
    first, *rest = references.values()
    metrics = [metric for metric in first if all(metric in row for row in rest)]  # in the rows' order
    return {metric: floor({name: row[metric] for name, row in references.items()}) for metric in metrics}


def learned_everywhere(scores: Mapping[str, float], metric_floors: Mapping[str, float]) -> bool:
    """Whether a row is above the floor on every metric both have (a matcher with F1 above calling every pair
    related but accuracy below calling none related has not learned a better rule than a constant)."""
    return all(learned(scores[metric], value) for metric, value in metric_floors.items() if metric in scores)


def flat(prefix: str, nested: Mapping) -> dict[str, float]:
    """`{"<prefix>/<a>/<b>": value}` for a nested mapping `{a: {b: value}}`, at any depth, spaces in keys as `_`:
    the one shape every recorded metric name takes (`record_all` keeps the result)."""
    metrics = {}
    for key, value in nested.items():
        name = f"{prefix}/{str(key).replace(' ', '_')}"
        metrics |= flat(name, value) if isinstance(value, Mapping) else {name: value}
    return metrics


def reference_metrics(prefix: str, references: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """`<prefix>/reference/<row>/<metric>` for every reference row (`all related` -> `all_related`)."""
    return flat(f"{prefix}/reference", references)


def learned(value: float, reference_floor: float) -> bool:
    """Whether a score is above the floor (level with it is what a constant answer gets)."""
    return value > reference_floor + 1e-9


def ranked(values: Mapping[str, float], reference_floor: float) -> list[str]:
    """The systems above the floor, best first; the rest are left out of every ranking."""
    return sorted((name for name, value in values.items() if learned(value, reference_floor)),
                  key=values.get, reverse=True)


def shortfall(scores: Mapping[str, float], metric_floors: Mapping[str, float]) -> tuple[str, float, float]:
    """(metric, score, floor) of the first metric on which a row is not above the floor (`learned_everywhere`
    false), to name in its `nothing_note`; the first metric when it is above on all."""
    below = [metric for metric, value in metric_floors.items()
             if metric in scores and not learned(scores[metric], value)]
    metric = below[0] if below else next(iter(metric_floors))
    return metric, scores[metric], metric_floors[metric]


def nothing_note(label: str, value: float, reference_floor: float, metric: str, unit: str = "",
                 predictions: Sequence | np.ndarray | None = None, class_names: Sequence[str] | None = None) -> str:
    """The reading for a row not above its reference rows; with its test `predictions`, it also says when the row
    gives (almost) every input one class (`one_class`), the usual way a classifier learns nothing."""
    habit = one_class(predictions, class_names) if predictions is not None else None
    return (f"- {label}: {LEARNED_NOTHING} ({metric} {value:.1f}{unit}, not above the {reference_floor:.1f}{unit} "
            f"a constant answer scores on the same test items{'; ' + habit if habit else ''}); it is left out of "
            "every ranking and claim.")


def majority_share(predictions: Sequence | np.ndarray) -> tuple:
    """(the most predicted class, the share of the inputs given it); classes may be ids or strings (answers)."""
    classes, counts = np.unique(np.asarray(predictions), return_counts=True)
    if not len(classes):
        return 0, 0.0
    top = int(np.argmax(counts))
    return classes[top].item(), float(counts[top] / counts.sum())


def one_class(predictions: Sequence | np.ndarray, class_names: Sequence[str] | None = None,
              inputs: str = "test inputs") -> str | None:
    """"it gives 97 % of the test inputs unrelated" when one class takes at least `ONE_CLASS_SHARE` of the
    predictions (a description of a row that learned nothing, never a rule of its own), else None."""
    top, share = majority_share(predictions)
    if share < ONE_CLASS_SHARE:
        return None
    if isinstance(top, str):
        name = repr(top)
    else:
        name = class_names[int(top)] if class_names is not None else f"class {int(top)}"
    return f"it gives {100 * share:.0f} % of the {inputs} {name}"


METRIC_NAMES = {"f1": "F1", "acc": "accuracy", "accuracy": "accuracy"}


def split_learned(scores: Mapping[str, Mapping[str, float]], metric_floors: Mapping[str, float],
                  labels: Mapping[str, str], prefix: str = "",
                  predictions: Mapping[str, Sequence | np.ndarray] | None = None,
                  class_names: Sequence[str] | None = PAIR_CLASSES) -> tuple[list[str], list[str]]:
    """(the systems of `scores` above `metric_floors` on every metric, a `shortfall_note` for each other one, named
    by `labels` and described by its test `predictions` where given)."""
    learned = [name for name, row in scores.items() if learned_everywhere(row, metric_floors)]
    nothing = [name for name in scores if name not in learned]
    if len(nothing) > 1:  # one line for them all: a reading lists what it can say, not every row's shortfall
        rows = []
        for name in nothing:
            metric, value, floor_value = shortfall(scores[name], metric_floors)
            habit = one_class(predictions[name], class_names) if predictions is not None else None
            rows.append(f"{labels[name]} ({prefix}{METRIC_NAMES.get(metric, metric)} {100 * value:.1f} ≤ "
                        f"{100 * floor_value:.1f}{'; ' + habit.removeprefix('it ') if habit else ''})")
        return learned, [f"- {LEARNED_NOTHING} (not above every reference row; left out of every ranking and "
                         f"claim): {', '.join(rows)}."]
    notes = [shortfall_note(labels[name], scores[name], metric_floors, prefix=prefix,
                            predictions=None if predictions is None else predictions[name], class_names=class_names)
             for name in nothing]
    return learned, notes


def shortfall_note(label: str, scores: Mapping[str, float], metric_floors: Mapping[str, float], scale: float = 100.0,
                   prefix: str = "", predictions: Sequence | np.ndarray | None = None,
                   class_names: Sequence[str] | None = None) -> str:
    """`nothing_note` on the metric where the row falls short (`shortfall`), fractions shown times `scale`."""
    metric, value, reference_floor = shortfall(scores, metric_floors)
    return nothing_note(label, scale * value, scale * reference_floor, prefix + METRIC_NAMES.get(metric, metric),
                        predictions=predictions, class_names=class_names)


@dataclass(frozen=True)
class Difference:
    """First minus second on one metric, its paired bootstrap interval and the seed band (None: not measured)."""

    value: float
    low: float
    high: float
    band: float | None

    @property
    def verdict(self) -> str:
        """HOLDS / REVERSED when beyond both noise sources (the sign says which), else UNRESOLVED."""
        beyond_items = self.low > 0 or self.high < 0
        beyond_seeds = self.band is not None and abs(self.value) > self.band
        if beyond_items and beyond_seeds:
            return HOLDS if self.value > 0 else REVERSED
        return UNRESOLVED

    def describe(self, scale: float = 1.0, digits: int = 1) -> str:
        """`+3.1 (95 % paired bootstrap -1.0 to +7.2; seed band ±4.0)`, values times `scale`."""
        def show(value: float, sign: str = "+") -> str:
            return f"{scale * value:{sign}.{digits}f}"

        band = "seed spread not measured" if self.band is None else f"seed band ±{show(self.band, '')}"
        interval = f"{100 * CONFIDENCE:g} % paired bootstrap {show(self.low)} to {show(self.high)}"
        return f"{show(self.value)} ({interval}; {band})"


def paired_bootstrap(statistic: Callable[[np.ndarray], np.ndarray], items: int, resamples: int = RESAMPLES,
                     seed: int = SEED, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of `statistic` over test items resampled with replacement: the one bootstrap of the
    tutorial (`scipy.stats.bootstrap`, percentile method), behind every interval a table or a reading shows.

    `statistic` maps a (resamples, items) matrix of item indices to one value per row; whatever it reads through
    the same rows (two systems, a sum and its token count) is paired. A row whose value is undefined (NaN: say a
    resample without a scored token) is left out of the percentiles."""
    import warnings

    from scipy.stats import bootstrap

    from .errors import ConfigError, DataError

    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise ConfigError(f"bootstrap resamples (`resamples`, `n_resamples`) must be >= 1, got {resamples}")
    if items == 0:
        raise DataError("no test items to resample")
    if items == 1:  # every resample is the one item (scipy asks for two)
        value = float(statistic(np.zeros((1, 1), dtype=int))[0])
        return value, value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN rows: scipy warns, and they are left out below
        result = bootstrap((np.arange(items),), lambda index, axis: statistic(index), n_resamples=resamples,
                           vectorized=True, method="percentile", confidence_level=confidence,
                           rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    if math.isnan(low) or math.isnan(high):
        tail = (1.0 - confidence) / 2.0
        low, high = np.nanquantile(result.bootstrap_distribution, [tail, 1.0 - tail])
    return float(low), float(high)


def f1_rows(truth: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """F1 of the positive class per row (scikit-learn's value, 0 when nothing is positive on either side)."""
    positives = truth.sum(-1) + guess.sum(-1)
    return np.divide(2 * (truth & guess).sum(-1), positives, out=np.zeros(positives.shape), where=positives > 0)


def decision_rows(metric: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """`acc` or `f1` of boolean decisions per row of (truth, guess) matrices: what a resample of test pairs scores."""
    if metric == "acc":
        return lambda truth, guess: (truth == guess).mean(-1)
    if metric == "f1":
        return f1_rows
    raise ValueError(f"metric must be 'acc' or 'f1', got {metric!r}")


def decision_interval(labels: Sequence[int], decisions: Sequence[int], metric: str, resamples: int = RESAMPLES,
                      seed: int = SEED) -> tuple[float, float]:
    """The 95 % percentile interval of `acc` or `f1` (fractions) over test pairs resampled with replacement."""
    truth, guess = (np.asarray(x).astype(bool) for x in (labels, decisions))
    score = decision_rows(metric)
    return paired_bootstrap(lambda rows: score(truth[rows], guess[rows]), len(truth), resamples, seed)


def decision_difference(labels: Sequence[int], first: Sequence[int], second: Sequence[int], metric: str,
                        band: float | None, resamples: int = RESAMPLES, seed: int = SEED) -> Difference:
    """`acc` or `f1` (fractions) of `first` minus `second` on the same test pairs, with its paired interval."""
    truth, a, b = (np.asarray(x).astype(bool) for x in (labels, first, second))
    score = decision_rows(metric)

    def value(rows):
        return score(truth[rows], a[rows]) - score(truth[rows], b[rows])

    whole = np.arange(len(truth))[None]
    return Difference(float(value(whole)[0]), *paired_bootstrap(value, len(truth), resamples, seed), band)


def mean_difference(first: Sequence[float], second: Sequence[float], band: float | None,
                    resamples: int = RESAMPLES, seed: int = SEED) -> Difference:
    """Mean per-item score of `first` minus `second` (e.g. answer F1 per question), with its paired interval."""
    diff = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    low, high = paired_bootstrap(lambda rows: diff[rows].mean(-1), len(diff), resamples, seed)
    return Difference(float(diff.mean()), low, high, band)


def claim_line(claim: str, difference: Difference, metric: str, scale: float = 100.0, digits: int = 1) -> str:
    """A paper's claim read on the paper's metric: `- <claim>: <metric> difference ... -> verdict.`"""
    return f"- {claim}: {metric} difference {difference.describe(scale, digits)} -> {difference.verdict}."


def load_spread(profile: str) -> dict[str, dict] | None:
    """The measured seed spread of `profile` (`baselines/<profile>.spread.json` in the checkout), or None."""
    from .paths import repo_root, spread_path

    root = repo_root()
    path = spread_path(root / "baselines" / f"{profile}.json") if root is not None else None
    if path is None or not path.is_file():
        return None
    return json.loads(path.read_text())["metrics"]


def seed_band(spread: Mapping[str, Mapping] | None, first: str, second: str | None, scale: float = 1.0
              ) -> float | None:
    """The 95 % band of a difference between two systems that only the fine-tuning seed moved: 1.96 x the root
    sum of their seed variances (each the larger of its own sd and its table's pooled sd; `second` None: a system
    without a seed, e.g. a rule), divided by `scale` to a reading's units (e.g. 100 for a spread in percent read
    against fractions). None when not measured."""
    names = [name for name in (first, second) if name is not None]
    if spread is None or any(name not in spread for name in names):
        return None
    sds = [max(spread[name]["sd"], spread[name].get("pooled_sd", 0.0)) for name in names]
    return Z95 * math.sqrt(sum(sd**2 for sd in sds)) / scale


def paired_band(spread: Mapping[str, Mapping] | None, metric: str) -> float | None:
    """The seed band of a difference measured per seed as one metric (e.g. `perplexity/paired/local`, each
    seed's variant minus CDLM): 1.96 x the larger of its sd and its table's pooled sd; None when not measured."""
    if spread is None or metric not in spread:
        return None
    return Z95 * max(spread[metric]["sd"], spread[metric].get("pooled_sd", 0.0))
