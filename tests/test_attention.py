import math
from dataclasses import replace

import numpy as np
import pytest

from cdlm_nb.attention import (
    PAPER_TABLE6_MPR,
    candidate_positions,
    is_punctuation,
    mean_percentile_rank,
    mention_pair_score,
    percentile_rank,
    token_scores,
)
from cdlm_nb.errors import ConfigError, DataError

# A hand-built last layer: 2 heads, 7 positions, source span S = {1, 2} (two global tokens, so |S| = 2 columns).
# Position 0 and 6 stand for special tokens, positions 3-5 for the target document.
SOURCE = [1, 2]
# ATTN_TO[h, i, j] = α_{i, S_j}: token i's attention to source token S_j.
ATTN_TO = np.array([
    [[0.1, 0.0], [0.0, 0.0], [0.0, 0.0], [0.2, 0.1], [0.0, 0.1], [0.3, 0.0], [0.0, 0.0]],
    [[0.0, 0.1], [0.0, 0.0], [0.0, 0.0], [0.1, 0.0], [0.0, 0.0], [0.1, 0.1], [0.2, 0.0]],
])
# ATTN_FROM[h, i, j] = α_{S_j, i}: source token S_j's (global) attention to token i.
ATTN_FROM = np.array([
    [[0.2, 0.1], [0.3, 0.2], [0.1, 0.3], [0.2, 0.1], [0.1, 0.0], [0.0, 0.2], [0.1, 0.1]],
    [[0.1, 0.0], [0.2, 0.4], [0.2, 0.1], [0.3, 0.2], [0.0, 0.1], [0.1, 0.0], [0.1, 0.2]],
])
# Σ_heads Σ_{j∈S} (α_ij + α_ji), added up by hand for the positions outside S:
#   0: (0.1+0.0+0.0+0.1) + (0.2+0.1+0.1+0.0) = 0.6
#   3: (0.2+0.1+0.1+0.0) + (0.2+0.1+0.3+0.2) = 1.2
#   4: (0.0+0.1+0.0+0.0) + (0.1+0.0+0.0+0.1) = 0.3
#   5: (0.3+0.0+0.1+0.1) + (0.0+0.2+0.1+0.0) = 0.8
#   6: (0.0+0.0+0.2+0.0) + (0.1+0.1+0.1+0.2) = 0.7
LOGITS = {0: 0.6, 3: 1.2, 4: 0.3, 5: 0.8, 6: 0.7}
Z = sum(math.exp(v) for v in LOGITS.values())


def test_token_scores_match_the_hand_computed_softmax():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    for position, logit in LOGITS.items():
        assert scores[position] == pytest.approx(math.exp(logit) / Z)
    assert np.isnan(scores[SOURCE]).all()  # s(i|S) is defined for i outside S only
    assert np.nansum(scores) == pytest.approx(1.0)


def test_token_scores_use_both_directions():
    only_to = token_scores(ATTN_TO, np.zeros_like(ATTN_FROM), SOURCE)
    only_from = token_scores(np.zeros_like(ATTN_TO), ATTN_FROM, SOURCE)
    both = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    # position 5 beats position 3 on incoming attention alone, but loses once both directions count
    assert only_to[5] > only_to[3]
    assert both[5] < both[3]
    assert not np.allclose(only_from[[0, 3, 4, 5, 6]], both[[0, 3, 4, 5, 6]])


def test_token_scores_reject_mismatched_shapes():
    with pytest.raises(ConfigError, match="attn_to"):
        token_scores(ATTN_TO[:, :, :1], ATTN_FROM, SOURCE)
    with pytest.raises(ConfigError, match="source_positions"):
        token_scores(ATTN_TO, ATTN_FROM, [1, 9])
    with pytest.raises(ConfigError, match="empty"):
        token_scores(ATTN_TO[:, :, :0], ATTN_FROM[:, :, :0], [])


