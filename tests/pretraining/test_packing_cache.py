"""Notebook 02 packs each split once per run folder: the input summary, the speed cell and training read one
packing (and one tokenized corpus), a second run reads them all back, and a key changes with what they depend on."""

from __future__ import annotations

from collections import Counter

import pytest

from cdlm_nb.profiles import get_profile

PACKERS = ("tokenize_clusters", "pack_tokenized", "pack_random_tokenized")


@pytest.fixture
def calls(monkeypatch):
    """How often each packing function of `cdlm_nb.inputs` ran (as `pretraining.inputs` calls them)."""
    from cdlm_nb.pretraining import inputs

    counted = Counter()

    def counting(name, function):
        def run(*args, **kwargs):
            counted[name] += 1
            return function(*args, **kwargs)
        return run

    for name in PACKERS:
        monkeypatch.setattr(inputs, name, counting(name, getattr(inputs, name)))
    return counted


def notebook_02(profile, clusters, encoder, run_dir):
    """What notebook 02 packs: the input summary, the speed cell's batch, each trained model's training examples."""
    from cdlm_nb.pretraining import inputs, report, trainer

    summary = report.input_summary(profile, clusters, encoder.tokenizer, run_dir)
    batch = inputs.cdlm_batch(profile, clusters, encoder, run_dir=run_dir)
    training = {variant: trainer.training_examples(variant, profile.pretrain, encoder.tokenizer, clusters.train,
                                                   run_dir, profile.seed, profile.encoder.sentence_markers)
                for variant, _ in report.trained_models(profile)}
    return summary, batch, training


def test_notebook_02_packs_each_split_once_and_a_second_run_nothing(tmp_path, calls, clusters, tiny_encoder):
    """The gpu-rehearsal profile's settings (Longformer-base's start: CDLM, Local, Prefix and Rand trained, sentence
    markers) on twelve stand-in clusters: CDLM, Local and Prefix share one packing, Rand has its own."""
    import torch

    from cdlm_nb.data.corpora import PretrainingClusters
    from cdlm_nb.pretraining.inputs import pretraining_inputs

    profile = get_profile("gpu-rehearsal")
    split = PretrainingClusters("stand-in", clusters, {})
    summary, batch, training = notebook_02(profile, split, tiny_encoder, tmp_path)
    assert set(training) == {"cdlm", "local", "prefix", "rand"}
    assert calls == {"tokenize_clusters": 1, "pack_tokenized": 1, "pack_random_tokenized": 1}
    assert sorted(p.name.split("-")[0] for p in (tmp_path / "packed").iterdir()) == ["related", "tokens", "unrelated"]

    again = notebook_02(profile, split, tiny_encoder, tmp_path)
    assert sum(calls.values()) == 3  # all read back
    assert again[0].equals(summary) and all(torch.equal(again[1][k], batch[k]) for k in batch)
    for variant, examples in training.items():
        fresh = pretraining_inputs(variant, clusters, tiny_encoder.tokenizer, profile.pretrain.max_length, 8,
                                   profile.seed, sentence_markers=True)  # in memory, as before the cache
        assert again[2][variant]["input_ids"] == examples["input_ids"] == fresh["input_ids"]
        assert again[2][variant]["sources"] == fresh["sources"]
        assert again[2][variant].info.description == fresh.info.description


def test_the_speed_cell_packs_only_the_first_clusters_without_a_cached_split(calls, clusters, tiny_encoder):
    from cdlm_nb.pretraining.inputs import first_inputs, pretraining_inputs

    first = first_inputs("cdlm", clusters, tiny_encoder.tokenizer, 256, 2, seed=3)
    whole = pretraining_inputs("cdlm", clusters, tiny_encoder.tokenizer, 256, 2, seed=3)
    assert first["input_ids"] == whole["input_ids"][:2] and first["sources"] == whole["sources"][:2]
    assert calls["tokenize_clusters"] == 2  # the first two clusters, then (for `whole`) all twelve


def test_a_key_changes_with_the_corpus_tokenizer_and_settings(clusters, tiny_tokenizer, tiny_encoder):
    import copy

    from cdlm_nb.pretraining.inputs import Packing

    def name(variant="cdlm", data=clusters, tokenizer=tiny_tokenizer, length=256, per_cluster=1, seed=0,
             markers=False):
        return Packing(variant, data, tokenizer, length, per_cluster, seed, markers).name

    base = name()
    assert base == name("local") == name("prefix")  # the masking pattern is the collator's
    assert base.startswith("related-256-x1-")
    other = copy.deepcopy(tiny_tokenizer)
    other.add_tokens(["<new-token>"])
    changed = [name("rand"), name("base-long"), name("longformer"), name(data=clusters.select(range(11))),
               name(tokenizer=other), name(length=128), name(per_cluster=2), name(seed=1), name(markers=True)]
    assert len({base, *changed}) == len(changed) + 1


def test_a_damaged_cached_packing_is_said_and_built_again(tmp_path, clusters, tiny_tokenizer):
    from cdlm_nb.pretraining.inputs import pretraining_inputs

    said = []
    first = pretraining_inputs("rand", clusters, tiny_tokenizer, 256, 1, seed=0, run_dir=tmp_path)
    expected = first.to_dict()["input_ids"]  # read now: `first` maps the file damaged below
    (packed,) = (tmp_path / "packed").glob("unrelated-*")
    data = packed / "data.arrow"
    data.write_bytes(data.read_bytes()[:100])
    again = pretraining_inputs("rand", clusters, tiny_tokenizer, 256, 1, seed=0, run_dir=tmp_path, echo=said.append)
    assert len(said) == 1 and "damaged" in said[0] and "data.arrow" in said[0]
    assert again.to_dict()["input_ids"] == expected
