"""Tokenizers for cross-document inputs: a small byte-level BPE trained offline on the corpus, and the two
document separators `<doc-s>` / `</doc-s>` that CDLM adds to any tokenizer (and to the model's embeddings).

The trained tokenizer follows RoBERTa's conventions: special tokens `<s> <pad> </s> <unk> <mask>` (ids 0-4, so
`<pad>` is 1 as in RoBERTa/Longformer) followed by `<doc-s> </doc-s>` (ids 5-6); `tokenizer(text)` wraps a text
in `<s> ... </s>`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .errors import ConfigError, DataError

if TYPE_CHECKING:
    from tokenizers import Tokenizer
    from transformers import PreTrainedModel, PreTrainedTokenizerBase, PreTrainedTokenizerFast

DOC_START = "<doc-s>"
DOC_END = "</doc-s>"
DOCUMENT_SEPARATORS = (DOC_START, DOC_END)
#: RoBERTa's special tokens, in RoBERTa's id order.
ROBERTA_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def train_byte_level_bpe(texts: Iterable[str], vocab_size: int, special_tokens: Sequence[str],
                         add_prefix_space: bool = True) -> "Tokenizer":
    """A byte-level BPE (`tokenizers`) trained on the non-blank `texts`, `special_tokens` first (ids 0, 1, ...): the
    one trainer behind `train_tokenizer` and the rehearsal's stand-in RoBERTa vocabulary (`rehearsal.hub_models`).

    `add_prefix_space` gives every word, the first of a text included, its leading-space marker (RoBERTa's own
    tokenizer does not).
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    if vocab_size < 256 + len(special_tokens):
        raise ConfigError(
            f"vocab_size={vocab_size} is too small: a byte-level BPE needs at least {256 + len(special_tokens)}"
        )
    texts = [text for text in texts if text and text.strip()]
    if not texts:
        raise DataError("a byte-level BPE got no non-empty texts to learn a vocabulary from")
    backend = Tokenizer(models.BPE(unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(special_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(texts, trainer)
    return backend


def train_tokenizer(
    texts: Iterable[str], vocab_size: int = 8000, model_max_length: int = 4096
) -> "PreTrainedTokenizerFast":
    """Train a byte-level BPE (RoBERTa-style, with `<doc-s>`/`</doc-s>`) on `texts`: an offline tokenizer in seconds.

    Every word, the first of a text included, is encoded with its leading-space marker (`add_prefix_space`), so a
    document's first word looks the same after a `<doc-s>` as anywhere else.
    """
    from tokenizers import processors
    from transformers import PreTrainedTokenizerFast

    backend = train_byte_level_bpe(texts, vocab_size, [*ROBERTA_SPECIALS, *DOCUMENT_SEPARATORS])
    backend.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), add_prefix_space=True)
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token="<s>",
        eos_token="</s>",
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
        extra_special_tokens=list(DOCUMENT_SEPARATORS),
        model_max_length=model_max_length,
    )


def add_document_separators(tokenizer: "PreTrainedTokenizerBase", model: "PreTrainedModel | None" = None) -> int:
    """Add `<doc-s>`/`</doc-s>` as special tokens (if missing) and grow `model`'s embeddings to the tokenizer.

    New rows are drawn at random, as the CDLM paper says (§2.3, "randomly initialized"): N(0, initializer_range),
    i.e. `resize_token_embeddings(..., mean_resizing=False)`. transformers' default (`mean_resizing=True`) would
    instead sample around the mean of the old rows with covariance 1e-9 x theirs, i.e. practically the mean
    embedding. Separators already in the vocabulary as ordinary added tokens (as in `biu-nlp/cdlm`'s
    added_tokens.json) keep their ids and are marked special. Returns the number of tokens new to the vocabulary.
    """
    not_special = [token for token in DOCUMENT_SEPARATORS if token not in tokenizer.all_special_tokens]
    size = len(tokenizer)
    if not_special:
        tokenizer.add_special_tokens({"extra_special_tokens": not_special}, replace_extra_special_tokens=False)
    added = len(tokenizer) - size
    if model is not None and model.get_input_embeddings().num_embeddings < len(tokenizer):
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    return added


def add_marker_tokens(tokenizer: "PreTrainedTokenizerBase", markers: Sequence[str],
                      model: "PreTrainedModel | None" = None) -> list[int]:
    """Add task markers (coreference's `<m>`, QA's `[/sent]`, ...) as special tokens where missing, grow `model`'s
    embeddings with random rows as for the separators, and return the markers' ids in order."""
    missing = [token for token in markers if token not in tokenizer.get_vocab()]
    if missing:
        tokenizer.add_special_tokens({"extra_special_tokens": missing}, replace_extra_special_tokens=False)
    if model is not None and model.get_input_embeddings().num_embeddings < len(tokenizer):
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    vocab = tokenizer.get_vocab()
    return [vocab[token] for token in markers]


def document_separator_ids(tokenizer: "PreTrainedTokenizerBase") -> tuple[int, int]:
    """The ids of `<doc-s>` and `</doc-s>`; a ConfigError says to call add_document_separators if they are missing."""
    vocab = tokenizer.get_vocab()
    missing = [token for token in DOCUMENT_SEPARATORS if token not in vocab]
    if missing:
        raise ConfigError(
            f"tokenizer has no {missing}: call cdlm_nb.tokenization.add_document_separators(tokenizer, model)"
        )
    return vocab[DOC_START], vocab[DOC_END]


def sequence_markers(tokenizer: "PreTrainedTokenizerBase") -> tuple[int, int]:
    """The ids that open and close a sequence (and a sentence): `<s>`/`</s>` for RoBERTa, `[CLS]`/`[SEP]` for BERT."""
    start = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    end = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    if start is None or end is None:
        raise ConfigError(f"tokenizer {type(tokenizer).__name__} has no <s>/</s> (cls/sep or bos/eos) tokens")
    return start, end
