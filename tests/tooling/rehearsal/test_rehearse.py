"""`cdlm-nb rehearse`: the hub switched off and pointed at the stand-ins, the environment restored afterwards, and
one notebook run through the normal runner with the rehearsal profile."""

from __future__ import annotations

import json
import os

import pytest

from cdlm_nb.tooling.cli import build_parser
from cdlm_nb.tooling.rehearsal.rehearse import REHEARSAL_PROFILE, environment, hub_environment, rehearse


def test_the_hub_is_switched_off_and_pointed_at_the_stand_ins(tmp_path):
    variables = hub_environment(tmp_path)
    assert variables["HF_HUB_OFFLINE"] == "1" and variables["HF_DATASETS_OFFLINE"] == "1"
    assert variables["HF_HUB_CACHE"] == str(tmp_path / "hub")
    assert variables["HF_DATASETS_CACHE"] == str(tmp_path / "datasets")
    assert variables["SENTENCE_TRANSFORMERS_HOME"] is None  # its own cache folder would hide the stand-in
    assert variables["MULTINEWS_SHA256"] == str(tmp_path / "hub" / "multinews-sha256.json")  # the stand-ins' hashes


def test_environment_sets_unsets_and_restores(monkeypatch):
    monkeypatch.setenv("CDLM_NB_TEST_KEPT", "before")
    monkeypatch.setenv("CDLM_NB_TEST_UNSET", "before")
    monkeypatch.delenv("CDLM_NB_TEST_NEW", raising=False)
    with environment({"CDLM_NB_TEST_KEPT": "during", "CDLM_NB_TEST_UNSET": None, "CDLM_NB_TEST_NEW": "new"}):
        assert os.environ["CDLM_NB_TEST_KEPT"] == "during" and os.environ["CDLM_NB_TEST_NEW"] == "new"
        assert "CDLM_NB_TEST_UNSET" not in os.environ
    assert os.environ["CDLM_NB_TEST_KEPT"] == "before" and os.environ["CDLM_NB_TEST_UNSET"] == "before"
    assert "CDLM_NB_TEST_NEW" not in os.environ


def test_the_cli_takes_the_runner_options():
    args = build_parser().parse_args(["rehearse", "--only", "02,03", "--output", "x", "--shape", "real"])
    assert (args.only, args.output, args.shape, args.profile) == ("02,03", "x", "real", REHEARSAL_PROFILE)


@pytest.mark.slow
def test_rehearse_runs_a_notebook_from_the_stand_ins(shared_data, tmp_path):  # the datasets are filled from it
    before = os.environ.get("HF_HUB_OFFLINE")
    results = rehearse(tmp_path, only=["00"], echo=lambda message: None)
    assert results["profile"] == REHEARSAL_PROFILE
    assert [(nb["name"], nb["status"]) for nb in results["notebooks"]] == [("00_overview", "ok")]
    assert json.loads((tmp_path / "results.json").read_text())["profile"] == REHEARSAL_PROFILE
    standins = tmp_path / "standins"
    assert (standins / "hub" / "models--allenai--longformer-base-4096" / "refs" / "refs" / "pr" / "7").is_file()
    assert (standins / "datasets" / "hotpotqa___hotpot_qa" / "distractor").is_dir()
    assert (standins / "hub" / "datasets--alexfabbri--multi_news" / "refs" / "main").is_file()  # Multi-News route (a)
    assert (tmp_path / "data" / "ecbplus" / "ECB+" / "36").is_dir()  # where the gpu path's ECB+ download looks
    assert os.environ.get("HF_HUB_OFFLINE") == before


@pytest.mark.slow
def test_rehearse_pretrains_every_variant_when_asked(shared_data, tmp_path):
    """The gpu default takes the released checkpoints; `-p PRETRAIN_STEPS 1` walks the gpu pretraining path
    (Longformer saved as it is, CDLM and the three ablations pretrained from it) from the stand-ins."""
    results = rehearse(tmp_path, only=["02"], parameters={"PRETRAIN_STEPS": 1}, echo=lambda message: None)
    assert [(nb["name"], nb["status"]) for nb in results["notebooks"]] == [("02_pretraining", "ok")]
    models = tmp_path / "models"
    assert {"longformer", "local", "rand", "prefix", "cdlm"} <= {path.name for path in models.iterdir()}
    assert json.loads((models / "cdlm" / "pretraining.json").read_text())["steps"] == 1
