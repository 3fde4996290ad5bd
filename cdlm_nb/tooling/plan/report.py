"""The plan as `cdlm-nb plan` prints it: JSON for tools, a Markdown table (notebook x card) for the README."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CARDS, Card
from .planner import plan_suite, share
from .workloads import PRICED_STEPS

if TYPE_CHECKING:
    from ...profiles import Profile

#: The cards of the README's table (`cdlm-nb plan --table`): Colab's free one and two large ones.
README_CARDS = ("t4", "a100-80", "h100")


def suite_json(profile: "Profile", card: Card) -> dict:
    """`{"device": str, "notebooks": [{"name", "peak_gib", "minutes", "per_device_batch", "accumulation",
    "precision", "checkpointing", ...}]}` for every notebook that runs a model."""
    return {"device": card.key, "label": card.label, "profile": profile.name, "utilisation": card.utilisation,
            "utilisation_measured": card.utilisation_measured, "utilisation_note": card.utilisation_note,
            "notebooks": [plan.to_json() for plan in plan_suite(profile, card)]}


def markdown_table(profile: "Profile", cards: list[Card]) -> str:
    """One row per notebook, one column per card: peak GiB and minutes of compute (estimates), the opt-in
    pretraining of one variant per `PRICED_STEPS` steps, and a line saying which share of each card's peak the
    minutes assume and where it was measured."""
    plans = {card.key: plan_suite(profile, card) for card in cards}
    header = "| notebook | " + " | ".join(card.key.upper() for card in cards) + " |"
    lines = [header, "|---" * (len(cards) + 1) + "|"]
    for row, name in enumerate(plan.name for plan in plans[cards[0].key]):
        cells = [f"{p.peak_gib:.1f} GiB, {p.minutes:.0f} min" for p in (plans[c.key][row] for c in cards)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    opt_in = [next(j for j in plans[c.key][0].jobs if j.job.opt_in) for c in cards]
    lines.append(f"| 02: pretraining one variant, per {PRICED_STEPS:,} steps (opt-in) | "
                 + " | ".join(f"{j.peak_gib:.1f} GiB, {j.minutes:.0f} min" for j in opt_in) + " |")
    notes = "; ".join(f"{card.short_name} {share(card.utilisation)} ({card.utilisation_note})" for card in cards)
    lines += ["", f"Minutes of compute at a share of each card's peak: {notes}."]
    return "\n".join(lines)


def readme_table(profile: "Profile") -> str:
    """`markdown_table` for `README_CARDS`: what `cdlm-nb plan --table` prints and the README shows."""
    return markdown_table(profile, [CARDS[key] for key in README_CARDS])
