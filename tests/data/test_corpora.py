"""The one corpus choice per profile: pretraining clusters, coreference splits and the analysis documents."""

from __future__ import annotations

import pytest

from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import ConfigError


def test_the_world_is_generated_once_per_config():
    from cdlm_nb.data.corpora import world

    config = get_profile("smoke").world
    assert world(config) is world(config)


def test_coref_splits_of_the_embedded_world_and_a_bad_source():
    from cdlm_nb.data.corpora import coref_splits, world

    profile = get_profile("smoke")
    splits, notes = coref_splits(profile, "embedded")
    assert set(splits) == {"train", "dev", "test"} and "embedded world" in notes[0]
    assert splits["test"]["doc_id"] == world(profile.world).coref["test"]["doc_id"]
    with pytest.raises(ConfigError, match="DATA='conll'"):
        coref_splits(profile, "conll")


def test_ecbplus_sample_without_test_topics_splits_its_dev_topics(shared_data):
    from cdlm_nb.data.corpora import coref_splits

    profile = get_profile("smoke")  # ECB+ topics 1, 2, 5: train 1, dev 2 and 5
    splits, notes = coref_splits(profile, "ecbplus", shared_data / "ecbplus")
    assert set(splits["dev"]["topic"]).isdisjoint(splits["test"]["topic"]) and len(splits["test"]) > 0
    assert any("stand in as test" in note for note in notes)


def test_ecbplus_test_topics_are_the_test_set_when_present(monkeypatch, tmp_path):
    from datasets import Dataset

    from cdlm_nb.data import corpora, ecbplus

    def fake(folder, topics, keep_all_sentences):  # the standard split of a full corpus: topics 36-45 are test
        return {split: Dataset.from_dict({"topic": [topic]}) for split, topic in
                (("train", "1"), ("dev", "2"), ("test", "36"))}

    monkeypatch.setattr(ecbplus, "load_ecbplus", fake)
    splits, notes = corpora.ecbplus_splits(tmp_path, None, "MatchingConfig.ecbplus_topics")
    assert splits["test"]["topic"] == ["36"] and splits["dev"]["topic"] == ["2"]
    assert not any("stand in" in note for note in notes)


def test_training_clusters_refuses_an_unknown_source():
    from cdlm_nb.tooling.pretrain_script import training_clusters

    with pytest.raises(ConfigError, match="data.source"):
        training_clusters("wikipedia", get_profile("smoke").world)


def test_pretrain_script_world_clusters_are_the_notebooks():
    from cdlm_nb.data.corpora import pretraining_clusters
    from cdlm_nb.tooling.pretrain_script import training_clusters

    profile = get_profile("smoke")
    script, notebook = training_clusters("world", profile.world), pretraining_clusters(profile)
    assert script.sizes() == notebook.sizes()
    assert list(script.heldout["validation"]["documents"]) == list(notebook.heldout["validation"]["documents"])


def test_smoke_clusters_are_split_by_topic():
    from cdlm_nb.data.corpora import HELDOUT_SPLITS, pretraining_clusters

    profile = get_profile("smoke")
    clusters = pretraining_clusters(profile)
    assert set(clusters.heldout) == set(HELDOUT_SPLITS)
    assert clusters.sizes()["train"] == len(clusters.train) > 0
    topics = {split: {cid.split("_")[0] for cid in data["cluster_id"]} for split, data in
              {"train": clusters.train, **clusters.heldout}.items()}
    assert not topics["train"] & topics["test"] and not topics["validation"] & topics["test"]
    again = pretraining_clusters(profile)
    assert list(again.heldout["test"]["documents"]) == list(clusters.heldout["test"]["documents"])  # a pure function


def test_analysis_corpus_uses_the_worlds_held_out_topics(tmp_path):
    from cdlm_nb.data.corpora import analysis_corpus, world

    profile = get_profile("smoke")
    coref = world(profile.world).coref
    analysed = analysis_corpus(profile, tmp_path)
    # never the pretraining topics
    assert list(analysed["doc_id"]) == [*coref["dev"]["doc_id"], *coref["test"]["doc_id"]]


