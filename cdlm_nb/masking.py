"""Cross-document masked language modeling (CD-MLM): BERT's masking plus a global-attention pattern.

`CrossDocumentMLMCollator(tokenizer, pattern=...)` is a drop-in `data_collator` for the HF `Trainer`: it masks a
batch of `{"input_ids": [...]}` rows, pads them (`collate.pad_batch`) and returns `input_ids`, `attention_mask`,
`global_attention_mask` and `labels` (-100 where nothing is predicted). `collators_by_pattern` builds one
collator per pattern, and `replacement_counts` / `masking_statistics` measure what the masking did (notebook 01).
Masking follows BERT, as the paper says: 15 % of the maskable tokens of each row (at least one) are predicted; of
those 80 % become `<mask>`, 10 % a random ordinary token and 10 % stay unchanged. Special tokens (`<s>`, `</s>`,
`<pad>`, `<unk>`, `<mask>`), the document separators and padding are never predicted. The *patterns* differ only
in which tokens get global attention (CDLM paper, Sections 2.2 and 3; a model's pattern is
`variants.attention_pattern_of(model)`):

- `cdlm`    the predicted tokens (all 15 %, whatever they were replaced by) — the paper's pattern;
- `rand`    the same attention as `cdlm`; Rand CDLM differs in its inputs (`inputs.pack_random_documents`);
- `local`   no global attention at all (Longformer's own MLM pretraining, and Local CDLM);
- `prefix`  the first 15 % of each row's non-padding tokens (BigBird-like Prefix CDLM), not the masked ones;
- `release` the released code's pattern: the predicted tokens except pronouns, *and* the first t positions of the
            row (t = number of predicted tokens); no attention mask, so `attention_mask` is all ones, padding
            included.

The sequence's first token (`<s>`) is *not* global in `cdlm`: the paper gives global attention to the masked
tokens only and says "the non-masked tokens use local attention" (Longformer's MLM pretraining had no global
tokens at all); fine-tuning adds a global `<s>` where a task needs one.

With `seed=...` the collator is deterministic for evaluation: each row's masks come from a generator seeded
with the seed and the row's own tokens, so every model sees the same masks whatever the batch size or order.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

import torch

from .collate import pad_batch
from .errors import ConfigError
from .tokenization import document_separator_ids

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

Pattern = Literal["cdlm", "rand", "local", "prefix", "release"]
PATTERNS: tuple[str, ...] = get_args(Pattern)
MASKED_GLOBAL_PATTERNS = ("cdlm", "rand")  # global attention on exactly the masked (predicted) tokens
#: Of the tokens chosen for prediction, the share shown as [MASK] and the share swapped for a random token; the
#: rest stay unchanged (BERT's 80 / 10 / 10).
MASK_SHARE, RANDOM_SHARE = 0.8, 0.1
IGNORE_INDEX = -100  # label of positions that are not predicted (ignored by the cross-entropy loss)

#: English personal pronouns; the released code kept masked pronouns out of global attention.
PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its itself "
    "we us our ours ourselves they them their theirs themselves".split()
)


@dataclass
class MaskedRow:
    """One row after masking, before padding: the model input, the labels and which positions are predicted."""

    input_ids: torch.Tensor  # (length,) with <mask> / random / unchanged tokens at predicted positions
    labels: torch.Tensor  # (length,) original token where predicted, IGNORE_INDEX elsewhere
    predicted: torch.Tensor  # (length,) bool


@dataclass
class CrossDocumentMLMCollator:
    """Pads a batch, masks 15 % of its tokens (80/10/10) and sets the global attention of `pattern`.

    `seed=None` draws from torch's global generator (training; seeded by `Trainer`); an int makes the masks a
    function of (seed, row tokens) only, for evaluation. `pad_to_multiple_of` can pad to the attention window.
    """

    tokenizer: "PreTrainedTokenizerBase"
    pattern: Pattern = "cdlm"
    mlm_probability: float = 0.15
    seed: int | None = None
    prefix_fraction: float = 0.15  # share of each row made global by the `prefix` pattern
    pad_to_multiple_of: int | None = None
    _never_predicted: torch.Tensor = field(init=False, repr=False)
    _random_pool: torch.Tensor = field(init=False, repr=False)
    _pronoun_ids: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ConfigError(f"unknown CD-MLM attention pattern {self.pattern!r}; choose one of {list(PATTERNS)}")
        for name in ("mlm_probability", "prefix_fraction"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise ConfigError(f"{name} must be in (0, 1), got {getattr(self, name)}")
        if self.tokenizer.mask_token_id is None or self.tokenizer.pad_token_id is None:
            raise ConfigError("the tokenizer needs a mask token and a pad token for masked language modeling")
        special = set(self.tokenizer.all_special_ids) | set(document_separator_ids(self.tokenizer))
        special.add(self.tokenizer.pad_token_id)
        vocab_size = len(self.tokenizer)
        self._never_predicted = torch.tensor(sorted(special), dtype=torch.long)
        self._random_pool = torch.tensor([i for i in range(vocab_size) if i not in special], dtype=torch.long)
        self._pronoun_ids = torch.tensor(sorted(_pronoun_token_ids(self.tokenizer)), dtype=torch.long)

    # ----------------------------------------------------------------------------------------------------------
    def __call__(self, features: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        """Collate rows `{"input_ids": ...}` (other keys ignored) into a padded, masked batch."""
        if not features:
            raise ConfigError("CrossDocumentMLMCollator got an empty batch")
        rows = [torch.as_tensor(feature["input_ids"], dtype=torch.long) for feature in features]
        masked = [self.mask_row(row) for row in rows]
        batch = pad_batch(
            [{"input_ids": row.input_ids, "global_attention_mask": self.global_attention(original, row.predicted),
              "labels": row.labels} for original, row in zip(rows, masked)],
            {"input_ids": self.tokenizer.pad_token_id, "labels": IGNORE_INDEX},
            pad_to_multiple_of=self.pad_to_multiple_of,
        )
        if self.pattern == "release":
            batch["attention_mask"][:] = 1  # the released code passed no attention mask: padding is attended
        return batch

    # ----------------------------------------------------------------------------------------------------------
    def maskable(self, row: torch.Tensor) -> torch.Tensor:
        """Positions that may be predicted: everything but special tokens, separators and padding."""
        return ~torch.isin(row, self._never_predicted)

    def mask_row(self, row: torch.Tensor) -> MaskedRow:
        """BERT's masking of one unpadded row: pick round(15 % x maskable) >= 1 positions, then 80/10/10."""
        generator = self._generator_for(row)
        candidates = self.maskable(row).nonzero().flatten()
        predicted = torch.zeros(len(row), dtype=torch.bool)
        if len(candidates) == 0:
            return MaskedRow(row.clone(), torch.full_like(row, IGNORE_INDEX), predicted)
        n_predict = max(1, round(self.mlm_probability * len(candidates)))
        chosen = candidates[torch.randperm(len(candidates), generator=generator)[:n_predict]]
        predicted[chosen] = True

        labels = torch.where(predicted, row, torch.full_like(row, IGNORE_INDEX))
        inputs = row.clone()
        action = torch.rand(len(chosen), generator=generator)
        to_mask = chosen[action < MASK_SHARE]
        to_random = chosen[(action >= MASK_SHARE) & (action < MASK_SHARE + RANDOM_SHARE)]
        inputs[to_mask] = self.tokenizer.mask_token_id
        picks = torch.randint(len(self._random_pool), (len(to_random),), generator=generator)
        inputs[to_random] = self._random_pool[picks]
        return MaskedRow(inputs, labels, predicted)

    def global_attention(self, row: torch.Tensor, predicted: torch.Tensor) -> torch.Tensor:
        """The pattern's global attention (1 = global) for one unpadded row, given its original tokens and which
        positions are predicted: the few lines that make CD-MLM cross-document."""
        length = len(row)
        is_global = torch.zeros(length, dtype=torch.long)
        if self.pattern in MASKED_GLOBAL_PATTERNS:  # cdlm, rand: exactly the predicted tokens
            is_global[predicted] = 1
        elif self.pattern == "prefix":
            is_global[: max(1, round(self.prefix_fraction * length))] = 1
        elif self.pattern == "release":
            is_global[predicted & ~torch.isin(row, self._pronoun_ids)] = 1
            is_global[: int(predicted.sum())] = 1
        return is_global  # local: none

    def _generator_for(self, row: torch.Tensor) -> torch.Generator | None:
        if self.seed is None:
            return None
        row_hash = zlib.crc32(row.numpy().astype("int64").tobytes())
        return torch.Generator().manual_seed((self.seed * 1_000_003 + row_hash) % 2**63)


