"""What a results table may claim. Reference rows are what a system that learned nothing scores on the same test
items (calling every pair related, the majority class, chance); a row not above them is "learned nothing here" and
is never ranked. The noise rule: a difference between two systems is read only when it exceeds both its paired
bootstrap interval over the test items and the fine-tuning seed spread; otherwise it is "not resolved at this scale".
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .profiles import SEED
from .support.errors import ConfigError, DataError
from .support.paths import repo_root, spread_path

LEARNED_NOTHING = "learned nothing here"
UNCHECKED = "cannot be checked here"  # a claim on a row that learned nothing: never compared
HOLDS, REVERSED, UNRESOLVED = "holds here", "reversed here", "not resolved at this scale"
CONFIDENCE = 0.95  # the level of every interval shown (the percentile bootstrap's two-sided coverage)
RESAMPLES = 1000  # bootstrap draws: the 2.5 % and 97.5 % percentiles move by well under a point past this
#: "Almost every": at most one test input in twenty gets another class. Describes a row; never decides one.
ONE_CLASS_SHARE = 0.95
PAIR_CLASSES = ("unrelated", "related")  # the classes of the pair tasks (matching, CDA's D2D, the comparison)
NR = None  # a number the paper does not report: a blank cell (pandas shows None as missing, not as 0)
METRIC_NAMES = {"f1": "F1", "acc": "accuracy", "accuracy": "accuracy"}


def reference_label(name: str) -> str:
    """The table row of a reference (what a system that learned nothing scores): `reference: all related`."""
    return f"reference: {name}"


def pair_references(labels: Sequence[int]) -> dict[str, dict[str, float]]:
    """What calling every test pair related, or none, scores: accuracy and F1 of the related class (fractions)."""
    share = float(np.mean(labels)) if len(labels) else 0.0
    return {"all related": {"acc": share, "f1": 2 * share / (1 + share)}, "none related": {"acc": 1 - share, "f1": 0.0}}


def class_references(train_labels: Sequence, test_labels: Sequence) -> dict[str, float]:
    """Accuracy (fraction) of answering every test input with the training set's most frequent class, and the
    expected accuracy of guessing classes at their training shares (the label prior)."""
    classes, counts = np.unique(np.asarray(train_labels), return_counts=True)
    shares = dict(zip(classes.tolist(), counts / counts.sum()))
    test = np.asarray(test_labels)
    return {"majority class": float(np.mean(test == classes[int(np.argmax(counts))])),
            "label prior": float(sum(shares.get(label, 0.0) for label in test.tolist()) / max(len(test), 1))}


def floor(references: Mapping[str, float]) -> float:
    """The best reference score: a system must beat every reference row to have learned something."""
    return max(references.values())


def floors(references: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Per metric, the best score of any reference row ({row: {metric: value}} -> {metric: floor})."""
    first, *rest = references.values()
    metrics = [metric for metric in first if all(metric in row for row in rest)]  # in the rows' order
    return {metric: floor({name: row[metric] for name, row in references.items()}) for metric in metrics}


def flat(prefix: str, nested: Mapping) -> dict[str, float]:
    """`{"<prefix>/<a>/<b>": value}` for a nested mapping `{a: {b: value}}` (any depth, spaces in keys as `_`)."""
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


def nothing_note(label: str, value: float, reference_floor: float, metric: str, unit: str = "",
                 predictions: Sequence | np.ndarray | None = None, class_names: Sequence[str] | None = None) -> str:
    """The reading for a row not above its reference rows; with its test `predictions`, it also says when the row
    gives (almost) every input one class (`one_class`), the usual way a classifier learns nothing."""
    habit = one_class(predictions, class_names) if predictions is not None else None
    return (f"- {label}: {LEARNED_NOTHING} ({metric} {value:.1f}{unit}, not above the {reference_floor:.1f}{unit} "
            f"a constant answer scores on the same test items{'; ' + habit if habit else ''}); it is left out of "
            "every ranking and claim.")


def one_class(predictions: Sequence | np.ndarray, class_names: Sequence[str] | None = None) -> str | None:
    """"it gives 97 % of the test inputs unrelated" when one class takes at least `ONE_CLASS_SHARE` of the
    predictions (class ids or answer strings; a description, never a rule of its own), else None."""
    classes, counts = np.unique(np.asarray(predictions), return_counts=True)
    share = float(counts.max() / counts.sum()) if len(counts) else 0.0
    if share < ONE_CLASS_SHARE:
        return None
    top = classes[int(np.argmax(counts))].item()
    name = (repr(top) if isinstance(top, str) else f"class {int(top)}" if class_names is None
            else class_names[int(top)])
    return f"it gives {100 * share:.0f} % of the test inputs {name}"


