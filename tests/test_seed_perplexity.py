"""tools/seed_perplexity.py: scores the variants of another pretraining seed under notebook 03's metric names."""

from __future__ import annotations

import json
import math

import pytest

TOOL = "tools/seed_perplexity.py"


@pytest.mark.slow
def test_a_second_seed_is_trained_beside_the_first_and_scored_like_notebook_03(tmp_path, capsys, load_script):
    from cdlm_nb.profiles import get_profile
    from cdlm_nb.tooling.pretrain_script import pretrain_from_config

    config = tmp_path / "seed14.json"
    config.write_text(json.dumps({"profile": "smoke", "seed": 14, "output_dir": str(tmp_path / "run")}))
    pretrain_from_config(config)
    variants = get_profile("smoke").pretrain.variants
    assert all((tmp_path / "run" / "models" / f"{variant}-seed14").is_dir() for variant in variants)
    capsys.readouterr()  # the training's log lines
    tool = load_script(TOOL)
    assert tool.main([str(tmp_path / "run"), "--seed", "14", "--profile", "smoke"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert all(math.isfinite(metrics[f"perplexity/{variant}"]) and metrics[f"perplexity/{variant}"] > 1
               for variant in variants)
    assert any(key.startswith("perplexity/other/") for key in metrics)  # the fact split (smoke: few fact tokens)
    for variant in (v for v in variants if v != "cdlm"):  # paired with CDLM on the same resampled clusters
        paired = metrics[f"paired/{variant}"]
        assert paired == pytest.approx(metrics[f"perplexity/{variant}"] - metrics["perplexity/cdlm"])
        assert metrics[f"paired/{variant}/ci_low"] <= paired <= metrics[f"paired/{variant}/ci_high"]
    assert "paired/cdlm" not in metrics
    with pytest.raises(Exception, match="seed15"):  # a seed that was not trained: the missing folder is named
        tool.seed_metrics(str(tmp_path / "run"), 15, "smoke")
