"""The matching experiment end to end on tiny data: a classifier over a tiny Longformer learns, the runs and the
report hold what the notebook reads."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from datasets import Dataset

from cdlm_nb.data.matching_pairs import cap_pairs, matching_data
from cdlm_nb.data.schemas import PAIR_FEATURES
from cdlm_nb.matching import report
from cdlm_nb.matching.experiment import TFIDF, ClassifierSearch, tfidf_run
from cdlm_nb.matching.model import pair_classifier
from cdlm_nb.profiles import get_profile
from cdlm_nb.recipe_search import train_and_score


def _pairs(n: int) -> Dataset:
    """Positive pairs repeat a sentence; negatives do not (learnable, and lexical)."""
    rows = []
    for i in range(n):
        same = i % 2 == 0
        a = [f"The storm hit town {i} on Monday."]
        b = a if same else [f"A singer won prize number {i}."]
        rows.append({"pair_id": str(i), "doc_a": a, "doc_b": b, "label": int(same),
                     "kind": "positive" if same else "easy_negative", "positive_sentences": []})
    return Dataset.from_list(rows, features=PAIR_FEATURES)


def _trained(encoder, splits, config, **options):
    """Notebook 05's loop (`recipe_search.train_and_score`) for a pair classifier on a copy of `encoder`."""
    model = copy.deepcopy(encoder.model)
    return train_and_score(ClassifierSearch.start("cdlm", model, encoder.tokenizer, splits, config, **options))


def test_classifier_shares_the_encoders_weights(tiny_encoder):
    model = copy.deepcopy(tiny_encoder.model)
    classifier = pair_classifier(model)
    assert classifier.longformer is model.longformer
    assert classifier.config.num_labels == 2


@pytest.mark.slow
def test_run_matching_learns_a_lexical_rule(tiny_encoder):
    splits = {"train": _pairs(32), "dev": _pairs(8), "test": _pairs(8)}
    config = replace(get_profile("smoke").matching, epochs=8, learning_rates=(3e-3,), batch_size=8,
                     max_length=64, select_on_dev=False)  # the one recipe given
    run = _trained(tiny_encoder, splits, config)
    assert sum(run.losses[-4:]) < sum(run.losses[:4])  # last epoch against the first
    assert set(run.test) >= {"accuracy", "f1", "acc/positive", "acc/easy_negative"}
    assert run.encoding.pairs == 8 and run.pairs_per_second > 0
    runs = {TFIDF: tfidf_run(splits), "cdlm": run}
    assert runs[TFIDF].test["accuracy"] == 1.0  # the pairs are lexical by construction
    labels = splits["test"]["label"]
    metrics = report.matching_metrics("world", runs, labels)
    assert metrics["matching/world/f1/cdlm"] == run.test["f1"] and "matching/world/acc/tfidf" in metrics
    assert metrics["matching/world/reference/none_related/f1"] == 0.0
    table = report.paper_table(runs, "world", "smoke", labels)
    assert table.loc["CDLM", "ours: embedded world, smoke F1"] == round(100 * run.test["f1"], 1)
    assert table.loc["CDLM", "PAN F1"] == 82.9
    assert table.loc["reference: all related", "ours: embedded world, smoke F1"] > 0
    noted = report.paper_table(runs, "world", "smoke", labels, missing={"Rand CDLM": "pretrain it"})
    assert noted.loc["Rand CDLM", "not run"] == "pretrain it" and noted.loc["CDLM", "not run"] == ""
    lines = report.readings(runs, labels, "smoke", "world")
    assert any(line.startswith("- Best test F1 among the systems that learned something: ") for line in lines)
    assert any(line.startswith("- CDLM over TF-IDF cosine (CDLM paper, Table 4): ") for line in lines)
    assert list(report.results_table(runs, labels).index) == ["TF-IDF cosine", "CDLM", "reference: all related",
                                                              "reference: none related"]


def test_cap_pairs_counts_what_it_leaves_out():
    capped, left_out = cap_pairs(_pairs(10), 4, seed=0)
    assert len(capped) == 4 and left_out == 6
    assert cap_pairs(_pairs(3), None, 0)[1] == 0


