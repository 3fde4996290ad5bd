"""Tokenizers for cross-document inputs: a small byte-level BPE trained offline on the corpus (RoBERTa's conventions,
then `<doc-s> </doc-s>`), and the two document separators that CDLM adds to any tokenizer and model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .support.errors import ConfigError, DataError

if TYPE_CHECKING:
    from tokenizers import Tokenizer
    from transformers import PreTrainedModel, PreTrainedTokenizerBase, PreTrainedTokenizerFast

DOC_START, DOC_END = "<doc-s>", "</doc-s>"
DOCUMENT_SEPARATORS = (DOC_START, DOC_END)
ROBERTA_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")  # in RoBERTa's id order


def train_byte_level_bpe(texts: Iterable[str], vocab_size: int, special_tokens: Sequence[str],
                         add_prefix_space: bool = True) -> "Tokenizer":
    """A byte-level BPE trained on the non-blank `texts`, `special_tokens` first (ids 0, 1, ...); `add_prefix_space`:
    a text's first word too gets its leading-space marker (RoBERTa's own tokenizer does not)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    if vocab_size < 256 + len(special_tokens):
        raise ConfigError(f"vocab_size={vocab_size} is too small: a byte-level BPE needs at least "
                          f"{256 + len(special_tokens)}")
    texts = [text for text in texts if text and text.strip()]
    if not texts:
        raise DataError("a byte-level BPE got no non-empty texts to learn a vocabulary from")
    backend = Tokenizer(models.BPE(unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    backend.decoder = decoders.ByteLevel()
    backend.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens),
                                                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                           show_progress=False))
    return backend


def train_tokenizer(texts: Iterable[str], vocab_size: int = 8000,
                    model_max_length: int = 4096) -> "PreTrainedTokenizerFast":
    """A RoBERTa-style byte-level BPE with `<doc-s>`/`</doc-s>` trained on `texts` in seconds; every word gets its
    leading-space marker, so a document's first word looks the same after a `<doc-s>` as anywhere else."""
    from tokenizers import processors
    from transformers import PreTrainedTokenizerFast

    backend = train_byte_level_bpe(texts, vocab_size, [*ROBERTA_SPECIALS, *DOCUMENT_SEPARATORS])
    backend.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), add_prefix_space=True)
    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<s>", eos_token="</s>", cls_token="<s>",
                                   sep_token="</s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
                                   extra_special_tokens=list(DOCUMENT_SEPARATORS), model_max_length=model_max_length)


def add_document_separators(tokenizer: "PreTrainedTokenizerBase", model: "PreTrainedModel | None" = None) -> int:
    """Add `<doc-s>`/`</doc-s>` as special tokens (ordinary ones keep their ids) and grow `model`'s embeddings with
    random rows, as in the CDLM paper (§2.3), not transformers' mean rows; returns how many tokens are new."""
    size = len(tokenizer)
    _add_special(tokenizer, [token for token in DOCUMENT_SEPARATORS if token not in tokenizer.all_special_tokens],
                 model)
    return len(tokenizer) - size


def add_marker_tokens(tokenizer: "PreTrainedTokenizerBase", markers: Sequence[str],
                      model: "PreTrainedModel | None" = None) -> list[int]:
    """Task markers (coreference's `<m>`, QA's `[/sent]`) added as special tokens where missing; their ids."""
    _add_special(tokenizer, [token for token in markers if token not in tokenizer.get_vocab()], model)
    vocab = tokenizer.get_vocab()
    return [vocab[token] for token in markers]


def _add_special(tokenizer: "PreTrainedTokenizerBase", tokens: list[str], model: "PreTrainedModel | None") -> None:
    """`tokens` added as special tokens, and `model`'s embeddings grown to the tokenizer with random rows."""
    if tokens:
        tokenizer.add_special_tokens({"extra_special_tokens": tokens}, replace_extra_special_tokens=False)
    if model is not None and model.get_input_embeddings().num_embeddings < len(tokenizer):
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)


def document_separator_ids(tokenizer: "PreTrainedTokenizerBase") -> tuple[int, int]:
    """The ids of `<doc-s>` and `</doc-s>` (a ConfigError says to call add_document_separators if missing)."""
    vocab = tokenizer.get_vocab()
    if missing := [token for token in DOCUMENT_SEPARATORS if token not in vocab]:
        raise ConfigError(f"tokenizer has no {missing}: call cdlm_nb.tokenization.add_document_separators(tokenizer, "
                          "model)")
    return vocab[DOC_START], vocab[DOC_END]


def sequence_markers(tokenizer: "PreTrainedTokenizerBase") -> tuple[int, int]:
    """The ids that open and close a sequence (and a sentence): `<s>`/`</s>` for RoBERTa, `[CLS]`/`[SEP]` for BERT."""
    start = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    end = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    if start is None or end is None:
        raise ConfigError(f"tokenizer {type(tokenizer).__name__} has no <s>/</s> (cls/sep or bos/eos) tokens")
    return start, end
