"""The plan: cards and precision, batches that fit, the effective batch kept, the targets of the gpu profile on one
16 GB card, the profile a notebook gets, and `cdlm-nb plan`."""

from __future__ import annotations

import json

import pytest

from cdlm_nb.profiles import get_profile
from cdlm_nb.support.errors import ConfigError
from cdlm_nb.support.paths import repo_root
from cdlm_nb.tooling.plan import CARDS, get_card, plan_notebook, plan_suite, precision_for
from cdlm_nb.tooling.plan.cards import H100_UTILISATION, card_like

GPU = get_profile("gpu")


def test_precision_follows_compute_capability():
    assert precision_for((7, 5)) == "fp16"  # T4: bf16 only emulated, no memory-efficient bf16 kernel
    assert precision_for((8, 0)) == precision_for((9, 0)) == "bf16"
    assert precision_for((0, 0)) == "fp32"


def test_cards_are_named_and_recognised():
    with pytest.raises(ConfigError, match="unknown device 'v100'"):
        get_card("v100")
    assert card_like("Tesla T4", 14.6, (7, 5)).key == "t4"
    assert card_like("NVIDIA H100 80GB HBM3", 79.1, (9, 0)).key == "h100"
    other = card_like("NVIDIA RTX 6000 Ada", 47.5, (8, 9))
    assert other.memory_gib == 47.5 and other.capability == (8, 9) and "peak taken from" in other.label


@pytest.mark.parametrize("card", sorted(CARDS))
def test_every_notebook_fits_and_keeps_its_effective_batch(card):
    for plan in plan_suite(GPU, CARDS[card]):
        for job in plan.jobs:
            assert job.fits, (plan.name, job.job.what)
            if job.job.step is not None and job.job.step.training:
                assert job.per_device_batch * job.accumulation >= job.job.batch
                assert job.per_device_batch * (job.accumulation - 1) < job.job.batch  # no needless extra pass


def test_the_targets_of_one_16_gb_card_and_of_the_large_ones():
    """At the utilisation measured on the H100 (the T4 has none of its own): on a T4 every notebook within 15 GiB
    and an hour (03 and 07 within 30 min); on an A100-80 or H100 within 30 min, opt-in pretraining apart."""
    assert CARDS["t4"].utilisation == CARDS["h100"].utilisation == H100_UTILISATION
    for plan in plan_suite(GPU, CARDS["t4"]):
        assert plan.peak_gib <= 15 and plan.minutes <= (30 if plan.name[:2] in ("03", "07") else 60), plan.name
    for card in ("a100-80", "h100"):
        assert all(plan.minutes <= 30 for plan in plan_suite(GPU, CARDS[card])), card


def test_a_card_not_measured_uses_the_h100s_share_and_says_so():
    """Only the H100's share of peak was measured: every other card, a card torch describes and the CPU take it,
    and the plan's text, JSON, table and the notebooks' time lines say where it comes from."""
    from cdlm_nb.tooling.chapter_times import time_line
    from cdlm_nb.tooling.plan.cards import cpu_card
    from cdlm_nb.tooling.plan.report import readme_table, suite_json

    assert CARDS["h100"].utilisation_measured and CARDS["h100"].utilisation_note == "measured on H100"
    h200 = card_like("NVIDIA H200", 139.8, (9, 0))  # its nearest card below is the H100, its share not its own
    for card in [*(c for key, c in CARDS.items() if key != "h100"), h200, cpu_card(100.0)]:
        assert card.utilisation == H100_UTILISATION and not card.utilisation_measured, card.key
        assert card.utilisation_note == f"measured on H100, assumed for {card.short_name}", card.key
    assert cpu_card(100.0).utilisation_note == "measured on H100, assumed for this CPU"
    summary = plan_notebook(GPU, "04_coreference", CARDS["t4"]).summary()
    assert "12 % of 65 TFLOP/s, measured on H100, assumed for T4;" in summary
    assert suite_json(GPU, CARDS["t4"])["utilisation_note"] == "measured on H100, assumed for T4"
    assert "T4 12 % (measured on H100, assumed for T4)" in readme_table(GPU)
    line = time_line("04_coreference", {"04_coreference": 60}, {"04_coreference": 6}, {"04_coreference": 57.5})
    assert "≈ 58 min of compute on a T4 (estimate at the H100's utilisation)" in line


