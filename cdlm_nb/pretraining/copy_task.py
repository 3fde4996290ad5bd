"""Can a model of this family copy at all? `<s> doc </s> doc' </s>`, tokens of the second copy masked, `doc'` the
document or its sentences shuffled (copy by content). The copy gain: the masked tokens' NLL with another document in
place of the first copy minus that with it readable. `tools/copy_task.py` runs docs/experiments.md's grid."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..collate import pad_batch
from ..masking import IGNORE_INDEX
from ..support.errors import DataError
from .heldout import masked_token_nll

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@dataclass(frozen=True)
class CopyTask:
    """One setting of the task."""

    length: int = 24  # tokens per copy (documents are cut to it; shorter ones are not used)
    shuffle: bool = False  # the second copy's sentences in another order: copy by content, not by position
    swap_halves: bool = False  # the second copy's halves swapped: a fixed-offset copy earns nothing
    mask_rate: float = 0.3  # share of the second copy's tokens predicted (all of them become <mask>)
    steps: int = 300  # rounded up to a multiple of the measuring interval
    batch_size: int = 32
    learning_rate: float = 1e-3
    warmup_steps: int = 30
    seed: int = 0


def sentences(ids: Sequence[int], stops: set[int]) -> list[list[int]]:
    """`ids` cut after every token in `stops` (the tokenizer's full stops)."""
    cuts = [i + 1 for i, token in enumerate(ids) if token in stops]
    return [list(ids[a:b]) for a, b in zip([0, *cuts], [*cuts, len(ids)]) if b > a]


def copy_input(first: Sequence[int], second: Sequence[int], tokenizer: "PreTrainedTokenizerBase",
               mask_rate: float, rng: random.Random) -> dict[str, list[int]]:
    """`<s> first </s> second </s>` with a `mask_rate` share of `second`'s tokens masked and labelled."""
    ids = [tokenizer.bos_token_id, *first, tokenizer.eos_token_id, *second, tokenizer.eos_token_id]
    labels = [IGNORE_INDEX] * len(ids)
    for position in range(len(first) + 2, len(ids) - 1):
        if rng.random() < mask_rate:
            labels[position], ids[position] = ids[position], tokenizer.mask_token_id
    return {"input_ids": ids, "labels": labels}


def task_documents(texts: Sequence[str], tokenizer: "PreTrainedTokenizerBase", length: int) -> list[list[int]]:
    """Every text's first `length` tokens, for the texts that have that many."""
    return [ids[:length] for ids in tokenizer(list(texts), add_special_tokens=False)["input_ids"] if len(ids) >= length]


class CopyTaskData:
    """Training batches and the fixed evaluation pairs of one `CopyTask` over tokenized documents."""

    def __init__(self, task: CopyTask, tokenizer: "PreTrainedTokenizerBase", train: list[list[int]],
                 heldout: list[list[int]], n_eval: int = 64) -> None:
        self.task, self.tokenizer, self.train = task, tokenizer, train
        self.stops = set(tokenizer(".", add_special_tokens=False)["input_ids"])
        self.rng = random.Random(task.seed)
        rng = random.Random(task.seed + 1)
        self.eval_pairs = []
        for _ in range(n_eval):  # (first copy readable, another document instead), the same masks in both
            doc, other = rng.choice(heldout), rng.choice(heldout)
            second, mask_seed = self.second_copy(doc, rng), rng.random()
            self.eval_pairs.append(tuple(copy_input(first, second, tokenizer, task.mask_rate,
                                                    random.Random(mask_seed)) for first in (doc, other)))

    def second_copy(self, doc: list[int], rng: random.Random) -> list[int]:
        """`doc` as the second copy: unchanged, halves swapped (`swap_halves`) or sentences shuffled (`shuffle`)."""
        if self.task.swap_halves:
            return [*doc[len(doc) // 2:], *doc[:len(doc) // 2]]
        if not self.task.shuffle:
            return list(doc)
        parts = sentences(doc, self.stops)
        rng.shuffle(parts)
        return [token for part in parts for token in part]

    def batch(self, size: int) -> dict:
        """`size` fresh training inputs, collated."""
        rows = []
        for _ in range(size):
            doc = self.rng.choice(self.train)
            rows.append(copy_input(doc, self.second_copy(doc, self.rng), self.tokenizer, self.task.mask_rate, self.rng))
        return self.collate(rows)

    def collate(self, rows: list[dict]) -> dict:
        """Task inputs padded into one batch (`collate.pad_batch`)."""
        return pad_batch(rows, {"input_ids": self.tokenizer.pad_token_id, "labels": IGNORE_INDEX})


def copy_task_gain(model: "PreTrainedModel", data: CopyTaskData, batch_size: int = 16) -> tuple[float, float]:
    """(NLL per masked token with the first copy readable, copy gain: NLL with another document minus that)."""
    was_training, pairs = model.training, data.eval_pairs
    batches = [pairs[i:i + batch_size] for i in range(0, len(pairs), batch_size)]
    model.eval()
    try:
        readable, other = (np.concatenate([masked_token_nll(model, data.collate([pair[k] for pair in batch]))
                                           for batch in batches]).mean() for k in (0, 1))
    finally:
        model.train(was_training)
    return float(readable), float(other - readable)


#: The within-reach copy probe of a start: a 24-token held-out span written twice (inside one 64-token window), 30 %
#: of the second copy masked. Longformer-base copies here; a start that does not gives CD-MLM nothing to build on.
WITHIN_REACH = CopyTask(length=24, mask_rate=0.3)
WITHIN_REACH_PAIRS = 128  # evaluation pairs of the probe (each a held-out span and another one)


def within_reach_data(tokenizer: "PreTrainedTokenizerBase", texts: Sequence[str],
                      swap_halves: bool = False) -> CopyTaskData:
    """The probe's pairs over held-out `texts`, as repeated or halves swapped (only a copy by content gains there)."""
    task = replace(WITHIN_REACH, swap_halves=swap_halves)
    documents = task_documents(texts, tokenizer, task.length)
    if not documents:
        raise DataError(f"no held-out document has the copy probe's {task.length} tokens")
    return CopyTaskData(task, tokenizer, [], documents, n_eval=WITHIN_REACH_PAIRS)
