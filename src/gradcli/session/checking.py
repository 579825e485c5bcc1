"""``--check``: autodiff's derivatives beside numerical estimates of them.

The estimates come from ``core.check.ridders`` applied to a callable: the
expression evaluated again with its variable moved (an overlay on the
session's values, which are never written). Each estimate carries its own
error estimate, and ``core.check.agrees`` decides pass or fail from it and
the dtype's precision (docs/check.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.backend import as_numpy
from ..core.check import ridders, verdict, verdicts
from ..core.graph import Variable, no_grad
from ..lang.evaluate import Evaluator
from ..results import CheckEntry

if TYPE_CHECKING:
    from .context import Context as Session

MAX_CHECK_ELEMENTS = 1000


def value_function(session: Session, node: Any, wrt: str) -> Callable[[np.ndarray], np.ndarray]:
    """The value of ``node`` as a function of the variable ``wrt``'s value."""
    xp, dtype = session.xp, session.dtype_type

    def value_at(point: np.ndarray) -> np.ndarray:
        with no_grad():
            ev = Evaluator(session, overlay={wrt: xp.asarray(point, dtype=dtype)})
            value = as_numpy(ev.eval(node).data)
        if session.method == "backprop" or not bool(np.isnan(value).any()):
            return value
        # a sample at a removable singularity (sin(x)/x at 0) is its limit, as
        # the value path prints it: in a graph, which has one
        ev = Evaluator(session, overlay={wrt: xp.asarray(point, dtype=dtype)})
        y = ev.eval(node)
        ev.calculus.fill_limits(y, ev.statement_leaves())
        return as_numpy(y.data)

    return value_at


def check_derivatives(session: Session, node: Any, wrt: str, x: Variable, y: Variable,
                      ds: list[Any]) -> list[CheckEntry]:
    """Orders 1 and 2 of ``ds`` (y's derivatives by x) against estimates."""
    f = value_function(session, node, wrt)
    a = as_numpy(x.data).astype(np.float64)
    elementwise = x.size == 1 or y is x or (
        session.engine.used == "taylor" and y.shape == x.shape) or _elementwise(y, x)
    # points where the value is not finite (nan outside the domain, inf at a
    # pole), so neither are the derivatives nor their estimates, are left out
    # of the comparison, unless no point is left
    undefined = _undefined(as_numpy(ds[0]), a.shape)
    out = []
    for order in (1, 2):
        auto = as_numpy(ds[order]).astype(np.float64)
        left_out = None
        if elementwise:
            g = f if x.size != 1 else _summed(f)
            # a step that leaves the domain is the check's doing, not the user's:
            # no warning, and the point is left out below
            with np.errstate(all="ignore"):
                est, est_err = ridders(g, a, order, session.dtype_type)
            est, est_err = est.reshape(auto.shape), est_err.reshape(auto.shape)
        elif order == 1:
            sample = _sample(session, a, wrt)
            with np.errstate(all="ignore"):  # as above
                est, est_err = numerical_gradient(f, a, session.dtype_type, sample)
            left_out = _unsampled(a.shape, sample)
        else:
            continue
        out.append(_entry(order, auto, est, est_err, session.dtype_type, undefined,
                          left_out=left_out))
    _warn_inconclusive(session, out)
    return out


