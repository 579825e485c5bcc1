"""The data a figure is drawn from: a curve's sampled lines, a graph's DOT text.

Made by the session (``session.curves``, ``session.graphs``), drawn by the
renderers (``render.curve``, ``render.termplot``, ``render.graph``): it sits
below both, beside ``results``, so that renderers read results and never the
session.
"""

from __future__ import annotations

import numpy as np

from .record import Record, factory

__all__ = ["Curve", "Curves", "GraphResult", "decimate", "function_name"]


class Curve(Record):
    """One line of the figure: an expression, or one of its derivatives."""

    label: str  # f, f', f'' for one expression; the expression (or d/dx of it) for several
    expr: str
    order: int
    x: np.ndarray  # float64; gaps are nan in y (x there is the midpoint)
    y: np.ndarray


class Curves(Record):
    """Everything a renderer draws: the curves, the interval and the y range."""

    var: str
    a: float
    b: float
    exprs: list[str]
    order: int
    curves: list[Curve]
    y_range: tuple[float, float] | None  # None: no finite value at all
    clipped: bool = False  # wild values near a pole lie outside y_range
    notes: list[str] = factory(list)

    @property
    def title(self) -> str:
        if len(self.exprs) == 1:
            if _users_call(self.exprs[0], self.var):
                return self.exprs[0]  # g(x), not f(x) = g(x)
            return f"f({self.var}) = {self.exprs[0]}"
        return ", ".join(self.exprs)


def function_name(expr: str, var: str) -> str:
    """What one expression's curves are called: ``g`` for ``g(x)`` (the user's
    function called on the variable alone), otherwise ``f`` (sin(x) too)."""
    return _users_call(expr, var) or "f"


def _users_call(expr: str, var: str) -> str | None:
    """``g`` when ``expr`` is ``g(var)`` and g is no built-in, else None."""
    from .lang.namespace import is_builtin

    head, _, rest = expr.strip().partition("(")
    head = head.strip()
    if head.isidentifier() and rest.replace(" ", "") == f"{var})" and not is_builtin(head):
        return head
    return None


def decimate(x: np.ndarray, y: np.ndarray, columns: int, x_range: tuple[float, float]
             ) -> tuple[np.ndarray, np.ndarray]:
    """At most four points per column of ``columns`` equal columns across
    ``x_range``: each run of finite points in a column is its first, lowest,
    highest and last, so the line drawn covers the same pixels; a gap (nan)
    stays a gap. Arrays of up to 4 * columns points are returned as they are."""
    if y.size <= 4 * columns:
        return x, y
    finite = np.isfinite(y)
    idx = np.flatnonzero(finite)
    if idx.size == 0:
        return x[:1], y[:1]
    x0, x1 = x_range
    col = np.clip(((x[idx] - x0) * (columns / (x1 - x0))).astype(np.int64), 0, columns - 1)
    run = np.cumsum(~finite)[idx]  # gaps passed so far: a new run after each
    new = np.empty(idx.size, dtype=bool)
    new[0] = True
    new[1:] = (col[1:] != col[:-1]) | (run[1:] != run[:-1])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], idx.size) - 1
    xv, yv = x[idx], y[idx]
    out_x = np.empty((starts.size, 5))
    out_y = np.empty((starts.size, 5))
    mid = (xv[starts] + xv[ends]) / 2
    out_x[:, 0], out_y[:, 0] = xv[starts], yv[starts]
    out_x[:, 1], out_y[:, 1] = mid, np.minimum.reduceat(yv, starts)
    out_x[:, 2], out_y[:, 2] = mid, np.maximum.reduceat(yv, starts)
    out_x[:, 3], out_y[:, 3] = xv[ends], yv[ends]
    out_x[:, 4], out_y[:, 4] = xv[ends], np.nan
    keep = np.ones((starts.size, 5), dtype=bool)
    keep[:, 4] = np.append(run[starts[1:]] != run[starts[:-1]], False)  # a gap follows
    return out_x[keep], out_y[keep]


class GraphResult(Record):
    """The DOT text of an expression's graph (or of its N-th derivative's)."""

    dot: str
    nodes: int
    order: int
    wrt: str | None
