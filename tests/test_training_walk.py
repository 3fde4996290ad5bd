"""The walk from a notebook's training loop to `backward()` is short: at most three package functions on the stack
when the loss's gradient is taken (issue: the experiment in view), measured on notebook 05's and notebook 10's
loops as the notebooks write them out."""

from __future__ import annotations

import copy
import inspect
from dataclasses import replace
from pathlib import Path

import torch

from cdlm_nb.profiles import get_profile
from cdlm_nb.support.paths import PACKAGE_DIR

MOST_PACKAGE_FRAMES = 3


def package_frames_at_backward(monkeypatch, loop) -> list[str]:
    """The longest chain of `cdlm_nb` functions on the stack at any `Tensor.backward` while `loop()` runs."""
    chains: list[list[str]] = []
    real = torch.Tensor.backward

    def spy(tensor, *args, **kwargs):
        chains.append([f"{Path(frame.filename).relative_to(PACKAGE_DIR)}:{frame.function}"
                       for frame in inspect.stack() if Path(frame.filename).is_relative_to(PACKAGE_DIR)])
        return real(tensor, *args, **kwargs)

    monkeypatch.setattr(torch.Tensor, "backward", spy)
    loop()
    assert chains, "no backward() ran"
    return max(chains, key=len)


def notebook_loop(search) -> None:
    """The cell notebooks 05, 09, 10 and 11 write out."""
    for rate in search.rates():
        model = search.reset()
        for epoch in search.fine_tune(model, rate):
            search.keep(model, rate, epoch)
    search.finish()


def test_notebook_05s_loop_reaches_backward_within_three_package_functions(monkeypatch, tiny_encoder):
    from cdlm_nb.matching.experiment import ClassifierSearch
    from tests.matching.test_matching_experiment import _pairs

    splits = {"train": _pairs(4), "dev": _pairs(2), "test": _pairs(2)}
    config = replace(get_profile("smoke").matching, epochs=1, batch_size=4, max_length=64)
    search = ClassifierSearch.start("cdlm", copy.deepcopy(tiny_encoder.model), tiny_encoder.tokenizer, splits, config)
    chain = package_frames_at_backward(monkeypatch, lambda: notebook_loop(search))
    assert len(chain) <= MOST_PACKAGE_FRAMES, chain


def test_notebook_10s_loop_reaches_backward_within_three_package_functions(monkeypatch):
    from cdlm_nb.cda import experiment
    from tests.cda.test_cda_experiment import ROWS

    config = replace(get_profile("smoke").cda, epochs=1)
    prepared = experiment.prepare({name: ROWS for name in experiment.SPLITS}, config)
    chain = package_frames_at_backward(
        monkeypatch, lambda: notebook_loop(experiment.ModelSearch("gru_han_shallow", prepared, config)))
    assert len(chain) <= MOST_PACKAGE_FRAMES, chain


def test_notebook_02s_loop_reaches_backward_within_three_package_functions(monkeypatch, tmp_path, tiny_encoder,
                                                                          word_clusters):
    """The cell's `stages.reuse_or_pretrain` -> `train_variant` -> `trainer.pretrain`; transformers' Trainer takes
    the gradient from there."""
    from cdlm_nb.pretraining import stages

    smoke = get_profile("smoke")
    config = replace(smoke.pretrain, variants=("local",), max_steps=2, warmup_steps=0, max_length=128)
    chain = package_frames_at_backward(monkeypatch, lambda: stages.reuse_or_pretrain(
        "local", config, smoke, tiny_encoder, word_clusters, tmp_path, resume=False, echo=lambda line: None))
    assert len(chain) <= MOST_PACKAGE_FRAMES, chain