def _undefined(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """Where the derivatives of shape ``shape`` are left out of a check because
    the value is not finite there: elementwise where the shapes agree, and
    everywhere where the value is one number (sum(sin(x)/x) by backprop is nan,
    and so is each of its derivatives: no estimate refutes them)."""
    if value.shape == shape:
        return ~np.isfinite(value)
    if value.size == 1:
        return np.full(shape, not bool(np.isfinite(value).all()))
    return None


def _elementwise(y: Variable, x: Variable) -> bool:
    """Whether each element of y depends on x's same element alone: then each
    point's estimate moves the whole array at once, and is its own (one point's
    nan, sin(x)/x at 0 by backprop, is no other's); else an element at a time,
    the sum of y's elements each time (a gradient)."""
    from ..core.mixing import mixes_elements  # walks the graph

    return y.shape == x.shape and not mixes_elements(y, x)


def _unsampled(shape: tuple[int, ...], sample: list[tuple[int, ...]] | None) -> np.ndarray:
    """The elements a gradient check did not estimate (none: all were)."""
    out = np.zeros(shape, bool)
    if sample is not None:
        out[...] = True
        for i in sample:
            out[i] = False
    return out


def _warn_inconclusive(session: Session, entries: list[CheckEntry]) -> None:
    for entry in entries:
        message = inconclusive_warning(entry)
        if message is not None:
            session.warn(message)


def _entry(order: int, auto: np.ndarray, est: np.ndarray, est_err: np.ndarray, dtype: Any,
           undefined: np.ndarray | None = None, variable: str | None = None,
           left_out: np.ndarray | None = None) -> CheckEntry:
    """The check of one order (or partial derivative) over its points: each
    point's verdict (``core.check.verdicts``), and the verdict over those
    compared (``core.check.verdict``). Left out of the comparison: points
    where the value is not finite (``undefined``: nor are the derivatives nor
    their estimates) and elements a gradient check did not estimate
    (``left_out``); and, from the errors reported, points with no estimate."""
    err = np.abs(auto - est)
    with np.errstate(all="ignore"):  # a zero derivative has an infinite relative error
        rel = np.where(err == 0, 0.0, err / np.abs(auto))
    points = verdicts(auto, est, est_err, dtype)
    skip = np.zeros(points.shape, bool)
    for mask in (undefined, left_out):
        if mask is not None and mask.shape == skip.shape:
            skip |= mask
    ok = verdict(points[~skip])
    # the errors over the points with an estimate; a step across a pole gives
    # a finite, wrong estimate, and counts
    shown = ~skip & np.isfinite(est)
    if shown.any() and not shown.all():
        err, rel, shown_err = err[shown], rel[shown], est_err[shown]
    else:
        shown_err = est_err
    return CheckEntry(order=order, autodiff=auto, numerical=est, abs_error=_max(err),
                      rel_error=_max(rel), est_error=_max(shown_err), ok=ok,
                      variable=variable, est_errors=est_err,
                      point_ok=np.where(skip, np.nan, points))


def inconclusive_warning(entry: CheckEntry) -> str | None:
    """What a warning says of an inconclusive check; None where it is not."""
    if entry.ok is not None:
        return None
    what = f"order {entry.order}" if entry.variable is None else f"d/d{entry.variable}"
    points = np.asarray(entry.point_ok, np.float64)
    unsure = int(np.isnan(points).sum())
    where = f" at {unsure:,} of {points.size:,} points" if points.size > 1 else ""
    est = np.asarray(entry.numerical, np.float64)
    if points.size == 0:
        why = "there are no points to compare (the value is empty)"
    elif points.size > 1:
        why = ("no numerical estimate could be made there, or its error estimate is not "
               "small against the value")
    elif not np.isfinite(est).all():
        why = "no numerical estimate could be made"
    else:
        size = float(np.fmax(abs(float(est)), abs(float(entry.autodiff))))
        why = (f"the numerical estimate's error estimate ({entry.est_error:.3g}) is not "
               f"small against the value ({size:.3g})")
    return (f"check {what} is inconclusive{where}: {why}; the derivative is neither "
            "confirmed nor refuted")


def _summed(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """The sum of f's values: a scalar variable and an array result."""
    return lambda p: np.asarray(np.sum(f(p)))


def _sample(session: Session, a: np.ndarray, name: str) -> list[tuple[int, ...]] | None:
    """The elements of ``a`` a gradient check estimates: all of them, or past
    MAX_CHECK_ELEMENTS evenly spaced ones, as many as keep the work (each
    evaluates the whole expression some 20 times) to that of 1,000 elements of
    1,000; said in a warning, and the others are left out of the comparison."""
    if a.size <= MAX_CHECK_ELEMENTS:
        return None
    count = max(1, min(MAX_CHECK_ELEMENTS, MAX_CHECK_ELEMENTS**2 // a.size))
    session.warn(f"the check estimates {count:,} evenly spaced element"
                 f"{'s' if count > 1 else ''} of {name}'s {a.size:,}, one at a time; "
                 "the others are not compared")
    flat = np.unique(np.linspace(0, a.size - 1, count).round().astype(int))
    return [tuple(int(k) for k in np.unravel_index(i, a.shape)) for i in flat]


def numerical_gradient(f: Callable[[np.ndarray], np.ndarray], a: np.ndarray, dtype: Any,
                       elements: list[tuple[int, ...]] | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """d(sum f)/da by Ridders' method, one element at a time (``elements``, or
    all), with its errors; an element not estimated is nan, its error infinite."""
    grad = np.zeros_like(a) if elements is None else np.full_like(a, np.nan)
    errs = np.zeros_like(a) if elements is None else np.full_like(a, np.inf)
    for i in np.ndindex(a.shape) if elements is None else elements:
        def moved(t: np.ndarray, i: tuple[int, ...] = i) -> np.ndarray:
            p = a.astype(dtype)
            p[i] = t
            return np.asarray(np.sum(f(p)))

        est, err = ridders(moved, a[i], 1, dtype)
        grad[i], errs[i] = est, err
    return grad, errs


def _max(a: np.ndarray) -> float:
    if a.size == 0:
        return 0.0
    if np.isnan(a).any():
        return math.nan
    return float(np.max(a))


def check_gradient(session: Session, node: Any, leaves: dict[str, Variable],
                   gradient: dict[str, np.ndarray], y: Variable | None = None
                   ) -> list[CheckEntry]:
    """Each partial derivative of ``gradient`` against its estimate: one entry a
    variable (order 1), the others held at their values. With ``y`` (the
    value's graph), a variable y is elementwise in is estimated at every
    element at once, each its own, and elements where the value is not finite
    are left out, as ``check_derivatives`` does."""
    out = []
    value = None if y is None else as_numpy(y.data)
    for name, leaf in leaves.items():
        f = value_function(session, node, name)
        a = as_numpy(leaf.data).astype(np.float64)
        auto = np.asarray(gradient[name], dtype=np.float64)
        elementwise = a.ndim > 0 and y is not None and _elementwise(y, leaf)
        sample = None if a.ndim == 0 or elementwise else _sample(session, a, name)
        with np.errstate(all="ignore"):  # a step out of the domain is the check's doing
            if a.ndim == 0:
                est, est_err = ridders(_summed(f), a, 1, session.dtype_type)
            elif elementwise:
                est, est_err = ridders(f, a, 1, session.dtype_type)
            else:
                est, est_err = numerical_gradient(f, a, session.dtype_type, sample)
        undefined = None if value is None else _undefined(value, auto.shape)
        out.append(_entry(1, auto, est.reshape(auto.shape), est_err.reshape(auto.shape),
                          session.dtype_type, undefined, variable=name,
                          left_out=_unsampled(auto.shape, sample)))
    _warn_inconclusive(session, out)
    return out
