"""The HotpotQA-style questions: supporting facts exist and hold the answer, both question types present."""

from __future__ import annotations

import pytest


def test_qa_supporting_facts_exist_and_contain_the_answer(any_world, check_qa):
    types = check_qa(any_world)
    assert types["bridge"] > 0 and types["comparison"] > 0


@pytest.mark.slow
def test_cpu_world_asks_one_comparison_per_task_topic(cpu_world, check_qa):
    config = cpu_world.config
    assert check_qa(cpu_world)["comparison"] == config.task_topics + config.dev_topics + config.test_topics