def test_percentile_rank_counts_strictly_lower_and_half_ties():
    assert percentile_rank(0.5, [0.1, 0.2, 0.7, 0.9]) == pytest.approx(50.0)
    assert percentile_rank(1.0, [0.1, 0.2]) == pytest.approx(100.0)
    assert percentile_rank(0.0, [0.1, 0.2]) == pytest.approx(0.0)
    assert percentile_rank(0.2, [0.1, 0.2, 0.3, 0.4]) == pytest.approx(100 * 1.5 / 4)
    with pytest.raises(DataError, match="at least one"):
        percentile_rank(0.5, [])
    with pytest.raises(DataError, match="non-finite"):
        percentile_rank(0.5, [float("nan")])


def test_mention_pair_score_aggregates_the_target_and_ranks_it_against_the_rest():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    target, candidates = [4, 5], [3, 4, 5, 6]
    score, pr = mention_pair_score(scores, target, candidates)
    expected_score = (math.exp(0.3) + math.exp(0.8)) / 2 / Z
    assert score == pytest.approx(expected_score)
    # the other candidates, 3 (e^1.2) and 6 (e^0.7 = 2.01), both beat the target's (e^0.3 + e^0.8) / 2 = 1.79
    assert pr == pytest.approx(0.0)
    score, pr = mention_pair_score(scores, [3], candidates)  # e^1.2 beats 4, 5 and 6
    assert pr == pytest.approx(100.0)
    score, pr = mention_pair_score(scores, [6], candidates)  # e^0.7 beats 4 (e^0.3), loses to 3 and 5
    assert pr == pytest.approx(100 / 3)


def test_mention_pair_score_rejects_empty_or_overlapping_spans():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    with pytest.raises(DataError, match="empty"):
        mention_pair_score(scores, [], [3, 4])
    with pytest.raises(DataError, match="no candidate"):
        mention_pair_score(scores, [3, 4], [3, 4])
    with pytest.raises(DataError, match="overlap the source"):
        mention_pair_score(scores, [2, 3], [3, 4, 5])


def _authors_shifted_reading(scores, source, target):
    """The released notebook's lookup: aggregate T into its first token, delete T's other tokens and S, then read
    the *old* index of T's first token in the shortened array."""
    cut = scores.copy()
    cut[target[0]] = np.mean(scores[target])
    cut = np.delete(cut, target[1:] + source)
    return cut[target[0]]


def test_the_authors_shifted_index_reads_another_token():
    scores = token_scores(ATTN_TO, ATTN_FROM, SOURCE)
    target, candidates = [3, 4], [3, 4, 5, 6]
    ours, our_pr = mention_pair_score(scores, target, candidates)
    shifted = _authors_shifted_reading(scores, SOURCE, target)
    # After deleting 3 positions before index 3, index 3 holds the score of original position 6, not of T.
    assert shifted == pytest.approx(scores[6])
    assert shifted != pytest.approx(ours)
    # T = mean(e^1.2, e^0.3) = 2.34 beats 5 (e^0.8 = 2.23) and 6 (e^0.7 = 2.01): PR 100 %; the shifted reading
    # ranks position 6 against T and position 5 instead, and gets 0 %.
    assert our_pr == pytest.approx(100.0)
    assert percentile_rank(shifted, [ours, scores[5]]) == pytest.approx(0.0)


def test_mean_percentile_rank():
    assert mean_percentile_rank([100.0, 50.0, 0.0]) == pytest.approx(50.0)
    with pytest.raises(DataError, match="skipped"):
        mean_percentile_rank([])


def test_punctuation_and_candidates():
    assert is_punctuation(" .") and is_punctuation('"') and is_punctuation(" ") and is_punctuation("...")
    assert not is_punctuation(" Obama") and not is_punctuation("'s") and not is_punctuation("9")
    ids = [0, 5, 10, 11, 12, 13, 6, 2]  # <s> <doc-s> Obama named , her </doc-s> </s>
    assert candidate_positions(ids, range(1, 7), {0, 2, 5, 6, 12}) == [2, 3, 5]
    assert candidate_positions(ids, range(1, 7), {0, 2, 5, 6}) == [2, 3, 4, 5]


def test_paper_table6_has_every_model_label_and_kind():
    assert set(PAPER_TABLE6_MPR) == {"longformer", "local", "rand", "prefix", "cdlm"}
    for values in PAPER_TABLE6_MPR.values():
        assert set(values) == {(label, kind) for label in ("pos", "neg") for kind in ("event", "entity")}
    assert PAPER_TABLE6_MPR["cdlm"][("pos", "event")] == 72.1


