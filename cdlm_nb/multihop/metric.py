"""HotpotQA's official metric (`hotpot_evaluate_v1.py`, Yang et al. 2018), rule for rule.

- Answer: normalised strings (lower case, punctuation and the articles a/an/the dropped, white space collapsed);
  EM, and token precision/recall/F1, where a yes/no/noanswer that differs from the gold scores 0.
- Supporting facts: sets of (title, sentence id); precision, recall, F1 and EM (no false positive or negative).
- Joint: precision = answer precision × sp precision, recall likewise, F1 from those two, EM = both EMs.
Every metric is a mean over all gold ids; a question without a prediction scores 0 (and 0 joint)."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: The official script's keys, in its order.
OFFICIAL_KEYS = ("em", "f1", "prec", "recall", "sp_em", "sp_f1", "sp_prec", "sp_recall",
                 "joint_em", "joint_f1", "joint_prec", "joint_recall")
_SPECIAL_ANSWERS = ("yes", "no", "noanswer")
_PUNCTUATION = set(string.punctuation)
Scores = tuple[float, float, float, float]  # (EM, F1, precision, recall)


def normalize_answer(text: str) -> str:
    """Lower case, punctuation removed, a/an/the removed, white space collapsed (the official order)."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def answer_scores(prediction: str, gold: str) -> Scores:
    """(EM, F1, precision, recall) of one answer."""
    predicted, expected = normalize_answer(prediction), normalize_answer(gold)
    em = float(predicted == expected)
    if (predicted in _SPECIAL_ANSWERS or expected in _SPECIAL_ANSWERS) and predicted != expected:
        return em, 0.0, 0.0, 0.0
    predicted_tokens, expected_tokens = predicted.split(), expected.split()
    same = sum((Counter(predicted_tokens) & Counter(expected_tokens)).values())
    if same == 0:
        return em, 0.0, 0.0, 0.0
    precision, recall = same / len(predicted_tokens), same / len(expected_tokens)
    return em, 2 * precision * recall / (precision + recall), precision, recall


def supporting_fact_scores(prediction: Iterable[Sequence], gold: Iterable[Sequence]) -> Scores:
    """(EM, F1, precision, recall) of one question's supporting facts, as sets of (title, sentence id)."""
    predicted, expected = set(map(tuple, prediction)), set(map(tuple, gold))
    true_positives = len(predicted & expected)
    precision = true_positives / len(predicted) if predicted else 0.0
    recall = true_positives / len(expected) if expected else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return float(predicted == expected), f1, precision, recall  # EM: no false positive or negative


def joint_scores(answer: Sequence[float], support: Sequence[float]) -> Scores:
    """(EM, F1, precision, recall) joint: products of the answer's and the supporting facts' EM, P and R."""
    precision, recall = answer[2] * support[2], answer[3] * support[3]
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return answer[0] * support[0], f1, precision, recall


@dataclass
class HotpotScores:
    """The official metrics (fractions), each question's twelve numbers, and what the prediction lacked or added."""

    metrics: dict[str, float]
    per_question: dict[str, dict[str, float]]
    missing_answer: list[str] = field(default_factory=list)
    missing_sp: list[str] = field(default_factory=list)
    unknown_ids: list[str] = field(default_factory=list)  # predicted ids not in the gold (ignored, as officially)


def evaluate(prediction: Mapping[str, Mapping], gold: Sequence[Mapping]) -> HotpotScores:
    """The official evaluation of `{"answer": {id: str}, "sp": {id: [[title, sent_id], ...]}}` against gold
    records (`_id` or `id`, `answer`, `supporting_facts`), averaged over every gold record."""
    answers, support = prediction.get("answer", {}), prediction.get("sp", {})
    ids = [str(row.get("_id", row.get("id"))) for row in gold]
    per_question, zero = {}, (0.0, 0.0, 0.0, 0.0)
    for qid, row in zip(ids, gold):  # a missing part scores 0 and makes joint 0
        facts = row["supporting_facts"]  # a pair list, or {title: [...], sent_id: [...]}
        facts = list(zip(facts["title"], facts["sent_id"]) if isinstance(facts, Mapping) else map(tuple, facts))
        answer, sp = answers.get(qid), support.get(qid)
        answered = answer_scores(answer, row["answer"]) if answer is not None else zero
        supported = supporting_fact_scores(sp, facts) if sp is not None else zero
        joint = joint_scores(answered, supported) if answer is not None and sp is not None else zero
        per_question[qid] = dict(zip(OFFICIAL_KEYS, (*answered, *supported, *joint)))
    count = max(len(per_question), 1)
    metrics = {key: sum(scores[key] for scores in per_question.values()) / count for key in OFFICIAL_KEYS}
    return HotpotScores(metrics, per_question, [q for q in ids if q not in answers],
                        [q for q in ids if q not in support], sorted((set(answers) | set(support)) - set(per_question)))


def mean_scores(scores: HotpotScores, ids: Iterable[str]) -> dict[str, float]:
    """The official metrics over a subset of questions (e.g. one question type)."""
    chosen = [scores.per_question[qid] for qid in ids]
    return {key: sum(s[key] for s in chosen) / len(chosen) if chosen else float("nan") for key in OFFICIAL_KEYS}
