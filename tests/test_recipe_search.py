"""The dev recipe search: picks the dev-best point by macro-F1 (ties: fewer epochs, smaller learning rate), keeps
its weights, caches the scores and those weights so a re-run trains nothing."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.finetuning import Epoch
from cdlm_nb.profiles import SearchSpace
from cdlm_nb.recipe_search import (
    RecipeCache,
    Search,
    SearchResult,
    dev_scores,
    search_metrics,
    search_note,
    space_table,
)
from cdlm_nb.support.artefacts import fingerprint

torch = pytest.importorskip("torch")

SPACE = SearchSpace(learning_rates=(1e-3, 1e-4), epochs=3, warmup=0.1)
#: dev macro-F1 (and F1) by (learning rate, epoch): the best is lr 1e-3 at epoch 2; later epochs overfit
DEV_F1 = {(1e-4, 1): 0.0, (1e-4, 2): 0.2, (1e-4, 3): 0.3, (1e-3, 1): 0.1, (1e-3, 2): 0.6, (1e-3, 3): 0.4}


class FakeTraining:
    """A one-weight model whose weight records (learning rate, epoch); dev F1 read off `DEV_F1`."""

    def __init__(self, dev_f1=DEV_F1):
        self.model = torch.nn.Linear(1, 1, bias=False)
        self.dev_f1 = dev_f1
        self.trained: list[tuple[float, int]] = []  # every epoch trained
        self.current = (0.0, 0)

    def fit(self, learning_rate):
        """Like `finetuning.train_epochs`: yields after each epoch."""
        for epoch in range(1, SPACE.epochs + 1):
            self.trained.append((learning_rate, epoch))
            self.current = (learning_rate, epoch)
            with torch.no_grad():
                self.model.weight.fill_(learning_rate * 1000 + epoch)
            yield Epoch(epoch, [], float(epoch))

    def dev_score(self, model):
        score = self.dev_f1[self.current]
        return {"f1": score, "accuracy": 0.5, "macro_f1": score, "one_class": False}


def search(system, space, training, *, cache=None, key="", record=None):
    """The loop notebook 05 writes out, on a fake training: every rate, dev kept after every epoch."""
    run = Search(system, space, cache, key)
    for rate in run.rates():
        for epoch in training.fit(rate):
            run.keep(training.model, rate, epoch, training.dev_score(training.model))
    return run.result(record(run.chosen) if record is not None else None), run.state


def test_the_best_weights_are_kept_in_cpu_memory_not_on_the_device(monkeypatch):
    """A deep copy of a GPU model's state dict would sit on the card beside the training, uncounted by the plan."""
    from cdlm_nb import recipe_search

    kept = []
    monkeypatch.setattr(recipe_search, "cpu_state", lambda model: kept.append(model) or {"weight": torch.zeros(1)})
    training = FakeTraining()
    search("cdlm", SPACE, training)
    assert kept and all(model is training.model for model in kept)  # every best point went through cpu_state


def test_search_picks_the_dev_best_point_and_its_weights():
    training = FakeTraining()
    result, state = search("cdlm", SPACE, training)
    assert (result.chosen.learning_rate, result.chosen.epochs) == (1e-3, 2)
    assert result.chosen.schedule_epochs == 3 and result.chosen.warmup == 0.1
    assert float(state["weight"]) == pytest.approx(1e-3 * 1000 + 2)  # the chosen epoch's weights, not the last
    assert len(result.points) == 6 and not result.cached
    assert sorted(training.trained) == sorted(DEV_F1)  # each learning rate trained once over the schedule


def test_ties_go_to_fewer_epochs_then_the_smaller_learning_rate():
    training = FakeTraining({point: 0.5 for point in DEV_F1})
    result, _ = search("cdlm", SPACE, training)
    assert (result.chosen.learning_rate, result.chosen.epochs) == (1e-4, 1)


def test_a_cache_hit_trains_nothing_and_returns_the_chosen_weights_and_record(tmp_path):
    cache = RecipeCache(tmp_path / "recipes" / "matching")
    first = FakeTraining()
    searched, _ = search("cdlm", SPACE, first, cache=cache, key="k1",
                         record=lambda chosen: {"epochs": chosen.epochs, "trained": len(first.trained)})
    assert searched.outcome == {"epochs": 2, "trained": 6}
    assert all(p.seconds >= 0 for p in searched.points) and searched.train_seconds == searched.best.seconds
    again = FakeTraining()
    cached, state = search("cdlm", SPACE, again, cache=cache, key="k1",
                           record=lambda chosen: {"ignored": 1})  # a cache hit keeps what was recorded
    assert cached.cached and cached.chosen == searched.chosen and cached.points == searched.points
    assert again.trained == [] and cached.outcome == searched.outcome
    assert "nothing trained" in cached.describe() and "nothing trained" not in searched.describe()
    note = search_note({"cdlm": cached, "rand": searched}).splitlines()
    assert "2 of 3 epochs, 10 % warm-up (cached);" in note[1] and "(cached)" not in note[2]
    assert note[-2] == "- (cached): read from the run folder's cache, nothing trained here."
    assert float(state["weight"]) == pytest.approx(1e-3 * 1000 + 2)
    other = FakeTraining()
    search("cdlm", SPACE, other, cache=cache, key="k2")  # another key: searched again
    assert len(other.trained) == 6


