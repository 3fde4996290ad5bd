"""Notebook 06's recorded metric names, the paper table beside ours, and the breakdown by question type."""

import math

from cdlm_nb.multihop import report
from cdlm_nb.multihop.baselines import most_frequent_answer
from cdlm_nb.multihop.decoding import Decoded
from cdlm_nb.multihop.experiment import REFERENCE, TFIDF, real_runs, reference_run, score

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
    assert any(line.startswith("- world test: CDLM over Longformer") and "not compared (learned nothing here: CDLM)"
               in line for line in lines)
    assert not any("holds here" in line for line in lines)
