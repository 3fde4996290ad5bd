"""`cdlm-nb hotpot-eval PREDICTION GOLD [--json]` on both gold layouts, and its errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cdlm_nb.multihop.metric import OFFICIAL_KEYS
from cdlm_nb.tooling import cli

ORIGINAL = [{"_id": "a1", "question": "Who?", "answer": "Ann Lee", "supporting_facts": [["P", 0], ["Q", 1]],
             "context": [["P", ["Ann Lee spoke.", " She left."]], ["Q", ["Bo came.", " Bo stayed."]]]}]
HF = [{"id": "a1", "question": "Who?", "answer": "Ann Lee", "type": "bridge", "level": "easy",
       "supporting_facts": {"title": ["P", "Q"], "sent_id": [0, 1]},
       "context": {"title": ["P", "Q"], "sentences": [["Ann Lee spoke.", " She left."], ["Bo came.", " Bo stayed."]]}}]


def _write(tmp_path: Path, name: str, content) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(content) if not isinstance(content, str) else content)
    return str(path)


@pytest.mark.parametrize("gold", [ORIGINAL, HF], ids=["original", "hugging_face"])
def test_json_prints_the_official_keys_as_fractions(tmp_path, capsys, gold):
    prediction = _write(tmp_path, "pred.json", {"answer": {"a1": "Lee"}, "sp": {"a1": [["P", 0]]}})
    assert cli.main(["hotpot-eval", prediction, _write(tmp_path, "gold.json", gold), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert list(metrics) == list(OFFICIAL_KEYS)
    assert metrics["f1"] == pytest.approx(2 / 3) and metrics["sp_recall"] == 0.5 and metrics["sp_prec"] == 1.0
    assert metrics["joint_prec"] == pytest.approx(1.0) and metrics["joint_recall"] == pytest.approx(0.25)


def test_a_malformed_prediction_names_the_file_and_the_id(tmp_path, capsys):
    gold = _write(tmp_path, "gold.json", ORIGINAL)
    assert cli.main(["hotpot-eval", _write(tmp_path, "bad.json", "{not json"), gold]) == 2
    assert "bad.json, line 1: malformed JSON" in capsys.readouterr().err
    wrong = _write(tmp_path, "wrong.json", {"answer": {"a1": "x"}, "sp": {"a1": [["P", "0"]]}})
    assert cli.main(["hotpot-eval", wrong, gold]) == 2
    assert "wrong.json, sp of id a1: expected a list of [title, sentence id] pairs" in capsys.readouterr().err


def test_missing_and_unknown_ids_are_said(tmp_path, capsys):
    prediction = _write(tmp_path, "pred.json", {"answer": {"zz": "x"}, "sp": {"a1": [["P", 0]]}})
    assert cli.main(["hotpot-eval", prediction, _write(tmp_path, "gold.json", ORIGINAL)]) == 0
    err = capsys.readouterr().err
    assert "no answer for 1 gold ids (first: a1): they score 0" in err
    assert "1 predicted ids are not in the gold file (first: zz): ignored" in err


def test_the_gold_answers_score_one_on_the_real_samples(shared_data, tmp_path):
    from cdlm_nb.data.hotpotqa import load_hotpotqa
    from cdlm_nb.tooling.official_files import evaluate_files

    for name in ("hotpot_dev_distractor_v1.sample.json", "hotpot_dev_distractor.hf_layout.sample.json"):
        gold = shared_data / "hotpotqa" / name
        rows = load_hotpotqa(gold)
        perfect = {"answer": {r["id"]: r["answer"] for r in rows},
                   "sp": {r["id"]: [list(f) for f in zip(r["supporting_facts"]["title"],
                                                          r["supporting_facts"]["sent_id"])] for r in rows}}
        scores = evaluate_files(_write(tmp_path, "perfect.json", perfect), gold)
        assert all(value == pytest.approx(1.0) for value in scores.metrics.values()), name


def test_the_installed_command_runs(tmp_path):
    command = Path(sys.executable).with_name("cdlm-nb")
    if not command.exists():
        pytest.skip(f"no installed entry point beside {sys.executable}")
    prediction = _write(tmp_path, "pred.json", {"answer": {"a1": "Ann Lee"}, "sp": {"a1": [["P", 0], ["Q", 1]]}})
    done = subprocess.run([str(command), "hotpot-eval", prediction, _write(tmp_path, "gold.json", HF), "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["joint_em"] == 1.0
