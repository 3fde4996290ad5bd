"""Notebook 06's recorded metric names, the paper table beside ours, and the breakdown by question type."""

import math

from cdlm_nb.multihop import report
from cdlm_nb.multihop.baselines import most_frequent_answer
from cdlm_nb.multihop.experiment import REFERENCE, TFIDF, QARun, real_runs, reference_run, score
from cdlm_nb.multihop.inputs import Decoded
from cdlm_nb.multihop.metric import HotpotScores

CONTEXT = {"title": ["A", "B"], "sentences": [["a0", "a1"], ["b0", "b1"]]}
ROWS = [{"id": "b", "type": "bridge", "answer": "Lyon", "supporting_facts": {"title": ["A"], "sent_id": [0]},
         "context": CONTEXT, "question": "Where was a0 born?"},
        {"id": "c", "type": "comparison", "answer": "yes", "supporting_facts": {"title": ["B"], "sent_id": [1]},
         "context": CONTEXT, "question": "Is b1 older than a1?"}]


def _run(name, answers):
    predictions = {qid: Decoded(answer, [("A", 0)], ["A"]) for qid, answer in answers.items()}
    return score(name, predictions, ROWS, 1.0)


def test_recorded_names_and_values_follow_the_issue():
    metrics = report.qa_metrics("world", {TFIDF: _run(TFIDF, {"b": "Lyon", "c": "no"})})
    assert metrics == {"hotpot/world/ans_f1/tfidf": 50.0, "hotpot/world/sp_f1/tfidf": 50.0,
                       "hotpot/world/joint_f1/tfidf": 50.0}


def test_type_table_splits_bridge_and_comparison():
    table = report.type_table({"cdlm": _run("cdlm", {"b": "Lyon", "c": "yes"})}, ROWS)
    assert table.loc[("CDLM", "bridge (1)"), "answer F1"] == 100.0
    assert table.loc[("CDLM", "comparison (1)"), "support F1"] == 0.0
    assert list(report.type_table({}, None).columns) == ["note"]


def test_paper_table_keeps_the_missing_rows_empty_and_adds_ours():
    table = report.paper_table({"world test": {"cdlm": _run("cdlm", {"b": "Lyon", "c": "yes"})}})
    assert table.loc["Longformer (paper)", "joint F1"] == 64.5
    assert table.loc["CDLM (paper)"].isna().all()
    assert table.loc["CDLM (world test)", "answer F1"] == 100.0 and not math.isnan(table.loc["CDLM (world test)",
                                                                                             "joint F1"])


def test_readings_name_a_model_giving_every_question_one_answer():
    runs = {"cdlm": _run("cdlm", {"b": "yes", "c": "yes"}), "longformer": _run("longformer", {"b": "Lyon", "c": "no"}),
            TFIDF: _run(TFIDF, {"b": "no", "c": "no"}), REFERENCE: _run(REFERENCE, {"b": "no", "c": "yes"})}
    lines = report.readings(runs, {}, "world test", "smoke", "world")
    assert lines[0].startswith("- learned nothing here (not above every reference row; left out of every ranking "
                               "and claim): CDLM (world test answer F1 50.0 ≤ 50.0; gives 100 % of the test inputs "
                               "'yes'), ")
    assert not any("CDLM −" in line or "best CDLM" in line for line in lines)


def test_the_reference_row_answers_the_most_frequent_answer_with_every_sentence_as_support():
    assert most_frequent_answer([{"answer": "no"}, {"answer": "yes"}, {"answer": "yes"}]) == "yes"
    run = reference_run(ROWS, "yes")
    assert run.scores.metrics["em"] == 0.5  # right on the yes question
    assert run.scores.metrics["sp_recall"] == 1.0 and run.scores.metrics["sp_prec"] == 0.25
    assert report.qa_metrics("world", {REFERENCE: run})["hotpot/world/ans_f1/most_frequent"] == 50.0
    assert "reference: most frequent answer, every sentence" in report.scores_table({REFERENCE: run}).index
    real = real_runs(ROWS, {}, None, reference_answer="yes")  # no trained model: the two references
    assert set(real) == {TFIDF, REFERENCE} and real[REFERENCE].scores.metrics == run.scores.metrics


