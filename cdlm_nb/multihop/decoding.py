"""From the heads' logits to HotpotQA's official prediction format, restricted to the predicted relevant paragraphs
(the CDLM paper §3.4): the two best paragraphs (a distractor-setting question has two gold ones), their sentences with
P(supporting) ≥ 0.5 (at least the best one of each), the answer type, and for a span the best start ≤ end within one
sentence of those paragraphs, at most `max_answer_tokens` long."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ..finetuning import DECISION_THRESHOLD
from .inputs import ANSWER_TYPES, QAInput

GOLD_PARAGRAPHS = 2


@dataclass(frozen=True)
class Decoded:
    """One question's prediction."""

    answer: str
    supporting: list[tuple[str, int]]
    paragraphs: list[str]


def best_span(start: np.ndarray, end: np.ndarray, token_sentence: list[int], allowed: set[int],
              max_tokens: int) -> tuple[int, int] | None:
    """The (start, end) of the highest start + end logit with start ≤ end < start + max_tokens, both in the same
    sentence, that sentence in `allowed`; None when no token is allowed."""
    best, span = -np.inf, None
    for i, sentence in enumerate(token_sentence):
        if sentence not in allowed:
            continue
        for j in range(i, min(i + max_tokens, len(token_sentence))):
            if token_sentence[j] != sentence:
                break
            if start[i] + end[j] > best:
                best, span = start[i] + end[j], (i, j)
    return span


def decode(item: QAInput, logits: dict[str, np.ndarray], max_answer_tokens: int) -> Decoded:
    """The prediction of one question from its own (unpadded) logits."""
    chosen = sorted(np.argsort(-logits["paragraph"][:len(item.titles)])[:GOLD_PARAGRAPHS].tolist())
    probabilities = expit(logits["sentence"][:len(item.sentence_keys)])
    supporting = []
    for paragraph in chosen:
        own = [k for k, owner in enumerate(item.sentence_paragraph) if owner == paragraph]
        if own:  # at least the best sentence of each chosen paragraph
            supporting += [k for k in own if probabilities[k] >= DECISION_THRESHOLD] or [
                max(own, key=lambda k: probabilities[k])]
    kind = ANSWER_TYPES[int(np.argmax(logits["answer_type"]))]
    answer = kind
    if kind == "span":
        allowed = {k for k, owner in enumerate(item.sentence_paragraph) if owner in chosen}
        span = best_span(logits["start"], logits["end"], item.token_sentence, allowed, max_answer_tokens)
        answer = "" if span is None else span_text(item, *span)
    return Decoded(answer, [item.sentence_keys[k] for k in supporting], [item.titles[p] for p in chosen])


def span_text(item: QAInput, start: int, end: int) -> str:
    """The sentence text under tokens start..end (one sentence)."""
    text = item.texts[item.token_sentence[start]]
    return text[item.token_chars[start][0]:item.token_chars[end][1]].strip()


def official_prediction(decoded: dict[str, Decoded]) -> dict[str, dict]:
    """`{"answer": {id: str}, "sp": {id: [[title, sent_id], ...]}}`, the format `hotpot_evaluate_v1` reads."""
    return {"answer": {qid: d.answer for qid, d in decoded.items()},
            "sp": {qid: [[title, sent_id] for title, sent_id in d.supporting] for qid, d in decoded.items()}}
