"""Notebook 11: every system of the tutorial on the same pairs, with the same accounting (`systems`), the
analyses (`analysis`: bootstrap intervals, hard negatives, length buckets, disagreements) and the `report`.
"""
