from cdlm_nb.attention_analysis.pairs import build_attention_input
from cdlm_nb.coref.mentions import MentionPair, tokenize_documents


def test_build_attention_input_tracks_the_mentions(tiny_tokenizer, corpus, mentions):
    pair = MentionPair(mentions["1_1ecb/2"], mentions["1_3ecbplus/1"])  # "Regina Benjamin" -> "Benjamin"
    documents = tokenize_documents(corpus, tiny_tokenizer)
    item = build_attention_input(pair, documents, tiny_tokenizer, max_length=200)
    ids = item.input_ids
    ends = tiny_tokenizer.convert_ids_to_tokens([ids[0], ids[1], ids[-2], ids[-1]])
    assert ends == ["<s>", "<doc-s>", "</doc-s>", "</s>"]
    assert tiny_tokenizer.decode([ids[p] for p in item.source_positions]).strip() == "Regina Benjamin"
    assert tiny_tokenizer.decode([ids[p] for p in item.target_positions]).strip() == "Benjamin"
    assert tiny_tokenizer.decode(ids[item.target_document.start:item.target_document.stop]).strip() == \
        "Benjamin accepted the nomination on Monday ."
    assert item.truncated_documents == 0

    # room for doc 2 whole and doc 1 only two tokens longer: doc 1 is cut to a window around its mention
    room = 2 * len(item.target_document) + 2
    assert len(item.input_ids) - 6 > room
    cut = build_attention_input(pair, documents, tiny_tokenizer, max_length=6 + room)
    assert cut.truncated_documents == 1 and len(cut.input_ids) == 6 + room
    assert tiny_tokenizer.decode([cut.input_ids[p] for p in cut.source_positions]).strip() == "Regina Benjamin"
    assert build_attention_input(pair, documents, tiny_tokenizer, max_length=8) == \
        "mention longer than its document's share of max_length"