# ---------------------------------------------------------------------------------------------------------
# Pairs, inputs and the model runner, on a hand-made corpus and a tiny random Longformer
# ---------------------------------------------------------------------------------------------------------


def _doc(doc_id, topic, sentences, mentions):
    sentences = [s.split() for s in sentences]
    rows = []
    for i, (kind, sentence, start, end, cluster) in enumerate(mentions):
        rows.append({"mention_id": f"{doc_id}/{i}", "kind": kind, "type": "", "sentence": sentence, "start": start,
                     "end": end, "text": " ".join(sentences[sentence][start:end]), "cluster_id": cluster,
                     "singleton": False})
    return {"doc_id": doc_id, "topic": topic, "subtopic": f"{topic}_ecb", "sentence_ids": list(range(len(sentences))),
            "sentences": sentences, "mentions": rows}


CORPUS = [
    _doc("1_1ecb", "1", ["Obama named Regina Benjamin surgeon general .", "She is a doctor in Alabama ."],
         [("event", 0, 1, 2, "E1"), ("entity", 0, 0, 1, "P1"), ("entity", 0, 2, 4, "P2"), ("event", 1, 1, 2, "E3")]),
    _doc("1_2ecb", "1", ["The president nominates a new surgeon general .", "Benjamin accepted the job ."],
         [("event", 0, 2, 3, "E1"), ("entity", 0, 0, 2, "P1"), ("entity", 1, 0, 1, "P2"), ("event", 1, 1, 2, "E2")]),
    _doc("1_3ecbplus", "1", ["Benjamin accepted the nomination on Monday ."],
         [("event", 0, 1, 2, "E2"), ("entity", 0, 0, 1, "P2")]),
    _doc("2_1ecb", "2", ["An earthquake hit Chile .", "Buildings collapsed in Santiago ."],
         [("event", 0, 2, 3, "E4"), ("entity", 0, 3, 4, "L1"), ("event", 1, 1, 2, "E5")]),
    _doc("2_2ecb", "2", ["A strong quake struck Chile on Saturday ."],
         [("event", 0, 3, 4, "E4"), ("entity", 0, 4, 5, "L1")]),
]


@pytest.fixture(scope="module")
def tokenizer():
    from cdlm_nb.tokenization import train_tokenizer

    texts = [" ".join(" ".join(sentence) for sentence in row["sentences"]) for row in CORPUS]
    return train_tokenizer(texts * 5, vocab_size=400)


def _by_id():
    from cdlm_nb.coreference import collect_mentions

    return {m.mention_id: m for kind in ("event", "entity") for m in collect_mentions(CORPUS, kind)}


def test_sample_mention_pairs_positives_share_a_cluster_across_documents():
    from cdlm_nb.attention import sample_mention_pairs

    pairs = sample_mention_pairs(CORPUS, n_pos=100, n_neg=0, kind="event", seed=1)
    # every cross-document same-cluster event pair: E1 (1_1, 1_2), E2 (1_2, 1_3), E4 (2_1, 2_2)
    assert sorted(sorted((p.first.cluster_id, p.first.doc_id, p.second.doc_id)) for p in pairs) == sorted(
        sorted(t) for t in [("E1", "1_1ecb", "1_2ecb"), ("E2", "1_2ecb", "1_3ecbplus"), ("E4", "2_1ecb", "2_2ecb")])
    assert all(p.label == 1 and p.first.kind == "event" for p in pairs)


def test_sample_mention_pairs_negatives_differ_in_cluster_within_a_topic():
    from cdlm_nb.attention import sample_mention_pairs

    pairs = sample_mention_pairs(CORPUS, n_pos=0, n_neg=3, kind="entity", seed=3)
    assert len(pairs) == 3
    for p in pairs:
        assert p.label == 0 and p.first.topic == p.second.topic and p.first.doc_id != p.second.doc_id
    assert len({frozenset((p.first.mention_id, p.second.mention_id)) for p in pairs}) == 3  # no repeats
    again = sample_mention_pairs(CORPUS, n_pos=0, n_neg=3, kind="entity", seed=3)
    assert [(p.first.mention_id, p.second.mention_id) for p in again] == \
        [(p.first.mention_id, p.second.mention_id) for p in pairs]
    # topic 1 has 4 cross-document entity pairs of different clusters, topic 2 none: asking for more gives 4
    assert len(sample_mention_pairs(CORPUS, n_pos=0, n_neg=50, kind="entity", seed=3)) == 4


