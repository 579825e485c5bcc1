"""Taylor rules of the registry's elementwise functions: rule(u0, U, y0, n) -> Y
(see the package docstring). Each registry entry names its rule here."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..backend import get_array_module
from .geometric import geom, geom_underflows, times_geom
from .powers import pow_hi
from .rows import (
    Work,
    as_float,
    column,
    float_dtype,
    new_array,
    py_ok,
    py_rows,
    recips,
    writes_derivatives,
)


def exp_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """y' = y u': k y_k = sum_j j u_j y_{k-j}; for a linear input y0 u1**k / k!."""
    d = U.shape[0]
    if d == 1:
        if py_ok(y0, n):
            p, u1, vals = as_float(y0), as_float(U), []
            for k in range(1, n + 1):
                p = p * u1 / k
                vals.append(p)
            return py_rows(vals, y0)
        return times_geom(y0, U[0], recips(n), float_dtype(y0))
    w = Work(y0, n)
    Ut = w.weighted(w.rows(u0, U), d)
    Y = w.out(w.s(y0))
    for k in range(1, n + 1):
        w.spput(Y, k, Ut, Y, 1, min(k, d), 1.0 / k)
    return w.result(Y)


def log_rule(u0: Any, U: Any, y0: Any, n: int, scale: float = 1.0) -> Any:
    """u y' = u': k y_k = (k u_k - sum_{j<k} j y_j u_{k-j}) / u0."""
    xp = get_array_module(U)
    dtype = float_dtype(y0)
    d = U.shape[0]
    coefs = [-scale / k for k in range(1, n + 1)]
    if d == 1:
        # log(u0 + u1 t) = log u0 - sum_k (-u1/u0)**k / k
        if py_ok(y0, n) and as_float(u0) != 0.0:
            q = -as_float(U) / as_float(u0)
            p, vals = 1.0, []
            for k in range(1, n + 1):
                p *= q
                vals.append(p * (-scale / k))
            return py_rows(vals, y0)
        q = (-U[0]) / u0
        P = new_array((n,) + q.shape, dtype, xp)
        P[0] = q
        for k in range(1, n):
            xp.multiply(P[k - 1 : k], q, out=P[k : k + 1])
        return xp.multiply(P, column(coefs, q.ndim, xp, dtype), out=P)
    w = Work(y0, n)
    if not w.vec:
        return _log_rows(w, u0, U, d, scale)
    Ur = w.rows(u0, U)
    Ut = w.weighted(Ur, d)
    r = w.s(1.0 / u0)
    Yt = w.out(0.0)  # k * y_k
    sp = w.sp
    for k in range(1, n + 1):
        s = sp(Yt, Ur, k, max(1, k - d), k - 1)
        w.put(Yt, k, (Ut[k] - s) if k <= d else -s, r)
    out = w.result(Yt)
    out *= column([scale / k for k in range(1, n + 1)], y0.ndim, xp, dtype)
    return out


def _log_rows(w: Work, u0: Any, U: Any, d: int, scale: float) -> Any:
    """log_rule for an array, in place in its rows (k y_k until the last step)."""
    xp, n, shape, dtype = w.xp, w.n, w.shape, w.dtype
    r = xp.divide(1.0, u0, out=new_array(shape, dtype, xp))
    mr = xp.negative(r, out=new_array(shape, dtype, xp)) if n > d else None
    Yt = w.out(u0)
    tmp = new_array(shape, dtype, xp) if n > 1 else None
    for k in range(1, n + 1):
        row = Yt[k]
        pairs = range(max(1, k - d), k)  # sum_j (j y_j) u_{k-j}
        if k == 1:
            xp.multiply(U[0], r, out=row)
        elif k <= d:
            xp.multiply(U[k - 1], float(k), out=row)
            for j in pairs:
                xp.multiply(Yt[j], U[k - j - 1], out=tmp)
                row -= tmp
            row *= r
        else:
            for j in pairs:
                if j == pairs[0]:
                    xp.multiply(Yt[j], U[k - j - 1], out=row)
                else:
                    xp.multiply(Yt[j], U[k - j - 1], out=tmp)
                    row += tmp
            row *= mr
    for k in range(1, n + 1):
        if scale / k != 1.0:
            Yt[k] *= scale / k
    return w.result(Yt)


def log2_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return log_rule(u0, U, y0, n, 1.0 / math.log(2.0))


def log10_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return log_rule(u0, U, y0, n, 1.0 / math.log(10.0))


def sqrt_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return pow_hi(u0, U, y0, n, 0.5)


def _sincos(u0: Any, U: Any, y0: Any, n: int, partner: str, signs: list[float],
            ysign: float, psign: float) -> Any:
    """sin, cos, sinh, cosh: y0 the output, p0 = partner(u0) its partner (cos
    for sin ...).

    y' = ysign p u' and p' = psign y u'. ``signs[k % 4]`` is the sign of the
    k-th derivative for a linear input: +-p0 for odd k, +-y0 for even k.
    """
    d = U.shape[0]
    xp = get_array_module(U)
    dtype = float_dtype(y0)
    pfun = getattr(xp, partner)
    if d == 1 and signs[1] == 1.0 and U.size == 1 and y0.size > 1 \
            and float(U.reshape(())) == 1.0 and u0.shape == y0.shape and u0.dtype == dtype \
            and not geom_underflows(1.0, n):
        # x itself, over an array: the partner (sin's cos, not cos's -sin) is the
        # first row as it is, written there (no copy, no scaling pass); the other
        # rows are +-p0 / k!, +-y0 / k!
        out = new_array((n,) + y0.shape, dtype, xp)
        p0 = pfun(u0, out=out[0])
        sg = [signs[k % 4] / math.factorial(k) for k in range(1, n + 1)]
        if n > 2:
            xp.multiply(p0, column(sg[2::2], y0.ndim, xp, dtype), out=out[2::2])
        if n > 1:
            xp.multiply(y0, column(sg[1::2], y0.ndim, xp, dtype), out=out[1::2])
        return out
    p0 = pfun(u0)
    if d == 1:
        if py_ok(y0, n):
            p, u1, base, vals = 1.0, as_float(U), (as_float(y0), as_float(p0)), []
            for k in range(1, n + 1):
                p = p * u1 / k
                vals.append(base[k % 2] * signs[k % 4] * p)
            return py_rows(vals, y0)
        sg = [signs[k % 4] for k in range(1, n + 1)]
        if U.size == 1 and geom_underflows(float(U.reshape(())), n):
            rows = [times_geom(p0, U[0], recips(n), dtype, sg),
                    times_geom(y0, U[0], recips(n), dtype, sg)]
            return xp.stack([rows[k % 2][k] for k in range(n)])
        P = geom(U[0], recips(n), dtype, sg)
        out = new_array((n,) + y0.shape, dtype, xp)
        xp.multiply(p0, P[0::2], out=out[0::2])
        xp.multiply(y0, P[1::2], out=out[1::2])
        return out
    w = Work(y0, n)
    Ut = w.weighted(w.rows(u0, U), d)
    Y = w.out(w.s(y0))
    Pa = w.out(w.s(p0))
    for k in range(1, n + 1):
        m = min(k, d)
        w.spput(Y, k, Ut, Pa, 1, m, ysign / k)
        if k < n:
            w.spput(Pa, k, Ut, Y, 1, m, psign / k)
    return w.result(Y)


def sin_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _sincos(u0, U, y0, n, "cos", [1.0, 1.0, -1.0, -1.0], 1.0, -1.0)


def cos_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _sincos(u0, U, y0, n, "sin", [1.0, -1.0, -1.0, 1.0], -1.0, 1.0)


def sinh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _sincos(u0, U, y0, n, "cosh", [1.0, 1.0, 1.0, 1.0], 1.0, 1.0)


def cosh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _sincos(u0, U, y0, n, "sinh", [1.0, 1.0, 1.0, 1.0], 1.0, 1.0)


def _riccati(u0: Any, U: Any, y0: Any, n: int, g: Callable[[Any, Any, Any], Any],
             beta: float, gamma: float) -> Any:
    """y' = g(y) u' with g(y) = alpha + beta y + gamma y**2 (tan, tanh, sigmoid).

    ``g(u0, y0, out)`` writes g at order 0 into ``out`` (None: a new array), in
    the operations backprop uses, so that order 1 is backprop's to the last
    bit, except in tails where those lose their digits (see _tail).
    The recurrence is (k+1) y_{k+1} = sum_j j u_j g_{k+1-j}, with g's
    coefficients g_k = beta y_k + gamma sum_{i=0..k} y_i y_{k-i}.
    """
    d = U.shape[0]
    w = Work(y0, n)
    if d == 1 and U.size == 1 and not w.vec:
        return _riccati_linear_rows(w, u0, y0, float(U.reshape(())), g, beta, gamma)
    Y = w.out(w.s(y0))
    sp = w.sp
    vec = w.vec
    g0 = w.s(g(u0, y0, None if vec else new_array(w.shape, w.dtype, w.xp)))
    if d == 1 and U.size == 1:
        # a linear input with one slope: y_{k+1} = u1 g_k / (k+1), g never stored
        u1 = float(U.reshape(()))
        w.put(Y, 1, g0, u1)
        for k in range(1, n):
            sq = sp(Y, Y, k, 0, k)
            if not beta:
                w.put(Y, k + 1, sq, gamma * u1 / (k + 1))
            else:  # beta = 1, gamma = -1 (sigmoid)
                w.put(Y, k + 1, Y[k] - sq, u1 / (k + 1))
        return w.result(Y)
    Ut = w.weighted(w.rows(u0, U), d)
    G = w.out(g0)
    for k in range(1, n + 1):
        w.spput(Y, k, Ut, G, 1, min(k, d), 1.0 / k)
        if k == n:
            break
        # sum_{i=0..k} y_i y_{k-i}, by symmetry
        if vec:
            sq = sp(Y, Y, k, 0, k)
        else:
            sq = sp(Y, Y, k, 0, (k - 1) // 2)
            sq *= 2.0
            if k % 2 == 0:
                sq += Y[k // 2] * Y[k // 2]
        if not beta:
            w.put(G, k, sq, gamma)
        elif vec:  # beta = 1, gamma = -1 (sigmoid)
            G[k] = Y[k] - sq
        else:
            w.xp.subtract(Y[k], sq, out=G[k])
    return w.result(Y)


def _riccati_linear_rows(w: Work, u0: Any, y0: Any, u1: float,
                         g: Callable[[Any, Any, Any], Any], beta: float, gamma: float) -> Any:
    """_riccati for an array and a linear input u0 + u1 t, in place in its rows.

    With v = u1 (beta + 2 gamma y0), (k+1) y_{k+1} = v y_k + u1 gamma
    sum_{i=1..k-1} y_i y_{k-i}: v is one array for every order, and the sum,
    by symmetry, needs a product per pair. Every row and the scratch row come
    from the block arena, so a blockwise replay allocates nothing.
    """
    xp = w.xp
    n = w.n
    Y = w.out(y0)
    g(u0, y0, Y[1])
    if u1 != 1.0:
        Y[1] *= u1
    if n == 1:
        return w.result(Y)
    v = new_array(w.shape, w.dtype, xp)
    xp.multiply(y0, 2.0 * gamma * u1, out=v)
    if beta:
        v += beta * u1
    tmp = new_array(w.shape, w.dtype, xp) if n > 2 else None
    tmp2 = new_array(w.shape, w.dtype, xp) if n > 5 else None
    c = gamma * u1
    if writes_derivatives(Y.backing):
        # D_k = k! y_k: D_{k+1} = v D_k + c sum_{i=1..k-1} C(k, i) D_i D_{k-i}, no
        # 1/(k+1) per order and no k! afterwards
        for k in range(1, n):
            row = Y[k + 1]
            xp.multiply(v, Y[k], out=row)
            for i in range(1, k // 2 + 1):
                weight = math.comb(k, i) * (1 if 2 * i == k else 2)
                xp.multiply(Y[i], Y[k - i], out=tmp)
                _add_scaled(row, tmp, c * weight)
        return w.result(Y)
    for k in range(1, n):
        row = Y[k + 1]
        xp.multiply(v, Y[k], out=row)
        half = (k - 1) // 2  # the pairs (i, k-i) with 1 <= i < k-i, each counted twice
        if half:
            xp.multiply(Y[1], Y[k - 1], out=tmp)
            for i in range(2, half + 1):
                xp.multiply(Y[i], Y[k - i], out=tmp2)
                tmp += tmp2
            _add_scaled(row, tmp, 2.0 * c)
        if k > 1 and k % 2 == 0:
            xp.multiply(Y[k // 2], Y[k // 2], out=tmp)
            _add_scaled(row, tmp, c)
        row *= 1.0 / (k + 1)
    return w.result(Y)


def _add_scaled(row: Any, t: Any, c: float) -> None:
    """row += c * t in place (t is scratch and may be scaled)."""
    if c == 1.0:
        row += t
    elif c == -1.0:
        row -= t
    else:
        t *= c
        row += t


_TAIL = 2.0**-10
"""Below this, tanh's 1 - y**2 and sigmoid's y (1 - y) have lost more than ten
bits to cancellation (y is that near to 1): _tail computes them afresh."""


def _tail(g: Any, u: Any, a: float, c: float) -> Any:
    """g, with each element below _TAIL replaced by c e / (1 + e)**2 for
    e = exp(-a |u|): tanh' (a = 2, c = 4) and sigmoid' (a = c = 1) in a form
    without cancellation, for the tails where 1 - y**2 gave tanh'(20) as 0
    (it is 1.7e-17). Only such elements cost an exp; ``g`` is changed in place
    when it is an array of more than one element."""
    if type(g) is np.ndarray and g.size and not np.fmin.reduce(g, axis=None) < _TAIL:
        return g  # the usual case in one reduction (fmin passes over nan), no mask
    small = g < _TAIL
    if not small.any():
        return g
    xp = get_array_module(small)
    if g.size == 1:
        e = xp.exp(-a * xp.abs(u))
        return xp.where(small, c * e / ((1.0 + e) * (1.0 + e)), g)
    e = xp.exp(-a * xp.abs(xp.broadcast_to(u, g.shape)[small]))
    g[small] = c * e / ((1.0 + e) * (1.0 + e))
    return g


def _g_tan(u: Any, y: Any, out: Any) -> Any:
    if out is None:
        return 1 + y * y
    xp = get_array_module(y)
    xp.multiply(y, y, out=out)
    return xp.add(1.0, out, out=out)


def _g_tanh(u: Any, y: Any, out: Any) -> Any:
    if out is None:
        return _tail(1 - y * y, u, 2.0, 4.0)
    xp = get_array_module(y)
    xp.multiply(y, y, out=out)
    return _tail(xp.subtract(1.0, out, out=out), u, 2.0, 4.0)


def _g_sigmoid(u: Any, y: Any, out: Any) -> Any:
    if out is None:
        return _tail(y * (1 - y), u, 1.0, 1.0)
    xp = get_array_module(y)
    xp.subtract(1.0, y, out=out)
    return _tail(xp.multiply(y, out, out=out), u, 1.0, 1.0)


def tan_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _riccati(u0, U, y0, n, _g_tan, 0.0, 1.0)


def tanh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _riccati(u0, U, y0, n, _g_tanh, 0.0, -1.0)


def sigmoid_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    # sigmoid(u) = (1 + tanh(u/2)) / 2 satisfies y' = y (1 - y) u', tanh's Riccati form
    return _riccati(u0, U, y0, n, _g_sigmoid, 1.0, -1.0)

