"""Match-Ignition's speed accounting and the pieces of its experiment that need no training."""

import pytest
import torch
from datasets import Dataset

from cdlm_nb.match_ignition import experiment, report
from cdlm_nb.match_ignition.experiment import Speed, operation_limit, paper_time_cost


class Tokenizer:
    """What `measure_speed` reads of a tokenizer: the protected ids."""

    cls_token_id, sep_token_id = 1, 2


def _bert(layers):
    from transformers import BertConfig, BertForSequenceClassification

    return BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=16, num_hidden_layers=layers,
                                                    num_attention_heads=2, intermediate_size=32,
                                                    max_position_embeddings=40))


def test_the_papers_time_cost_and_our_operation_limit():
    assert paper_time_cost(0.0) == 12
    assert paper_time_cost(0.2) == pytest.approx(2.76, abs=0.01)
    assert paper_time_cost(0.1) == pytest.approx(4.84, abs=0.01)
    assert 12 / paper_time_cost(0.2) == pytest.approx(4.34, abs=0.01)
    assert operation_limit(400, 0.0, 6, 384, 1536) == 1.0
    assert 1.6 < operation_limit(400, 0.2, 6, 384, 1536) < 1.8  # 6-layer MiniLM at 400 tokens
    assert operation_limit(400, 0.2, 12, 768, 3072) > operation_limit(400, 0.2, 6, 384, 1536)  # deeper: more saved


def test_speed_batch_has_the_asked_shape_and_markers():
    class Tokenizer:
        cls_token_id, sep_token_id = 101, 102

        def __call__(self, texts, add_special_tokens):
            return {"input_ids": [[len(word) for word in text.split()] for text in texts]}

    rows = Dataset.from_dict({"doc_a": [["a bb ccc"]], "doc_b": [["dddd"]]})
    batch = experiment.speed_batch(rows, Tokenizer(), length=12, size=3)
    ids = batch["input_ids"]
    assert ids.shape == (3, 12) and torch.all(batch["attention_mask"] == 1)
    assert torch.all(ids[:, 0] == 101) and torch.all(ids[:, -1] == 102) and torch.all((ids == 102).sum(1) == 2)


def test_speed_metrics_are_ratios_to_alpha_zero_paired_by_round():
    speeds = [Speed(0.0, (1.0, 2.0, 1.0), (4.0, 4.0, 4.0), 1.0), Speed(0.2, (0.5, 1.0, 0.5), (2.5, 2.5, 2.5), 1.7)]
    metrics = report.speed_metrics(speeds)
    assert metrics["match_ignition/eval_speedup/alpha_20"] == 2.0  # the slow round slowed both alike
    key = "match_ignition/eval_speedup/alpha_20"
    assert metrics[f"{key}/ci_low"] == metrics[f"{key}/ci_high"] == 2.0
    assert metrics["match_ignition/train_speedup/alpha_20"] == 1.6
    assert metrics["match_ignition/eval_speedup_limit/alpha_20"] == 1.7
    assert metrics["match_ignition/eval_speedup/alpha_0"] == 1.0


@pytest.mark.parametrize(("rounds", "side"), [((0.8, 0.82, 0.78, 0.8), "below"), ((0.4, 0.42, 0.38, 0.4), "above"),
                                              ((0.45, 0.9, 0.6, 0.7), "not distinguishable from")])
def test_a_speed_up_is_read_against_its_limit_by_its_whole_interval(rounds, side):
    """Limit 2.0: rounds of 0.8 s against 1 s are 1.25x (below it), 0.4 s 2.5x (above), a wide spread straddles it."""
    line = report.speed_line(Speed(0.0, (1.0,) * 4, (1.0,) * 4, 1.0), Speed(0.2, rounds, rounds, 2.0))
    assert f"), {side} its 2.00× operation-count limit" in line and "over 4 rounds" in line


def test_measure_speed_times_every_alpha_on_the_same_weights():
    ids = torch.tensor([[1, *range(3, 13), 2, *range(13, 23), 2]] * 2)
    speeds = experiment.measure_speed(_bert(3), Tokenizer(),
                                      {"input_ids": ids, "attention_mask": torch.ones_like(ids)}, [0.0, 0.3], 1)
    assert [s.alpha for s in speeds] == [0.0, 0.3] and speeds[0].limit == 1.0 < speeds[1].limit
    assert all(min(s.eval_rounds) > 0 and min(s.train_rounds) > 0 for s in speeds)


def test_measure_speed_runs_every_copy_and_the_batch_on_the_asked_device(monkeypatch):
    moved, seen = [], []

    class Spy(experiment.WordFilterClassifier):
        def to(self, device):
            moved.append(device)
            return super().to(device)

        def forward(self, input_ids, attention_mask, **kwargs):
            seen.append(str(input_ids.device))
            return super().forward(input_ids, attention_mask, **kwargs)

    monkeypatch.setattr(experiment, "WordFilterClassifier", Spy)
    ids = torch.tensor([[1, *range(3, 13), 2]])
    experiment.measure_speed(_bert(2), Tokenizer(),
                             {"input_ids": ids, "attention_mask": torch.ones_like(ids)}, [0.0, 0.3], 1, device="cpu:0")
    assert moved == ["cpu:0", "cpu:0"] and seen and set(seen) == {"cpu"}  # not left where the classifier was built


def _variant(name, decisions, labels):
    import numpy as np

    from cdlm_nb.matching.experiment import MatchingRun
    from cdlm_nb.matching.metrics import pair_scores

    decisions = np.array(decisions)
    return MatchingRun(name, 0.5, {}, pair_scores(labels, decisions), decisions.astype(float), 1.0, 1.0)


def test_tables_show_reference_rows_and_readings_check_no_claim_on_a_variant_that_learned_nothing():
    labels = [1, 0, 0] * 20  # calling every pair related: F1 50.0; none: accuracy 66.7
    runs = {"alpha_10": _variant("alpha_10", labels, labels),
            "alpha_0": _variant("alpha_0", [1, 0, 0] * 19 + [0, 1, 1], labels),
            "no_filter": _variant("no_filter", [1, 1, 0] * 20, labels)}  # accuracy 66.7: none related's
    speeds = [experiment.Speed(0.0, (1.0,), (1.0,), 1.0), experiment.Speed(0.1, (0.8,), (0.8,), 1.2)]
    metrics = report.accuracy_metrics("world", runs, labels)
    assert metrics["match_ignition/world/reference/none_related/acc"] == pytest.approx(200 / 3)
    table = report.ablation_table(runs, 0.1, labels)
    assert table.loc["reference: all related", "ours F1"] == 50.0
    assert list(report.lambda_table({"first_5": runs["alpha_0"].test}, labels).index)[-1] == "reference: none related"
    lines = report.readings(runs, speeds, 0.1, labels, "smoke", "world")
    assert any(line.startswith("- the truncated cross-encoder: learned nothing here (accuracy 66.7") for line in lines)
    assert any(line.startswith("- Match-Ignition, Table 3: both filters over the truncated cross-encoder (")
               and "): cannot be checked here (learned nothing here: the truncated cross-encoder)" in line
               for line in lines)
    # 60 test pairs and no seed spread on smoke: the best α's lead is not resolved
    assert any("Table 4: the best α over α = 0" in line and line.endswith("not resolved at this scale.")
               for line in lines)
