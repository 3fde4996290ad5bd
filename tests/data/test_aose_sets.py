"""Train/test sets for notebook 08: the DATA_DIR layout, TEST_DIR, the world, samples and counted skips."""

from dataclasses import replace

import pytest

from cdlm_nb.data.aose_sets import classification_splits, default_corpora, load_corpus
from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import ConfigError, DataError


def _profile(**changes):
    profile = get_profile("smoke")
    return profile.override(classification=replace(profile.classification, **changes))


def _imdb(folder, rows):
    (folder / "imdb").mkdir(parents=True)
    lines = ["review,sentiment"] + [f'"{text}",{label}' for text, label in rows]
    (folder / "imdb" / "reviews.csv").write_text("\n".join(lines) + "\n")


def test_the_shared_samples_load_in_the_data_dir_layout(shared_data):
    assert len(load_corpus("imdb", shared_data)) == 2000
    newsgroups = load_corpus("20ng", shared_data)
    assert len(newsgroups.features["label"].names) == 20
    assert len(load_corpus("mind", shared_data)) > 0


def test_a_held_out_share_is_stratified_and_sampled(shared_data):
    splits = classification_splits(_profile(train_docs=60, test_docs=30, test_share=0.3), "imdb", shared_data)
    assert len(splits.train) == 60 and len(splits.test) == 30
    assert set(splits.train["label"]) == set(splits.test["label"]) == {0, 1}
    assert not set(splits.train["text"]) & set(splits.test["text"])
    assert any("held out" in note for note in splits.notes) and any("sample of 60" in note for note in splits.notes)


def test_test_dir_is_the_test_set_and_unseen_labels_are_counted(tmp_path):
    _imdb(tmp_path / "train", [("great film", "positive"), ("awful film", "negative")] * 5)
    _imdb(tmp_path / "test", [("fine film", "positive")] * 3 + [("", "negative")])
    splits = classification_splits(_profile(train_docs=None, test_docs=None), "imdb", tmp_path / "train",
                                   tmp_path / "test")
    assert len(splits.train) == 10 and splits.test["text"] == ["fine film"] * 3
    assert splits.test.features["label"].names == splits.label_names
    assert splits.test["label"] == [splits.label_names.index("positive")] * 3
    assert "test: 1 empty documents skipped" in splits.notes


def test_the_world_needs_no_folder_and_refuses_one(tmp_path):
    profile = get_profile("smoke")
    splits = classification_splits(profile, "world")
    assert len(splits.test) > 0 and splits.label_names
    with pytest.raises(ConfigError, match="DATA_DIR"):
        classification_splits(profile, "world", tmp_path)
    assert default_corpora(profile, None) == ("world",)
    assert default_corpora(profile, tmp_path) == ("imdb", "20ng", "mind")


def test_bad_folders_name_what_is_missing(tmp_path):
    with pytest.raises(DataError, match="imdb"):
        load_corpus("imdb", tmp_path)
    with pytest.raises(DataError, match="20newsgroups"):
        load_corpus("20ng", tmp_path)
    with pytest.raises(ConfigError, match="unknown corpus"):
        classification_splits(get_profile("smoke"), "reuters", tmp_path)
    with pytest.raises(ConfigError, match="TEST_DIR needs DATA_DIR"):
        classification_splits(get_profile("smoke"), "imdb", None, tmp_path)


def test_an_unknown_corpus_is_an_error_that_names_the_choices(tmp_path):
    with pytest.raises(ConfigError, match="unknown corpus 'yelp'; choose from"):
        load_corpus("yelp", tmp_path)
