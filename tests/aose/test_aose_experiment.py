"""Notebook 08's experiment end to end on a corpus built so that the label is only in a document's last sentence:
AoSE (every sentence) must beat the encoder alone (first tokens only), and the report must say so."""

import math
import random
from dataclasses import replace

import pytest
import torch
from datasets import Dataset

from cdlm_nb.aose import experiment, report
from cdlm_nb.data.aose_sets import ClassificationSplits
from cdlm_nb.data.schemas import classification_features
from cdlm_nb.profiles import get_profile

FILLER = ["The weather was mild for the time of year.", "Reporters gathered outside as the day went on.",
          "Further details are expected later this week.", "Several newspapers carried the story on their pages.",
          "Television crews arrived within the hour.", "The mood in the city was calm by the evening.",
          "Officials promised to publish a full report soon.", "Local radio stations interrupted their programmes."]
CLUES = {"positive": "Everyone agreed the film was wonderful and moving.",
         "negative": "Everyone agreed the film was dreadful and boring."}


def _documents(n: int, rng: random.Random, late: bool) -> Dataset:
    texts, labels = [], []
    for i in range(n):
        label = ("negative", "positive")[i % 2]
        filler = [rng.choice(FILLER) for _ in range(14 if late else 2)]
        texts.append(" ".join(filler + [CLUES[label]]))
        labels.append(0 if label == "negative" else 1)
    return Dataset.from_dict({"text": texts, "label": labels},
                             features=classification_features(["negative", "positive"]))


@pytest.fixture(scope="module")
def corpus(sentence_encoder):
    rng = random.Random(0)
    splits = ClassificationSplits("imdb", _documents(40, rng, late=True), _documents(20, rng, late=True))
    return experiment.prepare(splits, sentence_encoder.tokenizer, _config())


def _config():
    return replace(get_profile("smoke").classification, truncated_tokens=48, truncations=(48,), frozen_epochs=30,
                   frozen_learning_rate=3e-3, finetune_docs=8, finetune_epochs=1)


def test_prepare_keeps_segments_and_token_counts(corpus):
    assert len(corpus.labels["train"]) == 40 and corpus.label_names == ["negative", "positive"]
    assert all(pieces.read_tokens == n for pieces, n in zip(corpus.segmented["test"], corpus.tokens["test"]))


def test_prepare_counts_documents_too_short_to_segment(sentence_encoder):
    data = Dataset.from_dict({"text": ["Hi.", CLUES["positive"]], "label": [0, 1]},
                             features=classification_features(["negative", "positive"]))
    prepared = experiment.prepare(ClassificationSplits("imdb", data, data), sentence_encoder.tokenizer, _config())
    assert len(prepared.labels["train"]) == 1
    assert "train: 1 documents with fewer than 5 tokens skipped" in prepared.notes


