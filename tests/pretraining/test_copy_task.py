"""The copy task: its inputs, and a short run showing the cpu model's attention path can carry a copy at all."""

from __future__ import annotations

import importlib.util
import random

import pytest

from cdlm_nb.masking import IGNORE_INDEX
from cdlm_nb.pretraining import copy_task
from tests.conftest import REPO_ROOT


def test_copy_input_masks_only_the_second_copy(tiny_tokenizer):
    first = tiny_tokenizer("the trial was held in Harare.", add_special_tokens=False)["input_ids"]
    row = copy_task.copy_input(first, first, tiny_tokenizer, 0.5, random.Random(0))
    n = len(first)
    assert row["input_ids"][1:n + 1] == first and all(label == IGNORE_INDEX for label in row["labels"][:n + 2])
    masked = [i for i, label in enumerate(row["labels"]) if label != IGNORE_INDEX]
    assert masked and all(n + 2 <= i < 2 * n + 2 for i in masked)
    assert all(row["input_ids"][i] == tiny_tokenizer.mask_token_id and row["labels"][i] == first[i - n - 2]
               for i in masked)


def test_the_within_reach_probe_swaps_the_halves_of_its_second_copy(tiny_tokenizer, world_texts):
    same = copy_task.within_reach_data(tiny_tokenizer, world_texts)
    swapped = copy_task.within_reach_data(tiny_tokenizer, world_texts, swap_halves=True)
    assert len(same.eval_pairs) == copy_task.WITHIN_REACH_PAIRS
    length, half = copy_task.WITHIN_REACH.length, copy_task.WITHIN_REACH.length // 2
    for (readable, _), (crossed, _) in zip(same.eval_pairs[:5], swapped.eval_pairs[:5]):
        first = readable["input_ids"][1:length + 1]
        assert len(readable["input_ids"]) == 2 * length + 3 <= 64  # inside one 64-token window
        second = [label if label != IGNORE_INDEX else token for token, label in
                  zip(crossed["input_ids"][length + 2:-1], crossed["labels"][length + 2:-1])]
        assert second == first[half:] + first[:half]
    with pytest.raises(Exception, match="no held-out document"):
        copy_task.within_reach_data(tiny_tokenizer, ["too short."])


def test_sentences_cut_after_each_stop_and_keep_every_token():
    assert copy_task.sentences([5, 1, 6, 7, 1, 8], {1}) == [[5, 1], [6, 7, 1], [8]]


@pytest.mark.slow
def test_the_shipped_start_learns_to_copy_by_position_and_both_attentions_agree():
    """300 steps of a 24-token document written twice (copy by position) from the shipped cpu start: the copy
    gain leaves 0 (docs/experiments.md, "Can the cpu model copy?"); Hugging Face's attention scores the trained
    model as the fast one does."""
    import torch
    from transformers import AutoTokenizer, LongformerForMaskedLM

    from cdlm_nb.data.corpora import world
    from cdlm_nb.longformer_attention import use_fast_attention, use_hf_attention
    from cdlm_nb.pretraining.shipped_base import shipped_base_dir
    from cdlm_nb.profiles import get_profile

    spec = importlib.util.spec_from_file_location("copy_task_tool", REPO_ROOT / "tools" / "copy_task.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    torch.manual_seed(0)
    folder = shipped_base_dir("cpu", "base-long")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = use_fast_attention(tool.full_attention_copy(LongformerForMaskedLM.from_pretrained(folder), 51))
    made = world(get_profile("cpu").world)
    texts = {split: [d for docs in made.clusters[split]["documents"] for d in docs] for split in ("train", "dev")}
    task = copy_task.CopyTask(length=24, steps=300)
    data = copy_task.CopyTaskData(task, tokenizer, copy_task.task_documents(texts["train"], tokenizer, 24),
                                  copy_task.task_documents(texts["dev"], tokenizer, 24), n_eval=32)
    history = tool.train_copy_task(model, data)  # tools/copy_task.py's loop
    assert abs(history[0][2]) < 0.05 and history[-1][2] > 0.2
    fast = copy_task.copy_task_gain(model, data)
    hf = copy_task.copy_task_gain(use_hf_attention(model), data)
    assert fast == pytest.approx(hf, abs=1e-3)
