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


def _explore_recorded() -> list[dict]:
    """`explore` of `render` with a pattern dropdown and two sliders; the values of every render it made."""
    calls = []

    def recording(**values):
        calls.append(values)
        return render(**values)

    explore(recording, pattern=["cdlm", "local"], mask_rate=(0.05, 0.5, 0.05), example=(0, 9, 1))
    return calls


def test_explore_renders_once_statically_when_headless(monkeypatch, capsys):
    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    calls = _explore_recorded()
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


def test_show_prints_a_tables_caption_under_it(capsys):
    import pandas as pd

    table = pd.DataFrame({"s": [1.0]})
    table.attrs["caption"] = "medians over 10 rounds"
    show(table)
    assert capsys.readouterr().out.rstrip().endswith("medians over 10 rounds")
    show(pd.DataFrame({"s": [1.0]}))
    assert "medians" not in capsys.readouterr().out


# Without ipywidgets (the `lab` extra has it, the core does not): the same starting values, one static render.
def _layers(layers=12):
    return layers


def _pair(pair=0, flag=False, word="x", choice="b"):
    return pair


def _plain(rate, flag, pattern, mapping, width, scale=2.5):
    return rate


START_CASES = [
    (render, {"pattern": ["cdlm", "local"], "mask_rate": (0.05, 0.5, 0.05), "example": (0, 9, 1)}),
    (render, {"pattern": ["cdlm", "local"], "example": (0, 9, 1)}),
    (_layers, {"layers": (1, 12)}),  # 09: the default at the top of the range
    (_layers, {"layers": (1, 8)}),  # a default outside the range is clamped
    (_pair, {"pair": (0, 0)}),  # 10: a single pair
    (_pair, {"pair": (0, 7), "choice": ["a", "b", "c"], "word": "y", "flag": True}),
    (_plain, {"rate": (0, 10, 2), "flag": True, "pattern": ["cdlm", "local"], "mapping": {"one": 1, "two": 2},
              "width": (0.0, 1.0)}),
    (_plain, {"rate": (0.1, 0.9), "flag": False, "pattern": [("CDLM", "cdlm"), ("local", "local")],
              "mapping": ["x"], "width": 3}),
]


@pytest.mark.parametrize("function, controls", START_CASES)
def test_start_values_without_ipywidgets_match_ipywidgets(function, controls):
    from cdlm_nb.widgets import _start_values

    assert _start_values(function, controls) == pytest.approx(default_values(function, **controls))


def _without_ipywidgets(monkeypatch):
    import sys

    import cdlm_nb.widgets

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # `import ipywidgets` raises ImportError
    monkeypatch.setattr(cdlm_nb.widgets, "has_ipywidgets", lambda: False)


@pytest.mark.parametrize("headless", [False, True])
def test_explore_renders_once_with_a_note_without_ipywidgets(monkeypatch, capsys, headless):
    from cdlm_nb.widgets import NO_IPYWIDGETS_NOTE

    _without_ipywidgets(monkeypatch)
    monkeypatch.delenv("CI", raising=False)
    if headless:
        monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    else:
        monkeypatch.delenv("CDLM_NB_HEADLESS", raising=False)
    calls = _explore_recorded()
    assert calls == [{"pattern": "cdlm", "mask_rate": pytest.approx(0.25), "example": 4}]
    out = capsys.readouterr().out
    assert "cdlm|0.25" in out
    assert (NO_IPYWIDGETS_NOTE in out) is not headless  # a headless run expects no controls: no note


def test_say_wraps_long_lines_under_their_bullet_and_splits_no_token(capsys):
    from cdlm_nb import say

    token = "x" * 150
    say(["- " + "word " * 60, "short"], f"[<s>] {token} end")
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 120 for line in lines if token not in line) and token in "".join(lines)
    assert lines[0].startswith("- word") and lines[1].startswith("  word") and "short" in lines
    assert lines[-1] == "end" and lines[-2].endswith(token)


def test_blank_missing_blanks_gaps_and_keeps_every_other_column_as_it_prints():
    import warnings

    import pandas as pd

    from cdlm_nb.widgets import blank_missing

    table = pd.DataFrame.from_dict({"a": {"x": 0.286, "gap": 2.0, "n": 3, "s": "reads"}, "b": {"x": 1.5, "n": 4}},
                                   orient="index")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' FutureWarning on filling floats with a string
        shown = blank_missing(table)
    assert shown.loc["b", "gap"] == "" and shown.loc["b", "s"] == "" and shown.loc["a", "gap"] == 2.0
    assert shown["x"].dtype == table["x"].dtype and shown["n"].dtype == table["n"].dtype  # "1.500", not "1.5"