@pytest.mark.slow
def test_aose_reads_the_late_clue_that_the_truncated_encoder_cannot(corpus, sentence_encoder, tmp_path):
    embed_texts = experiment.cached_embedder(sentence_encoder, "minilm", 64, tmp_path)
    runs, seconds = experiment.run_frozen(corpus, _config(), 13, embed_texts, sentence_encoder.tokenizer)
    assert set(runs) == {"truncated", "mean", "aose", "aose_48", "tfidf"} and seconds > 0
    assert runs["aose"].accuracy() >= 90.0
    assert runs["truncated"].accuracy() <= 75.0 and runs["aose_48"].accuracy() <= 75.0  # the clue is past 48 tokens
    aose_alpha = runs["aose"].alphas[0]
    vectors = runs["aose"].test_vectors  # kept with the trained top, so notebook 08 can recompute α
    assert len(vectors) == len(corpus.labels["test"]) and len(vectors[0]) == len(aose_alpha)
    with torch.no_grad():
        _, alpha = runs["aose"].head.pooling(vectors[0][None], torch.ones(1, len(vectors[0]), dtype=torch.bool))
    torch.testing.assert_close(alpha[0], torch.tensor(aose_alpha))
    assert runs["mean"].head.pooling is None and runs["tfidf"].head is None
    assert len(aose_alpha) == len(corpus.segmented["test"][0].segments) and math.isclose(sum(aose_alpha), 1.0,
                                                                                           rel_tol=1e-4)

    metrics = report.aose_metrics("imdb", "frozen", runs)
    assert metrics["aose/imdb/frozen/aose/acc"] == runs["aose"].accuracy()
    assert "aose/imdb/frozen/aose/acc_short" in metrics and "aose/imdb/frozen/aose/acc_long" not in metrics  # NaN
    lines = report.readings("imdb", runs, {}, seconds, corpus, "smoke")
    assert any("TF-IDF" in line for line in lines)
    table = report.results_table("imdb", runs, {}, corpus)
    assert "ours: AoSE" in table.index and "paper: AoSE (8192)" in table.index
    assert "reference: majority class" in table.index
    assert "ours: AoSE-48" in report.truncation_table(runs, {}, corpus).index
    assert max(range(len(aose_alpha)), key=aose_alpha.__getitem__) == len(aose_alpha) - 1  # the clue sentence
    assert "title=\"α = " in report.attention_view(corpus, runs["aose"], 0).data


@pytest.mark.slow
def test_fine_tuning_trains_the_encoder_too(corpus, sentence_encoder):
    from cdlm_nb.sentence_encoders import load_sentence_encoder

    before = sentence_encoder[0].auto_model.embeddings.word_embeddings.weight.clone()
    loaded = []

    def load():
        loaded.append(load_sentence_encoder("minilm"))
        return loaded[-1]

    runs = experiment.run_finetuned(corpus, load, _config(), 13, "cpu")
    assert set(runs) == {"truncated", "aose"} and len(loaded) == 2
    assert not loaded[1][0].auto_model.embeddings.word_embeddings.weight.equal(before)
    assert len(runs["aose"].predictions) == 20 and runs["aose"].train_seconds > 0


@pytest.mark.slow
def test_the_two_stage_recipe_starts_from_a_copy_of_each_frozen_top(corpus):
    from cdlm_nb.aose.model import DocumentClassifier
    from cdlm_nb.sentence_encoders import load_sentence_encoder

    tops = {name: DocumentClassifier(384, len(corpus.label_names), pooling)
            for name, pooling in (("truncated", "mean"), ("aose", "attention"))}
    before = {name: {key: value.clone() for key, value in top.state_dict().items()} for name, top in tops.items()}
    frozen = {name: experiment.ClassificationRun(name, "frozen", [], [], [], 0.0, head=top)
              for name, top in tops.items()}
    runs = experiment.run_finetuned(corpus, lambda: load_sentence_encoder("minilm"), _config(), 13, "cpu", frozen)
    assert len(runs["aose"].predictions) == 20
    assert all(value.equal(before[name][key]) for name, top in tops.items()  # the frozen runs' tops are left alone
               for key, value in top.state_dict().items())


def test_accuracy_splits_short_and_long_documents():
    run = experiment.ClassificationRun("aose", "frozen", [1, 0, 1, 1], [1, 1, 1, 0], [100, 600, 700, 512], 1.0)
    assert run.accuracy() == 50.0 and run.accuracy("short") == 50.0 and run.accuracy("long") == 50.0
    assert math.isnan(experiment.ClassificationRun("x", "frozen", [1], [1], [10], 0.0).accuracy("long"))


def test_segment_budget_cuts_a_batch_for_gradient_accumulation():
    documents = [["s"] * 10, ["s"] * 30, ["s"] * 70, ["s"] * 5]
    assert experiment.segment_budget([0, 1, 2, 3], documents, 64) == [[0, 1], [2], [3]]
    assert experiment.segment_budget([3, 0], documents, 64) == [[3, 0]]


