"""`cdlm-nb pretrain --config FILE`: config errors name the field; the script runs, also under torchrun."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.support.errors import ConfigError


def _script_config(tmp_path, **changes) -> str:
    settings = {
        "profile": "smoke",
        "output_dir": str(tmp_path / "run"),
        "variants": ["cdlm"],
        "pretrain": {"max_steps": 2, "per_device_batch_size": 1, "max_length": 128, "logging_steps": 1},
        "encoder": {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "vocab_size": 400},
        **changes,
    }
    path = tmp_path / "pretrain.json"
    path.write_text(json.dumps(settings))
    return str(path)


def test_script_config_errors_name_the_field(tmp_path):
    from cdlm_nb.tooling.cli import main
    from cdlm_nb.tooling.pretrain_script import pretrain_from_config

    with pytest.raises(ConfigError, match=r"unknown field\(s\) \['steps'\]"):
        pretrain_from_config(_script_config(tmp_path, steps=3))
    with pytest.raises(ConfigError, match=r"'pretrain': unknown PretrainConfig field\(s\) \['lr'\]"):
        pretrain_from_config(_script_config(tmp_path, pretrain={"lr": 1.0}))
    with pytest.raises(ConfigError, match=r"pretrain.json: data.source must be 'world' or 'multinews'"):
        pretrain_from_config(_script_config(tmp_path, data={"source": "wiki"}))
    with pytest.raises(ConfigError, match="unknown model 'bigbird'"):
        pretrain_from_config(_script_config(tmp_path, variants=["bigbird"]))
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ConfigError, match="not valid JSON"):
        pretrain_from_config(tmp_path / "broken.json")
    assert main(["pretrain", "--config", str(tmp_path / "missing.json")]) == 2


@pytest.mark.slow
def test_cli_pretrain_runs_under_torchrun_with_two_processes(tmp_path):
    """`torchrun --nproc_per_node 2 -m cdlm_nb pretrain` on CPU (gloo): both processes train every default variant,
    one saves each model, the start (Longformer) included; the effective batch is the profile's (1 per process)."""
    import os
    import signal
    import subprocess
    import sys

    from cdlm_nb.profiles import PAPER_MODELS
    from cdlm_nb.variants import is_saved, model_problems

    pretrain = {"max_steps": 2, "per_device_batch_size": 2, "max_length": 128, "logging_steps": 1}
    config = _script_config(tmp_path, variants=list(PAPER_MODELS), pretrain=pretrain)
    env = {**os.environ, "CDLM_NB_HEADLESS": "1", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
               "-m", "cdlm_nb", "pretrain", "--config", config, "--json"]
    # Own process group, so a hung run is killed with its workers rather than left behind as orphans.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(f"torchrun did not finish in 240 s:\n{stderr[-3000:]}")
    assert process.returncode == 0, stderr[:3000] + "\n...\n" + stderr[-3000:]  # the failing rank's own lines first
    report = json.loads(stdout)  # progress messages go to stderr: stdout is the JSON report only
    assert [(row["variant"], row["steps"]) for row in report] == [(v, 0 if v == "longformer" else 2)
                                                                   for v in PAPER_MODELS]
    models = tmp_path / "run" / "models"
    for variant in ("base", "base-long", *PAPER_MODELS):  # saved once each, by the main process
        assert is_saved(models / variant) and not model_problems(models / variant), variant
    assert not list((tmp_path / "run").rglob(".*partial*"))  # no save of one process removed by the other
    assert (tmp_path / "run" / "models" / "base" / "model.safetensors").is_file()  # the shared base stage ran first
    saved = json.loads((tmp_path / "run" / "models" / "cdlm" / "pretraining.json").read_text())
    assert saved["setup"]["config"]["max_steps"] == 2 and saved["tokens"] > 0
    assert saved["setup"]["processes"] == 2  # a checkpoint resumes only on as many processes
    assert [step for step, _ in saved["perplexity_history"]] == [0, 2]  # its learning curve, as in notebook 02
    config_json = json.loads((tmp_path / "run" / "models" / "cdlm" / "config.json").read_text())
    assert config_json["architectures"] == ["LongformerForMaskedLM"]  # a plain model, whatever trained it
