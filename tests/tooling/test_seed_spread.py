"""The fine-tuning seed spread (cdlm_nb/tooling/seed_spread.py) and the tool that measures it (tools/seed_spread.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cdlm_nb.tooling import seed_spread

TOOL = "tools/seed_spread.py"


def test_the_spread_is_the_sample_sd_over_seeds_and_timings_are_left_out():
    runs = {13: {"compare/world/f1/cdlm": 20.0, "compare/world/train_s/cdlm": 5.0, "only13": 1.0},
            14: {"compare/world/f1/cdlm": 30.0, "compare/world/train_s/cdlm": 9.0},
            15: {"compare/world/f1/cdlm": 25.0, "compare/world/train_s/cdlm": 7.0}}
    spread = seed_spread.metric_spread(runs)
    assert list(spread) == ["compare/world/f1/cdlm"]  # timings and a metric one seed lacks are left out
    assert spread["compare/world/f1/cdlm"]["sd"] == pytest.approx(5.0)
    assert spread["compare/world/f1/cdlm"]["band"] == pytest.approx(5.0 * 1.96 * math.sqrt(2))
    family = seed_spread.metric_spread({13: {"m/f1/cdlm": 1.0, "m/f1/rand": 0.0, "m/recipe/cdlm/epochs": 1.0},
                                        14: {"m/f1/cdlm": 1.0, "m/f1/rand": 2.0, "m/recipe/cdlm/epochs": 9.0}})
    assert family["m/f1/cdlm"]["sd"] == 0 and family["m/f1/cdlm"]["pooled_sd"] == pytest.approx(1.0)  # sqrt(2 / 2)
    assert family["m/f1/cdlm"]["band"] == pytest.approx(1.96 * math.sqrt(2))  # the family's noise, not its own 0
    assert family["m/f1/rand"]["band"] == pytest.approx(math.sqrt(2) * 1.96 * math.sqrt(2))
    assert family["m/recipe/cdlm/epochs"]["pooled_sd"] == family["m/recipe/cdlm/epochs"]["sd"]  # epochs pool apart
    assert seed_spread.family("matching/world/recipe/prefix/dev_f1") == "matching/world/recipe/*/dev_f1"
    assert seed_spread.family("cda/world/d2d/f1/bert_han_shallow") == "cda/world/d2d/f1/*"
    assert seed_spread.family("match_ignition/world/f1/alpha_10") == "match_ignition/world/f1"  # namespace kept
    assert seed_spread.family("aose/world/frozen/aose/acc") == "aose/world/frozen/*/acc"
    with pytest.raises(ValueError, match="two seeds"):
        seed_spread.metric_spread({13: {}})


def test_bands_load_from_beside_the_baseline_and_a_task_keeps_the_others(tmp_path):
    baseline = tmp_path / "cpu.json"
    assert seed_spread.spread_path(baseline) == tmp_path / "cpu.spread.json"
    assert seed_spread.load_bands(baseline) == {}
    first = seed_spread.spread_file("cpu", {13: {"a": 1.0}, 14: {"a": 3.0}}, ["05"], "cmd")
    both = seed_spread.spread_file("cpu", {13: {"b": 1.0}, 14: {"b": 1.0}}, ["10"], "cmd", previous=first)
    assert set(both["metrics"]) == {"a", "b"} and both["notebooks"] == ["05", "10"]
    seed_spread.spread_path(baseline).write_text(json.dumps(both))
    assert seed_spread.load_bands(baseline) == {"a": pytest.approx(2 ** 0.5 * 1.96 * 2 ** 0.5), "b": 0.0}
    seed_spread.spread_path(baseline).write_text("{}")
    with pytest.raises(ValueError, match="tools/seed_spread.py"):
        seed_spread.load_bands(baseline)


def test_same_machine_needs_the_same_named_cpu():
    cpu = {"model": "x", "capability": "AVX2", "threads": "2"}
    assert seed_spread.same_machine({"cpu": cpu}, {"cpu": dict(cpu)})
    assert not seed_spread.same_machine({"cpu": cpu}, {"cpu": cpu | {"capability": "AVX512"}})
    assert not seed_spread.same_machine({}, {"cpu": cpu})  # an older baseline names no CPU: another machine


def test_the_tool_reruns_the_chosen_notebooks_per_seed_and_writes_the_spread(tmp_path, monkeypatch, load_script):
    tool = load_script(TOOL)
    source = tmp_path / "runs" / "cpu"
    (source / "models").mkdir(parents=True)
    (source / "results.json").write_text(json.dumps({
        "profile": "cpu", "metrics": {"matching/f1": 20.0, "perplexity/cdlm": 3.0},
        "metric_notebooks": {"03_x": ["perplexity/cdlm"], "05_y": ["matching/f1"]}, "cpu": {"capability": "AVX2"}}))
    calls = []

    def fake_run(profile, only, output, parameters):
        calls.append((profile, only, Path(output).name, parameters))
        assert (Path(output) / "models").resolve() == (source / "models").resolve()
        return {"notebooks": [{"name": "05_y", "status": "ok"}], "metric_notebooks": {"05_y": ["matching/f1"]},
                "metrics": {"matching/f1": 20.0 + parameters["SEED"] - 13}}

    monkeypatch.setattr("cdlm_nb.tooling.runner.run_notebooks", fake_run)
    baseline = tmp_path / "baselines" / "cpu.json"
    baseline.parent.mkdir()
    assert tool.main(["--from", str(source), "--seeds", "14", "15", "--only", "05", "--baseline", str(baseline),
                      "--root", str(tmp_path / "runs")]) == 0
    assert calls == [("cpu", ["05"], "cpu-seed14", {"SEED": 14}), ("cpu", ["05"], "cpu-seed15", {"SEED": 15})]
    spread = json.loads(seed_spread.spread_path(baseline).read_text())
    assert spread["seeds"] == [13, 14, 15] and list(spread["metrics"]) == ["matching/f1"]
    assert spread["metrics"]["matching/f1"]["values"] == [20.0, 21.0, 22.0] and "--seeds 14 15" in spread["command"]


def test_a_finished_seed_run_is_read_not_run_again(tmp_path, monkeypatch, load_script):
    tool = load_script(TOOL)
    out = tmp_path / "cpu-seed14"
    out.mkdir()
    results = {"parameters": {"SEED": 14}, "notebooks": [{"name": "05_y", "status": "ok"}], "metrics": {}}
    (out / "results.json").write_text(json.dumps(results))
    monkeypatch.setattr("cdlm_nb.tooling.runner.run_notebooks", lambda *args, **kwargs: pytest.fail("ran again"))
    assert tool.seed_run("cpu", tmp_path, 14, ["05"], tmp_path) == results
    assert tool.finished(out, 15, ["05"]) is None and tool.finished(out, 14, ["05", "10"]) is None


def test_the_summary_names_each_family_and_its_largest_sd():
    spread = seed_spread.spread_file("cpu", {13: {"compare/world/f1/cdlm": 20.0, "compare/world/f1/tfidf": 50.0},
                                             14: {"compare/world/f1/cdlm": 30.0, "compare/world/f1/tfidf": 50.0}},
                                     ["11"], "cmd")
    table = seed_spread.summary_table(spread)
    assert "| compare/world/f1/* | 2 | 1 | 5 | 7.07 | compare/world/f1/cdlm |" in table
    assert table.startswith("seeds 13, 14")
