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
from ..core.check import agrees, ridders
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
            return as_numpy(ev.eval(node).data)

    return value_at


def check_derivatives(session: Session, node: Any, wrt: str, x: Variable, y: Variable,
                      ds: list[Any]) -> list[CheckEntry]:
    """Orders 1 and 2 of ``ds`` (y's derivatives by x) against estimates."""
    f = value_function(session, node, wrt)
    a = as_numpy(x.data).astype(np.float64)
    elementwise = x.size == 1 or y is x or (
        session.engine.used == "taylor" and y.shape == x.shape)
    # points where the value is not finite (nan outside the domain, inf at a
    # pole), so neither are the derivatives nor their estimates, are left out
    # of the comparison, unless no point is left
    undefined = ~np.isfinite(as_numpy(y.data))
    out = []
    for order in (1, 2):
        auto = as_numpy(ds[order]).astype(np.float64)
        if elementwise:
            g = f if x.size != 1 else _summed(f)
            # a step that leaves the domain is the check's doing, not the user's:
            # no warning, and the point is left out below
            with np.errstate(all="ignore"):
                est, est_err = ridders(g, a, order, session.dtype_type)
            est, est_err = est.reshape(auto.shape), est_err.reshape(auto.shape)
        elif order == 1:
            with np.errstate(all="ignore"):  # as above
                est, est_err = numerical_gradient(f, a, session.dtype_type,
                                                  _sample(session, a, wrt))
        else:
            continue
        out.append(_entry(order, auto, est, est_err, session.dtype_type, undefined))
    return out


def _entry(order: int, auto: np.ndarray, est: np.ndarray, est_err: np.ndarray, dtype: Any,
           undefined: np.ndarray | None = None, variable: str | None = None) -> CheckEntry:
    err = np.abs(auto - est)
    with np.errstate(all="ignore"):  # a zero derivative has an infinite relative error
        rel = np.where(err == 0, 0.0, err / np.abs(auto))
    passed = agrees(auto, est, est_err, dtype)
    # also left out: points where no estimate can be made (the step reaches
    # past the edge of the domain) and autodiff has a number; a step across
    # a pole gives a finite, wrong estimate, and fails
    skip = ~np.isfinite(est) & ~np.isnan(auto)
    if undefined is not None and undefined.shape == skip.shape:
        skip |= undefined
    if skip.any() and not skip.all():
        err, rel, passed, est_err = err[~skip], rel[~skip], passed[~skip], est_err[~skip]
    return CheckEntry(order=order, autodiff=auto, numerical=est, abs_error=_max(err),
                      rel_error=_max(rel), est_error=_max(est_err), ok=bool(np.all(passed)),
                      variable=variable)


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
                   gradient: dict[str, np.ndarray]) -> list[CheckEntry]:
    """Each partial derivative of ``gradient`` against its estimate: one entry a
    variable (order 1), the others held at their values."""
    out = []
    for name, leaf in leaves.items():
        f = value_function(session, node, name)
        a = as_numpy(leaf.data).astype(np.float64)
        auto = np.asarray(gradient[name], dtype=np.float64)
        with np.errstate(all="ignore"):  # a step out of the domain is the check's doing
            if a.ndim == 0:
                est, est_err = ridders(_summed(f), a, 1, session.dtype_type)
            else:
                est, est_err = numerical_gradient(f, a, session.dtype_type,
                                                  _sample(session, a, name))
        out.append(_entry(1, auto, est.reshape(auto.shape), est_err.reshape(auto.shape),
                          session.dtype_type, variable=name))
    return out