def test_window_and_budget_arithmetic():
    from cdlm_nb.attention import document_budgets, window_start

    assert window_start(10, [3, 4], 20) == 0
    assert window_start(100, [50, 51], 10) == 46  # centred: 4 tokens before, 4 after
    assert window_start(100, [1], 10) == 0 and window_start(100, [99], 10) == 90
    assert window_start(100, list(range(10, 30)), 10) is None
    assert document_budgets(30, 40, 100) == (30, 40)
    assert document_budgets(30, 400, 100) == (30, 70)
    assert document_budgets(400, 400, 100) == (50, 50)
    assert document_budgets(400, 20, 100) == (80, 20)


def test_build_attention_input_tracks_the_mentions(tokenizer):
    from cdlm_nb.attention import build_attention_input
    from cdlm_nb.coreference import MentionPair, tokenize_documents

    mentions = _by_id()
    pair = MentionPair(mentions["1_1ecb/2"], mentions["1_3ecbplus/1"])  # "Regina Benjamin" -> "Benjamin"
    documents = tokenize_documents(CORPUS, tokenizer)
    item = build_attention_input(pair, documents, tokenizer, max_length=200)
    ids = item.input_ids
    assert tokenizer.convert_ids_to_tokens([ids[0], ids[1], ids[-2], ids[-1]]) == ["<s>", "<doc-s>", "</doc-s>", "</s>"]
    assert tokenizer.decode([ids[p] for p in item.source_positions]).strip() == "Regina Benjamin"
    assert tokenizer.decode([ids[p] for p in item.target_positions]).strip() == "Benjamin"
    assert tokenizer.decode(ids[item.target_document.start:item.target_document.stop]).strip() == \
        "Benjamin accepted the nomination on Monday ."
    assert item.truncated_documents == 0

    cut = build_attention_input(pair, documents, tokenizer, max_length=6 + 8 + len(item.target_document))
    assert cut.truncated_documents == 1 and len(cut.input_ids) == 6 + 8 + len(item.target_document)
    assert tokenizer.decode([cut.input_ids[p] for p in cut.source_positions]).strip() == "Regina Benjamin"
    assert build_attention_input(pair, documents, tokenizer, max_length=8) == \
        "mention longer than its document's share of max_length"


def _tiny_longformer(tokenizer, window):
    import torch
    from transformers import LongformerConfig, LongformerForMaskedLM

    torch.manual_seed(0)
    config = LongformerConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=32, attention_window=window, max_position_embeddings=258,
                              pad_token_id=tokenizer.pad_token_id, type_vocab_size=1)
    return LongformerForMaskedLM(config).eval()


def test_both_attention_directions_match_a_manual_computation(tokenizer):
    """α_ij from `attentions[..., :|S|]` and α_ji from `global_attentions`, recomputed from the last layer's
    projections (a window wider than the input, so local attention is a full softmax)."""
    import torch

    from cdlm_nb.attention import last_layer_source_attention

    model = _tiny_longformer(tokenizer, window=32)
    seq, source = 12, [3, 4]
    ids = torch.randint(7, len(tokenizer), (1, seq))
    global_mask = torch.zeros_like(ids)
    global_mask[0, source] = 1
    with torch.no_grad():
        out = model.base_model(input_ids=ids, attention_mask=torch.ones_like(ids), global_attention_mask=global_mask,
                               output_attentions=True, output_hidden_states=True)
        attn_to, attn_from = last_layer_source_attention(out, 0, len(source), seq)
        layer = model.base_model.encoder.layer[-1].attention.self
        hidden = out.hidden_states[-2][0]

        def heads(x):
            return x.view(seq, 2, 8).transpose(0, 1)

        local = torch.softmax(heads(layer.query(hidden)) @ heads(layer.key(hidden)).transpose(1, 2) / math.sqrt(8), -1)
        global_query = heads(layer.query_global(hidden))[:, source]
        glob = torch.softmax(global_query @ heads(layer.key_global(hidden)).transpose(1, 2) / math.sqrt(8), -1)
    outside = [i for i in range(seq) if i not in source]
    np.testing.assert_allclose(attn_to[:, outside], local[:, outside][:, :, source].numpy(), atol=1e-6)
    np.testing.assert_allclose(attn_from, glob.transpose(1, 2).numpy(), atol=1e-6)


