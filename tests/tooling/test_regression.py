"""`cdlm-nb compare`: a run's metrics against a baseline (cdlm_nb/tooling/regression.py and metric_kinds.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cdlm_nb.support.errors import ConfigError, DataError
from cdlm_nb.tooling import cli
from cdlm_nb.tooling.metric_kinds import kind_of
from cdlm_nb.tooling.regression import compare_files, compare_results, format_comparison


def results(metrics: dict[str, float], profile: str = "smoke", **extra) -> dict:
    """A results.json of the runner's layout."""
    notebooks = [{"name": "03_cross_document_perplexity", "seconds": 1.0, "status": "ok", "error": None,
                  "parameters": {}}]
    return {"profile": profile, "parameters": {}, "notebooks": notebooks, "metrics": metrics, **extra}


BASE = {"perplexity/cdlm": 1188.507961568926, "coref/event/conll/cdlm": 52.49891602832779,
        "pretrain/tokens_per_s/cdlm": 3797.03, "compare/world/train_s/aose": 7.6,
        "match_ignition/eval_speedup_limit/alpha_20": 1.6616663225084929}


@pytest.mark.parametrize(("metric", "timing"), [
    ("pretrain/tokens_per_s/cdlm", True), ("pretrain/step_tokens_per_s/hf", True),
    ("pretrain/attention_speedup", True), ("compare/world/pairs_per_s/tfidf", True),
    ("coref/event/pairs_per_second/cdlm", True), ("compare/world/train_s/aose", True),
    ("aose/world/frozen/mean/train_s", True), ("env/matmul_gflops", True),
    ("match_ignition/train_speedup/alpha_20", True),
    ("match_ignition/eval_speedup_limit/alpha_20", False), ("aose/world/frozen/mean/acc_short", False),
    ("perplexity/cdlm", False), ("masking/random_share", False), ("learning_curve/cdlm/4", False),
    ("mpr/neg/entity/cdlm", False),
])
def test_timings_are_found_by_name(metric, timing):
    assert kind_of(metric).timing is timing


def test_identical_runs_pass():
    result = compare_results(results(BASE), results(dict(BASE)))
    assert result.ok and result.checked == 3 and len(result.timings) == 2
    assert not (result.drift or result.missing or result.new)


def test_a_hand_changed_metric_fails_with_its_row():
    result = compare_results(results({**BASE, "perplexity/cdlm": 1188.6}), results(BASE))
    assert not result.ok
    assert [row.metric for row in result.drift] == ["perplexity/cdlm"]
    row = result.drift[0]
    assert row.baseline == BASE["perplexity/cdlm"] and row.now == 1188.6
    assert row.difference == pytest.approx(1188.6 - BASE["perplexity/cdlm"])
    table = format_comparison(result)
    assert "DRIFT" in table and "| perplexity/cdlm | 1188.507962 | 1188.6 | +0.09204 (+0.0077 %) |" in table


@pytest.mark.parametrize(("metric", "kind"), [
    ("perplexity/cdlm", "float32 model output"), ("perplexity/rand/ci_low", "float32 model output"),
    ("learning_curve/cdlm/4", "float32 model output"), ("attention_reach/cdlm/local_window", "attention reading"),
    ("mpr/pos/entity/longformer", "attention reading"), ("copy_gain/local/ci_low", "float32 model output"),
    ("pretrain/final_loss/cdlm", "float32 model output"), ("pretrain/base_final_loss", "float32 model output"),
    ("coref/event/conll/cdlm", "deterministic"), ("masking/mask_rate", "deterministic"),
])
def test_kinds_by_name(metric, kind):
    assert kind_of(metric).name == kind


@pytest.mark.parametrize(("metric", "passes", "fails"), [
    ("coref/event/conll/cdlm", 1e-8, 1e-5),  # deterministic: rtol 1e-6
    ("perplexity/cdlm", 1e-6, 1e-4),  # float32 model output: rtol 1e-5 (1.2e-7 measured between thread counts)
])
def test_the_last_digits_pass_but_not_a_real_change(metric, passes, fails):
    for relative, ok in ((passes, True), (fails, False)):
        now = {**BASE, metric: BASE[metric] * (1 + relative)}
        assert compare_results(results(now), results(BASE)).ok is ok


def test_a_timing_change_passes_and_is_reported():
    now = {**BASE, "pretrain/tokens_per_s/cdlm": 100.0, "compare/world/train_s/aose": 70.0}
    result = compare_results(results(now), results(BASE))
    assert result.ok
    assert {row.metric for row in result.timings} == {"pretrain/tokens_per_s/cdlm", "compare/world/train_s/aose"}
    assert "| pretrain/tokens_per_s/cdlm | 3797.03 | 100 | 0.03x |" in format_comparison(result)


