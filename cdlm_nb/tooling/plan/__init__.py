"""The memory and time plan of the notebooks on one device (`cdlm-nb plan`; printed at the top of every gpu
notebook): which batch, accumulation, precision and checkpointing fit the card, and how long each notebook takes."""

from ...support.precision import precision_for
from .cards import CARDS, Card, get_card, this_card
from .planner import NotebookPlan, plan_notebook, plan_suite

__all__ = ["CARDS", "Card", "NotebookPlan", "get_card", "plan_notebook", "plan_suite",
           "precision_for", "this_card"]
