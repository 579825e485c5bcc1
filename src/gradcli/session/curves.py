"""Curves of expressions and their derivatives over an interval, ready to draw.

``sample_curves`` evaluates each expression once on the whole grid of points,
with the derivatives of every order from the same Taylor-mode pass (the
session's own evaluator: bindings, defined functions and errors are those of
``eval``). Drawing needs more than the numbers:

- gaps: a point outside the domain is nan, and so a gap; a pole between two
  neighbours (tan's at pi/2, where the values jump from +133 to -133) is cut
  too, so that no line joins the two branches. A jump is a pole when it runs
  against the slope at both of its ends (the next derivative, which the same
  pass gives), or crosses the whole visible range in one step;
- a y range that ignores the wild values near a pole (robust percentiles),
  with ``clipped`` set so that the figure can say so;
- ``decimate``: at most four points per pixel column (first, min, max, last
  of the column), so a million points draw as fast as a thousand and look
  the same: the extremes are kept.

Renderers (render/curve.py, render/termplot.py) take the ``Curves`` record and
never evaluate anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import GradcliError, LimitError, UsageError
from ..figures import Curve, Curves, decimate, function_name
from ..limits import CURVE_POINTS as DEFAULT_POINTS
from ..limits import MAX_CURVE_POINTS as MAX_POINTS
from ..limits import MAX_ORDER, SUPERSCRIPT_DIGITS
from ..record import Record

if TYPE_CHECKING:
    from .context import Runner

Evaluate = Callable[[str, str, np.ndarray, int], tuple[list[np.ndarray], list[str]]]
"""``evaluate(text, var, grid, order) -> ([f, f', ..., f^(order)], warnings)``:
each array of the grid's shape or a scalar; raises the statement's GradcliError."""

TAIL = 2.0
"""Percent of the values on each side that the robust range leaves out."""
WILD = 2.0
"""Values further than this many robust ranges beyond it are wild (near a pole)."""
JUMP = 0.25
"""A jump against the slope is a pole when it is at least this part of the range."""
SAMPLE = 200_000
"""The robust percentiles are taken on at most this many evenly spaced values."""
_SUPER = str.maketrans("0123456789", SUPERSCRIPT_DIGITS)


def label(expr: str, order: int, var: str, single: bool) -> str:
    """f, f', f'', f''', f⁽⁴⁾ for one expression (g, g' ... for ``g(x)``); with
    several the expression itself and d/dx expr, d²/dx² expr."""
    if single:
        f = function_name(expr, var)
        return f + "'" * order if order <= 3 else f"{f}\u207d{str(order).translate(_SUPER)}\u207e"
    if order == 0:
        return expr
    power = "" if order == 1 else str(order).translate(_SUPER)
    return f"d{power}/d{var}{power} {expr}"


def sample_curves(evaluate: Evaluate, exprs: Sequence[str], var: str, a: float, b: float,
                  points: int = DEFAULT_POINTS, order: int = 0) -> Curves:
    """Each expression of ``exprs`` and its derivatives of orders 1..``order`` by
    ``var`` on ``points`` evenly spaced points of [a, b], with gaps at poles and
    outside the domain, and the y range to show (see the module's text).

    ``evaluate`` is usually ``session_evaluator(session)``. Raises the first
    failing expression's GradcliError, a UsageError for an expression that is
    not elementwise in ``var`` (sum(x)), a LimitError for too many points.
    """
    if not exprs:
        raise UsageError("curve needs an expression to draw, as in: curve 'sin(x)'")
    if points < 2:
        raise UsageError(f"a curve needs at least 2 points; got {points}")
    if points > MAX_POINTS:
        raise LimitError(f"{points:,} points are more than the {MAX_POINTS:,} a curve takes")
    if not a < b:
        raise UsageError(f"the interval {a:g}:{b:g} is empty")
    with np.errstate(over="ignore"):
        wide = not np.isfinite(np.float64(b) - np.float64(a))
    if wide:
        raise LimitError(f"the interval {var} = {a:g}..{b:g} is too wide: its width passes "
                         f"the largest float ({np.finfo(np.float64).max:.4g}); choose a "
                         "narrower interval")
    grid = np.linspace(a, b, points)
    notes: list[str] = []
    sampled = []  # per expression, orders 0..order+1 (the last only for the slope)
    for text in exprs:
        arrays, warnings = evaluate(text, var, grid, order + 1)
        notes.extend(w for w in warnings if not _about_nonfinite(w))
        sampled.append([_on_grid(d, grid, text, var) for d in arrays])
    single = len(exprs) == 1
    values = [ds[k] for ds in sampled for k in range(order + 1)]
    y_range, clipped = robust_range(values, [k for _ in sampled for k in range(order + 1)])
    curves = []
    for text, ds in zip(exprs, sampled):
        for k in range(order + 1):
            slope = ds[k + 1] if k + 1 < len(ds) else None
            x, y = grid, ds[k]
            if y_range is not None:
                x, y = cut_gaps(grid, y, slope, y_range)
            curves.append(Curve(label(text, k, var, single), text, k, x, y))
        if not np.isfinite(ds[0]).any():
            notes.append(f"{text} has no finite value on {var} = {a:g}..{b:g}")
    return Curves(var, float(a), float(b), list(exprs), order, curves, y_range, clipped,
                  list(dict.fromkeys(notes)))


def _about_nonfinite(message: str) -> bool:
    # nan outside the domain and inf at a pole become gaps: what the curve is for
    from ..core.fpe import INF_RESULT, NAN_RESULT

    return message.endswith((NAN_RESULT, INF_RESULT))


def _on_grid(d: Any, grid: np.ndarray, text: str, var: str) -> np.ndarray:
    """``d`` as a float64 array of the grid's shape, non-finite values nan."""
    arr = np.asarray(d)
    if arr.dtype.kind == "c":
        raise UsageError(f"{text} has complex values; a curve draws real ones")
    arr = arr.astype(np.float64, copy=False)
    if arr.shape != grid.shape:
        if arr.ndim == 0:
            arr = np.full(grid.shape, float(arr))
        else:
            raise UsageError(
                f"{text} is not a function of each {var} alone (its value has shape "
                f"{tuple(arr.shape)}); a curve draws an expression elementwise in {var}")
    return np.where(np.isfinite(arr), arr, np.nan)


def robust_range(values: Sequence[np.ndarray], orders: Sequence[int] | None = None
                 ) -> tuple[tuple[float, float] | None, bool]:
    """The y range (lo, hi) to show ``values`` (curves of derivative ``orders``)
    but their wild values, and whether any were left out.

    A curve's range is its whole one, unless a tail reaches more than WILD times
    its 2..98 percentile range beyond it (1/x near 0, tan near pi/2): that side
    is then cut at the percentile. A derivative with such a tail widens the
    range no further than the other curves do (tan's second derivative would
    flatten tan into its axis); it runs off the chart near the pole instead.
    """
    orders = list(orders) if orders is not None else [0] * len(values)
    ranges, wild = [], []
    for v, k in zip(values, orders):
        finite = v[np.isfinite(v)]
        if finite.size == 0:
            continue
        small, large = float(finite.min()), float(finite.max())
        if finite.size > SAMPLE:  # the percentiles of a million values: a strided look
            finite = finite[:: finite.size // SAMPLE]
        p_lo, p_hi = (float(p) for p in np.percentile(finite, [TAIL, 100 - TAIL]))
        span = p_hi - p_lo
        cut = False
        if span > 0 and large - p_hi > WILD * span:
            large, cut = p_hi, True
        if span > 0 and p_lo - small > WILD * span:
            small, cut = p_lo, True
        ranges.append((small, large))
        wild.append(cut and k > 0)
    if not ranges:
        return None, False
    kept = [r for r, w in zip(ranges, wild) if not w] or ranges
    lo, hi = min(r[0] for r in kept), max(r[1] for r in kept)
    clipped = any(float(np.nanmax(v, initial=-np.inf)) > hi or
                  float(np.nanmin(v, initial=np.inf)) < lo for v in values)
    return (lo, hi), clipped


def cut_gaps(x: np.ndarray, y: np.ndarray, slope: np.ndarray | None,
             y_range: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) with a nan inserted between neighbours that a pole separates: a
    jump from beyond one end of ``y_range`` to beyond the other, or a jump of a
    quarter of the range against the sign of ``slope`` (dy/dx) at both ends."""
    lo, hi = y_range
    y0, y1 = y[:-1], y[1:]
    with np.errstate(invalid="ignore"):
        cut = ((y0 > hi) & (y1 < lo)) | ((y0 < lo) & (y1 > hi))
        if slope is not None and hi > lo:
            dy = y1 - y0
            s0, s1 = np.sign(slope[:-1]), np.sign(slope[1:])
            cut |= (s0 == s1) & (s0 == -np.sign(dy)) & (s0 != 0) & (np.abs(dy) > JUMP * (hi - lo))
    at = np.flatnonzero(cut) + 1
    if at.size == 0:
        return x, y
    mid = (x[at - 1] + x[at]) / 2
    return np.insert(x, at, mid), np.insert(y, at, np.nan)


def session_evaluator(session: Runner) -> Evaluate:
    """An ``Evaluate`` that runs the text in ``session`` with the grid bound to
    the variable: the session's bindings and defined functions apply, and its
    method (Taylor mode, one pass for every order). The variable's binding and
    ``ans`` are restored afterwards; definitions made in the text stay."""
    from ..asked import EvalOptions

    def evaluate(text: str, var: str, grid: np.ndarray,
                 order: int) -> tuple[list[np.ndarray], list[str]]:
        order = min(order, MAX_ORDER)
        with session.scratch(var, grid):
            results = session.run(text, EvalOptions(order=order, wrt=var))
        for res in results:
            if res.error is not None:
                raise res.error
        last = results[-1] if results else None
        if last is None or last.kind != "value":
            what = f"'{last.input}' is not an expression" if last is not None else "nothing"
            raise UsageError(f"curve draws an expression; {what}")
        ds = [last.value, *(last.derivatives or [])]
        if np.ndim(ds[0]) == 0 and any(np.ndim(d) and np.any(d != 0) for d in ds[1:]):
            example = "" if text.replace(" ", "") == f"sum({var})" else f", as sum({var}) is"
            raise UsageError(f"{text} is one number for the whole interval{example}, not a "
                             f"value at each {var}; a curve draws an expression elementwise in "
                             f"{var}, such as {var}^2 or sin({var})")
        warnings = [w for res in results for w in res.warnings]
        return ds, warnings

    return evaluate


class Drawn(Record):
    """One EXPR argument of a curve: the assignments and definitions that run
    first, then the one expression drawn (its text is the curve's title)."""

    text: str  # the argument as given; error positions are within it
    setup: list[Any]  # lang.parser.Statement
    expr: Any  # the expression's Statement


def drawn(text: str, example: str, many: str) -> Drawn:
    """``text`` split as ``plot`` splits its EXPR: assignments and definitions,
    then exactly one expression, which comes last. Anything else is a
    UsageError at the statement at fault, with ``example`` (the shell's way to
    write a curve with a definition) or, for several expressions, ``many`` (how
    that shell draws several). Parse errors as the parser raises them."""
    from ..lang import ast
    from ..lang.parser import parse

    statements = parse(text)
    exprs = [st for st in statements if not isinstance(st.node, (ast.Assign, ast.Define))]
    if not exprs:
        what = f"'{one_line_of(text)}' has" if text.strip() else "there is"
        raise UsageError(f"{what} no expression to draw; write it last, after any "
                         f"assignments and definitions, as in {example}")
    if len(exprs) > 1 or exprs[0] is not statements[-1]:
        extra = exprs[1] if len(exprs) > 1 else statements[-1]
        raise UsageError("a curve draws one expression, written last, after any "
                         f"assignments and definitions; {many}").at(extra.line, extra.column)
    return Drawn(text, statements[:-1], statements[-1])


def not_assigned(item: Drawn, var: str) -> None:
    """A UsageError at the assignment in ``item`` to ``var``, the variable the
    curve gives its values (``x = 2; x^2`` over x would draw a flat 4)."""
    from ..lang import ast

    for st in item.setup:
        if isinstance(st.node, ast.Assign) and st.node.name == var:
            raise UsageError(f"'{st.source}' assigns {var}, the variable the curve is drawn "
                             f"over; drop it: the curve gives {var} its values").at(
                st.line, st.column)


def one_line_of(text: str) -> str:
    return " ".join(text.split())


def run_setup(session: Runner, setup: list[Any]) -> None:
    """Run the assignments and definitions ``setup`` (lang.parser.Statements) in
    ``session``; the first failure is raised (positioned within their text)."""
    from ..asked import EvalOptions

    for st in setup:
        done = session.run_statement(st, EvalOptions())
        if done.error is not None:
            raise done.error


def in_text(err: Any, st: Any) -> Any:
    """``err``, raised by evaluating ``st.source`` alone, positioned within the
    text ``st`` was parsed from instead (a copy; the original is untouched)."""
    import copy

    if err.line is None:
        return err
    err = copy.copy(err)
    if err.line == 1 and err.column is not None:
        err.column += st.column - 1
    err.line += st.line - 1
    return err


def session_number(session: Runner) -> Callable[[str], float]:
    """A callback for lang.ranges: the text evaluated in ``session`` (its
    bindings and functions apply) as one real number; nothing is bound.
    Raises the evaluator's errors (columns relative to the text), and a
    UsageError for an array or a non-finite value."""

    def number(text: str) -> float:
        name = "_range_end"
        try:
            value = np.asarray(session.bind_at(name, text))
        finally:
            session.values.pop(name, None)
            session.at.pop(name, None)
            session.at_text.pop(name, None)
        if value.size != 1 or value.dtype.kind not in "fiub":
            raise UsageError(f"a range's end or step must be one number; {text} is not")
        return float(value.reshape(-1)[0])

    return number


def curve_variable(session: Runner, item: Drawn) -> tuple[str, Drawn]:
    """The variable to draw ``item`` over when none is given, and ``item`` with
    its setup run (none left to run): the expression's only variable, read
    before the setup runs (so that the setup cannot assign it) and after (a
    function it defines may bring one), else x."""
    from .variables import default_wrt

    var = default_wrt(session, item.expr.node)
    if var is not None:  # checked before the assignments run
        not_assigned(item, var)
    run_setup(session, item.setup)
    var = var or default_wrt(session, item.expr.node) or "x"
    return var, Drawn(item.text, [], item.expr)


def draw_curves(session: Runner, items: Sequence[Drawn], var: str, a: float, b: float,
                points: int = DEFAULT_POINTS, order: int = 0, var_given: bool = False
                ) -> Curves:
    """``Session.curve``: each item's setup run just before its expression is
    sampled (see ``sample_curves``). With ``var_given`` (the user named the
    variable), an expression that reads another variable with no value but not
    ``var`` is a UsageError naming it. An error is positioned within the text
    of the item at fault, which its ``source`` names."""
    evaluate_expr = session_evaluator(session)
    current: list[Drawn] = []  # the items sampled so far: the last one failed

    def evaluate(expr: str, name: str, grid: Any, order: int) -> Any:
        item = items[len(current)]
        current.append(item)
        run_setup(session, item.setup)
        if var_given:
            _uses(session, item, var)
        try:
            return evaluate_expr(expr, name, grid, order)
        except GradcliError as err:
            raise in_text(err, item.expr) from None

    try:
        return sample_curves(evaluate, [item.expr.source for item in items], var, a, b,
                             points, order)
    except GradcliError as err:
        err.source = current[-1].text if current else items[0].text if items else ""
        raise


def _uses(session: Runner, item: Drawn, var: str) -> None:
    """A UsageError for an expression that reads a variable with no value but
    not the curve's own (sin(y) over the default x): --over names it."""
    from .formulas import unbound

    names = unbound(session, item.expr.node)
    if names and var not in names:
        text = item.expr.source
        raise UsageError(f"{text} has no {var} but {names[0]}, which has no value; "
                         f"draw it over {names[0]}, as in --over {names[0]}=-5:5")


__all__ = ["DEFAULT_POINTS", "Curve", "Curves", "Drawn", "Evaluate", "curve_variable",
           "cut_gaps", "decimate", "draw_curves", "drawn", "in_text", "label", "not_assigned",
           "robust_range", "run_setup", "sample_curves", "session_evaluator", "session_number"]
