"""Notebook 10's experiment on a few world pairs: names, the CSV round trip, inputs, a run, the report."""

import pytest
import torch
from datasets import Dataset

from cdlm_nb.cda import experiment, report
from cdlm_nb.cda.inputs import Vocabulary, sentence_vectors, side, word_pairs
from cdlm_nb.data.schemas import PAIR_FEATURES
from cdlm_nb.profiles import get_profile
from cdlm_nb.recipe_search import train_and_score
from cdlm_nb.support.errors import ConfigError

ROWS = [{"pair_id": str(i), "doc_a": ["The quake hit Lima.", f"It killed {i} people.", "Rain fell."],
         "doc_b": ["A quake struck Lima.", "Many died."] if i % 2 else ["Stocks rose."], "label": i % 2,
         "kind": "", "positive_sentences": [0, 1] if i % 2 else []} for i in range(8)]


def test_model_names():
    assert experiment.model_spec("gru_han_deep") == ("gru_han", "deep", "concat")
    assert experiment.model_spec("bert_han_shallow_add") == ("bert_han", "shallow", "add")
    assert experiment.model_spec("bert_avg") == ("bert_avg", "none", "concat")


def test_pairs_survive_the_cda_csv_round_trip(tmp_path):
    splits = {"train": Dataset.from_list(ROWS, features=PAIR_FEATURES)}
    back, changed = experiment.through_csv(splits, tmp_path)
    assert changed == {"train": 0} and back["train"]["positive_sentences"] == splits["train"]["positive_sentences"]
    assert back["train"]["doc_b"] == splits["train"]["doc_b"]


def test_word_inputs_cut_and_count():
    vocabulary = Vocabulary.build(ROWS, max_size=50)
    pairs = word_pairs(ROWS, vocabulary, max_sentences=1, max_words=3)
    assert pairs.cuts.sentences == 8 * 2 + 4 * 1 and pairs.cuts.gold == 4  # sentence 1 of each related doc_a
    assert pairs.gold[1] == [0] and all(len(s) <= 3 for doc in pairs.docs_a for s in doc)
    batch = side(pairs.docs_a[:2])
    assert batch.word_ids.shape[:2] == (2, 1) and batch.word_mask.sum() == 6


def test_a_smoke_run_scores_d2d_and_s2d_and_records_the_issue_names():
    config = get_profile("smoke").cda
    splits = {name: ROWS for name in experiment.SPLITS}
    prepared = experiment.prepare(splits, config)
    run = train_and_score(experiment.ModelSearch("gru_han_shallow", prepared, config))
    assert set(run.d2d) == {"acc", "f1"} and run.s2d_attention.pairs == 8 and run.oracle["cosine"].pairs == 8
    assert not run.model.training and run.model.document_cda is not None  # kept for notebook 10's written-out lines
    pair = [side([prepared.words["test"].docs_a[0]]), side([prepared.words["test"].docs_b[0]])]
    with torch.no_grad():
        assert torch.sigmoid(run.model(*pair).logits).item() == pytest.approx(run.probabilities[0], abs=1e-5)
    runs = {"gru_han_shallow": run, "random": experiment.random_run(prepared.words["test"])}
    test_labels = prepared.words["test"].labels
    metrics = report.cda_metrics("world", runs, test_labels)
    assert "cda/world/d2d/f1/gru_han_shallow" in metrics and "cda/world/s2d/p10/random" in metrics
    assert metrics["cda/world/d2d/reference/all_related/f1"] == pytest.approx(100 * 2 / 3, abs=0.01)
    table = report.d2d_table(runs, "world", test_labels)
    assert table.loc["reference: none related", ("ours: world", "acc")] == 50.0
    assert report.combine_table(runs, test_labels).loc["reference: all related", "ours F1"] == pytest.approx(66.7)
    assert not report.s2d_table(runs, oracle=True).empty
    assert report.readings(runs, test_labels, "smoke", "world")  # the attention-vs-cosine line is always there
    assert len(run.oracle["attention"].reciprocal_ranks) == run.oracle["attention"].pairs
    with pytest.raises(ConfigError, match="sentence vectors"):
        experiment.build_model("bert_han", prepared, config)
    with pytest.raises(ConfigError, match="unknown CDA model 'lstm_han_deep' .*cda.models"):
        experiment.build_model("lstm_han_deep", prepared, config)


def _cda_run(name, decisions, test_labels):
    import numpy as np

    from cdlm_nb.cda.alignment import S2DScores

    s2d = S2DScores({"mrr": 0.5}, len(decisions), 0, [0.5] * len(decisions))
    return experiment.CDARun(name, experiment.d2d_scores(test_labels, decisions), s2d, s2d, 1.0,
                             np.array(decisions, float), oracle={"attention": s2d, "cosine": s2d})


