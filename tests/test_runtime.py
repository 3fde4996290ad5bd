import json
import math

import pytest

import cdlm_nb
from cdlm_nb import runtime
from cdlm_nb.errors import ConfigError


def test_record_writes_this_notebooks_metrics(session):
    cdlm_nb.record("perplexity/cdlm", 12.5)
    cdlm_nb.record("perplexity/local", 14)
    saved = json.loads(session.metrics_path.read_text())
    assert saved == {"perplexity/cdlm": 12.5, "perplexity/local": 14.0}
    assert session.metrics_path.name == "99_test.json"


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_record_refuses_non_finite_numbers(session, bad):
    with pytest.raises(ValueError, match="not finite"):
        cdlm_nb.record("x", bad)


@pytest.mark.parametrize("bad", ["12", None, True])
def test_record_refuses_non_numbers(session, bad):
    with pytest.raises(TypeError, match="needs a number"):
        cdlm_nb.record("x", bad)


def test_setup_clears_the_previous_runs_metrics(tmp_path):
    first = cdlm_nb.setup("smoke", notebook="01_x", run_dir=tmp_path, verbose=False)
    cdlm_nb.record("a", 1)
    cdlm_nb.setup("smoke", notebook="01_x", run_dir=tmp_path, verbose=False)
    assert not first.metrics_path.exists()


def test_record_input_notes_presence_and_setup_clears_it(tmp_path):
    session = cdlm_nb.setup("smoke", notebook="06_x", run_dir=tmp_path, verbose=False)
    assert cdlm_nb.record_input("hotpotqa_dev", "hotpot/dev/", None) is None
    cdlm_nb.record_input("multinews_sample", "calibration/multinews", "/data/mn")
    assert json.loads(session.inputs_path.read_text()) == {
        "hotpotqa_dev": {"metrics": "hotpot/dev/", "source": None},
        "multinews_sample": {"metrics": "calibration/multinews", "source": "/data/mn"}}
    with pytest.raises(ValueError, match="metric prefix"):
        cdlm_nb.record_input("x", "", None)
    cdlm_nb.setup("smoke", notebook="06_x", run_dir=tmp_path, verbose=False)
    assert not session.inputs_path.exists()


def test_a_seed_given_to_setup_is_the_training_seed_and_leaves_the_profile(tmp_path):
    session = cdlm_nb.setup("smoke", notebook="05_x", run_dir=tmp_path, verbose=False, seed=14)
    assert session.seed == 14 and session.profile.seed == cdlm_nb.get_profile("smoke").seed
    assert cdlm_nb.setup("smoke", notebook="05_x", run_dir=tmp_path, verbose=False).seed == session.profile.seed


def test_the_cpu_identity_names_model_vector_instructions_and_threads():
    identity = cdlm_nb.runtime.cpu_identity()
    assert set(identity) == {"model", "capability", "threads"} and identity["capability"]


def test_setup_rejects_an_unknown_profile(tmp_path):
    with pytest.raises(ConfigError, match="choose one of"):
        cdlm_nb.setup("fast", notebook="01_x", run_dir=tmp_path)


def test_setup_seeds_torch_reproducibly(tmp_path):
    import torch

    cdlm_nb.setup("smoke", notebook="01_x", run_dir=tmp_path, verbose=False)
    a = torch.rand(3)
    cdlm_nb.setup("smoke", notebook="01_x", run_dir=tmp_path, verbose=False)
    assert torch.equal(a, torch.rand(3))


def test_work_done_with_the_random_state_kept_leaves_the_next_draws_as_they_were():
    import random

    import numpy as np
    import torch

    def draws():
        return random.random(), float(np.random.rand()), float(torch.rand(1))

    runtime.seed_everything(3)
    expected = draws()
    runtime.seed_everything(3)
    with runtime.random_state_kept():
        draws(), runtime.seed_everything(99), draws()  # a build on the side draws and seeds
    assert draws() == expected


def test_save_figure_names_the_file_after_the_notebook(session):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    path = cdlm_nb.save_figure(fig, "curve")
    plt.close(fig)
    assert path == session.figures_dir / "99_test__curve.png"
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_headless_detection(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("CDLM_NB_HEADLESS", raising=False)
    assert not runtime.is_headless()
    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    assert runtime.is_headless()


def test_progress_is_silent_when_headless(monkeypatch):
    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    assert runtime.progress(range(3)).disable


@pytest.mark.parametrize("cuda, mps, expected", [
    (True, True, "cuda"), (False, True, "mps"), (False, False, "cpu"),
])
def test_device_prefers_cuda_then_mps_then_cpu(monkeypatch, cuda, mps, expected):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    assert runtime.detect_device() == expected


def test_a_notebook_that_forgot_setup_gets_told(monkeypatch):
    monkeypatch.setattr(runtime, "_SESSION", None)
    with pytest.raises(ConfigError, match="call cdlm_nb.setup"):
        cdlm_nb.record("x", 1)
