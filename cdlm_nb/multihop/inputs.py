"""One HotpotQA input as the CDLM paper builds it (§3.4, after Beltagy et al. 2020's Longformer recipe), and decoding:

    <s> [question] q [/question] <doc-s> <t> title </t> sentence [/sent] sentence [/sent] … </doc-s> <doc-s> … </s>

Global attention: `<s>`, the question and its markers, every `<doc-s>` and `[/sent]`. Paragraphs are taken in order
until `max_length`; what does not fit is cut and counted. The heads read `<doc-s>` (relevant paragraph), `[/sent]`
(supporting sentence), `<s>` (answer type) and the sentence tokens (span). `decode` turns their logits into the
official prediction format: the two best paragraphs (a distractor question has two gold ones), their sentences with
P(supporting) ≥ 0.5 (at least the best of each), the answer type, and for a span the best start ≤ end within one of
those sentences, at most `max_answer_tokens` long."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit

from ..finetuning import DECISION_THRESHOLD
from ..support.errors import DataError
from ..tokenization import add_marker_tokens, document_separator_ids, sequence_markers

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

QA_MARKERS = ("[question]", "[/question]", "<t>", "</t>", "[/sent]")  # in `QAMarkers` order
ANSWER_TYPES = ("span", "yes", "no")
GOLD_PARAGRAPHS = 2


@dataclass(frozen=True)
class QAMarkers:
    """The ids an input is built from."""

    cls: int
    sep: int
    pad: int
    doc_start: int
    doc_end: int
    question_start: int
    question_end: int
    title_start: int
    title_end: int
    sentence_end: int


def add_qa_markers(tokenizer: "PreTrainedTokenizerBase", model: "PreTrainedModel | None" = None) -> QAMarkers:
    """Add the question, title and sentence markers (if missing; new embedding rows at random) and return the ids."""
    added = add_marker_tokens(tokenizer, QA_MARKERS, model)
    if tokenizer.pad_token_id is None:
        raise DataError(f"tokenizer {type(tokenizer).__name__} has no padding token")
    return QAMarkers(*sequence_markers(tokenizer), tokenizer.pad_token_id, *document_separator_ids(tokenizer), *added)


@dataclass(frozen=True)
class QAInput:
    """One encoded question with its ten (or fewer) paragraphs, and the positions each head reads."""

    qid: str
    input_ids: list[int]
    global_positions: list[int]
    paragraph_positions: list[int]  # the <doc-s> of each kept paragraph
    titles: list[str]
    sentence_positions: list[int]  # the [/sent] of each kept sentence
    sentence_keys: list[tuple[str, int]]  # (title, sentence id) of each kept sentence
    sentence_paragraph: list[int]  # index into `titles`
    token_sentence: list[int]  # per token: index into `sentence_keys`, -1 outside sentences
    token_chars: list[tuple[int, int]]  # per token: character span in its sentence
    texts: list[str]  # each kept sentence's text
    cut_sentences: int


@dataclass(frozen=True)
class QALabels:
    """The training targets of one input (-1: no span, e.g. yes/no or an answer not in the kept text)."""

    paragraphs: list[int]
    sentences: list[int]
    answer_type: int
    start: int
    end: int


def _pieces(text: str, tokenizer) -> tuple[list[int], list[tuple[int, int]]]:
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    return encoded["input_ids"], [tuple(span) for span in encoded["offset_mapping"]]


def encode_question(row: Mapping[str, Any], tokenizer, markers: QAMarkers, max_length: int) -> QAInput:
    """The input of one `QA_FEATURES` row, cut at `max_length` tokens (the question always fits or raises)."""
    ids, token_sentence, token_chars = [], [], []

    def add(pieces: list[int], sentence: int = -1, chars: list[tuple[int, int]] | None = None) -> None:
        ids.extend(pieces)
        token_sentence.extend([sentence] * len(pieces))
        token_chars.extend(chars or [(0, 0)] * len(pieces))

    question, _ = _pieces(row["question"], tokenizer)
    add([markers.cls, markers.question_start, *question, markers.question_end])
    if len(ids) + 8 > max_length:
        raise DataError(f"question {row['id']}: {len(ids)} tokens leave no room in max_length={max_length}")
    global_positions = list(range(len(ids)))
    paragraphs, titles, sentence_positions, keys, owner, texts = [], [], [], [], [], []
    total = sum(map(len, row["context"]["sentences"]))
    for title, sentences in zip(row["context"]["title"], row["context"]["sentences"]):
        title_ids, _ = _pieces(title, tokenizer)
        head = [markers.doc_start, markers.title_start, *title_ids, markers.title_end]
        if len(ids) + len(head) + 3 > max_length:
            break
        paragraphs.append(len(ids))
        global_positions.append(len(ids))
        add(head)
        titles.append(title)
        for sent_id, text in enumerate(sentences):
            pieces, chars = _pieces(text, tokenizer)
            if len(ids) + len(pieces) + 3 > max_length:
                break
            add(pieces, len(keys), chars)
            sentence_positions.append(len(ids))
            global_positions.append(len(ids))
            add([markers.sentence_end])
            keys.append((title, sent_id))
            owner.append(len(titles) - 1)
            texts.append(text)
        add([markers.doc_end])
    add([markers.sep])
    return QAInput(row["id"], ids, global_positions, paragraphs, titles, sentence_positions, keys, owner,
                   token_sentence, token_chars, texts, total - len(keys))


def answer_span(item: QAInput, answer: str, supporting: set[tuple[str, int]]) -> tuple[int, int]:
    """Token (start, end) of the answer's first occurrence, supporting sentences first; (-1, -1): not in the text."""
    order = sorted(range(len(item.texts)), key=lambda k: item.sentence_keys[k] not in supporting)
    for k in order if answer else ():
        text = item.texts[k]  # exact case first, then any case
        if (begin := text.find(answer) if answer in text else text.lower().find(answer.lower())) < 0:
            continue
        finish = begin + len(answer)
        tokens = [t for t, s in enumerate(item.token_sentence)
                  if s == k and item.token_chars[t][1] > begin and item.token_chars[t][0] < finish]
        if tokens:
            return tokens[0], tokens[-1]
    return -1, -1


