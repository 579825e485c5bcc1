"""The entry points: taylor_coefficients, taylor_derivatives and
taylor_derivatives_at."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import LimitError
from ..backend import get_array_module
from ..graph import Variable
from ..running import operation
from . import budget, singular
from .blocks import blockwise, coefficients_blockwise, plan_blockwise
from .inverse import abs_rule
from .replay import Plan, is_elementwise, make_plan, replay_plan
from .rows import Redo, column, float_dtype, lift_to, py_array
from .scaling import MAX_ORDER, derivative_factors, rescaled
from .series import UNKNOWN
from .structural import div_rule, sum_to_rows


def _coefficients(y: Variable, x: Variable, order: int,
                  derivatives: bool = False) -> tuple[Any, Any] | None:
    """(value, coefficients 1..order of y(x0 + t) as one array (order, *shape)), with
    the backprop semantics (see taylor_derivatives), or with ``derivatives`` the
    derivatives k! c_k; None when Taylor mode does not apply. The value is y's,
    with the limit in place of a removable 0/0 (see singular.py)."""
    if order < 0:
        raise ValueError(f"order must be >= 0, got {order}")
    UNKNOWN[0] = False  # see unknown_at_zero
    x0 = x.data
    if x0.dtype.kind not in "fiub":
        return None
    plan = make_plan(y, x)
    if plan is None:
        return None
    if order == 0:  # no rule is asked for nothing (some wrote coefficient 1 regardless)
        return y.data, get_array_module(x0).empty((0,) + x0.shape, dtype=float_dtype(y.data))
    value = y.data

    def run(s: float, n: int, d: bool) -> Any:
        nonlocal value
        v, coef = _with_limits(lambda m, dm: _coefficients_at(plan, y, m, dm, s), n, d, s)
        if v is not None:
            value = v
        return coef

    singular.NO_LIMIT.update(_kinks(plan))
    try:
        coef = rescaled(run, order, derivatives)
    finally:
        singular.NO_LIMIT.clear()
    return (None if coef is None else value), coef


def _kinks(plan: Plan) -> set[int]:
    """The quotients of ``plan`` whose numerator or denominator goes through abs
    where its argument is 0 (see singular.NO_LIMIT)."""
    kinked: set[int] = set()
    out: set[int] = set()
    for _label, f, rule, erule, _lifted, ins, at in plan.steps:
        if any(i in kinked for i in ins):
            kinked.add(at)
            if rule is div_rule:
                out.add(id(f))
        elif erule is abs_rule and bool((f.inputs[0].data == 0).any()):
            kinked.add(at)
    return out


MAX_SHIFT = 128
"""The most orders a replay adds for quotients whose leading coefficients vanish
(x^k/x^k at 0 needs k more); past it their unknown orders stay nan."""


def _with_limits(attempt: Any, n: int, derivatives: bool, s: float) -> tuple[Any, Any]:
    """attempt(n, derivatives) -> (value or None, rows 1..n), replayed with more
    orders where a quotient's numerator and denominator both vanish (singular.py)
    and order n of it needs their orders beyond n."""
    singular.reset_shifts()
    value, coef = attempt(n, derivatives)
    extra = singular.shifts()
    if not extra or coef is None:
        return value, coef
    done = 0
    while done < extra <= MAX_SHIFT:
        done = extra
        singular.reset_shifts()
        value, coef = attempt(n + extra, False)
        extra = singular.shifts()
    coef = coef[:n]
    if not derivatives:
        return value, coef
    col = column(derivative_factors(n, s), coef.ndim - 1, get_array_module(coef), np.float64)
    return value, (coef * col).astype(coef.dtype, copy=False)


@operation("derivative")  # fpe.py: k! * c_k may overflow
def _coefficients_at(plan: Plan, y: Variable, n: int, derivatives: bool,
                     s: float) -> tuple[Any, Any]:
    """_coefficients for the series of y(x0 + s t) (see rescaled)."""
    x0 = plan.variables[0].data
    xp = get_array_module(x0)
    dtype = float_dtype(x0)
    seed = xp.full((1,) + (1,) * x0.ndim, s, dtype=dtype)
    y0 = y.data
    rdtype = np.result_type(float_dtype(y0), dtype)
    if n and plan.steps and plan_blockwise(plan):
        return coefficients_blockwise(plan, n, derivatives, rdtype, s)
    factors = derivative_factors(n, s) if derivatives else None
    scale = np.array(factors) if derivatives else None
    budget.check(plan, n, np.dtype(rdtype).itemsize)  # before allocating
    data = plan.data()
    hi = replay_plan(plan, data, seed, n)
    value = data[plan.y_at] if data[plan.y_at] is not y0 else None
    return value, _finish(hi, plan, y0, n, factors, scale, rdtype)


def _finish(hi: Any, plan: Plan, y0: Any, n: int, factors: Any, scale: Any,
            rdtype: Any) -> Any:
    """The rows of y's series ``hi`` as coefficients 1..n of x's shape (summed where
    y is larger), times ``factors`` (``scale`` as an array) when given."""
    x0 = plan.variables[0].data
    xp = get_array_module(x0)
    shape = y0.shape
    if hi is None or hi.shape[0] == 0:
        return xp.zeros((n,) + x0.shape, dtype=rdtype)
    if y0.size == 1 and x0.size == 1 and hi.size == hi.shape[0]:
        # one number per order: finish in Python floats (NumPy only if one overflows)
        vals = hi.reshape(-1)[:n].tolist()
        vals += [0.0] * (n - len(vals))
        if factors is not None:
            vals = [v * f for v, f in zip(vals, factors)]
        try:
            return py_array(vals, x0.shape, xp, rdtype)
        except Redo:
            pass
    hi = lift_to(hi, y0.ndim)
    d = hi.shape[0]
    if d >= n and hi.shape[1:] == shape:
        coef = hi[:n]
    else:
        coef = xp.zeros((n,) + shape, dtype=hi.dtype)
        coef[:d] = hi[:n]
    if shape != x0.shape:
        if x0.size == 1:
            coef = coef.reshape(n, -1).sum(axis=1).reshape((n,) + x0.shape)
        else:
            coef = sum_to_rows(coef, x0.shape)
    if scale is None:
        return coef
    col = scale.reshape((n,) + (1,) * (coef.ndim - 1))
    if xp is not np:
        col = xp.asarray(col)
    if coef.dtype == col.dtype:
        return coef * col
    return (coef.astype(col.dtype) * col).astype(coef.dtype)


def taylor_coefficients(y: Variable, x: Variable, order: int) -> list[Any] | None:
    """[c_0, c_1, ..., c_order]: the Taylor coefficients f^(k)(x0) / k! of y about x0.

    ``c_0`` is ``y.data``; the others follow the derivative semantics of
    ``taylor_derivatives`` (summed over y when x is a scalar and y an array).
    None when Taylor mode does not apply. Any order is allowed; coefficients of
    entire functions underflow to 0 somewhere past order 170.
    """
    got = _coefficients(y, x, order)
    return None if got is None else _arrays(got)


def _check_order(order: int) -> None:
    if order > MAX_ORDER:
        raise LimitError(
            f"Taylor mode computes derivatives up to order {MAX_ORDER}; asked for {order}"
        )


def taylor_derivatives(y: Variable, x: Variable, order: int) -> list[Any] | None:
    """[y, dy/dx, ..., d^order y / dx^order] by Taylor mode, or None to fall back.

    ``y`` must have been computed from ``x`` with ``enable_backprop`` on (the
    recorded graph is replayed; the forward values it holds are reused). The
    first element is ``y.data`` itself. The derivatives mean what
    ``higher_derivatives`` (repeated backprop) gives:

    * an expression elementwise in x: elementwise derivatives, x's shape (summed
      over broadcast axes when y is larger than x);
    * a scalar x (one element) and an array y: derivatives of the sum of y,
      x's shape; reductions, reshapes, indexing and ``@`` are allowed then;
    * an array x with a non-elementwise operation on the path (sum, @, reshape,
      indexing, max ...), or any Function without a Taylor rule: None.

    Past order 170, where k! overflows float64, the series is taken in t/s
    (rescaled), so that a derivative that float64 holds comes out (the
    1000th of sin). Raises LimitError for an order above MAX_ORDER (1000).
    """
    _check_order(order)
    got = _coefficients(y, x, order, derivatives=True)
    return None if got is None else _arrays(got)


def _arrays(got: tuple[Any, list[Any]]) -> list[Any]:
    """The value and the rows as one list of arrays (a row may be a NumPy scalar)."""
    xp = get_array_module(got[0])
    return [got[0], *(xp.asarray(row) for row in got[1])]


def taylor_derivatives_at(y: Variable, x: Variable, values: Any,
                          order: int) -> list[Any] | None:
    """[y, dy/dx, ..., d^order y / dx^order] at every element of ``values``, from a
    graph recorded on a few of them, or None to fall back.

    ``y`` must have been computed from ``x`` (usually ``sample(values)``)
    element by element: then its graph is replayed over ``values`` block by
    block, each block's forward pass and series together, while they are in
    the cache; no whole-array temporary is made, and the blocks are shared
    among THREADS threads. The results are those of evaluating y at ``values``
    and calling taylor_derivatives, bit for bit. None when a step is not
    elementwise or has no rule, a node is not of x's shape, a constant has
    more than one element, or ``values`` are not a large NumPy float array of
    x's dtype (see ``blockwise``): the caller then evaluates y at ``values``.

    Raises LimitError for an order above MAX_ORDER.
    """
    _check_order(order)
    if order < 1 or not blockwise(values) or type(x.data) is not np.ndarray \
            or values.dtype != x.data.dtype:
        return None
    plan = make_plan(y, x)
    if plan is None or not plan.steps or not is_elementwise(plan, constants_like_x=False):
        return None
    UNKNOWN[0] = False  # see unknown_at_zero
    rdtype = np.result_type(float_dtype(y.data), float_dtype(values))
    value = None

    def run(s: float, n: int, derivatives: bool) -> Any:
        nonlocal value
        value, coef = _with_limits(
            lambda m, d: coefficients_blockwise(plan, m, d, rdtype, s, values), n,
            derivatives, s)
        return coef

    coef = rescaled(run, order, True)
    return [value, *coef]