def test_analyse_pairs_gives_one_row_per_pair_and_reports_skips(tokenizer):
    from cdlm_nb.attention import analyse_pairs, sample_mention_pairs

    pairs = sample_mention_pairs(CORPUS, n_pos=3, n_neg=3, kind="event", seed=0)
    model = _tiny_longformer(tokenizer, window=4)
    table = analyse_pairs(model, tokenizer, pairs, CORPUS, model_name="tiny", max_length=512, batch_size=4)
    assert len(table) == len(pairs) == 6
    assert (table["status"] == "ok").all() and set(table["label"]) == {"pos", "neg"}
    assert table["percentile"].between(0, 100).all() and (table["candidates"] > 1).all()
    assert list(table["source"]) == [p.first.text for p in pairs]  # rows in the order of `pairs`
    one_by_one = analyse_pairs(model, tokenizer, pairs, CORPUS, model_name="tiny", max_length=512, batch_size=1)
    np.testing.assert_allclose(one_by_one["score"], table["score"], rtol=1e-5)  # padding in a batch changes nothing
    skipped = analyse_pairs(model, tokenizer, pairs, CORPUS, model_name="tiny", max_length=7)
    assert len(skipped) == 6 and (skipped["status"] != "ok").all() and skipped["percentile"].isna().all()


def _results():
    import pandas as pd

    rows = [
        ("cdlm", "event", "pos", 80.0, "ok"), ("cdlm", "event", "pos", 60.0, "ok"),
        ("cdlm", "entity", "pos", 90.0, "ok"),
        ("cdlm", "event", "neg", 40.0, "ok"), ("cdlm", "entity", "neg", 50.0, "ok"),
        ("cdlm", "entity", "neg", float("nan"), "mention has no tokens"),
        ("local", "event", "pos", 55.0, "ok"), ("local", "entity", "pos", 45.0, "ok"),
        ("local", "event", "neg", 50.0, "ok"), ("local", "entity", "neg", 52.0, "ok"),
    ]
    frame = pd.DataFrame(rows, columns=["model", "kind", "label", "percentile", "status"])
    return frame.assign(truncated_documents=[0, 1, 0, 0, 0, 0, 2, 0, 0, 0], pair=[0, 1, 0, 2, 1, 2, 0, 0, 2, 1])


def test_mpr_table_and_paper_columns():
    from cdlm_nb.attention import mpr_table, table6_with_paper

    table = mpr_table(_results(), models=["local", "cdlm", "prefix"])
    assert list(table.index) == ["local", "cdlm"]  # models without results are left out
    assert list(table.columns) == [("pos", "event"), ("pos", "entity"), ("neg", "event"), ("neg", "entity")]
    assert table.loc["cdlm", ("pos", "event")] == pytest.approx(70.0)
    assert table.loc["cdlm", ("neg", "entity")] == pytest.approx(50.0)  # the skipped pair does not count
    both = table6_with_paper(_results(), models=["local", "cdlm"])
    assert both.loc["cdlm", ("pos", "event", "ours")] == pytest.approx(70.0)
    assert both.loc["cdlm", ("pos", "event", "paper")] == pytest.approx(72.1)
    assert both.loc["local", ("neg", "entity", "paper")] == pytest.approx(52.6)


