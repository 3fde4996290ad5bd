import pytest

from cdlm_nb.widgets import default_values, explore, show


def render(pattern="local", mask_rate=0.15, example=0):
    return f"{pattern}|{mask_rate}|{example}"


def test_default_values_prefer_the_functions_own_defaults():
    values = default_values(render, pattern=["cdlm", "local"], mask_rate=(0.05, 0.5, 0.05), example=(0, 9, 1))
    assert values == {"pattern": "local", "mask_rate": pytest.approx(0.15), "example": 0}


def test_default_values_follow_ipywidgets_without_defaults():
    def plain(pattern, rate, flag):
        return None

    values = default_values(plain, pattern=["cdlm", "local"], rate=(0, 10, 2), flag=True)
    assert values == {"pattern": "cdlm", "rate": 4, "flag": True}  # first option, slider middle on a step


def test_explore_renders_once_statically_when_headless(monkeypatch, capsys):
    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    calls = []

    def recording(**values):
        calls.append(values)
        return render(**values)

    explore(recording, pattern=["cdlm", "local"], mask_rate=(0.05, 0.5, 0.05), example=(0, 9, 1))
    assert calls == [{"pattern": "cdlm", "mask_rate": pytest.approx(0.25), "example": 4}]
    assert "cdlm|0.25" in capsys.readouterr().out  # IPython's display prints the text repr outside a kernel


def test_explore_displays_an_interactive_panel_otherwise(monkeypatch):
    import IPython.display
    import ipywidgets

    monkeypatch.delenv("CDLM_NB_HEADLESS", raising=False)
    monkeypatch.delenv("CI", raising=False)
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    assert explore(render, pattern=["cdlm", "local"], example=(0, 9, 1)) is None
    first_render, panel = shown  # the panel renders once when built (into its output area), then is displayed
    assert first_render == "local|0.15|0" and isinstance(panel, ipywidgets.interactive)
    controls = [w.description for w in panel.children if isinstance(w, ipywidgets.ValueWidget)]
    assert controls == ["pattern", "example"]  # mask_rate has no control: it keeps its default, no slider
    panel.close()


def test_show_closes_a_displayed_figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    show(fig)
    assert not plt.fignum_exists(fig.number)
    show(None)