def test_matching_data_world_splits_have_every_kind():
    data = matching_data(get_profile("smoke"), "world")
    assert set(data.splits) == {"train", "dev", "test"}
    assert set(data.splits["test"]["kind"]) == {"positive", "hard_negative", "easy_negative"}
    with pytest.raises(Exception, match="DATA"):
        matching_data(get_profile("smoke"), "nope")


def test_matching_data_auto_resolves_before_loading_and_keeps_the_resolved_name(monkeypatch):
    from cdlm_nb.data import matching_pairs

    assert matching_data(get_profile("smoke")).source == "world"  # the default is "auto"
    asked = []
    monkeypatch.setattr(matching_pairs, "matching_splits",
                        lambda profile, source, *args: asked.append(source) or ({}, []))
    assert matching_data(get_profile("gpu"), "auto").source == "ecbplus" and asked == ["ecbplus"]
    assert matching_data(get_profile("cpu"), "auto", cda_dir="aan").source == "cda" and asked[-1] == "cda"


def test_run_matching_starts_alike_whatever_drew_random_numbers_before(tiny_encoder):
    import torch

    splits = {"train": _pairs(8), "dev": _pairs(4), "test": _pairs(4)}
    config = replace(get_profile("smoke").matching, epochs=1, batch_size=4, max_length=64, select_on_dev=False)
    runs = []
    for draws in (0, 100):
        torch.rand(draws)  # e.g. a cell that built a model before the fine-tuning
        runs.append(_trained(tiny_encoder, splits, config))
    assert runs[0].losses == runs[1].losses


def test_a_run_without_dev_scoring_has_the_same_test_scores_and_no_dev(tiny_encoder):
    from transformers import set_seed

    splits = {"train": _pairs(8), "dev": _pairs(4), "test": _pairs(4)}
    config = replace(get_profile("smoke").matching, epochs=1, batch_size=4, max_length=64, select_on_dev=False)
    runs = []
    for score_dev in (True, False):
        set_seed(13)
        classifier = pair_classifier(copy.deepcopy(tiny_encoder.model))
        runs.append(train_and_score(ClassifierSearch("cdlm", classifier, tiny_encoder.tokenizer, splits, config,
                                                    score_dev=score_dev)))
    assert set(runs[0].dev) >= {"accuracy", "f1"} and runs[1].dev == {}
    assert runs[1].test == runs[0].test and (runs[1].test_scores == runs[0].test_scores).all()


def _matching_run(name, scores, labels):
    import numpy as np

    from cdlm_nb.matching.experiment import MatchingRun
    from cdlm_nb.matching.metrics import pair_scores

    scores = np.array(scores)
    return MatchingRun(name, 0.5, {}, pair_scores(labels, (scores >= 0.5).astype(int)), scores, 1.0, 1.0)


def test_readings_name_a_model_that_gives_one_class_and_compare_none_with_it():
    labels = [1, 0, 1, 0]
    runs = {"cdlm": _matching_run("cdlm", [0.1] * 4, labels),
            "longformer": _matching_run("longformer", [0.9, 0.1, 0.8, 0.2], labels)}
    lines = report.readings(runs, labels, "smoke", "world")
    assert lines[0].startswith("- CDLM: learned nothing here (F1 0.0, not above the 66.7 a constant answer scores on "
                               "the same test items; it gives 100 % of the test inputs unrelated)")
    assert "- Best test F1 among the systems that learned something: Longformer (100.0)." in lines
    assert "- CDLM over Longformer (CDLM paper, Table 4): cannot be checked here (learned nothing here: CDLM)." in lines
    assert not any("level with" in line for line in lines)


def test_readings_rank_no_row_at_or_below_the_reference_rows():
    labels = [1] * 10 + [0] * 20  # calling every pair related: F1 50.0, accuracy 33.3; none: accuracy 66.7
    runs = {"cdlm": _matching_run("cdlm", [0.9] * 8 + [0.1] * 2 + [0.9] * 14 + [0.1] * 6, labels),  # F1 50.0
            "longformer": _matching_run("longformer", [0.9] * 9 + [0.1] + [0.1] * 18 + [0.9] * 2, labels)}
    assert runs["cdlm"].test["f1"] == 0.5
    lines = report.readings(runs, labels, "smoke", "world")
    assert any(line.startswith("- CDLM: learned nothing here (F1 50.0") for line in lines)
    assert "- Best test F1 among the systems that learned something: Longformer (85.7)." in lines
    assert not any("holds here" in line for line in lines)