@pytest.mark.parametrize(("profile", "sources", "cda_dir", "expected"), [
    ("smoke", "MATCHING_SOURCES", None, "world"),
    ("cpu", "MATCHING_SOURCES", None, "world"),  # the cpu metric names stay matching/world/...
    ("gpu", "MATCHING_SOURCES", None, "ecbplus"),
    ("gpu-rehearsal", "MATCHING_SOURCES", None, "ecbplus"),
    ("cpu", "MATCHING_SOURCES", "cda/aan", "cda"),
    ("gpu", "MATCHING_SOURCES", "cda/aan", "cda"),
    ("cpu", "COREF_SOURCES", None, "embedded"),
    ("gpu", "COREF_SOURCES", None, "ecbplus"),
    ("gpu", "COREF_SOURCES", "cda/aan", "ecbplus"),  # coreference has no CDA files
])
def test_auto_data_is_the_embedded_corpus_offline_ecbplus_on_the_hub_and_cda_given_its_folder(profile, sources,
                                                                                               cda_dir, expected):
    from cdlm_nb.data import corpora

    assert corpora.resolve_source(get_profile(profile), "auto", getattr(corpora, sources), cda_dir) == expected


def test_a_named_data_source_is_kept_on_every_profile_and_an_unknown_one_refused():
    from cdlm_nb.data.corpora import MATCHING_SOURCES, check_source, resolve_source

    for name in ("smoke", "gpu"):
        assert resolve_source(get_profile(name), "pan_like", MATCHING_SOURCES, "cda/aan") == "pan_like"
    check_source("world", MATCHING_SOURCES)
    with pytest.raises(ConfigError, match="DATA='ecb' is unknown; use 'auto' .* or one of"):
        check_source("ecb", MATCHING_SOURCES)


def _write_split(folder, prefix, clusters):
    """`<prefix>.src.cleaned` and `<prefix>.tgt` in the raw release's layout, one cluster per line."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{prefix}.src.cleaned").write_text(
        "".join(" ||||| ".join(f"{prefix} {i} article {k}." for k in range(size)) + "\n"
                for i, size in enumerate(clusters)), encoding="utf-8")
    (folder / f"{prefix}.tgt").write_text("".join(f"– {prefix} {i}.\n" for i in range(len(clusters))),
                                          encoding="utf-8")


def test_hub_profile_reads_multinews_from_multinews_dir(tmp_path):
    from cdlm_nb.data.corpora import pretraining_clusters

    for prefix, sizes in (("train", [3, 2, 4]), ("val", [2, 3]), ("test", [1])):
        _write_split(tmp_path, prefix, sizes)
    clusters = pretraining_clusters(get_profile("gpu"), tmp_path)
    assert clusters.sizes() == {"train": 2, "validation": 2, "test": 1}  # train keeps clusters of >= 3 documents
    assert clusters.heldout["validation"][0]["documents"] == ["val 0 article 0.", "val 0 article 1."]
    assert str(tmp_path) in clusters.source


def test_multinews_dir_needs_a_file_per_split(tmp_path):
    import json

    from cdlm_nb.data.corpora import pretraining_clusters

    record = {"_id": "a", "context": "Passage 1:\nx", "answers": ["s"]}  # one LongBench file: every split would read it
    (tmp_path / "multi_news.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="same file to train, validation and test"):
        pretraining_clusters(get_profile("gpu"), tmp_path)


def test_multinews_dir_on_an_embedded_profile_says_it_is_not_read(tmp_path, capsys):
    from cdlm_nb.data.corpora import pretraining_clusters

    clusters = pretraining_clusters(get_profile("smoke"), tmp_path)
    assert "embedded world" in clusters.source and "MULTINEWS_DIR is read by the hub profile" in capsys.readouterr().out