def _pronoun_token_ids(tokenizer: "PreTrainedTokenizerBase") -> set[int]:
    """Vocabulary entries that are a whole pronoun (with or without a BPE space marker), for the `release` pattern."""
    ids = set()
    for token, index in tokenizer.get_vocab().items():
        if token.lstrip("Ġ▁").lower() in PRONOUNS:
            ids.add(index)
    return ids


def collators_by_pattern(tokenizer: "PreTrainedTokenizerBase", patterns: tuple[str, ...] = PATTERNS,
                         **settings: Any) -> dict[str, CrossDocumentMLMCollator]:
    """`{pattern: CrossDocumentMLMCollator(tokenizer, pattern=pattern, **settings)}`: with one `seed`, every
    pattern masks the same tokens, so they differ only in their global attention."""
    return {pattern: CrossDocumentMLMCollator(tokenizer, pattern=pattern, **settings) for pattern in patterns}


def replacement_counts(input_ids, labels, mask_token_id: int) -> dict[str, int]:
    """How the predicted positions (label != -100) were fed to the model: `<mask>`, a random token, or unchanged.

    A random replacement that happens to draw the original token counts as unchanged (what the model sees).
    """
    inputs, labels = torch.as_tensor(input_ids).cpu(), torch.as_tensor(labels).cpu()
    if inputs.shape != labels.shape:
        raise ConfigError(f"input_ids {tuple(inputs.shape)} and labels {tuple(labels.shape)} differ in shape")
    predicted = labels != IGNORE_INDEX
    masked = predicted & (inputs == mask_token_id)
    unchanged = predicted & (inputs == labels)
    return {"mask": int(masked.sum()), "random": int((predicted & ~masked & ~unchanged).sum()),
            "unchanged": int(unchanged.sum())}


