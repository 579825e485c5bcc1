"""Taylor rules of the registry's elementwise functions: rule(u0, U, y0, n) -> Y
(see the package docstring). Each registry entry names its rule here."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..backend import get_array_module
from . import inverse
from .geometric import geom, geom_underflows, times_geom
from .powers import pow_hi
from .rows import (
    Work,
    as_float,
    block_state,
    column,
    float_dtype,
    integrated,
    new_array,
    py_ok,
    py_rows,
    recips,
    writes_derivatives,
)
from .series import div_hi, mul_hi


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



# --- issue 31's functions: built from the rules above ------------------------------


@contextlib.contextmanager
def _inner() -> Iterator[None]:
    """An intermediate series of a composed rule (sec's cos) must not take the
    caller's output block (see _rows_out): only the last step writes there."""
    target = getattr(block_state, "target", None)
    block_state.target = None
    try:
        yield
    finally:
        block_state.target = target


def _reciprocal(b0: Any, B: Any, y0: Any, n: int) -> Any:
    """1 / b from b's series; y0 is 1 / b0 as recorded."""
    xp = get_array_module(B)
    return div_hi(xp.asarray(1.0, dtype=float_dtype(y0)), None, b0, B, y0, n)


def _one_over(rule: Callable[..., Any], forward: str) -> Callable[..., Any]:
    """The rule of 1 / f(u), from f's rule: sec = 1/cos, coth = 1/tanh ..."""

    def one_over_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
        b0 = getattr(get_array_module(u0), forward)(u0)
        with _inner():
            B = rule(u0, U, b0, n)
        return _reciprocal(b0, B, y0, n)

    return one_over_rule


sec_rule = _one_over(cos_rule, "cos")
csc_rule = _one_over(sin_rule, "sin")


def _g_cot(u: Any, y: Any, out: Any) -> Any:
    if out is None:
        return -(1 + y * y)
    xp = get_array_module(y)
    xp.multiply(y, y, out=out)
    xp.add(1.0, out, out=out)
    return xp.negative(out, out=out)


def cot_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    # y' = -(1 + y**2) u', tan's Riccati form: 1/tan loses digits near tan's poles
    return _riccati(u0, U, y0, n, _g_cot, 0.0, -1.0)


sech_rule = _one_over(cosh_rule, "cosh")
csch_rule = _one_over(sinh_rule, "sinh")
coth_rule = _one_over(tanh_rule, "tanh")


def _of_reciprocal(rule: Callable[..., Any]) -> Callable[..., Any]:
    """The rule of f(1 / u), from f's rule: asec = acos(1/u) ..."""

    def of_reciprocal_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
        v0 = 1.0 / u0
        with _inner():
            V = _reciprocal(u0, U, v0, n)
        return rule(v0, V, y0, n)

    return of_reciprocal_rule


asec_rule = _of_reciprocal(inverse.acos_rule)
acsc_rule = _of_reciprocal(inverse.asin_rule)


def acot_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """acot' = -atan' = -1/(1 + u**2): atan's rule negated (atan(1/u) lost seven
    digits by order 40 at 0.96)."""
    return -inverse.atan_rule(u0, U, y0, n)


def cbrt_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    # u y' = y u' / 3 holds for negative u too: only y0 and u0 enter
    return pow_hi(u0, U, y0, n, 1.0 / 3.0)


_LN2 = math.log(2.0)


def exp2_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """2**u = exp(u log 2): exp's rule with the coefficients scaled."""
    return exp_rule(u0 * _LN2, U * _LN2, y0, n)


def expm1_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """exp(u) - 1 differs from exp(u) at order 0 only."""
    return exp_rule(u0, U, get_array_module(u0).exp(u0), n)


def log1p_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """log(1 + u): log's rule for 1 + u, whose higher coefficients are u's."""
    return log_rule(1.0 + u0, U, y0, n)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf_series(u0: Any, U: Any, y0: Any, n: int, sign: float) -> Any:
    """y' = sign (2/sqrt(pi)) exp(-u**2) u': the series of g = y'/u' to order
    n - 1 (exp's rule of -u**2), then k y_k = sum_j j u_j g_{k-j}."""
    xp = get_array_module(U)
    c = sign * _TWO_OVER_SQRT_PI
    e0 = xp.exp(-(u0 * u0))
    with _inner():
        if n > 1:
            S = mul_hi(u0, U, u0, U, n - 1, y0.shape)
            G = exp_rule(-(u0 * u0), -S, e0, n - 1) * c
        else:
            G = xp.zeros((0,) + y0.shape, dtype=float_dtype(y0))
    return integrated(y0, n, xp.broadcast_to(e0 * c, y0.shape), G, u0, U)


def erf_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _erf_series(u0, U, y0, n, 1.0)


def erfc_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _erf_series(u0, U, y0, n, -1.0)


# --- functions of several arguments (STRUCTURAL_RULES form: rule(f, ins, y0, n)) ---
# Their series are few and short: plain truncated arithmetic on whole series
# (order 0 included), one row per order.


def _full(v0: Any, V: Any, n: int, y0: Any) -> Any:
    """The series c_0..c_n of an input, broadcast to y0's shape (V None: a constant)."""
    xp = get_array_module(y0)
    S = xp.zeros((n + 1,) + y0.shape, dtype=float_dtype(y0))
    S[0] = v0
    if V is not None:
        m = min(V.shape[0], n)
        rows = V[:m]
        S[1:m + 1] = rows.reshape((m,) + (1,) * (y0.ndim - rows.ndim + 1) + rows.shape[1:])
    return S


def _conv(A: Any, B: Any, m: int) -> Any:
    """c_0..c_m of the product of two whole series."""
    xp = get_array_module(A)
    C = xp.zeros((m + 1,) + A.shape[1:], dtype=A.dtype)
    for k in range(m + 1):
        for i in range(k + 1):
            C[k] += A[i] * B[k - i]
    return C


def _inv(B: Any, m: int) -> Any:
    """c_0..c_m of 1 / b."""
    xp = get_array_module(B)
    Q = xp.zeros((m + 1,) + B.shape[1:], dtype=B.dtype)
    Q[0] = 1.0 / B[0]
    for k in range(1, m + 1):
        s = B[1] * Q[k - 1]
        for j in range(2, k + 1):
            s = s + B[j] * Q[k - j]
        Q[k] = -s * Q[0]
    return Q


def _deriv(A: Any) -> Any:
    """The series of the derivative: (k+1) a_{k+1}, one order fewer."""
    xp = get_array_module(A)
    k = xp.arange(1, A.shape[0], dtype=A.dtype).reshape((-1,) + (1,) * (A.ndim - 1))
    return A[1:] * k


def _integrate(D: Any, n: int) -> Any:
    """Rows 1..n of y from the series of y' (orders 0..n-1)."""
    xp = get_array_module(D)
    k = xp.arange(1, n + 1, dtype=D.dtype).reshape((-1,) + (1,) * (D.ndim - 1))
    return D[:n] / k


def atan2_rule(f: Any, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    """atan2(v, u)' = (u v' - v u') / (u**2 + v**2)."""
    (v0, V), (u0, U) = ins
    Sv, Su = _full(v0, V, n, y0), _full(u0, U, n, y0)
    m = n - 1
    h = _conv(Su, _deriv(Sv), m) - _conv(Sv, _deriv(Su), m)
    r = _inv(_conv(Su, Su, m) + _conv(Sv, Sv, m), m)
    return _integrate(_conv(h, r, m), n)


def hypot_rule(f: Any, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    """h = sqrt(s), s = u**2 + v**2: 2 h_0 h_k = s_k - sum_{j=1..k-1} h_j h_{k-j}."""
    (u0, U), (v0, V) = ins
    Su, Sv = _full(u0, U, n, y0), _full(v0, V, n, y0)
    s = _conv(Su, Su, n) + _conv(Sv, Sv, n)
    H = _full(y0, None, n, y0)
    half = 0.5 / y0
    for k in range(1, n + 1):
        acc = s[k]
        for j in range(1, k):
            acc = acc - H[j] * H[k - j]
        H[k] = acc * half
    return H[1:]


def select_rule(pick: Callable[..., Any]) -> Callable[..., Any]:
    """The rule of a piecewise function that is one of its arguments (or a
    multiple) near each point: ``pick(values, y0)`` gives (weights per input),
    and the series is the weighted sum of the inputs' series (max, clip, mod)."""

    def rule(f: Any, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
        weights = pick([v for v, _ in ins], y0)
        xp = get_array_module(y0)
        out = xp.zeros((n,) + y0.shape, dtype=float_dtype(y0))
        for (v0, V), w in zip(ins, weights):
            if V is not None and w is not None:
                out += _full(v0, V, n, y0)[1:] * w
        return out

    return rule


def flat_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """A step function between its jumps (floor, sign ...): every higher coefficient is 0,
    known to be (no rows: a polynomial of degree 0, so a power of it that is 0 is 0)."""
    xp = get_array_module(y0)
    return xp.zeros((0,) + y0.shape, dtype=float_dtype(y0))
