"""The HotpotQA-style questions: supporting facts exist and hold the answer, both question types present."""

from __future__ import annotations

import pytest


def test_qa_supporting_facts_exist_and_contain_the_answer(any_world, check_qa):
    types = check_qa(any_world)
    assert types["bridge"] > 0 and types["comparison"] > 0


@pytest.mark.slow
def test_cpu_world_asks_two_comparisons_per_task_topic_one_of_them_yes_no(cpu_world, check_qa):
    config = cpu_world.config
    types = check_qa(cpu_world)
    topics = config.task_topics + config.dev_topics + config.test_topics
    assert types["comparison"] == 2 * topics and types["yes"] + types["no"] == topics
    assert types["yes"] > 0 and types["no"] > 0


def test_a_yes_no_question_agrees_with_the_named_comparison_of_its_topic(any_world, rows_of):
    import re

    from cdlm_nb.data.world.lexicon import EVENT_TYPES

    patterns = [re.compile(re.escape(e.comparison.yes_no).replace(r"\{a\}", "(.+)").replace(r"\{b\}", "(.+)") + "$")
                for e in EVENT_TYPES]
    rows = {row["id"]: row for row in rows_of(any_world.qa)}
    checked = 0
    for qid, row in rows.items():
        if qid.endswith("/yes_no"):
            first, _ = next(m for m in (p.match(row["question"]) for p in patterns) if m).groups()
            winner = rows[qid.replace("/yes_no", "/comparison")]["answer"]
            assert row["answer"] == ("yes" if first == winner else "no"), row
            checked += 1
    assert checked > 0