def test_readings_rank_and_compare_only_systems_above_the_reference_row():
    runs = {REFERENCE: reference_run(ROWS, "yes"),
            "cdlm": _run("cdlm", {"b": "Paris", "c": "yes"}),  # answer F1 50: the reference's
            "longformer": _run("longformer", {"b": "Lyon", "c": "yes"})}
    lines = report.readings(runs, {}, "world test", "smoke", "world")
    assert ("- world test, best of the systems that learned something: answer F1 Longformer (100.0), support F1 "
            "Longformer (50.0), joint F1 Longformer (50.0).") in lines
    assert lines[0].startswith("- CDLM: learned nothing here (world test answer F1 50.0, not above the 50.0")
    assert any(line.startswith("- world test: CDLM over Longformer") and line.endswith(
        "cannot be checked here (learned nothing here: CDLM).") for line in lines)
    assert not any("holds here" in line for line in lines)


# Made-up results on each side of each threshold of the readings: a system is above the reference row on every F1
# or learned nothing; an ordering holds only when the paired interval over questions excludes 0 and the difference
# exceeds the seed band (`verdicts`).
QUESTIONS = [f"q{i}" for i in range(40)]
REFERENCE_F1 = 0.1  # the made-up reference row scores 0.1 on every F1 of every question


def _made_up(name, per_question):
    """A run scoring `per_question[i]` on answer, support and joint F1 of question i (its answer: the question id)."""
    per = {q: dict.fromkeys(("f1", "sp_f1", "joint_f1"), value) for q, value in zip(QUESTIONS, per_question)}
    metrics = {key: sum(row[key] for row in per.values()) / len(per) for key in ("f1", "sp_f1", "joint_f1")}
    return QARun(name, HotpotScores(metrics, per), {q: Decoded(q, [], []) for q in QUESTIONS}, 0.0)


def _runs(cdlm, longformer, **others):
    return {REFERENCE: _made_up(REFERENCE, [REFERENCE_F1] * 40), "cdlm": _made_up("cdlm", cdlm),
            "longformer": _made_up("longformer", longformer)} | {n: _made_up(n, v) for n, v in others.items()}


def _spread(monkeypatch, band, data="world"):
    """A made-up seed spread: the band of CDLM minus any other system, in points, is `band` on every F1."""
    spread = {f"hotpot/{data}/{metric}/{name}": {"sd": band / 1.96 if name == "cdlm" else 0.0}
              for metric in report.METRICS for name in ("cdlm", "longformer", "local")}
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: spread)


def _line(lines, start):
    (line,) = [line for line in lines if line.startswith(start)]
    return line


CLAIM = "- world test: CDLM over Longformer"


def test_an_ordering_holds_beyond_both_its_interval_and_its_seed_band(monkeypatch):
    _spread(monkeypatch, 19.0)  # CDLM leads by 20 points on every question: the interval is +20 to +20
    lines = report.readings(_runs([0.6] * 40, [0.4] * 40), {}, "world test", "cpu", "world")
    assert _line(lines, CLAIM).endswith("joint F1 difference +20.0 (95 % paired bootstrap +20.0 to +20.0; seed band "
                                        "±19.0) -> holds here.")
    assert _line(lines, "- world test: the lead of CDLM over Longformer: answer F1").endswith("-> holds here.")
    _spread(monkeypatch, 21.0)  # the same lead, within the seed band
    lines = report.readings(_runs([0.6] * 40, [0.4] * 40), {}, "world test", "cpu", "world")
    assert _line(lines, CLAIM).endswith("seed band ±21.0) -> not resolved at this scale.")
    assert _line(lines, "- world test: the lead of CDLM over Longformer: joint F1").endswith(
        "-> not resolved at this scale.")


