"""Notebook 11's analyses and report on hand-made systems: hard-negative F1, bootstrap intervals, the paired
ordering, length buckets, the pairs only one system gets right, the Pareto front and the recorded names."""

import numpy as np
import pytest
from datasets import Dataset

from cdlm_nb.comparison import report
from cdlm_nb.comparison.systems import BASELINE_LABELS, CDA_MODELS, CROSS_ENCODERS, UNTRAINED, System, search_for
from cdlm_nb.profiles import COMPARISON_SYSTEMS as SYSTEMS
from cdlm_nb.profiles import PAPER_MODELS, PROFILE_NAMES, get_profile
from cdlm_nb.support.errors import ConfigError
from cdlm_nb.support.memory import PeakMemory

ROWS = Dataset.from_dict({
    "doc_a": [["a " * n] for n in (10, 20, 30, 40, 50, 60)], "doc_b": [["b"]] * 6,
    "label": [1, 1, 0, 0, 0, 1], "kind": ["positive", "positive", "hard_negative", "easy_negative",
                                         "hard_negative", "positive"]})


def _system(name, scores, speed=10.0):
    return System(name, np.array(scores, float), 0.5, 1.0, speed, 0.0, 10, 20, "all")


def test_scores_and_the_hard_negative_f1():
    measured = report.scores(ROWS["label"], [1, 0, 1, 1, 0, 1], ROWS["kind"])
    assert measured["acc"] == pytest.approx(3 / 6) and measured["f1"] == pytest.approx(2 * 2 / (4 + 3))
    # positives and hard negatives only: labels 1 1 0 0 1, decisions 1 0 1 0 1 -> tp 2, predicted 3, actual 3
    assert measured["f1_hard"] == pytest.approx(2 * 2 / 6)


def test_length_buckets_and_only_right():
    index, names = report.length_buckets(ROWS, 3)
    assert len(names) == 3 and index.tolist() == sorted(index.tolist()) and index[0] == 0 and index[-1] == 2
    systems = {"x": _system("x", [1, 1, 0, 0, 0, 0]), "y": _system("y", [0, 0, 0, 0, 0, 1])}
    assert report.only_right(systems, ROWS["label"]) == {0: "x", 1: "x", 5: "y"}


def test_pareto_front_metrics_and_readings():
    systems = {"tfidf": _system("tfidf", [1, 1, 0, 0, 0, 0], speed=100.0),
               "cdlm": _system("cdlm", [1, 1, 0, 0, 0, 1], speed=1.0),
               "longformer": _system("longformer", [1, 0, 0, 0, 0, 0], speed=0.5)}
    assert report.pareto_front(systems, ROWS) == ["tfidf", "cdlm"]
    metrics = report.compare_metrics("world", systems, ROWS)
    assert metrics["compare/world/acc/cdlm"] == 100.0 and metrics["compare/world/pairs_per_s/tfidf"] == 100.0
    assert {"compare/world/f1_hard/longformer", "compare/world/train_s/cdlm"} <= set(metrics)
    assert metrics["compare/world/reference/all_related/f1"] == pytest.approx(66.667)
    lines = report.readings(systems, ROWS, 200, 2, "smoke", "world")
    # Longformer's F1 (50.0) is below calling every pair related (66.7): it is never ranked nor compared
    assert lines[0].startswith("- Longformer: learned nothing here (F1 50.0, not above the 66.7")
    assert lines[1] == "- Best F1 among the systems that learned something: CDLM (100.0)."
    assert "- CDLM paper, Table 4: CDLM over Longformer: cannot be checked here (learned nothing here: " \
           "Longformer)." in lines
    assert not any("holds here" in line for line in lines)  # 6 pairs and no seed spread for smoke
    table = report.results_table(systems, ROWS, 50)
    assert table.loc["reference: all related", "f1"] == "66.7" and table.loc["reference: none related", "acc"] == "50.0"


def test_a_system_that_gives_one_class_is_named_and_not_compared():
    systems = {"cdlm": _system("cdlm", [1, 1, 0, 0, 0, 1], speed=1.0),
               "longformer": _system("longformer", [0, 0, 0, 0, 0, 0], speed=0.5)}
    lines = report.readings(systems, ROWS, 200, 2, "smoke", "world")
    assert lines[0].startswith("- Longformer: learned nothing here (")
    assert "it gives 100 % of the test inputs unrelated" in lines[0]
    assert lines[1] == "- Best F1 among the systems that learned something: CDLM (100.0)."
    assert "- CDLM paper, Table 4: CDLM over Longformer: cannot be checked here (learned nothing here: " \
           "Longformer)." in lines
    assert not any("holds" in line or "by Longformer" in line for line in lines)


