"""tools/copy_recipe.py: the whole-statement masking it adds to CD-MLM, and a short run scored by the copy probe."""

from __future__ import annotations

import json
import random

import pytest
import torch

TOOL = "tools/copy_recipe.py"


def test_one_statement_of_each_shared_fact_is_masked_whole_on_top_of_the_usual_masks(tiny_tokenizer, load_script):
    from cdlm_nb.masking import IGNORE_INDEX, CrossDocumentMLMCollator

    row = torch.tensor(tiny_tokenizer("the mayor won the race and the mayor took office")["input_ids"])
    statements = {tuple(row.tolist()): [[(2, 3)], [(5,), (6,)]]}
    masking = load_script(TOOL).StatementMasking
    collator = masking(tiny_tokenizer, statements=statements, probability=1.0, rng=random.Random(0))
    masked = collator.mask_row(row)
    assert masked.predicted[[2, 3]].all() and (masked.input_ids[[2, 3]] == tiny_tokenizer.mask_token_id).all()
    assert masked.predicted[[5, 6]].any()  # one of the fact's two statements (the other, only if drawn)
    assert (masked.labels[masked.predicted] == row[masked.predicted]).all()
    assert (masked.labels[~masked.predicted] == IGNORE_INDEX).all()
    never = masking(tiny_tokenizer, statements=statements, probability=0.0)
    assert never.mask_row(row).predicted.sum() == CrossDocumentMLMCollator(tiny_tokenizer).mask_row(row).predicted.sum()


@pytest.mark.slow
def test_a_short_recipe_on_a_fresh_world_is_scored_on_validation_clusters(tmp_path, capsys, load_script):
    assert load_script(TOOL).main(["--steps", "60", "--fresh-worlds", "1", "--statement-masking", "1",
                             "--output-dir", str(tmp_path / "run")]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["model"] for row in rows] == ["start", "cdlm"]
    assert all(row["tokens"] > 0 and row["ci"][0] <= row["copy_gain"] <= row["ci"][1] for row in rows)
