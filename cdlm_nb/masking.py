"""Cross-document masked language modeling (CD-MLM): BERT's masking plus a global-attention pattern.

`CrossDocumentMLMCollator` is a `data_collator` for the HF `Trainer`. Masking follows BERT, as the paper says: 15 %
of each row's maskable tokens (not special tokens, separators or padding; at least one) are predicted, 80 % of them
shown as `<mask>`, 10 % as a random ordinary token, 10 % unchanged. The patterns differ only in which tokens get
global attention (CDLM paper §2.2, §3; a model's: `variants.attention_pattern_of`):

- `cdlm`    the predicted tokens (all 15 %, whatever they were replaced by), the paper's; `<s>` stays local, as the
            paper says "the non-masked tokens use local attention" (fine-tuning adds a global `<s>` where needed);
- `rand`    the same as `cdlm`; Rand CDLM differs in its inputs (`inputs.pack_random_documents`);
- `local`   none (Longformer's own MLM pretraining, and Local CDLM);
- `prefix`  the first 15 % of each row's tokens (BigBird-like Prefix CDLM), not the masked ones;
- `release` the released code's: the predicted tokens except pronouns, *and* the first t positions (t = number
            predicted); no attention mask, so padding is attended.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, get_args

import torch

from .collate import pad_batch
from .support.errors import ConfigError
from .tokenization import document_separator_ids

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

Pattern = Literal["cdlm", "rand", "local", "prefix", "release"]
PATTERNS: tuple[str, ...] = get_args(Pattern)
MASKED_GLOBAL_PATTERNS = ("cdlm", "rand")  # global attention on exactly the masked (predicted) tokens
MASK_SHARE, RANDOM_SHARE = 0.8, 0.1  # of the predicted tokens: shown as <mask>, as a random token (BERT's 80/10/10)
IGNORE_INDEX = -100  # label of positions that are not predicted (ignored by the cross-entropy loss)

#: English personal pronouns; the released code kept masked pronouns out of global attention.
PRONOUNS = frozenset("i me my mine myself you your yours yourself yourselves he him his himself she her hers herself "
                     "it its itself we us our ours ourselves they them their theirs themselves".split())


class MaskedRow(NamedTuple):
    """One row after masking: the input, the labels (IGNORE_INDEX where not predicted), the predicted positions."""

    input_ids: torch.Tensor
    labels: torch.Tensor
    predicted: torch.Tensor


@dataclass
class CrossDocumentMLMCollator:
    """Pads a batch, masks 15 % of its tokens (80/10/10) and sets the global attention of `pattern`. With `seed`, a
    row's masks depend on the seed and its tokens only (every model sees the same masks); None: torch's generator."""

    tokenizer: "PreTrainedTokenizerBase"
    pattern: Pattern = "cdlm"
    mlm_probability: float = 0.15
    seed: int | None = None
    prefix_fraction: float = 0.15  # share of each row made global by the `prefix` pattern
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
        tokenizer = self.tokenizer
        special = {*tokenizer.all_special_ids, *document_separator_ids(tokenizer), tokenizer.pad_token_id}
        self._never_predicted = torch.tensor(sorted(special), dtype=torch.long)
        self._random_pool = torch.tensor([i for i in range(len(tokenizer)) if i not in special], dtype=torch.long)
        # whole pronouns (with or without a BPE space marker): the `release` pattern keeps them local
        pronouns = {index for token, index in tokenizer.get_vocab().items() if token.lstrip("Ġ▁").lower() in PRONOUNS}
        self._pronoun_ids = torch.tensor(sorted(pronouns), dtype=torch.long)

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        """Collate rows `{"input_ids": ...}` (other keys ignored) into a padded, masked batch."""
        if not features:
            raise ConfigError("CrossDocumentMLMCollator got an empty batch")
        rows = [torch.as_tensor(feature["input_ids"], dtype=torch.long) for feature in features]
        masked = [self.mask_row(row) for row in rows]
        batch = pad_batch([{"input_ids": inputs, "global_attention_mask": self.global_attention(row, predicted),
                            "labels": labels} for row, (inputs, labels, predicted) in zip(rows, masked)],
                          {"input_ids": self.tokenizer.pad_token_id, "labels": IGNORE_INDEX})
        if self.pattern == "release":
            batch["attention_mask"][:] = 1  # the released code passed no attention mask: padding is attended
        return batch

    def maskable(self, row: torch.Tensor) -> torch.Tensor:
        """Positions that may be predicted: everything but special tokens, separators and padding."""
        return ~torch.isin(row, self._never_predicted)

    def mask_row(self, row: torch.Tensor) -> MaskedRow:
        """BERT's masking of one unpadded row: pick round(15 % x maskable) >= 1 positions, then 80/10/10."""
        generator = None
        if self.seed is not None:
            row_hash = zlib.crc32(row.numpy().astype("int64").tobytes())
            generator = torch.Generator().manual_seed((self.seed * 1_000_003 + row_hash) % 2**63)
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
        to_random = chosen[(action >= MASK_SHARE) & (action < MASK_SHARE + RANDOM_SHARE)]
        inputs[chosen[action < MASK_SHARE]] = self.tokenizer.mask_token_id
        picks = torch.randint(len(self._random_pool), (len(to_random),), generator=generator)
        inputs[to_random] = self._random_pool[picks]
        return MaskedRow(inputs, labels, predicted)

    def global_attention(self, row: torch.Tensor, predicted: torch.Tensor) -> torch.Tensor:
        """The pattern's global attention (1 = global) of one unpadded row: what makes CD-MLM cross-document."""
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


def collators_by_pattern(tokenizer: "PreTrainedTokenizerBase", patterns: tuple[str, ...] = PATTERNS,
                         **settings: Any) -> dict[str, CrossDocumentMLMCollator]:
    """A collator per pattern: with one `seed` they mask the same tokens and differ only in global attention."""
    return {pattern: CrossDocumentMLMCollator(tokenizer, pattern=pattern, **settings) for pattern in patterns}


def replacement_counts(input_ids, labels, mask_token_id: int) -> dict[str, int]:
    """How the predicted positions (label != -100) were fed to the model: `<mask>`, a random token, or unchanged (a
    random draw of the original token counts as unchanged: what the model sees)."""
    inputs, labels = torch.as_tensor(input_ids).cpu(), torch.as_tensor(labels).cpu()
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
    counts = Counter()
    for _ in range(draws):
        for ids in rows:
            row = torch.as_tensor(list(ids), dtype=torch.long)
            inputs, labels, chosen = collator.mask_row(row)
            maskable += int(collator.maskable(row).sum())
            predicted += int(chosen.sum())
            counts.update(replacement_counts(inputs, labels, collator.tokenizer.mask_token_id))
    if maskable == 0 or predicted == 0:
        raise ConfigError("masking_statistics: the rows have no maskable tokens")
    return {"mask_rate": predicted / maskable, **{f"{kind}_share": n / predicted for kind, n in counts.items()}}


def masking_metrics(statistics: dict[str, float]) -> dict[str, float]:
    """The recorded keys of notebook 01 for `masking_statistics`: `masking/<name>`."""
    return {f"masking/{name}": value for name, value in statistics.items()}