def test_readings_say_holds_only_beyond_the_interval_and_the_seed_band(monkeypatch):
    import numpy as np

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 300).tolist()
    sharp = [0.9 if label else 0.1 for label in labels]
    blurred = [s if rng.random() < 0.75 else 1 - s for s in sharp]
    runs = {"cdlm": _matching_run("cdlm", sharp, labels), "local": _matching_run("local", blurred, labels)}
    spread = {"matching/world/f1/cdlm": {"sd": 0.02}, "matching/world/f1/local": {"sd": 0.02}}
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: spread)
    assert any(line.endswith("-> holds here.") for line in report.readings(runs, labels, "cpu", "world"))
    spread["matching/world/f1/local"] = {"sd": 0.5}  # a seed spread wider than the difference
    assert any(line.endswith("-> not resolved at this scale.")
               for line in report.readings(runs, labels, "cpu", "world"))
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: None)  # no spread measured
    assert not any("holds here" in line for line in report.readings(runs, labels, "cpu", "world"))


def test_run_matching_with_a_search_uses_the_dev_best_recipe_and_caches_it(tiny_encoder, tmp_path, monkeypatch):
    from cdlm_nb.matching import training
    from cdlm_nb.matching.experiment import recipe_cache
    splits = {"train": _pairs(8), "dev": _pairs(4), "test": _pairs(4)}
    config = replace(get_profile("smoke").matching, batch_size=4, max_length=64, learning_rates=(1e-3, 3e-3),
                     epochs=2, warmup=0.1, select_on_dev=True)
    scored = []
    real_score = training.score
    monkeypatch.setattr(training, "score", lambda model, inputs, **kw: scored.append(len(inputs)) or
                        real_score(model, inputs, **kw))
    cache = recipe_cache(tmp_path)
    run = _trained(tiny_encoder, splits, config, cache=cache)
    assert len(run.recipe.points) == 4 and not run.recipe.cached
    best = max(run.recipe.points, key=lambda p: p.rank())
    assert (run.recipe.chosen.learning_rate, run.recipe.chosen.epochs) == (best.learning_rate, best.epoch)
    assert run.dev["f1"] == best.dev_f1  # the chosen weights are the ones scored on test
    assert scored == [4] * 4 + [4, 4]  # dev after every point, then dev and test once
    assert len(run.losses) == 2 * run.recipe.chosen.epochs
    again = _trained(tiny_encoder, splits, config, cache=cache)
    assert again.recipe.cached and again.recipe.chosen == run.recipe.chosen and again.losses == run.losses
    assert again.test == run.test and again.dev["f1"] == best.dev_f1
    assert again.train_seconds == run.train_seconds == run.recipe.train_seconds  # the chosen recipe's training
    assert scored[6:] == [4, 4]  # the cache hit scored no dev point: only dev and test once


def test_balanced_weights_make_a_third_related_weigh_as_much_as_the_rest():
    from cdlm_nb.matching.training import balanced_weights

    weights = balanced_weights([0, 0, 1, 0, 0, 1])
    assert weights.tolist() == pytest.approx([0.75, 1.5])
    assert (weights * torch_counts([0, 0, 1, 0, 0, 1])).tolist() == pytest.approx([3.0, 3.0])  # equal total weight


def torch_counts(labels):
    import torch

    return torch.bincount(torch.tensor(labels), minlength=2).float()


def test_class_weighting_changes_the_loss_of_an_unbalanced_batch(tiny_encoder):
    splits = {"train": Dataset.from_list([r for r in _pairs(12) if r["label"] or int(r["pair_id"]) % 4 != 1],
                                         features=PAIR_FEATURES), "dev": _pairs(4), "test": _pairs(4)}
    config = replace(get_profile("smoke").matching, epochs=1, batch_size=16, max_length=64, select_on_dev=False)
    plain = _trained(tiny_encoder, splits, config)
    weighted = _trained(tiny_encoder, splits, replace(config, class_weighted=True))
    assert weighted.losses[0] != pytest.approx(plain.losses[0])
