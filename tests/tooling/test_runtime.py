import json
import math

import pytest

import cdlm_nb
from cdlm_nb.support.errors import ConfigError
from cdlm_nb.support.progress import is_headless, progress
from cdlm_nb.tooling import runtime


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
    identity = cdlm_nb.tooling.runtime.cpu_identity()
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
    from transformers import set_seed

    def draws():
        return random.random(), float(np.random.rand()), float(torch.rand(1))

    set_seed(3)
    expected = draws()
    set_seed(3)
    with runtime.random_state_kept():
        draws(), set_seed(99), draws()  # a build on the side draws and seeds
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
    assert not is_headless()
    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    assert is_headless()


def test_progress_is_silent_when_headless(monkeypatch):
    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    assert progress(range(3)).disable


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


def _count_writes(monkeypatch) -> list:
    """Every record-file write from now on, still done (the writer wrapped)."""
    writes, write = [], runtime.write_text_atomic
    monkeypatch.setattr(runtime, "write_text_atomic", lambda path, text: (writes.append(path), write(path, text)))
    return writes


def test_record_all_writes_the_file_once(session, monkeypatch):
    writes = _count_writes(monkeypatch)
    metrics = {f"perplexity/{i}": i + 0.5 for i in range(25)}
    recorded = cdlm_nb.record_all(metrics, prefix="nb03/")
    assert recorded == {f"nb03/perplexity/{i}": i + 0.5 for i in range(25)}
    assert writes == [session.metrics_path.resolve()]
    assert json.loads(session.metrics_path.read_text()) == recorded


def test_record_reads_the_file_once_and_writes_it_whole_each_time(session, monkeypatch):
    reads, read = [], runtime.read_record
    monkeypatch.setattr(runtime, "read_record", lambda path: (reads.append(path), read(path))[1])
    writes = _count_writes(monkeypatch)
    for i in range(5):
        cdlm_nb.record(f"m/{i}", i)
    assert len(reads) == 1 and len(writes) == 5
    assert json.loads(session.metrics_path.read_text()) == {f"m/{i}": float(i) for i in range(5)}


def test_record_all_keeps_nothing_when_one_figure_is_not_finite(session):
    with pytest.raises(ValueError, match=r"record\('b', nan\) is not finite"):
        cdlm_nb.record_all({"a": 1.0, "b": math.nan})
    assert not session.metrics_path.exists()


def test_a_new_setup_forgets_the_figures_of_the_run_before(tmp_path):
    cdlm_nb.setup("smoke", notebook="01_x", run_dir=tmp_path, verbose=False)
    cdlm_nb.record_all({"a": 1, "b": 2})
    session = cdlm_nb.setup("smoke", notebook="01_x", run_dir=tmp_path, verbose=False)
    cdlm_nb.record("c", 3)
    assert json.loads(session.metrics_path.read_text()) == {"c": 3.0}


def test_a_gpu_profile_on_a_cpu_is_planned_without_measuring_the_cpu(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "matmul_gflops", lambda *a, **k: pytest.fail("setup measured the CPU"))
    monkeypatch.setattr(runtime, "detect_device", lambda: "cpu")
    session = cdlm_nb.setup("gpu-rehearsal", notebook="04_coreference", run_dir=tmp_path, verbose=False)
    assert session.plan is not None and math.isnan(session.plan.minutes)
    assert "minutes not estimated" in session.plan.summary()


def test_the_plan_takes_the_cpu_rate_notebook_00_recorded_in_the_run_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "matmul_gflops", lambda *a, **k: pytest.fail("setup measured the CPU"))
    monkeypatch.setattr(runtime, "detect_device", lambda: "cpu")
    probe = runtime.notebook_record(tmp_path, runtime.PROBE_NOTEBOOK, "metrics")
    probe.parent.mkdir(parents=True)
    probe.write_text(json.dumps({runtime.PROBE_METRIC: 40.0}))
    session = cdlm_nb.setup("gpu-rehearsal", notebook="04_coreference", run_dir=tmp_path, verbose=False)
    assert session.plan.card.peak_tflops == pytest.approx(0.04) and math.isfinite(session.plan.minutes)


def test_notebook_display_shows_tables_whole_and_leaves_out_only_longformers_padding_note():
    import logging

    import pandas as pd

    runtime.notebook_display()
    runtime.notebook_display()  # once per session is enough; twice adds nothing
    longformer = logging.getLogger("transformers.models.longformer.modeling_longformer")
    assert pd.get_option("display.max_columns") is None and len(longformer.filters) == 1

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord(longformer.name, logging.WARNING, __file__, 1, message, None, None)

    assert not longformer.filter(record(f"{runtime.LONGFORMER_PADDING_NOTE}: 64"))
    assert longformer.filter(record("We strongly recommend passing in an `attention_mask`"))
