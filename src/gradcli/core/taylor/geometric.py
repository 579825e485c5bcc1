"""Closed forms over a linear input: the rows of exp(a + q t) and the like are
a geometric sequence times the value, written without a recurrence."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..backend import get_array_module
from .rows import binary, column


def geom(q: Any, weights: Any, dtype: Any, signs: Any = None) -> Any:
    """Rows prod_{i<=k} q * w_i for k = 1..n: q**k / k! and the like, in one cumprod
    (times ``signs[k-1]`` when given).

    For one q and a list of weights (a linear input's one slope, every block
    of a blockwise replay) the rows are a column of Python floats: a cumprod
    call costs more than the whole loop.
    """
    xp = get_array_module(q)
    if q.size == 1 and type(weights) is list:
        u, p, vals = float(q.reshape(())), 1.0, []
        for wk in weights:
            p *= u * wk
            vals.append(p)
        if all(v - v == 0.0 for v in vals):  # else NumPy's cumprod reports the overflow
            if signs is not None:
                vals = [v * sg for v, sg in zip(vals, signs)]
            return column(vals, q.ndim, xp, dtype)
    w = xp.asarray(weights, dtype=dtype)
    if w.ndim == 1:
        w = w.reshape(w.shape + (1,) * q.ndim)
    rows = xp.cumprod(q[None] * w, axis=0)
    if signs is not None:
        rows = rows * column(signs, q.ndim, xp, dtype)
    return rows


def geom_underflows(u: float, n: int) -> bool:
    """Whether |u|^k / k! falls below the normal numbers by k = n."""
    return u == 0.0 or n * math.log(abs(u)) - math.lgamma(n + 1) < -700.0


def times_geom(base: Any, q: Any, weights: list[float], dtype: Any,
                signs: list[float] | None = None) -> Any:
    """Rows base * prod_{i<=k} q w_i (times signs[k-1]) for k = 1..n, as
    binary(np.multiply, base, geom(...)), but where that column underflows
    (exp(x/2) at 1000: 0.5^k / k! is subnormal past order 150 while e^500
    0.5^k / k! is not), by mantissas and exponents kept apart."""
    if q.size != 1 or not geom_underflows(float(q.reshape(())), len(weights)):
        return binary(np.multiply, base, geom(q, weights, dtype, signs))
    xp = get_array_module(base)
    u, m, e, ms, es = float(q.reshape(())), 1.0, 0, [], []
    for k, wk in enumerate(weights):
        m, de = math.frexp(m * u * wk)
        e += de
        ms.append(m * (signs[k] if signs is not None else 1.0))
        es.append(e)
    rows = binary(np.multiply, base, column(ms, q.ndim, xp, dtype))
    return xp.ldexp(rows, column(es, q.ndim, xp, np.int32), out=rows)


