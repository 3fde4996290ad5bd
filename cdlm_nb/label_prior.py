"""Recognising a trained classifier that stayed at the label prior: it gives (almost) every test input one class,
or (where a report has its dev losses) its dev loss never fell below the entropy of the class shares.

Its accuracy is then that class's share of the test set and its F1 is 0 (or, when the class is the positive one,
a number fixed by the class share): neither says anything about the model, and two such models cannot be compared
by their difference. Every report that compares trained classifiers names them with `prior_note` instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: "Almost every": at most one test input in twenty gets another class (e.g. a matcher that calls 116 of 120 test
#: pairs unrelated has not learned a rule, whatever its few other calls score).
ONE_CLASS_SHARE = 0.95
#: The classes of the pair tasks (matching, CDA's D2D, the comparison), by label.
PAIR_CLASSES = ("unrelated", "related")


def majority_share(predictions: Sequence | np.ndarray) -> tuple:
    """(the most predicted class, the share of the inputs given it); classes may be ids or strings (answers)."""
    classes, counts = np.unique(np.asarray(predictions), return_counts=True)
    if not len(classes):
        return 0, 0.0
    top = int(np.argmax(counts))
    return classes[top].item(), float(counts[top] / counts.sum())


def at_label_prior(predictions: Sequence[int] | np.ndarray) -> bool:
    """Whether one class takes at least `ONE_CLASS_SHARE` of the predictions."""
    return majority_share(predictions)[1] >= ONE_CLASS_SHARE


def stuck(predictions: Mapping[str, Sequence[int] | np.ndarray]) -> list[str]:
    """The names whose predictions stayed at the label prior."""
    return [name for name, predicted in predictions.items() if at_label_prior(predicted)]


def prior_note(label: str, predictions: Sequence[int] | np.ndarray, class_names: Sequence[str] | None = None) -> str:
    """The reading for a model at the label prior: which class it gives and to how many inputs."""
    top, share = majority_share(predictions)
    name = class_names[top] if class_names is not None else f"class {top}"
    return (f"- {label} stayed at the label prior: it calls {100 * share:.0f} % of the test inputs {name}, so its "
            "accuracy is that class's share and its F1 no result; no comparison with it is possible.")


def prior_entropy(labels: Sequence[int] | np.ndarray) -> float:
    """The label prior's entropy in nats: the cross-entropy of always predicting each class's share of `labels`."""
    from scipy.stats import entropy

    return float(entropy(np.unique(np.asarray(labels), return_counts=True)[1]))


def loss_at_prior(dev_losses: Sequence[float], dev_labels: Sequence[int] | np.ndarray) -> bool:
    """Whether a model's (unweighted) dev cross-entropy never fell below `prior_entropy` of the dev labels: it never
    predicted better than the class shares alone."""
    return bool(dev_losses) and min(dev_losses) >= prior_entropy(dev_labels)


def loss_note(label: str, dev_losses: Sequence[float], dev_labels: Sequence[int] | np.ndarray) -> str:
    """The reading for a model whose dev loss never fell below the label prior's entropy."""
    return (f"- {label} stayed at the label prior: its dev loss never fell below the prior's entropy (best "
            f"{min(dev_losses):.3f} against {prior_entropy(dev_labels):.3f} nats, what predicting the class shares "
            "scores), so its F1 is no result; no comparison with it is possible.")


def not_comparable(first: str, second: str, labels: Mapping[str, str], at_prior: Sequence[str]) -> str | None:
    """A reading that `first` and `second` cannot be compared, when either stayed at the prior (else None)."""
    bound = [labels[name] for name in (first, second) if name in at_prior]
    if not bound:
        return None
    return (f"- {labels[first]} vs {labels[second]}: no comparison possible ({' and '.join(bound)} stayed at the "
            "label prior).")
