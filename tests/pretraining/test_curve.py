"""The learning curve: validation perplexity from the start on, measured without changing the training run."""

from __future__ import annotations

import pytest


def test_curve_points_are_read_from_the_log_history_in_step_order():
    from cdlm_nb.pretraining.curve import CURVE_KEY, curve_points

    history = [{"step": 4, CURVE_KEY: 9.0}, {"step": 4, "loss": 2.0}, {"step": 0, CURVE_KEY: 20.0}]
    assert curve_points(history) == [(0, 20.0), (4, 9.0)]


def test_the_curve_starts_at_the_start_and_leaves_training_unchanged(tmp_path, clusters, tiny_encoder, tiny_config):
    import torch

    from cdlm_nb.inputs import pack_clusters
    from cdlm_nb.perplexity.evaluate import evaluate_perplexity
    from cdlm_nb.pretraining.curve import PerplexityCurve
    from cdlm_nb.pretraining.trainer import pretrain
    from cdlm_nb.variants import load_pretrained

    model, tokenizer = tiny_encoder.model, tiny_encoder.tokenizer
    heldout = pack_clusters(clusters.select(range(3)), tokenizer, 128, seed=1)
    config = tiny_config(max_steps=5, learning_rate=1e-2)
    curve = PerplexityCurve(tokenizer, heldout, "cdlm", every=2)
    measured = pretrain("cdlm", config, model, tokenizer, clusters, tmp_path / "curve", callbacks=[curve])
    plain = pretrain("cdlm", config, model, tokenizer, clusters, tmp_path / "plain")

    assert [step for step, _ in measured.perplexity_history] == [0, 2, 4, 5]  # the start, every 2 steps, the last
    start = evaluate_perplexity(model, tokenizer, heldout, "cdlm", n_resamples=10).ppl
    final = evaluate_perplexity(load_pretrained(tmp_path / "curve", "cdlm").model, tokenizer, heldout, "cdlm",
                                n_resamples=10).ppl
    assert measured.perplexity_history[0][1] == pytest.approx(start, rel=1e-4)
    assert measured.perplexity_history[-1][1] == pytest.approx(final, rel=1e-4)
    assert measured.perplexity_history[-1][1] < start  # the model learned between the first and last point
    assert measured.loss_history == plain.loss_history and plain.perplexity_history == []
    trained = load_pretrained(tmp_path / "plain", "cdlm").model.state_dict()
    for name, weight in load_pretrained(tmp_path / "curve", "cdlm").model.state_dict().items():
        assert torch.equal(trained[name], weight), name