def test_missing_metrics_fail_and_new_ones_are_listed():
    now = {k: v for k, v in BASE.items() if k != "coref/event/conll/cdlm"} | {"coref/event/conll/rand": 50.0}
    result = compare_results(results(now), results(BASE))
    assert not result.ok
    assert [row.metric for row in result.missing] == ["coref/event/conll/cdlm"]
    assert [row.metric for row in result.new] == ["coref/event/conll/rand"]
    text = format_comparison(result)
    assert "missing: in the baseline, not recorded now (fails)" in text
    assert "| coref/event/conll/rand | — | 50 | — |" in text
    assert compare_results(results(BASE | {"coref/event/conll/rand": 50.0}), results(BASE)).ok  # new alone passes


def test_rtol_loosens_every_checked_metric():
    now = {**BASE, "perplexity/cdlm": BASE["perplexity/cdlm"] * 1.0005}
    assert not compare_results(results(now), results(BASE)).ok
    assert compare_results(results(now), results(BASE), rtol=1e-3).ok


def test_notes_name_notebooks_not_run_and_changed_versions():
    baseline = results(BASE, versions={"torch": "2.13.0", "numpy": "2.1"}, machine="Linux-a")
    baseline["notebooks"].append({"name": "04_coreference", "status": "ok"})
    run = results(BASE, versions={"torch": "2.14.0", "numpy": "2.1"}, machine="Linux-b")
    notes = compare_results(run, baseline).notes
    assert notes == ["04_coreference: in the baseline, not in this run", "torch: baseline 2.13.0, now 2.14.0",
                     "machine: baseline Linux-a, now Linux-b"]


def test_another_profile_is_refused():
    with pytest.raises(ConfigError, match="compare with baselines/cpu.json"):
        compare_results(results(BASE, profile="cpu"), results(BASE))


