"""Derivatives from Taylor coefficients: k! c_k within float64, and past order
170 (where k! overflows) from the series of y(x0 + s t) instead."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...limits import FACTORIAL_ORDER  # past it derivatives come from the series in t/s
from ...limits import MAX_ORDER as MAX_ORDER  # the taylor package's name for it
from ..backend import get_array_module
from ..running import operation
from .rows import column

_FACT_PY = [float(math.factorial(k)) for k in range(FACTORIAL_ORDER + 1)]


def rescaled(run: Callable[[float, int, bool], Any], n: int, derivatives: bool) -> Any:
    """run(s, m, True): derivatives to order m from the series of y(x0 + s t),
    whose coefficients are c_k s^k, each times k! / s^k (see
    derivative_factors); run(1, m, False): the coefficients c_k themselves.

    To order FACTORIAL_ORDER s is 1. Past it k! overflows, and s keeps k! / s^k
    and c_k s^k within float64 where the derivative itself is: first s = n/e,
    which keeps both within about 1e150 of 1 for an entire function (the 1000th
    derivative of sin: c_k ~ 1/k! underflows past order 180); where that leaves
    a derivative infinite or nan (c_k s^k of a function with a finite radius of
    convergence overflowed midway), the smallest s that keeps k! / s^k finite,
    for those elements; where that fails too, k! c_k by mantissas and exponents
    (_by_exponents): the derivative is then beyond float64 (the 171st of
    1/(1+x^2) at 0.7 is about -3e309), its signed infinity, with an overflow
    warning. Only the last pass's floating-point errors are reported. Orders to
    FACTORIAL_ORDER are then those of s = 1 wherever finite: s's roundings made
    the second derivative of x^2 2.0000000000000004 (a pass to order 170 costs
    a few percent of one to order 1000).
    """
    if not derivatives:
        return run(1.0, n, False)
    if n <= FACTORIAL_ORDER:
        exact = run(1.0, n, True)
        if exact is None or n < UNDERFLOW_ORDER and exact[0].size > 1:
            return exact
        under = _underflowed(exact)
        if not bool((under & (exact != 0)).any()):
            # no coefficient short of digits: its zeros are exact (x^4 past order 4),
            # since a shrinking series passes through the subnormals before 0
            return exact
        with np.errstate(all="ignore"):
            wide = run(n / math.e, n, True)
        xp = get_array_module(exact)
        return xp.where(under & xp.isfinite(wide), wide, exact)
    with np.errstate(all="ignore"):
        wide = run(n / math.e, n, True)
    if wide is None:
        return None
    xp = get_array_module(wide)
    finite = xp.isfinite(wide)
    if not bool(finite.all()):
        with np.errstate(all="ignore"):
            wide = xp.where(finite, wide,
                            run(math.exp((math.lgamma(n + 1) - 700.0) / n), n, True))
        finite = xp.isfinite(wide)
    if not bool(finite.all()):
        wide = xp.where(finite, wide, _by_exponents(run(1.0, n, False)))
    with np.errstate(all="ignore"):  # the passes above reported what matters
        exact = run(1.0, FACTORIAL_ORDER, True)
    low = wide[:FACTORIAL_ORDER]
    low[...] = xp.where(xp.isfinite(exact) & ~_underflowed(exact), exact, low)
    return wide


@operation("derivative")  # fpe.py: the overflow is the derivative's
def _by_exponents(coef: Any) -> Any:
    """k! c_k for rows c_1..c_n, multiplied as mantissas and exponents (past
    order 170 k! is no float64): a product beyond float64 is its signed
    infinity, with an overflow warning that names the derivative."""
    xp = get_array_module(coef)
    mantissas, exponents, f = [], [], 1
    for k in range(1, coef.shape[0] + 1):
        f *= k
        bits = f.bit_length()
        mantissas.append(f / (1 << bits))  # k! = m 2^bits, m in [0.5, 1): exactly rounded
        exponents.append(bits)
    m, e = xp.frexp(coef)
    ndim = coef.ndim - 1
    m *= column(mantissas, ndim, xp, m.dtype)
    e += column(exponents, ndim, xp, e.dtype)
    return xp.ldexp(m, e)


UNDERFLOW_ORDER = 8
"""From this order on (k! > 4e4) an array's derivatives are checked for a
Taylor coefficient f^(k)(a)/k! below the smallest normal number, lost or short
of digits, though the derivative is not (one point's always are, at the cost of
a comparison): in float64 the 130th derivative of exp(x/10), 1e-130, has c_k =
1.5e-350, and the 40th of exp(x)*1e-290 c_k = 1e-338; in float32, whose
numbers end at 1.2e-38, the 20th of exp(x) at -60, 8.8e-27, has c_k = 3.6e-45.
Where the series at s = 1 gave such a coefficient, rescaled takes the scaled
series' derivative instead (0 too where the derivative is). Below this order an
array's check would cost a pass over its result that the arithmetic hardly
exceeds, for derivatives within a factor 40,320 of the smallest normal number."""


def _underflowed(d: Any) -> Any:
    """Where derivatives ``d`` (row k-1: order k <= FACTORIAL_ORDER) came from a
    coefficient d / k! that is 0 or subnormal."""
    xp = get_array_module(d)
    tiny = float(np.finfo(d.dtype).tiny)
    bound = column([tiny * f for f in _FACT_PY[1 : d.shape[0] + 1]], d.ndim - 1, xp, np.float64)
    return (d < bound) & (d > -bound)  # no temporary of d's size (abs(d) would be one)


def derivative_factors(n: int, s: float) -> list[float]:
    """k! / s^k for k = 1..n."""
    if s == 1.0:
        return _FACT_PY[1 : n + 1]
    out, f = [], 1.0
    for k in range(1, n + 1):
        f *= k / s
        out.append(f)
    return out
