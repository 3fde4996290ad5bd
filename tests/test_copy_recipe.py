"""tools/copy_recipe.py: the whole-statement masking it adds to CD-MLM, and a short run scored by the copy probe."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import torch

TOOL = Path(__file__).resolve().parent.parent / "tools" / "copy_recipe.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("copy_recipe", TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_one_statement_of_each_shared_fact_is_masked_whole_on_top_of_the_usual_masks(tiny_tokenizer):
    from cdlm_nb.masking import IGNORE_INDEX, CrossDocumentMLMCollator

    row = torch.tensor(tiny_tokenizer("the mayor won the race and the mayor took office")["input_ids"])
    statements = {tuple(row.tolist()): [[(2, 3)], [(5,), (6,)]]}
    collator = load_tool().statement_masking_collator(CrossDocumentMLMCollator, statements, 1.0, 0)(tiny_tokenizer)
    masked = collator.mask_row(row)
    assert masked.predicted[[2, 3]].all() and (masked.input_ids[[2, 3]] == tiny_tokenizer.mask_token_id).all()
    assert masked.predicted[[5, 6]].any()  # one of the fact's two statements (the other, only if drawn)
    assert (masked.labels[masked.predicted] == row[masked.predicted]).all()
    assert (masked.labels[~masked.predicted] == IGNORE_INDEX).all()
    never = load_tool().statement_masking_collator(CrossDocumentMLMCollator, statements, 0.0, 0)(tiny_tokenizer)
    assert never.mask_row(row).predicted.sum() == CrossDocumentMLMCollator(tiny_tokenizer).mask_row(row).predicted.sum()


@pytest.mark.slow
def test_a_short_recipe_on_a_fresh_world_is_scored_on_validation_clusters(tmp_path, capsys):
    assert load_tool().main(["--steps", "60", "--fresh-worlds", "1", "--statement-masking", "1",
                             "--output-dir", str(tmp_path / "run")]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["model"] for row in rows] == ["start", "cdlm"]
    assert all(row["tokens"] > 0 and row["ci"][0] <= row["copy_gain"] <= row["ci"][1] for row in rows)
