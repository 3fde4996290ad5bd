"""Coreference metrics on hand-computed cases (each expected value is derived in the comment above it)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from cdlm_nb.coref.metrics import (
    PRF,
    CorefInputWarning,
    canonical_clusters,
    ceaf_e,
    score_coreference,
)


def assert_prf(actual: PRF, recall: float, precision: float, f1: float) -> None:
    assert actual.recall == pytest.approx(recall)
    assert actual.precision == pytest.approx(precision)
    assert actual.f1 == pytest.approx(f1)


def test_perfect_response_scores_one_everywhere():
    key = [["a", "b", "c"], ["d", "e"], ["f"]]
    response = [["e", "d"], ["f"], ["c", "a", "b"]]  # same partition, other order
    scores = score_coreference(key, response)
    for prf in (scores.muc, scores.bcub, scores.ceafe, scores.lea):
        assert_prf(prf, 1.0, 1.0, 1.0)
    assert scores.conll == pytest.approx(1.0)


def test_pradhan_et_al_2014_worked_example():
    # Key K1={a,b,c} K2={d,e,f,g}; response R1={a,b} R2={c,d} R3={f,g,h,i} (Pradhan et al. 2014, Fig. 1).
    key = [list("abc"), list("defg")]
    response = [list("ab"), list("cd"), list("fghi")]
    scores = score_coreference(key, response)
    # MUC R: K1 split by the response into {a,b},{c} -> 3-2=1; K2 into {d},{e}(missing),{f,g} -> 4-3=1;
    #   over (3-1)+(4-1)=5 -> 2/5. P: R1 -> 2-1=1, R2 {c},{d} -> 0, R3 {f,g},{h},{i} -> 4-3=1; over 1+1+3=5 -> 2/5.
    assert_prf(scores.muc, 0.4, 0.4, 0.4)
    # B3 R: K1 (2²+1²)/3 = 5/3, K2 (1²+2²)/4 = 5/4; (5/3+5/4)/7 = 35/84 = 5/12.
    #   P: R1 2²/2 = 2, R2 (1+1)/2 = 1, R3 2²/4 = 1; 4/8 = 1/2. F1 = 2·(5/12)(1/2)/(11/12) = 5/11.
    assert_prf(scores.bcub, 5 / 12, 1 / 2, 5 / 11)
    # CEAF-e: phi4(K1,R1)=4/5, phi4(K1,R2)=2/5, phi4(K2,R2)=1/3, phi4(K2,R3)=1/2; best K1-R1 + K2-R3 = 1.3.
    #   R = 1.3/2 = 0.65, P = 1.3/3 = 0.4333, F1 = 2·0.65·0.4333/1.0833 = 0.52.
    assert_prf(scores.ceafe, 0.65, 1.3 / 3, 0.52)
    # LEA R: K1 3·(1 of 3 links: ab) = 1, K2 4·(1 of 6 links: fg) = 2/3; (5/3)/7 = 5/21.
    #   P: R1 2·(1/1) = 2, R2 2·(0/1) = 0, R3 4·(1/6) = 2/3; (8/3)/8 = 1/3. F1 = 2·(5/21)(1/3)/(12/21) = 5/18.
    assert_prf(scores.lea, 5 / 21, 1 / 3, 5 / 18)
    # CoNLL = (0.4 + 5/11 + 0.52) / 3
    assert scores.conll == pytest.approx((0.4 + 5 / 11 + 0.52) / 3)


def test_missing_mention_lowers_recall_only():
    key, response = [list("abc")], [list("ab")]  # c is not in the response
    scores = score_coreference(key, response)
    # MUC R: {a,b},{c} -> 3-2=1 over 2 = 1/2; P: 2-1=1 over 1 = 1; F1 = 2/3.
    assert_prf(scores.muc, 1 / 2, 1, 2 / 3)
    # B3 R: 2²/3 = 4/3 over 3 = 4/9; P: 2²/2 = 2 over 2 = 1; F1 = 2·(4/9)/(13/9) = 8/13.
    assert_prf(scores.bcub, 4 / 9, 1, 8 / 13)
    # CEAF-e: phi4 = 2·2/(3+2) = 0.8; one cluster each side -> R = P = F1 = 0.8.
    assert_prf(scores.ceafe, 0.8, 0.8, 0.8)
    # LEA R: 3·(1 of 3 links) = 1 over 3 = 1/3; P: 2·(1/1) = 2 over 2 = 1; F1 = 2·(1/3)/(4/3) = 1/2.
    assert_prf(scores.lea, 1 / 3, 1, 1 / 2)


def test_extra_mention_lowers_precision_only():
    # The mirror image of the previous case: every recall/precision pair swaps.
    scores = score_coreference([list("ab")], [list("abc")])
    assert_prf(scores.muc, 1, 1 / 2, 2 / 3)
    assert_prf(scores.bcub, 1, 4 / 9, 8 / 13)
    assert_prf(scores.ceafe, 0.8, 0.8, 0.8)
    assert_prf(scores.lea, 1, 1 / 3, 1 / 2)


def test_split_entity():
    scores = score_coreference([list("abcd")], [list("ab"), list("cd")])
    # MUC R: 4 - 2 parts = 2 over 3 = 2/3; P: (2-1)+(2-1) = 2 over 2 = 1; F1 = 0.8.
    assert_prf(scores.muc, 2 / 3, 1, 0.8)
    # B3 R: (2²+2²)/4 = 2 over 4 = 1/2; P: 2²/2 + 2²/2 = 4 over 4 = 1; F1 = 2/3.
    assert_prf(scores.bcub, 1 / 2, 1, 2 / 3)
    # CEAF-e: phi4(K, R1) = phi4(K, R2) = 2·2/6 = 2/3, only one can align: R = (2/3)/1, P = (2/3)/2 = 1/3;
    #   F1 = 2·(2/3)(1/3)/1 = 4/9.
    assert_prf(scores.ceafe, 2 / 3, 1 / 3, 4 / 9)
    # LEA R: 4·(2 of 6 links: ab, cd) = 4/3 over 4 = 1/3; P: 2·1 + 2·1 = 4 over 4 = 1; F1 = 1/2.
    assert_prf(scores.lea, 1 / 3, 1, 1 / 2)


def test_merged_entities():
    # The mirror image of the split: recall and precision swap.
    scores = score_coreference([list("ab"), list("cd")], [list("abcd")])
    assert_prf(scores.muc, 1, 2 / 3, 0.8)
    assert_prf(scores.bcub, 1, 1 / 2, 2 / 3)
    assert_prf(scores.ceafe, 1 / 3, 2 / 3, 4 / 9)
    assert_prf(scores.lea, 1, 1 / 3, 1 / 2)


def test_singletons_kept_by_default():
    key = [list("ab"), ["c"], ["d"]]
    response = [list("ab"), list("cd")]
    scores = score_coreference(key, response)
    # MUC R: (2-1) + 0 + 0 over 1 = 1; P: R1 1, R2 {c},{d} -> 2-2 = 0, over 1+1 = 1/2; F1 = 2/3.
    assert_prf(scores.muc, 1, 1 / 2, 2 / 3)
    # B3 R: 2²/2 + 1 + 1 = 4 over 4 = 1; P: 2 + (1+1)/2 = 3 over 4 = 3/4; F1 = 2·(3/4)/(7/4) = 6/7.
    assert_prf(scores.bcub, 1, 3 / 4, 6 / 7)
    # CEAF-e: phi4(K1,R1) = 1, phi4({c},R2) = phi4({d},R2) = 2/3; best 5/3. R = (5/3)/3 = 5/9, P = (5/3)/2 = 5/6;
    #   F1 = 2·(5/9)(5/6)/(5/9+5/6) = 2/3.
    assert_prf(scores.ceafe, 5 / 9, 5 / 6, 2 / 3)
    # LEA R: K1 2·1 = 2; {c} and {d}: self-link kept only if the response has them as singletons -> 0; 2/4.
    #   P: R1 2·1 = 2, R2 2·(0/1) = 0; 2/4. F1 = 1/2.
    assert_prf(scores.lea, 1 / 2, 1 / 2, 1 / 2)


def test_remove_singletons_drops_them_from_key_and_response():
    key = [list("ab"), ["c"], ["d"]]
    response = [list("ab"), list("cd"), ["x"]]
    scores = score_coreference(key, response, remove_singletons=True)
    # Left: key {a,b}; response {a,b}, {c,d} (the singleton {x} is gone too).
    # MUC R: 1/1 = 1; P: R1 1, R2 (c, d unknown to the key: 2 parts) 0, over 2 -> 1/2; F1 = 2/3.
    assert_prf(scores.muc, 1, 1 / 2, 2 / 3)
    # B3 R: 2²/2 = 2 over 2 = 1; P: 2 + 0 over 4 = 1/2; F1 = 2/3.
    assert_prf(scores.bcub, 1, 1 / 2, 2 / 3)
    # CEAF-e: phi4(K1,R1) = 1; R = 1/1, P = 1/2; F1 = 2/3.
    assert_prf(scores.ceafe, 1, 1 / 2, 2 / 3)
    # LEA R: 2·1 over 2 = 1; P: 2·1 + 2·0 over 4 = 1/2; F1 = 2/3.
    assert_prf(scores.lea, 1, 1 / 2, 2 / 3)


def test_singleton_self_link_in_lea():
    # A key singleton that the response also leaves alone resolves its one self-link (coval's convention).
    scores = score_coreference([["a"]], [["a"]])
    assert_prf(scores.lea, 1, 1, 1)
    # Merged with another mention, it resolves nothing: R = 0; P: {a,x} has 0 of 1 link -> 0.
    assert_prf(score_coreference([["a"]], [["a", "x"]]).lea, 0, 0, 0)


def test_duplicates_within_a_cluster_are_counted_once():
    key = [list("ab"), list("cd")]
    response = [["a", "a", "b"], ["c", "d", "d"]]
    with pytest.warns(CorefInputWarning, match="2 repeated"):
        scores = score_coreference(key, response)
    # After de-duplication the response equals the key: every metric is 1.
    assert scores.to_dict()["conll"] == pytest.approx(1)
    assert_prf(scores.lea, 1, 1, 1)
    assert_prf(scores.bcub, 1, 1, 1)


def test_a_mention_in_two_clusters_merges_them():
    with pytest.warns(CorefInputWarning, match="1 cluster"):
        clusters = canonical_clusters([["a", "b"], ["b", "c"], ["d"]])
    assert clusters == [("a", "b", "c"), ("d",)]
    with pytest.warns(CorefInputWarning):
        scores = score_coreference([list("abc"), ["d"]], [["a", "b"], ["b", "c"], ["d"]])
    assert scores.conll == pytest.approx(1)


def test_empty_clusterings_score_zero():
    # The reference scorers return 0 when a denominator is 0.
    scores = score_coreference([], [])
    assert scores.to_dict() == {
        name: {"recall": 0.0, "precision": 0.0, "f1": 0.0} for name in ("muc", "bcub", "ceafe", "lea")
    } | {"conll": 0.0}


def test_mentions_are_any_hashable_tuples():
    key = [[("d1", 0, 2), ("d2", 5, 6)], [("d1", 3, 4)]]
    response = [[("d1", 0, 2)], [("d2", 5, 6), ("d1", 3, 4)]]
    scores = score_coreference(key, response)
    # MUC R: K1 -> 2 parts: 0, K2: 0; over 1 -> 0. P: R2 -> 2 parts: 0 over 1 -> 0.
    assert_prf(scores.muc, 0, 0, 0)
    # B3 R: K1 (1+1)/2 = 1, K2 1 -> 2/3; P: R1 1, R2 (1+1)/2 = 1 -> 2/3.
    assert_prf(scores.bcub, 2 / 3, 2 / 3, 2 / 3)


def _dense_ceafe_similarity(key, response) -> float:
    scores = np.array([[2 * len(set(k) & set(r)) / (len(k) + len(r)) for r in response] for k in key])
    rows, cols = linear_sum_assignment(scores, maximize=True)
    return float(scores[rows, cols].sum())


def test_ceafe_by_components_equals_one_dense_assignment():
    rng = random.Random(0)
    for _ in range(20):
        mentions = list(range(rng.randint(5, 40)))
        key = canonical_clusters(_random_partition(rng, mentions))
        response = canonical_clusters(_random_partition(rng, rng.sample(mentions, k=len(mentions) * 3 // 4) + [-1]))
        similarity = _dense_ceafe_similarity(key, response)
        assert ceaf_e(key, response).recall == pytest.approx(similarity / len(key))
        assert ceaf_e(key, response).precision == pytest.approx(similarity / len(response))


def _random_partition(rng: random.Random, mentions: list) -> list[list]:
    labels = {m: rng.randint(0, max(1, len(mentions) // 3)) for m in mentions}
    clusters: dict[int, list] = {}
    for mention, label in labels.items():
        clusters.setdefault(label, []).append(mention)
    return list(clusters.values())
