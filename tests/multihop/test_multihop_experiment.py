"""Fine-tuning one QA model: the best dev epoch is kept where a dev split exists, the last epoch elsewhere."""

import copy
from dataclasses import replace

import pytest

from cdlm_nb.multihop.experiment import best_dev_epoch, train_qa
from cdlm_nb.multihop.report import run_line
from cdlm_nb.profiles import get_profile


@pytest.fixture
def config():
    return replace(get_profile("smoke").multihop, max_length=256, epochs=3, batch_size=1, learning_rate=3e-3)


def test_the_epoch_kept_is_the_best_on_dev_and_said(qa_row, qa_tokenizer, tiny_encoder, config):
    rows = [qa_row, {**qa_row, "id": "q2", "question": "Did Acme Corp sell anvils?", "answer": "yes"}]
    run, trained = train_qa("cdlm", copy.deepcopy(tiny_encoder.model), qa_tokenizer,
                            {"train": rows, "dev": rows, "test": rows}, config)
    assert 1 <= run.kept_epoch <= config.epochs
    assert run_line(run, config).endswith(f"epoch {run.kept_epoch} of {config.epochs} kept, best on dev)")
    keeper = best_dev_epoch(trained, rows, config, "cpu")  # the kept weights score as their epoch did on dev
    keeper(1)
    assert -keeper.losses[0] == pytest.approx((run.scores.metrics["f1"] + run.scores.metrics["sp_f1"]) / 2)


def test_without_a_dev_split_the_last_epoch_is_scored(qa_row, qa_tokenizer, tiny_encoder, config):
    run, _ = train_qa("cdlm", copy.deepcopy(tiny_encoder.model), qa_tokenizer, {"train": [qa_row], "test": [qa_row]},
                      replace(config, epochs=1))
    recipe = f"lr {config.learning_rate:g}, batch {config.batch_size}"
    assert run.kept_epoch is None and run_line(run, config).endswith(f" s training at {recipe}, last epoch)")