def test_each_point_carries_its_epochs_training_seconds():
    result, _ = search("cdlm", SPACE, FakeTraining())
    assert [p.seconds for p in result.points] == [1.0, 2.0, 3.0] * 2  # `Epoch.seconds`: dev scoring left out


def test_weights_missing_or_kept_for_another_recipe_are_searched_again(tmp_path):
    cache = RecipeCache(tmp_path)
    first = FakeTraining()
    searched, _ = search("cdlm", SPACE, first, cache=cache, key="k")
    cache.path("cdlm", "k", "safetensors").unlink()
    again = FakeTraining()
    search("cdlm", SPACE, again, cache=cache, key="k")
    assert len(again.trained) == 6 and cache.path("cdlm", "k", "safetensors").is_file()
    stale = searched.to_json() | {"chosen": {"learning_rate": 1e-4, "epochs": 3, "schedule_epochs": 3,
                                             "warmup": 0.1}}
    cache.path("cdlm", "k").write_text(json.dumps(stale), encoding="utf-8")  # chosen under an older rule
    third = FakeTraining()
    result, state = search("cdlm", SPACE, third, cache=cache, key="k")
    assert len(third.trained) == 6 and not result.cached
    assert float(state["weight"]) == pytest.approx(1e-3 * 1000 + 2)


def test_an_unreadable_cache_file_is_searched_again(tmp_path):
    cache = RecipeCache(tmp_path)
    cache.path("cdlm", "k").write_text("{not json", encoding="utf-8")
    training = FakeTraining()
    result, _ = search("cdlm", SPACE, training, cache=cache, key="k")
    assert not result.cached and len(training.trained) == 6
    assert SearchResult.from_json(result.to_json()).chosen == result.chosen


def test_fingerprint_tells_data_apart():
    assert fingerprint([1, 2], "a") == fingerprint([1, 2], "a")
    assert fingerprint([1, 2], "a") != fingerprint([2, 1], "a")


def test_table_metrics_and_note_show_every_point_and_the_choice():
    training = FakeTraining()
    result, _ = search("cdlm", SPACE, training)
    table = space_table({"cdlm": result})
    assert table.loc[("cdlm", "lr 0.001"), "epoch 2"] == "60.0*"
    assert table.loc[("cdlm", "lr 0.0001"), "epoch 3"] == "30.0"
    metrics = search_metrics("matching/world", {"cdlm": result})
    assert metrics["matching/world/recipe/cdlm/dev_f1"] == pytest.approx(0.6)
    assert metrics["matching/world/recipe/cdlm/epochs"] == 2
    assert "lr 0.001, 2 of 3 epochs" in search_note({"cdlm": result})


def test_a_point_giving_every_dev_pair_one_class_ranks_below_any_learned_one():
    training = FakeTraining()
    scored = training.dev_score
    # lr 1e-4 at epoch 1 gives every dev pair one class: it ranks last whatever its F1
    training.dev_score = lambda model: scored(model) | ({"f1": 0.9, "macro_f1": 0.9, "one_class": True}
                                                         if training.current == (1e-4, 1) else {})
    result, _ = search("cdlm", SPACE, training)
    assert (result.chosen.learning_rate, result.chosen.epochs) == (1e-3, 2)
    assert "90.0°" in space_table({"cdlm": result}).loc[("cdlm", "lr 0.0001"), "epoch 1"]


def test_when_every_point_gives_one_class_the_majority_class_wins():
    training = FakeTraining()
    scored = training.dev_score
    everything_related = {(1e-4, 2), (1e-3, 1)}  # F1 0.5 but accuracy 1/3; the rest: unrelated, accuracy 2/3
    training.dev_score = lambda model: ({"f1": 0.5, "accuracy": 1 / 3, "macro_f1": 0.25, "one_class": True}
                                        if training.current in everything_related else
                                        scored(model) | {"f1": 0.0, "accuracy": 2 / 3, "macro_f1": 0.4,
                                                         "one_class": True})
    result, _ = search("cdlm", SPACE, training)
    assert (result.chosen.learning_rate, result.chosen.epochs) == (1e-4, 1)


def test_dev_scores_follow_sklearn_and_macro_f1_sees_through_calling_everything_related():
    labels = [1, 0, 0, 1, 0, 0]
    nearly_all_related = [1, 1, 1, 1, 1, 0]
    scores = dev_scores(labels, nearly_all_related)
    assert scores["f1"] == pytest.approx(2 * 2 / (2 + 5)) and scores["accuracy"] == pytest.approx(3 / 6)
    assert scores["macro_f1"] == pytest.approx((4 / 7 + 2 * 1 / (1 + 4)) / 2) and not scores["one_class"]
    assert dev_scores(labels, [0] * 6) == {"f1": 0.0, "accuracy": 4 / 6, "macro_f1": pytest.approx(0.4),
                                           "one_class": True}


def test_macro_f1_not_f1_decides():
    training = FakeTraining()
    scored = training.dev_score
    # lr 1e-4 at epoch 3 calls nearly every pair related: the higher F1 but the lower macro-F1 than lr 1e-3, epoch 2
    training.dev_score = lambda model: scored(model) | ({"f1": 0.7, "macro_f1": 0.35}
                                                         if training.current == (1e-4, 3) else {})
    result, _ = search("cdlm", SPACE, training)
    assert (result.chosen.learning_rate, result.chosen.epochs) == (1e-3, 2)