def test_an_ordering_is_reversed_when_the_paper_s_second_system_is_ahead(monkeypatch):
    _spread(monkeypatch, 19.0)
    lines = report.readings(_runs([0.4] * 40, [0.6] * 40), {}, "world test", "cpu", "world")
    assert _line(lines, CLAIM).endswith("joint F1 difference -20.0 (95 % paired bootstrap -20.0 to -20.0; seed band "
                                        "±19.0) -> reversed here.")
    assert _line(lines, "- world test: the lead of Longformer over CDLM: support F1").endswith("-> holds here.")


def test_a_lead_beyond_the_band_whose_interval_holds_0_is_not_resolved(monkeypatch):
    _spread(monkeypatch, 1.0)  # per question +100 or -80 points: a mean of +10 whose interval holds 0
    lines = report.readings(_runs([1.0, 0.0] * 20, [0.0, 0.8] * 20), {}, "world test", "cpu", "world")
    line = _line(lines, CLAIM)
    assert "joint F1 difference +10.0 (95 % paired bootstrap -" in line
    assert line.endswith("seed band ±1.0) -> not resolved at this scale.")


def test_without_a_measured_spread_nothing_is_resolved(monkeypatch):
    _spread(monkeypatch, 19.0, data="world")  # the real dev records are read with `hotpot/dev/...`: not measured
    lines = report.readings({}, _runs([0.6] * 40, [0.4] * 40), "world test", "cpu", "world")
    assert _line(lines, "- real dev records: CDLM over Longformer").endswith(
        "+20.0 to +20.0; seed spread not measured) -> not resolved at this scale.")


def test_only_systems_above_the_reference_row_on_every_f1_are_ranked_and_led(monkeypatch):
    _spread(monkeypatch, 19.0)
    runs = _runs([0.6] * 40, [0.4] * 40, local=[REFERENCE_F1 + 0.01] * 40, rand=[REFERENCE_F1] * 40)
    lines = report.readings(runs, {}, "world test", "cpu", "world")
    assert lines[0].startswith("- Rand CDLM: learned nothing here (world test answer F1 10.0, not above the 10.0")
    assert not any(line.startswith("- Local CDLM") for line in lines)  # one point above the reference: learned
    assert _line(lines, "- world test, best").endswith("answer F1 CDLM (60.0), support F1 CDLM (60.0), joint F1 CDLM "
                                                       "(60.0).")
    assert [line for line in lines if "the lead of" in line and "Rand" in line] == []  # never ranked
    local = {name: run for name, run in runs.items() if name not in ("cdlm", "rand")}  # Longformer and Local lead
    assert _line(report.readings(local, {}, "world test", "cpu", "world"),
                 "- world test: the lead of Longformer over Local CDLM: answer F1").endswith("-> holds here.")


def test_a_single_system_above_the_reference_is_best_without_a_lead(monkeypatch):
    _spread(monkeypatch, 19.0)
    lines = report.readings(_runs([0.6] * 40, [REFERENCE_F1] * 40), {}, "world test", "cpu", "world")
    assert "- world test, best of the systems that learned something: answer F1 CDLM (60.0), support F1 CDLM " \
           "(60.0), joint F1 CDLM (60.0)." in lines
    assert not any("the lead of" in line for line in lines)
    assert _line(lines, CLAIM).endswith("cannot be checked here (learned nothing here: Longformer).")


def test_without_a_reference_row_nothing_is_ranked_or_compared(monkeypatch):
    _spread(monkeypatch, 0.0)
    runs = {name: run for name, run in _runs([0.6] * 40, [0.4] * 40).items() if name != REFERENCE}
    assert report.readings(runs, {}, "world test", "cpu", "world") == [
        "- world test: no reference row, so no system is ranked or compared."]
