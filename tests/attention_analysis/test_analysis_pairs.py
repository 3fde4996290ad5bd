from cdlm_nb.attention_analysis.pairs import PAIR_LABELS, pair_label, sample_mention_pairs, shown_pairs
from cdlm_nb.attention_analysis.report import pair_preview, sampled_counts


def test_sample_mention_pairs_positives_share_a_cluster_across_documents(corpus):
    pairs = sample_mention_pairs(corpus, n_pos=100, n_neg=0, kind="event", seed=1)
    # every cross-document same-cluster event pair: E1 (1_1, 1_2), E2 (1_2, 1_3), E4 (2_1, 2_2)
    assert sorted(sorted((p.first.cluster_id, p.first.doc_id, p.second.doc_id)) for p in pairs) == sorted(
        sorted(t) for t in [("E1", "1_1ecb", "1_2ecb"), ("E2", "1_2ecb", "1_3ecbplus"), ("E4", "2_1ecb", "2_2ecb")])
    assert all(p.label == 1 and p.first.kind == "event" for p in pairs)


def test_sample_mention_pairs_negatives_differ_in_cluster_within_a_topic(corpus):
    pairs = sample_mention_pairs(corpus, n_pos=0, n_neg=3, kind="entity", seed=3)
    assert len(pairs) == 3
    for p in pairs:
        assert p.label == 0 and p.first.topic == p.second.topic and p.first.doc_id != p.second.doc_id
    assert len({frozenset((p.first.mention_id, p.second.mention_id)) for p in pairs}) == 3  # no repeats
    again = sample_mention_pairs(corpus, n_pos=0, n_neg=3, kind="entity", seed=3)
    assert [(p.first.mention_id, p.second.mention_id) for p in again] == \
        [(p.first.mention_id, p.second.mention_id) for p in pairs]
    # topic 1 has 4 cross-document entity pairs of different clusters, topic 2 none: asking for more gives 4
    assert len(sample_mention_pairs(corpus, n_pos=0, n_neg=50, kind="entity", seed=3)) == 4


def test_pair_labels_counts_and_the_kept_examples(corpus):
    pairs = {kind: sample_mention_pairs(corpus, n_pos=2, n_neg=2, kind=kind, seed=0) for kind in ("event", "entity")}
    assert PAIR_LABELS == ("pos", "neg") and {pair_label(p) for p in pairs["entity"]} == {"pos", "neg"}
    counts = sampled_counts(pairs, asked=2)
    assert list(counts.index) == [(k, label) for k in ("event", "entity") for label in PAIR_LABELS]
    assert (counts["sampled"] == [sum(pair_label(p) == label for p in pairs[k]) for k, label in counts.index]).all()
    kept = shown_pairs(pairs, per_group=1)
    assert [(p.first.kind, p.label) for p in kept] == [("event", 1), ("event", 0), ("entity", 1), ("entity", 0)]
    assert len(pair_preview(pairs, n=1)) == 4
