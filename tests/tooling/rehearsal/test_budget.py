"""The rehearsal's per-notebook time check, on constructed runs: scaled by the CPU's probe, failed past its share."""

import pytest

from cdlm_nb.profiles import REHEARSAL_MINUTES
from cdlm_nb.tooling.rehearsal import budget


def _results(*seconds, probe=None):
    metrics = {} if probe is None else {budget.PROBE_METRIC: probe}
    return {"notebooks": [{"name": f"{i:02d}", "seconds": s} for i, s in enumerate(seconds)], "metrics": metrics}


LIMIT = budget.NOTEBOOK_SHARE * REHEARSAL_MINUTES * 60


def test_a_notebook_over_its_share_is_over_on_the_reference_cpu():
    times = budget.notebook_times(_results(10.0, LIMIT + 1), budget.REFERENCE_GFLOPS)
    assert [t.over for t in times] == [False, True]
    assert "over their share: 01" in budget.timing_report(times, budget.REFERENCE_GFLOPS)


def test_times_scale_with_the_probe():
    """A CPU half as fast may take twice the seconds; one twice as fast only half."""
    slow = budget.notebook_times(_results(1.5 * LIMIT), budget.REFERENCE_GFLOPS / 2)
    fast = budget.notebook_times(_results(0.75 * LIMIT), budget.REFERENCE_GFLOPS * 2)
    assert not slow[0].over and slow[0].reference_seconds == pytest.approx(0.75 * LIMIT)
    assert fast[0].over


def test_the_probe_comes_from_notebook_00_and_the_section_keeps_every_time():
    results = _results(3.0, probe=123.0)
    assert budget.probe_of(results) == 123.0
    section = budget.timing_section(budget.notebook_times(results, 123.0), 123.0)
    assert section["notebooks"][0]["seconds"] == 3.0 and section["probe_gflops"] == 123.0
    with pytest.raises(ValueError, match="probe_gflops"):
        budget.notebook_times(results, 0.0)