def test_files_are_read_from_a_run_folder_or_a_file(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text(json.dumps(results(BASE)))
    (tmp_path / "base.json").write_text(json.dumps(results(BASE)))
    assert compare_files(tmp_path / "run", tmp_path / "base.json").ok
    with pytest.raises(ConfigError, match="no such file"):
        compare_files(tmp_path / "nowhere", tmp_path / "base.json")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(DataError, match="no 'metrics' object"):
        compare_files(tmp_path / "run", tmp_path / "bad.json")


def test_cli_exit_status_and_json_shape(tmp_path, capsys):
    (tmp_path / "base.json").write_text(json.dumps(results(BASE)))
    (tmp_path / "same.json").write_text(json.dumps(results(BASE)))
    (tmp_path / "drift.json").write_text(json.dumps(results({**BASE, "coref/event/conll/cdlm": 60.0})))
    assert cli.main(["compare", str(tmp_path / "same.json"), str(tmp_path / "base.json")]) == 0
    assert ": OK" in capsys.readouterr().out
    assert cli.main(["compare", str(tmp_path / "drift.json"), str(tmp_path / "base.json"), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"ok", "run", "baseline", "profile", "checked", "same_machine", "drift", "missing",
                           "not_applicable", "within_band", "new", "timings", "notes"}
    assert report["ok"] is False and report["checked"] == 2
    assert report["drift"] == [{"metric": "coref/event/conll/cdlm", "baseline": BASE["coref/event/conll/cdlm"],
                                "now": 60.0, "kind": "deterministic",
                                "difference": pytest.approx(60.0 - BASE["coref/event/conll/cdlm"]),
                                "relative": pytest.approx(60.0 / BASE["coref/event/conll/cdlm"] - 1)}]
    assert cli.main(["compare", str(tmp_path / "drift.json"), str(tmp_path / "base.json"), "--rtol", "0.2"]) == 0


CPU_A = {"model": "AMD EPYC", "capability": "AVX2", "threads": "2"}
CPU_B = {"model": "AMD EPYC", "capability": "AVX512", "threads": "2"}


def test_metrics_of_an_absent_optional_input_are_not_applicable_not_missing():
    base = results(BASE | {"hotpot/dev/ans_f1/cdlm": 0.7, "calibration/multinews/docs": 3.0})
    inputs = {"hotpotqa_dev": {"metrics": "hotpot/dev/", "source": None, "notebook": "06_multihop_qa"},
              "multinews_sample": {"metrics": "calibration/multinews", "source": "/data/mn", "notebook": "01"}}
    result = compare_results(results(BASE | {"calibration/multinews/docs": 3.0}, inputs=inputs), base)
    assert result.ok and [row.metric for row in result.not_applicable] == ["hotpot/dev/ans_f1/cdlm"]
    assert any("hotpotqa_dev absent here" in note for note in result.notes)
    assert "not applicable here" in format_comparison(result)
    present = compare_results(results(BASE), base)  # no input declared absent: the same rows are missing
    assert not present.ok and len(present.missing) == 2


def test_another_machine_may_move_within_the_seed_band_and_no_further():
    bands = {"coref/event/conll/cdlm": 5.0}
    moved = BASE | {"coref/event/conll/cdlm": BASE["coref/event/conll/cdlm"] + 4.0}
    elsewhere = compare_results(results(moved, cpu=CPU_B), results(BASE, cpu=CPU_A), bands=bands)
    assert elsewhere.ok and not elsewhere.same_machine and len(elsewhere.within_band) == 1
    same = compare_results(results(moved, cpu=CPU_A), results(BASE, cpu=CPU_A), bands=bands)
    assert not same.ok and same.same_machine  # on the same machine the band does not apply
    edited = BASE | {"coref/event/conll/cdlm": BASE["coref/event/conll/cdlm"] + 6.0}
    assert not compare_results(results(edited, cpu=CPU_B), results(BASE, cpu=CPU_A), bands=bands).ok
    limit = "match_ignition/eval_speedup_limit/alpha_20"
    no_band = BASE | {limit: BASE[limit] * 1.01}  # a deterministic metric without a measured band
    assert not compare_results(results(no_band, cpu=CPU_B), results(BASE, cpu=CPU_A), bands=bands).ok


def test_the_verdict_names_the_notebook_that_differs_or_says_it_matches():
    from cdlm_nb.tooling.regression import verdict

    assert verdict(compare_results(results(BASE), results(BASE))) == (
        "Your run matches the published one within the tolerance of every metric.")
    moved = BASE | {"coref/event/conll/cdlm": BASE["coref/event/conll/cdlm"] + 1.0}
    banded = compare_results(results(moved, cpu=CPU_B), results(BASE, cpu=CPU_A), bands={"coref/event/conll/cdlm": 2})
    assert "within its measured seed spread (1 fine-tuned metrics moved" in verdict(banded)
    moved = compare_results(results(BASE | {"perplexity/cdlm": 2.0}), results(BASE))
    text = verdict(moved, {"03_cross_document_perplexity": ["perplexity/cdlm"]})
    assert "differs from the published one in 1 notebook" in text
    assert "- 03_cross_document_perplexity: 1 metric(s), the largest perplexity/cdlm (1188.507962 -> 2)" in text


def test_float32_outputs_get_a_wider_tolerance_on_another_machine_only():
    moved = BASE | {"perplexity/cdlm": BASE["perplexity/cdlm"] * 1.01}  # 1 %: another CPU's pretraining
    assert compare_results(results(moved, cpu=CPU_B), results(BASE, cpu=CPU_A)).ok
    assert not compare_results(results(moved, cpu=CPU_A), results(BASE, cpu=CPU_A)).ok
    far = BASE | {"perplexity/cdlm": BASE["perplexity/cdlm"] * 1.1}  # 10 %: a change, not float noise
    assert not compare_results(results(far, cpu=CPU_B), results(BASE, cpu=CPU_A)).ok


def test_a_first_run_on_another_cpu_replayed_matches_under_todays_rules():
    """The six metrics that made a user's first run say "differs" (issue 73: a fresh clone on a 2-core AMD EPYC
    against the baseline of main @09a9554, published from an Intel Xeon), replayed against today's kinds and
    measured bands: values at zero get an absolute floor, attention readings their measured cross-CPU tolerance,
    the copy gain's interval the pretraining seed band."""
    from cdlm_nb.tooling.seed_spread import load_bands

    baseline = {"copy_gain/local": -2.6272019735709367e-09, "copy_gain/local/ci_low": -8.415393938564e-09,
                "copy_gain/local/ci_high": 0.0, "copy_gain/cdlm/ci_low": 0.005606651761348839,
                "attention_reach/cdlm/other_documents": 1.709873596369742,
                "mpr/pos/entity/longformer": 42.791545868901586}
    first_run = {"copy_gain/local": 1.3e-09, "copy_gain/local/ci_low": 0.0, "copy_gain/local/ci_high": 4.1e-09,
                 "copy_gain/cdlm/ci_low": 0.005606651761348839 * 0.88,
                 "attention_reach/cdlm/other_documents": 1.709873596369742 * 0.935,
                 "mpr/pos/entity/longformer": 40.6}
    bands = load_bands(Path(__file__).resolve().parents[2] / "baselines" / "cpu.json")
    replayed = compare_results(results(first_run, "cpu", cpu=CPU_B), results(baseline, "cpu", cpu=CPU_A),
                               bands=bands)
    assert replayed.ok and not replayed.drift, format_comparison(replayed)
    assert [row.metric for row in replayed.within_band] == ["copy_gain/cdlm/ci_low"]
    on_one_machine = compare_results(results(first_run, "cpu", cpu=CPU_A), results(baseline, "cpu", cpu=CPU_A))
    assert len(on_one_machine.drift) == 6  # on the baseline's own machine every one of them would be a change
    far = first_run | {"mpr/pos/entity/longformer": 42.791545868901586 * 0.7, "copy_gain/local": 0.05}
    drifted = compare_results(results(far, "cpu", cpu=CPU_B), results(baseline, "cpu", cpu=CPU_A), bands=bands).drift
    assert {row.metric for row in drifted} == {"mpr/pos/entity/longformer", "copy_gain/local"}