def test_pooled_mpr_keys_pool_events_and_entities_over_pairs():
    from cdlm_nb.attention import pooled_mpr, skip_report

    keys = pooled_mpr(_results())
    assert keys["mpr/pos/cdlm"] == pytest.approx((80 + 60 + 90) / 3)  # the mean over pairs, not over kinds
    assert keys["mpr/neg/cdlm"] == pytest.approx(45.0)
    assert keys["mpr/pos/event/local"] == pytest.approx(55.0)
    assert len(keys) == 2 * 2 + 2 * 2 * 2
    report = skip_report(_results())
    assert report.loc["cdlm", "mention has no tokens"] == 1 and report.loc["cdlm", "ok"] == 5
    assert report.loc["cdlm", "truncated pairs"] == 1 and report.loc["local", "truncated pairs"] == 1


def test_paired_gap_matches_pairs_by_kind_and_index():
    from cdlm_nb.attention import paired_gap

    # pos pairs both models scored: (event, 0): 80 - 55 and (entity, 0): 90 - 45; cdlm's (event, 1) has no partner
    mean, sem, n = paired_gap(_results(), "cdlm", "local", "pos")
    assert (mean, n) == (pytest.approx((25 + 45) / 2), 2)
    assert sem == pytest.approx(np.std([25, 45], ddof=1) / math.sqrt(2))
    # neg: (event, 2): 40 - 50; (entity, 1): 50 - 52; cdlm's (entity, 2) was skipped
    assert paired_gap(_results(), "cdlm", "local", "neg")[::2] == (pytest.approx(-6.0), 2)
    with pytest.raises(DataError, match="no pos pairs"):
        paired_gap(_results(), "cdlm", "prefix", "pos")


def test_target_document_views(tokenizer, session):
    import matplotlib

    matplotlib.use("Agg")
    from cdlm_nb.attention import (
        explain_pairs,
        html_target_document,
        plot_target_document,
        position_correlation,
        token_shades,
    )
    from cdlm_nb.coreference import MentionPair

    mentions = _by_id()
    pair = MentionPair(mentions["1_1ecb/0"], mentions["1_2ecb/0"])  # "named" -> "nominates"
    [(_, explained)] = explain_pairs(_tiny_longformer(tokenizer, window=4), tokenizer, [pair], CORPUS, max_length=200)
    shades = token_shades(explained)
    assert set(shades) == set(explained.candidates)
    assert min(shades.values()) == 0.0 and max(shades.values()) == 1.0
    best = max(explained.candidates, key=lambda p: explained.scores[p])
    assert shades[best] == 1.0
    rising = replace(explained, scores=np.arange(len(explained.scores), dtype=float))
    assert position_correlation(rising) == pytest.approx(1.0)
    assert position_correlation(replace(rising, scores=-rising.scores)) == pytest.approx(-1.0)
    fig = plot_target_document(explained, tokenizer)
    assert "nominates" in fig.axes[0].get_title(loc="left")
    page = html_target_document(explained, tokenizer)
    assert "border:2px solid black" in page and "not coreferring" not in page


def test_plot_mpr_draws_pooled_values_and_paper_marks():
    import matplotlib

    matplotlib.use("Agg")
    from cdlm_nb.attention import plot_mpr

    fig = plot_mpr(_results(), ["local", "cdlm"], {"cdlm": "CDLM"})
    ax = fig.axes[0]
    heights = sorted(bar.get_height() for bar in ax.patches)
    # pos/neg for local and cdlm, events and entities pooled
    assert heights == pytest.approx(sorted([50.0, 230 / 3, 51.0, 45.0]))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["local", "CDLM"]


def test_analysis_corpus_uses_the_worlds_held_out_topics(monkeypatch, tmp_path):
    from types import SimpleNamespace

    from datasets import Dataset

    import cdlm_nb.data.world as world
    from cdlm_nb.attention import analysis_corpus
    from cdlm_nb.data.schemas import COREF_FEATURES
    from cdlm_nb.profiles import get_profile

    splits = {"train": CORPUS[:1], "dev": CORPUS[1:3], "test": CORPUS[3:]}
    fake = SimpleNamespace(coref={name: Dataset.from_list(rows, features=COREF_FEATURES)
                                  for name, rows in splits.items()})
    monkeypatch.setattr(world, "generate_world", lambda config: fake)
    corpus = analysis_corpus(get_profile("cpu"), tmp_path)
    assert corpus["doc_id"] == [row["doc_id"] for row in CORPUS[1:]]  # dev + test, never the pretraining topics
