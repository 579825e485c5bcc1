"""Extrema and inflection points of an expression on an interval (``gradcli
extrema``, ``:extrema``): the session's evaluator gives every derivative at
an array of points in one Taylor pass, and ``core.roots`` does the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.roots import GRID, extrema
from ..errors import GradcliError, LimitError, UsageError
from ..extrema import Extrema, Extremum
from ..limits import MAX_CURVE_POINTS
from .curves import Drawn, in_text, run_setup, session_evaluator

if TYPE_CHECKING:
    from .context import Runner

__all__ = ["GRID", "expression_derivatives", "find_extrema"]


def expression_derivatives(session: Runner, text: str, var: str, notes: list[str]) -> Any:
    """``derivatives(xs, n) -> [f, ..., f^(n)]`` of the expression ``text`` in
    ``var`` (float64 arrays of xs's shape), for ``core.roots``; the warnings of
    its evaluation but those of nan and inf values go to ``notes``."""
    from ..core.fpe import INF_RESULT, NAN_RESULT

    evaluate = session_evaluator(session)

    def derivatives(xs: np.ndarray, n: int) -> list[np.ndarray]:
        arrays, warnings = evaluate(text, var, xs, n)
        notes.extend(w for w in warnings if not w.endswith((NAN_RESULT, INF_RESULT))
                     and w not in notes)
        out = []
        for d in arrays:
            arr = np.asarray(d)
            if arr.dtype.kind == "c":
                raise UsageError(f"{text} has complex values; extrema are found on real ones")
            if arr.shape != xs.shape and arr.ndim:
                raise UsageError(
                    f"{text} is not a function of each {var} alone (its value has shape "
                    f"{tuple(arr.shape)}); extrema are found of an expression elementwise "
                    f"in {var}")
            out.append(arr.astype(np.float64, copy=False))
        return out

    return derivatives


def find_extrema(session: Runner, item: Drawn, var: str, a: float, b: float,
                 points: int = GRID) -> Extrema:
    """Each local minimum, maximum and inflection point of ``item`` (a
    ``curves.drawn`` argument: its setup runs first) over ``var`` = a..b, and
    the ends where it is extreme. Errors are positioned within ``item``'s text."""
    if points > MAX_CURVE_POINTS:
        raise LimitError(f"{points:,} points are more than the {MAX_CURVE_POINTS:,} "
                         "a search takes")
    if not a < b:
        raise UsageError(f"the interval {a:g}:{b:g} is empty")
    run_setup(session, item.setup)
    text = item.expr.source
    notes: list[str] = []
    try:
        found = extrema(expression_derivatives(session, text, var, notes), a, b, points)
    except GradcliError as err:
        raise in_text(err, item.expr) from None
    return Extrema(text, var, float(a), float(b),
                   [Extremum(p.kind, p.x, p.value) for p in found], notes)