def masking_statistics(collator: CrossDocumentMLMCollator, rows: Sequence[Sequence[int]],
                       draws: int) -> dict[str, float]:
    """Mask each row `draws` times with `collator` and measure: the share of maskable tokens predicted
    (`mask_rate`) and how the predicted ones were replaced (`mask_share`, `random_share`, `unchanged_share`)."""
    if draws < 1 or not rows:
        raise ConfigError(f"masking_statistics needs rows and draws >= 1, got {len(rows)} rows and draws={draws}")
    maskable = predicted = 0
    counts = {"mask": 0, "random": 0, "unchanged": 0}
    for _ in range(draws):
        for ids in rows:
            row = torch.as_tensor(list(ids), dtype=torch.long)
            masked = collator.mask_row(row)
            maskable += int(collator.maskable(row).sum())
            predicted += int(masked.predicted.sum())
            replaced = replacement_counts(masked.input_ids, masked.labels, collator.tokenizer.mask_token_id)
            for kind, n in replaced.items():
                counts[kind] += n
    if maskable == 0 or predicted == 0:
        raise ConfigError("masking_statistics: the rows have no maskable tokens")
    return {"mask_rate": predicted / maskable, **{f"{kind}_share": n / predicted for kind, n in counts.items()}}


def masking_metrics(statistics: dict[str, float]) -> dict[str, float]:
    """The recorded keys of notebook 01 for `masking_statistics`: `masking/<name>`."""
    return {f"masking/{name}": value for name, value in statistics.items()}
