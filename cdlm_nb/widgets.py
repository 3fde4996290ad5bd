"""Interactive explorers that still work headless.

`explore(render, pattern=["cdlm", "local"], mask_rate=(0.05, 0.5, 0.05))` displays ipywidgets controls (the
abbreviations of `ipywidgets.interact`: a list is a dropdown, a `(min, max, step)` tuple a slider, a bool a
checkbox, or pass a widget) and re-renders on every change. Under `cdlm-nb run`, papermill or CI
(`runtime.is_headless()`), it renders once with the values the controls would start at and shows that instead,
so an executed notebook still holds the output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .runtime import is_headless


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
    import inspect

    import ipywidgets

    rest = {name: ipywidgets.fixed(parameter.default)
            for name, parameter in inspect.signature(render).parameters.items()
            if name not in controls and parameter.default is not inspect.Parameter.empty}
    return {**controls, **rest}


def default_values(render: Callable[..., Any], **controls: Any) -> dict[str, Any]:
    """The values `explore` starts at: the widget values ipywidgets would build from `controls` (a parameter's
    own default value wins when the control allows it; parameters without a control keep their default)."""
    import ipywidgets

    panel = ipywidgets.interactive(render, {"manual": True}, **_with_fixed_rest(render, controls))
    try:
        return {widget._kwarg: widget.get_interact_value() for widget in panel.kwargs_widgets}
    finally:
        for widget in panel.children:
            widget.close()
        panel.close()


def explore(render: Callable[..., Any], **controls: Any) -> None:
    """Display controls for `render`'s keyword arguments with its output below them; headless, display one static
    render at the controls' starting values instead (`default_values`)."""
    from IPython.display import display

    if is_headless():
        show(render(**default_values(render, **controls)))
        return
    import ipywidgets

    display(ipywidgets.interactive(_shown(render), **_with_fixed_rest(render, controls)))