def question_labels(item: QAInput, row: Mapping[str, Any]) -> QALabels:
    """The targets of one encoded row: gold paragraphs and sentences, answer type and span."""
    supporting = set(zip(row["supporting_facts"]["title"], row["supporting_facts"]["sent_id"]))
    gold_titles = {title for title, _ in supporting}
    answer = row["answer"].strip()
    kind = ANSWER_TYPES.index(answer.lower()) if answer.lower() in ("yes", "no") else 0
    start, end = answer_span(item, answer, supporting) if kind == 0 else (-1, -1)
    return QALabels([int(title in gold_titles) for title in item.titles],
                    [int(key in supporting) for key in item.sentence_keys], kind, start, end)


@dataclass(frozen=True)
class EncodedQuestions:
    """A split's inputs and labels, with what was cut or could not be labelled."""

    inputs: list[QAInput]
    labels: list[QALabels]
    cut_sentences: int
    total_sentences: int
    answers_not_found: int  # span answers absent from the kept text (their span loss is skipped)


def encode_questions(rows: Sequence[Mapping[str, Any]], tokenizer, markers: QAMarkers,
                     max_length: int) -> EncodedQuestions:
    """`encode_question` and `question_labels` for every row."""
    inputs = [encode_question(row, tokenizer, markers, max_length) for row in rows]
    labels = [question_labels(item, row) for item, row in zip(inputs, rows)]
    missing = sum(1 for label in labels if label.answer_type == 0 and label.start < 0)
    cut = sum(item.cut_sentences for item in inputs)
    return EncodedQuestions(inputs, labels, cut, cut + sum(len(item.sentence_keys) for item in inputs), missing)


def preview_question(row: Mapping[str, Any], tokenizer, max_length: int, chars: int = 1500) -> str:
    """One row's input as markdown, global-attention tokens in **bold**; the markers go to a copy of `tokenizer`."""
    tokenizer = copy.deepcopy(tokenizer)
    item = encode_question(row, tokenizer, add_qa_markers(tokenizer), max_length)
    tokens = [token.replace("Ġ", "") for token in tokenizer.convert_ids_to_tokens(item.input_ids)]
    shown = set(item.global_positions)
    text = " ".join(f"**{token}**" if i in shown else token for i, token in enumerate(tokens))
    return text[:chars] + (" …" if len(text) > chars else "")


@dataclass(frozen=True)
class Decoded:
    """One question's prediction."""

    answer: str
    supporting: list[tuple[str, int]]
    paragraphs: list[str]


def best_span(start: np.ndarray, end: np.ndarray, token_sentence: list[int], allowed: set[int],
              max_tokens: int) -> tuple[int, int] | None:
    """The (start, end) of the best start + end logit within one `allowed` sentence, at most `max_tokens` long."""
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
    answer = ANSWER_TYPES[int(np.argmax(logits["answer_type"]))]
    if answer == "span":
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
