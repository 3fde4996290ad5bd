"""Interactive explorers that still work headless: `explore(render, pattern=["cdlm", "local"], rate=(0.05, 0.5, 0.05))`
shows ipywidgets controls above `render`'s output; headless or without ipywidgets (the `lab` extra) it renders once at
the controls' starting values, so an executed notebook still holds the output."""

from __future__ import annotations

import functools
import importlib.util
import inspect
import textwrap
from collections.abc import Callable, Iterable, Mapping
from numbers import Integral, Real
from typing import Any

from .support.progress import is_headless


def say(*texts: str | Iterable[str], width: int = 120) -> None:
    """Print strings or lists of lines wrapped at `width` columns (a long reading reads at a glance), continuations
    indented under a line's text (a bullet's words for `- ` lines); no word or token is split."""
    lines = [line for text in texts for line in ([text] if isinstance(text, str) else text)]
    for line in "\n".join(lines).splitlines() or [""]:
        indent = " " * (len(line) - len(line.lstrip()) + (2 if line.lstrip().startswith("- ") else 0))
        print(textwrap.fill(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
              if line.strip() else line)


def blank_missing(table: Any) -> Any:
    """`table` with its missing cells shown blank: a float column with gaps becomes `object` first (pandas no longer
    fills floats with a string), every other column keeps its dtype, so the table prints as before."""
    return table.apply(lambda column: column.astype(object).fillna("") if column.dtype.kind == "f"
                       and column.isna().any() else column.fillna(""))


def show(result: Any) -> None:
    """Display a render's result, a table's `attrs["caption"]` under it; a Figure is then closed (not shown twice)."""
    from IPython.display import display
    from matplotlib.figure import Figure

    if result is not None:
        display(result)
    if caption := getattr(result, "attrs", {}).get("caption"):
        say(caption)
    if isinstance(result, Figure):
        import matplotlib.pyplot as plt

        plt.close(result)


def _with_fixed_rest(render: Callable[..., Any], controls: dict[str, Any]) -> dict[str, Any]:
    """`controls`, plus `ipywidgets.fixed(default)` for every other defaulted parameter (not a slider)."""
    import ipywidgets

    rest = {name: ipywidgets.fixed(parameter.default)
            for name, parameter in inspect.signature(render).parameters.items()
            if name not in controls and parameter.default is not inspect.Parameter.empty}
    return {**controls, **rest}


NO_IPYWIDGETS_NOTE = ("ipywidgets is not installed: showing the starting values only "
                      "(`pip install ipywidgets` for the controls).")


def has_ipywidgets() -> bool:
    return importlib.util.find_spec("ipywidgets") is not None


def default_values(render: Callable[..., Any], **controls: Any) -> dict[str, Any]:
    """The values `explore` starts at: those of ipywidgets' widgets for `controls` (else `_start_values`)."""
    if not has_ipywidgets():
        return _start_values(render, controls)
    import ipywidgets

    panel = ipywidgets.interactive(render, {"manual": True}, **_with_fixed_rest(render, controls))
    try:
        return {widget._kwarg: widget.get_interact_value() for widget in panel.kwargs_widgets}
    finally:
        for widget in panel.children:
            widget.close()
        panel.close()


def explore(render: Callable[..., Any], **controls: Any) -> None:
    """Controls for `render`'s keyword arguments above its output; headless, one render at `default_values`."""
    from IPython.display import display

    if is_headless() or not has_ipywidgets():
        if not is_headless():
            print(NO_IPYWIDGETS_NOTE)
        show(render(**default_values(render, **controls)))
        return
    import ipywidgets

    shown = functools.wraps(render)(lambda **values: show(render(**values)))  # `render`'s signature, for ipywidgets
    display(ipywidgets.interactive(shown, **_with_fixed_rest(render, controls)))


def _start_values(render: Callable[..., Any], controls: dict[str, Any]) -> dict[str, Any]:
    """`default_values` without ipywidgets, by its rules (tests/test_widgets.py holds the two equal)."""
    values = {}
    parameters = inspect.signature(render).parameters
    for name, parameter in parameters.items():
        if parameter.kind == inspect.Parameter.VAR_KEYWORD:  # `**kwargs` takes the controls no parameter names
            values.update({key: _start_value(control, inspect.Parameter.empty)
                           for key, control in controls.items() if key not in parameters})
        elif name in controls:
            values[name] = _start_value(controls[name], parameter.default)
        elif parameter.default is not inspect.Parameter.empty:
            values[name] = parameter.default
    return values


def _start_value(control: Any, default: Any) -> Any:
    """The value ipywidgets' widget for one abbreviation starts at (see ipywidgets.widgets.interaction)."""
    empty = inspect.Parameter.empty
    if isinstance(control, tuple):  # a slider: (min, max) or (min, max, step); the default, clamped, when given
        low, high, *step = control
        integral = all(isinstance(bound, Integral) for bound in control)
        if default is not empty and isinstance(default, Real):
            value = min(max(default, low), high)
            return int(value) if integral else float(value)
        value = low + (high - low) // 2 if integral else low + (high - low) / 2
        if step:
            value = low + int((value - low) / step[0]) * step[0]
        return value
    if isinstance(control, (str, bool, Real)):  # a text box, checkbox or slider around the value itself
        return control
    if isinstance(control, Iterable):  # a dropdown: the default when it is an option, else the first option
        options = list(control.items()) if isinstance(control, Mapping) else list(control)
        choices = [option[1] if isinstance(option, tuple) and len(option) == 2 else option for option in options]
        return default if default is not empty and default in choices else (choices[0] if choices else None)
    return getattr(control, "value", control)