def split_learned(scores: Mapping[str, Mapping[str, float]], metric_floors: Mapping[str, float],
                  labels: Mapping[str, str], prefix: str = "",
                  predictions: Mapping[str, Sequence | np.ndarray] | None = None,
                  class_names: Sequence[str] | None = PAIR_CLASSES) -> tuple[list[str], list[str]]:
    """(the systems above `metric_floors` on every metric both have, notes on the others: a `nothing_note` on the
    first metric short, or one line for all when several, saying what their test `predictions` give). Every metric:
    a matcher with F1 above calling every pair related but accuracy below calling none related learned no rule."""
    above, short = [], []  # short: (label, score, floor, metric, predictions), in percent
    for name, row in scores.items():
        below = [metric for metric, value in metric_floors.items() if metric in row and not learned(row[metric], value)]
        if not below:
            above.append(name)
            continue
        metric = below[0]
        short.append((labels[name], 100 * row[metric], 100 * metric_floors[metric],
                      prefix + METRIC_NAMES.get(metric, metric), None if predictions is None else predictions[name]))
    if len(short) <= 1:
        return above, [nothing_note(*row[:4], predictions=row[4], class_names=class_names) for row in short]
    rows = []  # one line for them all: a reading lists what it can say, not every row's shortfall
    for label, value, floor_value, metric, given in short:
        habit = one_class(given, class_names) if given is not None else None
        rows.append(f"{label} ({metric} {value:.1f} ≤ {floor_value:.1f}"
                    f"{'; ' + habit.removeprefix('it ') if habit else ''})")
    return above, [f"- {LEARNED_NOTHING} (not above every reference row; left out of every ranking and claim): "
                   f"{', '.join(rows)}."]


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
        if (self.low > 0 or self.high < 0) and self.band is not None and abs(self.value) > self.band:
            return HOLDS if self.value > 0 else REVERSED
        return UNRESOLVED

    def describe(self, scale: float = 1.0, digits: int = 1) -> str:
        """`+3.1 (95 % paired bootstrap -1.0 to +7.2; seed band ±4.0)`, values times `scale`."""
        value, low, high = (f"{scale * x:+.{digits}f}" for x in (self.value, self.low, self.high))
        band = "seed spread not measured" if self.band is None else f"seed band ±{scale * self.band:.{digits}f}"
        return f"{value} ({100 * CONFIDENCE:g} % paired bootstrap {low} to {high}; {band})"


def paired_bootstrap(statistic: Callable[[np.ndarray], np.ndarray], items: int, resamples: int = RESAMPLES,
                     seed: int = SEED, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of `statistic` over test items resampled with replacement (`scipy.stats.bootstrap`):
    the one bootstrap behind every interval shown. `statistic` maps a (resamples, items) matrix of item indices to
    one value per row, so what it reads through the same rows is paired; NaN rows are left out of the percentiles."""
    from scipy.stats import bootstrap

    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be in (0, 1) (0.95, not 95), got {confidence}")
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


def decision_rows(metric: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """`acc` or `f1` of boolean decisions per row of (truth, guess) matrices: what a resample of test pairs scores
    (F1 of the positive class as scikit-learn gives it: 0 when nothing is positive on either side)."""
    if metric == "acc":
        return lambda truth, guess: (truth == guess).mean(-1)
    if metric != "f1":
        raise ValueError(f"metric must be 'acc' or 'f1', got {metric!r}")

    def f1(truth: np.ndarray, guess: np.ndarray) -> np.ndarray:
        positives = truth.sum(-1) + guess.sum(-1)
        return np.divide(2 * (truth & guess).sum(-1), positives, out=np.zeros(positives.shape), where=positives > 0)

    return f1


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


def ordering_line(claim: str, pair: Sequence[str], learned: Collection[str], labels: Mapping[str, str],
                  difference: Callable[[], Difference], metric: str = "F1", scale: float = 100.0,
                  digits: int = 1) -> str:
    """A paper's ordering of two systems (`pair`: better, worse) as one reading: "cannot be checked" when either
    learned nothing (rows at their floor are never compared), else `claim_line` on `difference()`."""
    if nothing := [labels[name] for name in pair if name not in learned]:
        return f"- {claim}: {UNCHECKED} ({LEARNED_NOTHING}: {' and '.join(nothing)})."
    return claim_line(claim, difference(), metric, scale, digits)


def load_spread(profile: str) -> dict[str, dict] | None:
    """The measured seed spread of `profile` (`baselines/<profile>.spread.json` in the checkout), or None."""
    root = repo_root()
    path = spread_path(root / "baselines" / f"{profile}.json") if root is not None else None
    return json.loads(path.read_text())["metrics"] if path is not None and path.is_file() else None


def seed_band(spread: Mapping[str, Mapping] | None, first: str, second: str | None, scale: float = 1.0
              ) -> float | None:
    """The 95 % band of a difference that only the fine-tuning seed moved: 1.96 x the root sum of the two systems'
    seed variances (each the larger of its sd and its table's pooled sd; `second` None: a system without a seed,
    e.g. a rule), over `scale` (100: a spread in percent read against fractions). None when not measured."""
    names = [name for name in (first, second) if name is not None]
    if spread is None or any(name not in spread for name in names):
        return None
    sds = [max(spread[name]["sd"], spread[name].get("pooled_sd", 0.0)) for name in names]
    return 1.96 * math.sqrt(sum(sd**2 for sd in sds)) / scale  # 1.96: the normal's two-sided 95 % quantile


def paired_band(spread: Mapping[str, Mapping] | None, metric: str) -> float | None:
    """`seed_band` of a difference measured per seed as one metric (e.g. `perplexity/paired/local`)."""
    return seed_band(spread, metric, None)