def _corpus(train_labels, test_labels, test_tokens):
    return experiment.Corpus("imdb", ["negative", "positive"], {}, {"train": train_labels, "test": test_labels},
                             {"train": [10] * len(train_labels), "test": test_tokens}, {})


def test_reference_rows_score_the_majority_class_and_the_label_prior_per_length():
    corpus = _corpus([0, 0, 0, 1], [1, 0, 0, 1], [10, 600, 700, 20])
    refs = report.references(corpus)
    assert refs["majority class"] == {"acc": 50.0, "acc_short": 0.0, "acc_long": 100.0}
    assert refs["label prior"]["acc"] == pytest.approx(50.0)
    assert report.reference_metrics("imdb", corpus)["aose/imdb/reference/majority_class/acc_long"] == 100.0


def test_readings_mark_rows_at_the_reference_and_check_no_claim_with_them():
    run = experiment.ClassificationRun
    labels, tokens = [1, 0, 0, 1], [10, 600, 700, 20]
    corpus = _corpus([0, 0, 0, 1], labels, tokens)  # majority class and label prior: 50 % of the test set
    frozen = {"aose": run("aose", "frozen", [1, 0, 0, 1], labels, tokens, 1.0),  # 100 %
              "truncated": run("truncated", "frozen", [1, 1, 0, 0], labels, tokens, 1.0),  # 50 %: the floor
              "tfidf": run("tfidf", "frozen", [1, 0, 0, 1], labels, tokens, 1.0)}  # 100 %
    lines = report.readings("imdb", frozen, {}, 1.0, corpus, "smoke")
    assert any(line.startswith("- IMDB, frozen encoder alone (first 512 tokens): learned nothing here (accuracy "
                               "50.0 %") for line in lines)
    assert any(line.startswith("- Claim 1, frozen AoSE over the encoder alone on long documents: cannot be checked")
               for line in lines)
    assert lines[-1].endswith("not resolved at this scale.")  # TF-IDF level with AoSE
    assert not any("holds here" in line for line in lines)
    assert "reference: label prior" in report.results_table("imdb", frozen, {}, corpus).index
    truncation = report.truncation_table(frozen, {}, corpus)
    assert truncation.loc["reference: majority class", ("freezing", "acc >512")] == 100.0


def test_readings_name_a_model_that_gives_one_class_instead_of_checking_claims():
    run = experiment.ClassificationRun
    labels, tokens = [1, 0, 0, 1], [10, 20, 30, 600]
    corpus = _corpus([0, 0, 0, 1], labels, tokens)
    frozen = {"aose": run("aose", "frozen", [1, 0, 0, 1], labels, tokens, 1.0),
              "truncated": run("truncated", "frozen", [0, 0, 0, 0], labels, tokens, 1.0),
              "tfidf": run("tfidf", "frozen", [1, 0, 0, 1], labels, tokens, 1.0)}
    lines = report.readings("imdb", frozen, {}, 1.0, corpus, "smoke")
    assert lines[0].startswith("- IMDB, frozen encoder alone (first 512 tokens): learned nothing here (")
    assert "it gives 100 % of the test inputs class 0" in lines[0]
    assert any("Claim 1" in line and "cannot be checked here" in line for line in lines)
    frozen["aose"] = run("aose", "frozen", [0, 0, 0, 0], labels, tokens, 1.0)
    assert report.readings("imdb", frozen, {}, 1.0, corpus, "smoke")[-1].endswith(
        "so the paper's claims cannot be checked.")


def test_an_unknown_pooling_is_refused_with_the_choices():
    from cdlm_nb.aose.model import DocumentClassifier
    from cdlm_nb.support.errors import ConfigError

    with pytest.raises(ConfigError, match="pooling='max' is not a pooling; use one of .*'attention', 'mean'"):
        DocumentClassifier(8, 2, pooling="max")