def test_readings_check_no_claim_on_a_model_that_learned_nothing():
    labels = [1, 0, 0, 1, 0, 0] * 10  # all related: F1 50.0
    runs = {"gru_han_shallow": _cda_run("gru_han_shallow", labels, labels),  # perfect
            "gru_han": _cda_run("gru_han", [1, 0, 0, 1, 1, 1] * 10, labels)}  # F1 66.7, accuracy 66.7: floor
    lines = report.readings(runs, labels, "smoke", "world")
    assert any(line.startswith("- GRU-HAN: learned nothing here (D2D accuracy 66.7") for line in lines)
    assert "- CDA paper, Table 2: GRU-HAN + SHALLOW over GRU-HAN: cannot be checked here (learned nothing here: " \
           "GRU-HAN)." in lines


def test_the_released_options_reach_the_layers():
    config = get_profile("smoke").cda
    prepared = experiment.prepare({name: ROWS for name in experiment.SPLITS}, config)
    model = experiment.build_model("gru_han_shallow", prepared, config, mask_padding=False, word_state="document",
                                   softmax_over_batch=True)
    assert not model.encoder.mask_padding and model.encoder.word_state == "document" and model.softmax_over_batch


def test_sentence_means_over_padding_differ_from_the_encoders_own(sentence_encoder):
    import numpy as np

    rows = ROWS[:2]
    own = sentence_vectors(sentence_encoder, rows, max_length=32)
    padded = sentence_vectors(sentence_encoder, rows, max_length=32, include_padding=True)
    text = "Rain fell."
    reference = sentence_encoder.encode([text])[0]
    assert np.allclose(own[text], reference, atol=1e-5)
    assert not np.allclose(padded[text], reference, atol=1e-2)


def test_sentence_means_over_padding_run_on_the_encoders_device():
    import torch
    from transformers import BatchEncoding

    seen = []

    class Model:
        device = torch.device("meta")  # stands for the GPU the notebook's encoder sits on

        def __call__(self, input_ids, attention_mask):
            seen.append(input_ids.device.type)
            return type("Output", (), {"last_hidden_state": torch.ones(len(input_ids), 4, 3)})

    class Tokenizer:
        def __call__(self, texts, **_):
            return BatchEncoding({"input_ids": torch.zeros(len(texts), 4, dtype=torch.long),
                                  "attention_mask": torch.ones(len(texts), 4, dtype=torch.long)})

    encoder = type("Encoder", (list,), {"tokenizer": Tokenizer()})([type("Module", (), {"auto_model": Model()})])
    vectors = sentence_vectors(encoder, ROWS[:1], max_length=4, include_padding=True)
    assert seen == ["meta"] and len(vectors) == 4  # the inputs went to the encoder's device, not the CPU


def test_cda_files_are_written_atomically_with_a_manifest(tmp_path, monkeypatch):
    """A write killed midway leaves the last whole file under the CSV's name, marked unfinished; the next run
    writes it again."""
    from cdlm_nb.data import cda
    from cdlm_nb.support.artefacts import check_artefact

    splits = {"train": Dataset.from_list(ROWS, features=PAIR_FEATURES)}
    experiment.through_csv(splits, tmp_path)
    path = tmp_path / "train.csv"
    assert check_artefact(path) == [] and (tmp_path / "train.csv.manifest.json").is_file()
    whole = path.read_bytes()

    def killed(rows, target):
        target.write_text("1,half a row")
        raise KeyboardInterrupt

    monkeypatch.setattr(cda, "write_cda", killed)
    with pytest.raises(KeyboardInterrupt):
        experiment.through_csv(splits, tmp_path)
    assert path.read_bytes() == whole and "its save was interrupted" in check_artefact(path)[0]
    monkeypatch.undo()
    back, _ = experiment.through_csv(splits, tmp_path)
    assert check_artefact(path) == [] and back["train"]["doc_b"] == splits["train"]["doc_b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.csv", "train.csv.manifest.json"]


def test_a_searched_run_keeps_the_dev_best_point_and_a_cache_hit_trains_nothing(tmp_path, monkeypatch):
    from dataclasses import replace

    config = replace(get_profile("smoke").cda, patience=3, learning_rates=(1e-3, 1e-2), epochs=3, select_on_dev=True)
    prepared = experiment.prepare({name: ROWS for name in experiment.SPLITS}, config)
    cache = experiment.recipe_cache(tmp_path)
    run = train_and_score(experiment.ModelSearch("gru_han_shallow", prepared, config, cache=cache))
    points = run.recipe.points
    assert {p.learning_rate for p in points} == {1e-3, 1e-2} and not run.recipe.cached
    best = max(points, key=lambda p: p.rank())
    assert (run.recipe.chosen.learning_rate, run.recipe.chosen.epochs) == (best.learning_rate, best.epoch)
    assert run.fit.best_epoch <= len(run.fit.dev_losses) <= 3
    metrics = report.recipe_metrics("world", {"gru_han_shallow": run})
    assert metrics["cda/world/recipe/gru_han_shallow/dev_f1"] == best.dev_f1
    assert "chosen recipe" in report.recipe_table({"gru_han_shallow": run}).columns
    monkeypatch.setattr(experiment, "train_epochs", lambda *args, **kwargs: pytest.fail("a cache hit trains nothing"))
    again = train_and_score(experiment.ModelSearch("gru_han_shallow", prepared, config, cache=cache))
    assert again.recipe.cached and again.fit == run.fit  # the chosen run's curves, as the search measured them
    assert again.d2d == run.d2d and again.probabilities == pytest.approx(run.probabilities, abs=1e-6)


