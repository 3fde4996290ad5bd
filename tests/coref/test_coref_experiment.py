"""The experiment of notebook 04: its data (subtopic cap, ECB+ sample), evaluation groups, one run end to end, and
the shelf of pretrained models (missing ones skipped with instructions)."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from cdlm_nb.coref.experiment import coref_data, evaluation_groups, limit_subtopics, run_coreference
from cdlm_nb.coref.mentions import collect_mentions
from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import ConfigError
from cdlm_nb.variants import PretrainedShelf


def coref_dataset(rows):
    from datasets import Dataset

    from cdlm_nb.data.schemas import COREF_FEATURES

    return Dataset.from_list(rows, features=COREF_FEATURES)


def small_config(**changes):
    return replace(get_profile("smoke").coref, max_train_pairs=None, negative_ratio=None, eval_subtopics=None,
                   max_pairs_per_subtopic=None, **changes)


def test_limit_subtopics_counts_what_it_leaves_out(corpus):
    corpus[1]["subtopic"] = "1_ecbplus"
    data = coref_dataset(corpus)
    kept, left_out = limit_subtopics(data, 1)
    assert kept["doc_id"] == ["1_1ecb"] and left_out == 1
    assert limit_subtopics(data, None) == (data, 0)


def test_evaluation_groups_gold_or_predicted(corpus):
    mentions = collect_mentions(corpus, "event")
    assert {k: len(v) for k, v in evaluation_groups(corpus, mentions, "subtopic").items()} == {"1_ecb": 5}
    predicted = evaluation_groups(corpus, mentions, "predicted")
    assert sorted(m.mention_id for group in predicted.values() for m in group) == ["a1", "a2", "a3", "b1", "b2"]
    with pytest.raises(ConfigError, match="grouping"):
        evaluation_groups(corpus, mentions, "topic")


def test_coref_data_caps_dev_and_test_subtopics():
    profile = get_profile("smoke")
    data = coref_data(profile, "auto")
    assert data.source == "embedded" and set(data.splits) >= {"train", "dev", "test"}
    for name in ("dev", "test"):
        assert len(set(data.splits[name]["subtopic"])) <= profile.coref.eval_subtopics
    assert "eval_subtopics=" in data.describe(profile.coref.eval_subtopics)
    with pytest.raises(ConfigError, match="DATA"):
        coref_data(profile, "ecb")


def test_ecbplus_sample_without_test_topics_splits_dev(shared_data):
    profile = get_profile("cpu")
    profile = profile.override(coref=replace(profile.coref, ecbplus_topics=(1, 2, 5), eval_subtopics=None))
    data = coref_data(profile, "ecbplus", str(shared_data / "ecbplus"))
    assert set(data.splits["train"]["topic"]) == {"1"}
    assert set(data.splits["dev"]["topic"]) == {"2"} and set(data.splits["test"]["topic"]) == {"5"}
    assert "stand in as test" in data.notes[-1] and data.left_out == {"dev": 0, "test": 0}


@pytest.mark.slow
def test_run_coreference_end_to_end(corpus, tokenizer, encoder):
    data = coref_dataset(corpus)
    splits = {"train": data, "dev": data, "test": data}
    run = run_coreference("tiny", copy.deepcopy(encoder), copy.deepcopy(tokenizer), splits, small_config(), "event")
    assert run.train_pairs.pairs == 10 and len(run.losses) == 2  # 10 pairs in batches of 8, one epoch
    assert run.test.pair_stats.pairs == 10 and run.test.scoring.probabilities.shape == (10,)
    assert run.threshold in small_config().thresholds and len(run.dev_curve) == len(small_config().thresholds)
    assert sorted(m for c in run.test_clusters for m in c) == ["a1", "a2", "a3", "b1", "b2"]
    assert 0.0 <= run.test_scores.conll <= 1.0
    assert run.max_length == min(small_config().max_length, 256)  # capped by the encoder's positions


def test_missing_models_are_skipped_with_instructions(tmp_path, capsys):
    shelf = PretrainedShelf(tmp_path, "smoke")
    assert shelf.load("cdlm") is None and shelf.missing == ["cdlm"]
    out = capsys.readouterr().out
    assert "skipping CDLM" in out and "--profile smoke" in out
    assert shelf.last_available(("longformer", "cdlm")) is None and shelf.missing == ["cdlm", "longformer"]


@pytest.mark.slow
def test_run_coreference_starts_alike_whatever_drew_random_numbers_before(corpus, tokenizer, encoder):
    import torch

    data = coref_dataset(corpus)
    splits = {"train": data, "dev": data, "test": data}
    losses = []
    for draws in (0, 100):
        torch.rand(draws)  # e.g. notebook 04's key-lines cell, which builds a scorer first
        losses.append(run_coreference("tiny", copy.deepcopy(encoder), copy.deepcopy(tokenizer), splits,
                                      small_config(), "event").losses)
    assert losses[0] == losses[1]