def test_a_notebook_gets_the_planned_batches_in_its_profile():
    plan = plan_notebook(GPU, "04_coreference", CARDS["t4"])
    planned = plan.apply(GPU)
    training = plan.main
    assert planned.coref.per_device_batch == training.per_device_batch
    assert planned.coref.batch_size == GPU.coref.batch_size  # the optimizer step's batch stays the paper's
    assert planned.matching == GPU.matching  # only the notebook's own sections change
    pretraining = plan_notebook(GPU, "02_pretraining", CARDS["t4"]).apply(GPU).pretrain
    assert pretraining.per_device_batch_size * pretraining.gradient_accumulation_steps == 64
    assert plan_notebook(GPU, "00_overview", CARDS["t4"]) is None


def test_cli_prints_the_plan_as_json(capsys):
    from cdlm_nb.tooling.cli import main

    assert main(["plan", "--profile", "gpu", "--device", "t4", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["device"] == "t4"
    row = next(n for n in plan["notebooks"] if n["name"] == "02_pretraining")
    assert set(row) >= {"name", "peak_gib", "minutes", "per_device_batch", "accumulation", "precision",
                        "checkpointing"}
    assert row["precision"] == "fp16" and isinstance(row["checkpointing"], bool)
    assert main(["plan", "--table"]) == 0
    assert "| 04_coreference |" in capsys.readouterr().out


def test_notebook_08_embeds_only_the_documents_its_profile_samples():
    from cdlm_nb.tooling.plan.workloads import CORPUS_SIZES, aose_jobs

    def embedded(profile_name: str) -> dict[str, int]:
        return {job.what.split(":")[0]: job.sequences for job in aose_jobs(get_profile(profile_name))
                if "embedding" in job.what}

    gpu, rehearsal = embedded("gpu"), embedded("gpu-rehearsal")
    config = get_profile("gpu-rehearsal").classification
    assert gpu["imdb"] >= CORPUS_SIZES["imdb"]  # the gpu profile samples nothing: every document
    assert rehearsal["imdb"] < 5 * (config.train_docs + config.test_docs)  # a few segments of its 40 + 20


def test_notebook_02_counts_its_packing_on_the_cpu_once_per_kind_of_input():
    """Tokenizing Multi-News train once and packing it for the related and the unrelated models (the input
    summary's two packings, reused by the speed cell) is a CPU job: the same minutes on every card, no memory."""
    from cdlm_nb.tooling.plan.workloads import (
        MULTINEWS_TRAIN_CLUSTERS,
        PACK_TOKENS_PER_S,
        PACKED_WORD_SHARE,
        TOKENIZE_TOKENS_PER_S,
        TYPICAL_TOKENS,
    )

    tokens = MULTINEWS_TRAIN_CLUSTERS * TYPICAL_TOKENS["multinews"] * PACKED_WORD_SHARE
    expected = (tokens / TOKENIZE_TOKENS_PER_S + 2 * tokens / PACK_TOKENS_PER_S) / 60
    plans = {card: plan_notebook(GPU, "02_pretraining", CARDS[card]) for card in ("t4", "h100")}
    for plan in plans.values():
        (packing,) = [j for j in plan.jobs if j.job.step is None]
        assert packing.minutes == pytest.approx(expected) and packing.peak_gib == 0 and not packing.job.opt_in
        assert plan.minutes >= packing.minutes > 1 and plan.main.job.step is not None
        assert f"tokenizing and packing Multi-News train, once per run folder (on the CPU): {expected:.1f} min" \
            in plan.summary()
    assert plans["t4"].jobs[-2].minutes == plans["h100"].jobs[-2].minutes


def test_the_readme_shows_the_plan_table_the_code_prints():

    from cdlm_nb.tooling.plan.report import readme_table

    readme = (repo_root() / "docs" / "gpu.md").read_text(encoding="utf-8")
    table = readme_table(get_profile("gpu"))
    assert table.strip() in readme, "docs/gpu.md's plan table is stale: paste `cdlm-nb plan --table` there"