def test_attention_over_cosine_is_never_read_as_holding_without_a_seed_spread():
    labels = [1, 0, 0, 1, 0, 0] * 10
    runs = {"gru_han_shallow": _cda_run("gru_han_shallow", labels, labels)}
    line = next(line for line in report.readings(runs, labels, "cpu", "world")
                if "attention over cosine" in line)
    assert "beyond its paired interval for 0 of 1 models" in line and line.endswith("not resolved at this scale.")


def _s2d(reciprocal_ranks):
    from cdlm_nb.cda.alignment import S2DScores

    return S2DScores({"mrr": sum(reciprocal_ranks) / len(reciprocal_ranks)}, len(reciprocal_ranks), 0,
                     list(reciprocal_ranks))


@pytest.mark.parametrize(("ranks", "above"), [([1.0, 0.5] * 20, 1), ([1.0] + [0.5] * 38 + [0.0], 0), ([0.5] * 40, 0)])
def test_s2d_is_above_random_only_when_its_paired_interval_is(ranks, above):
    """Random ranks every gold sentence second (0.5): a ranker first on half the pairs is above it; one pair first
    and one last is not distinguishable from it, and a tie learned nothing."""
    import numpy as np

    labels = [1, 0] * 20
    runs = {"gru_han": _cda_run("gru_han", labels, labels), experiment.RANDOM: _cda_run("random", labels, labels)}
    runs["gru_han"].oracle = {"attention": _s2d(ranks), "cosine": _s2d(ranks)}
    runs[experiment.RANDOM].oracle = {"attention": _s2d([0.5] * 40), "cosine": _s2d([0.5] * 40)}
    runs[experiment.RANDOM].probabilities = np.zeros(40)
    line = next(line for line in report.readings(runs, labels, "smoke", "world") if line.startswith("- S2D"))
    assert f": {above} of 1 models" in line and ("learned nothing here for alignment: GRU-HAN." in line) == (not above)


def test_cda_cost_is_a_paired_ratio_read_against_the_papers_largest():
    base = (1.0, 1.1, 3.0, 1.0, 0.9, 1.0)
    rounds = {"gru_han": base, "gru_han_deep": tuple(2 * s for s in base),
              "gru_han_shallow": tuple(1.12 * s + (0.2 if i % 2 else -0.2) for i, s in enumerate(base)),
              "bert_han_shallow": tuple(1.0 * s for s in base)}  # its encoder was not timed: no cost
    assert report.PAPER_LARGEST_COST == pytest.approx(1.12)  # GRU-HAN + DEEP on PAN: 0.637 / 0.568
    assert report.paper_cost("gru_han_deep") == (1.01, 1.12) and report.paper_cost("gru_han") is None
    costs = report.costs(rounds)
    assert set(costs) == {"gru_han_deep", "gru_han_shallow"} and costs["gru_han_deep"] == pytest.approx((2, 2, 2))
    (line,) = report.cost_lines(rounds)
    assert line.startswith("- CDA paper, Table 11 (CDA's cost is small): each model's inference time over its "
                           "encoder's (95 % interval over 6 rounds) against the paper's largest, 1.12×: GRU-HAN + DEEP "
                           "2.00× (2.00-2.00), above it; GRU-HAN + SHALLOW ")
    assert line.endswith(", not distinguishable from it.") and report.cost_lines({"gru_han": base}) == []
    table = report.time_table(rounds, 120)
    assert table.loc["GRU-HAN + DEEP", "× no CDA"] == 2.0
    assert table.loc["GRU-HAN + DEEP", "paper × no CDA"] == "1.01-1.12"
    assert table.loc["GRU-HAN", "ours s (120 pairs)"] == 1.0 and "6 timed rounds" in table.attrs["caption"]
    metrics = report.cost_metrics("world", rounds)
    assert metrics["cda/world/slowdown/gru_han_deep/ci_high"] == pytest.approx(2.0)
    from cdlm_nb.tooling.metric_kinds import kind_of

    assert all(kind_of(name).timing for name in metrics)
