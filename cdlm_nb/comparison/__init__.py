"""Notebook 11: every system of the tutorial on the same pairs, with the same accounting (`systems`), and the
`report`: bootstrap intervals, hard negatives, length buckets, disagreements, the Pareto front, the readings."""
