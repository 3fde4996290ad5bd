"""Interactive explorers that still work headless.

`explore(render, pattern=["cdlm", "local"], mask_rate=(0.05, 0.5, 0.05))` displays ipywidgets controls (the
abbreviations of `ipywidgets.interact`: a list is a dropdown, a `(min, max, step)` tuple a slider, a bool a
checkbox, or pass a widget) and re-renders on every change. Under `cdlm-nb run`, papermill or CI
(`runtime.is_headless()`), it renders once with the values the controls would start at and shows that instead,
so an executed notebook still holds the output. Without ipywidgets (it is in the `lab` extra, not the core: a
kernel such as Colab's brings its own) it does the same, after a one-line note.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable, Iterable, Mapping
from numbers import Integral, Real
from typing import Any

from .progress import is_headless


def show(result: Any) -> None:
    """Display what a render function returned; a matplotlib Figure is displayed once and then closed (so the
    inline backend does not show it a second time)."""
    from IPython.display import display

    if result is None:
        return
    display(result)
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        return
    if isinstance(result, Figure):
        import matplotlib.pyplot as plt

        plt.close(result)


def _shown(render: Callable[..., Any]) -> Callable[..., None]:
    """`render`, but displaying its result itself (keeps `render`'s signature, which ipywidgets inspects)."""
    import functools

    @functools.wraps(render)
    def wrapper(**values: Any) -> None:
        show(render(**values))

    return wrapper


def _with_fixed_rest(render: Callable[..., Any], controls: dict[str, Any]) -> dict[str, Any]:
    """`controls`, plus `ipywidgets.fixed(default)` for every other parameter with a default value, so only the
    named controls become widgets (plain `interact` would make a slider of every numeric default)."""
    import ipywidgets

    rest = {name: ipywidgets.fixed(parameter.default)
            for name, parameter in inspect.signature(render).parameters.items()
            if name not in controls and parameter.default is not inspect.Parameter.empty}
    return {**controls, **rest}


NO_IPYWIDGETS_NOTE = ("ipywidgets is not installed: showing the starting values only "
                      "(`pip install ipywidgets` for the controls).")


def has_ipywidgets() -> bool:
    """Whether ipywidgets can be imported (the `lab` extra has it; a bare kernel may not)."""
    return importlib.util.find_spec("ipywidgets") is not None


def default_values(render: Callable[..., Any], **controls: Any) -> dict[str, Any]:
    """The values `explore` starts at: the widget values ipywidgets would build from `controls` (a parameter's
    own default value wins when the control allows it; parameters without a control keep their default).
    Without ipywidgets, the same values from its abbreviation rules (`_start_values`)."""
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
    """Display controls for `render`'s keyword arguments with its output below them; headless or without
    ipywidgets (said in one line), display one static render at the controls' starting values (`default_values`)."""
    from IPython.display import display

    if is_headless() or not has_ipywidgets():
        if not is_headless():
            print(NO_IPYWIDGETS_NOTE)
        show(render(**default_values(render, **controls)))
        return
    import ipywidgets

    display(ipywidgets.interactive(_shown(render), **_with_fixed_rest(render, controls)))


def _start_values(render: Callable[..., Any], controls: dict[str, Any]) -> dict[str, Any]:
    """`default_values` without ipywidgets: its rules for the abbreviations, so a kernel without it shows the same
    static render (tests/test_widgets.py holds the two equal)."""
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
        value = low + (high - low) / 2
        if integral:
            value = low + (high - low) // 2
        if step:
            value = low + int((value - low) / step[0]) * step[0]
        return value
    if isinstance(control, (str, bool, Real)):  # a text box, checkbox or slider around the value itself
        return control
    if isinstance(control, Iterable):  # a dropdown: the default when it is an option, else the first option
        options = list(control.items()) if isinstance(control, Mapping) else list(control)
        choices = [option[1] if isinstance(option, tuple) and len(option) == 2 else option for option in options]
        if default is not empty and default in choices:
            return default
        return choices[0] if choices else None
    return getattr(control, "value", control)