def test_unknown_systems_are_named_and_peak_memory_sees_a_large_allocation():
    with pytest.raises(ConfigError, match="unknown system 'bm25' .*comparison.systems"):
        search_for(None, "bm25")
    peak = PeakMemory()
    block = np.ones(50_000_000)  # 400 MB
    block[::4096] = 2.0
    peak.stop()
    assert peak.megabytes > 200


def test_one_list_of_system_ids_that_every_profile_and_builder_follows():
    """`profiles.COMPARISON_SYSTEMS` is the list: each baseline has a builder, the rest are the paper's models,
    and every profile's systems are taken from it in its order."""
    assert {*UNTRAINED, *CDA_MODELS, *CROSS_ENCODERS} == set(BASELINE_LABELS)
    assert SYSTEMS == (*BASELINE_LABELS, *PAPER_MODELS)
    for name in PROFILE_NAMES:
        systems = get_profile(name).comparison.systems
        assert list(systems) == [system for system in SYSTEMS if system in systems], name
    assert _system("cdlm", [0.5]).label == "CDLM" and _system("aose", [0.5]).label == "AoSE (Siamese)"


def test_pareto_labels_of_coinciding_and_nearby_systems_do_not_overlap():
    """Six systems at 66.7 % with nearly the same speed (notebook 11's smoke run printed them on top of each other)
    and three more on one point: adjustText must set every label apart, the same way on every run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    scores = [1, 1, 0, 1, 0, 0]  # decisions 1 1 0 1 0 0 against labels 1 1 0 0 0 1: 4 of 6 right
    systems = {f"s{i}": _system(name, scores, speed=10.0 + 0.01 * i) for i, name in enumerate(SYSTEMS[:6])}
    systems |= {f"t{i}": _system(name, [1, 0, 0, 0, 0, 1], speed=100.0) for i, name in enumerate(SYSTEMS[6:9])}
    systems["fast"] = _system("tfidf", [1, 1, 0, 0, 0, 1], speed=1000.0)
    placed = []
    for _ in range(2):
        fig = report.pareto_figure(systems, ROWS)
        fig.canvas.draw()
        texts = fig.axes[0].texts
        assert sorted(t.get_text() for t in texts) == sorted(s.label for s in systems.values())
        boxes = [Text.get_window_extent(t, fig.canvas.get_renderer()) for t in texts]  # without the leader lines
        assert not any(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1
                       for i, a in enumerate(boxes) for b in boxes[i + 1:])
        placed.append([tuple(box.bounds) for box in boxes])
        plt.close(fig)
    assert placed[0] == placed[1]


def test_recipe_table_and_metrics_name_each_searched_system_and_skip_fixed_recipes():
    from cdlm_nb.comparison import report
    from cdlm_nb.profiles import SearchSpace
    from cdlm_nb.recipe_search import Recipe, SearchPoint, SearchResult

    space = SearchSpace(learning_rates=(1e-3,), epochs=2, warmup=0.1)
    points = [SearchPoint(1e-3, 1, 0.2, 0.6, 0.3), SearchPoint(1e-3, 2, 0.5, 0.7, 0.55)]
    searched = SearchResult("cdlm", space, points, Recipe(1e-3, 2, 2, 0.1), 12.0)
    recipes = {"cdlm": searched, "match_ignition": None}
    table = report.recipe_table(recipes)
    assert list(table.index) == [("CDLM", "lr 0.001")] and table.iloc[0]["epoch 2"] == "55.0*"
    metrics = report.recipe_metrics("world", recipes)
    assert metrics["compare/world/recipe/cdlm/dev_f1"] == 0.5 and not any("match_ignition" in k for k in metrics)
    assert "CDLM: lr 0.001, 2 of 2 epochs" in report.recipe_note(recipes)


def test_the_length_table_shown_has_its_reference_row():
    systems = {"cdlm": _system("cdlm", [1, 1, 0, 0, 0, 1])}
    table = report.length_results(systems, ROWS, 2)
    assert list(table.index) == ["CDLM", "reference: all related"]
    index, _ = report.length_buckets(ROWS, 2)
    shares = [np.mean(np.asarray(ROWS["label"])[index == b]) for b in range(2)]
    assert table.loc["reference: all related"].tolist() == [round(100 * 2 * p / (1 + p), 1) for p in shares]
