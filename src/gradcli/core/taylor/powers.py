"""Taylor rules of powers: integer powers exactly (binomials or repeated
products), real powers by ``u y' = a y u'``, and a base that is 0 at the point
(which can need more of the base's series than asked for)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..backend import get_array_module
from .geometric import geom
from .rows import (
    PY_MAX,
    Work,
    as_float,
    block_state,
    column,
    float_dtype,
    lift_to,
    new_array,
    py_ok,
    py_rows,
    zero_rows,
)
from .series import NO_CONTEXT, UNKNOWN, WARN_ROWS, mul_hi


def _int_pow_hi(u0: Any, U: Any, n: int, p: int, shape: tuple[int, ...]) -> Any:
    """Coefficients of u**p for an integer p >= 2, exactly (no division by u0)."""
    xp = get_array_module(U)
    dtype = float_dtype(U)
    d = U.shape[0]
    if d == 1:
        # (u0 + u1 t)**p = sum_k C(p, k) u0**(p-k) u1**k t**k
        m = min(p, n)
        u1 = U[0]
        coefs = [float(math.comb(p, k)) for k in range(1, m + 1)]
        if u0.size == 1 and U.size == 1 and m <= PY_MAX and not getattr(block_state, "nopy", False):
            a, b = as_float(u0), as_float(U)
            try:
                vals = [c * a ** (p - k) * b**k for k, c in enumerate(coefs, 1)]
            except OverflowError:
                vals = [math.inf]
            if all(v - v == 0.0 for v in vals):
                return xp.asarray(vals, dtype=dtype).reshape((m,) + (1,) * u0.ndim)
        if u0.size == 1:
            exps = xp.asarray([p - k for k in range(1, m + 1)], dtype=dtype)
            pw = xp.power(u0.reshape(()), exps).reshape((m,) + (1,) * u0.ndim)
        elif U.size == 1:
            rows = _int_pow_rows(u0, float(U.reshape(())), coefs, p, xp, dtype)
            if rows is not None:
                return rows
            pw = _int_pow_rows(u0, 1.0, [1.0] * m, p, xp, dtype)
        else:
            pw = new_array((m,) + u0.shape, dtype, xp)
            e = p - m
            if e == 0:
                pw[m - 1] = 1.0
            elif e == 1:
                pw[m - 1] = u0
            else:
                xp.power(u0, float(e), out=pw[m - 1])
            for k in range(m - 1, 0, -1):
                xp.multiply(pw[k], u0, out=pw[k - 1])
        scale = geom(u1, [1.0] * m, dtype) * column(coefs, u1.ndim, xp, dtype)
        if scale.shape[1:] == pw.shape[1:] or scale[0].size == 1:
            return xp.multiply(pw, scale, out=pw)
        return pw * scale
    # binary powering on truncated series: O(log p) products, exact at u0 == 0
    result: tuple[Any, Any] | None = None
    base = (u0, U)
    e = p
    while e:
        if e & 1:
            if result is None:
                result = base
            else:
                result = (result[0] * base[0],
                          mul_hi(result[0], result[1], base[0], base[1], n, shape))
        e >>= 1
        if e:
            base = (base[0] * base[0], mul_hi(base[0], base[1], base[0], base[1], n, shape))
    assert result is not None
    return result[1]


def _int_pow_rows(u0: Any, u1: float, coefs: list[float], p: int, xp: Any,
                  dtype: Any) -> Any:
    """Rows C(p, k) u1**k u0**(p-k), k = 1..m, of (u0 + u1 t)**p for an array u0
    and one slope u1: each row costs a pass or two (x**2's are 2 x and 1), where
    powers, then scaling, cost two or three. None if a scale overflows."""
    m = len(coefs)
    scales = []
    for k, c in enumerate(coefs, 1):
        try:
            v = c * u1**k
        except OverflowError:
            return None
        if v - v != 0.0:
            return None
        scales.append(v)
    rows = new_array((m,) + u0.shape, dtype, xp)
    e_min = p - m
    for k in range(m, 0, -1):  # u0**e for e = p - k >= 2, each from the one below
        e = p - k
        if e == 2:
            xp.multiply(u0, u0, out=rows[k - 1], dtype=dtype)  # an integer x's too
        elif e > 2:
            if e == e_min:
                xp.power(u0, float(e), out=rows[k - 1])
            else:
                xp.multiply(rows[k], u0, out=rows[k - 1])
    for k in range(1, m + 1):
        e, row, sc = p - k, rows[k - 1], scales[k - 1]
        if e == 0:
            row.fill(sc)
        elif e == 1:
            xp.multiply(u0, sc, out=row)
        elif sc != 1.0:
            row *= sc
    return rows


def pow_hi(u0: Any, U: Any, y0: Any, n: int, a: Any) -> Any:
    """Coefficients of y = u**a (a a number, or an array broadcasting with u)."""
    xp = get_array_module(U)
    dtype = float_dtype(y0)
    nd = y0.ndim
    if np.ndim(a) == 0 or getattr(a, "size", 1) == 1:
        a = float(a.reshape(()) if hasattr(a, "reshape") else a)
        if math.isfinite(a) and a == int(a) and abs(a) <= 1024:
            p = int(a)
            if p == 0:
                return zero_rows(y0)
            if p == 1:
                return U
            if p > 1:
                return _int_pow_hi(u0, U, n, p, y0.shape)
    else:
        a = xp.asarray(a, dtype=dtype)
        a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    d = U.shape[0]
    if d == 1 and np.ndim(a) == 0 and py_ok(y0, n) and as_float(u0) != 0.0:
        q, p, vals = as_float(U) / as_float(u0), as_float(y0), []
        for k in range(1, n + 1):
            p *= q * (a - k + 1.0) / k
            vals.append(p)
        return py_rows(vals, y0)
    if d == 1:
        # y0 * C(a, k) * (u1 / u0)**k, as one cumulative product
        kcol = xp.arange(1, n + 1, dtype=dtype).reshape((n,) + (1,) * nd)
        weights = (a - kcol + 1.0) / kcol
        if bool(xp.all(u0)):  # no zero in u0
            if np.ndim(a) or U[0].size != 1:
                return y0 * geom(U[0] / u0, weights, dtype)
            # y0 q**k, row by row, then the binomial weights
            q = U[0] / u0
            out = new_array((n,) + y0.shape, dtype, xp)
            xp.multiply(y0, q, out=out[0:1])
            for k in range(1, n):
                xp.multiply(out[k - 1 : k], q, out=out[k : k + 1])
            return xp.multiply(out, xp.cumprod(weights, axis=0), out=out)
        with np.errstate(divide="ignore", invalid="ignore"):
            Y = y0 * geom(U[0] / u0, weights, dtype)
        return _pow_at_zero(u0, U, a, Y, n)
    # u y' = a y u':  y_k = (a * sum y_j ~u_{k-j} - sum ~y_j u_{k-j}) / (k u0)
    zeros = not bool(xp.all(u0))  # there the recurrence divides by 0: mended below
    with np.errstate(divide="ignore", invalid="ignore") if zeros else NO_CONTEXT:
        w = Work(y0, n)
        Ur = w.rows(u0, U)
        Ut = w.weighted(Ur, d)
        r = w.s(1.0 / u0)
        Y = w.out(w.s(y0))
        Yt = w.out(0.0)
        sp = w.sp
        for k in range(1, n + 1):
            j0 = max(0, k - d)
            s = a * sp(Y, Ut, k, j0, k - 1) - sp(Yt, Ur, k, max(1, j0), k - 1)
            w.put(Y, k, s * (1.0 / k), r)
            if k < n:
                w.put(Yt, k, Y[k], float(k))
        Y = w.result(Y)
    return _pow_at_zero(u0, U, a, Y, n) if zeros else Y


def leading_term(U: Any) -> tuple[Any, Any]:
    """(m, u_m) of series rows U (axis 0 the order, row k-1 holding u_k): the order
    of the first nonzero coefficient, 0 where there is none, and its value."""
    xp = get_array_module(U)
    nz = U != 0
    first = nz.argmax(axis=0)
    return (xp.where(nz.any(axis=0), first + 1, 0),
            xp.take_along_axis(U, first[None], axis=0)[0])


def _pow_at_zero(u0: Any, U: Any, a: Any, Y: Any, n: int) -> Any:
    """Y, the coefficients of u**a, mended where u0 = 0 (the recurrence divided by it).

    There u = u_m t^m + ... (m the order of u's first nonzero coefficient), so
    y = O(|t|^(m a)): every coefficient of an order below m a is 0. From that
    order on: for m = 1, C(a, k) 0**(a-k) u1**k, as for a linear input
    (infinite past a: the derivatives blow up); for an even m with u_m > 0 and
    m a an even whole number, y = t^(m a) v**a with v = u / t^m is analytic, and
    its coefficients are v**a's, shifted ((x^4)^0.5 is x^2), as far as u's known
    coefficients reach (v needs u's beyond order n when m > m a); else nan, the
    derivative not being defined (|x|^3 = (x^2)^1.5 has no third) or not known
    (the session then asks for more orders: see Session.derivatives). A nan
    written here warns as "argument outside the domain", as a computed one would.
    """
    xp = get_array_module(Y)
    rows, shape = Y.shape[0], Y.shape[1:]
    d = U.shape[0]
    known = rows if d >= rows else None  # u's rows past d are 0 when d < n, else unknown
    Y = xp.array(Y)  # a fresh, writable copy (the rows may be shared)
    Yf = Y.reshape(rows, -1)
    Uf = xp.broadcast_to(U, (d,) + shape).reshape(d, -1)
    zero = xp.broadcast_to(u0 == 0, shape).reshape(-1)
    m, lead = leading_term(Uf)
    af = xp.broadcast_to(xp.asarray(a, dtype=Y.dtype), shape).reshape(-1)
    kcol = xp.arange(1, rows + 1, dtype=Y.dtype).reshape(rows, 1)
    # below the order m a: 0; u known to be 0 (a polynomial): y = 0 for a > 0;
    # u 0 up to order n: y = o(|t|^(n a)) (not O(t^(n+1)): u may be x^2.5)
    lowest = xp.where(m > 0, m, float(rows) if known else xp.inf)
    # an infinite u_m: u vanishes to an order between m - 1 and m (u = x^2.5 has
    # 0, 0, inf): 0 below (m - 1) a, and nothing known from there
    vague = (m > 0) & ~xp.isfinite(lead)
    lowest = xp.where(vague, m - 1, lowest)
    m = xp.where(vague, -1, m)
    fixed = xp.where(kcol < lowest * af, 0.0, xp.nan)
    Yf[:, zero] = fixed[:, zero]
    # nan that more orders would turn into numbers (not undefined, not known yet)
    unknown = xp.zeros(Yf.shape, dtype=bool)
    if known:
        unknown[:, zero & (m == 0)] = xp.isnan(fixed[:, zero & (m == 0)])
    one = zero & (m == 1)
    if bool(one.any()):
        a1, u1 = af[one], Uf[0, one]
        # C(a, k) 0**(a-k) u1**k; C is 0 for a whole a < k: those terms are exactly
        # 0, not 0 * inf; 0**(negative) past a is a real pole, and warns
        C = xp.cumprod((a1 - kcol + 1.0) / kcol, axis=0)
        z = xp.power(xp.zeros_like(a1), xp.where(C != 0, a1 - kcol, 0.0))
        Yf[:, one] = C * z * xp.cumprod(xp.broadcast_to(u1, (rows, u1.size)), axis=0)
    if np.ndim(a) == 0:
        for mm in range(2, d + 1, 2):
            e = mm * a
            if e != int(e) or int(e) % 2 or not 0 < int(e) <= rows:
                continue
            e = int(e)
            (idx,) = xp.nonzero(zero & (m == mm) & (Uf[mm - 1] > 0))
            if not idx.size:
                continue
            v0 = Uf[mm - 1, idx]
            Yf[e - 1, idx] = v0**a
            if e == rows:
                continue
            V = Uf[mm:, idx]
            S = pow_hi(v0, V, v0**a, rows - e, a) if V.shape[0] else None
            S = xp.zeros((rows - e, idx.size), dtype=Y.dtype) if S is None else \
                xp.array(xp.broadcast_to(lift_to(S, 1), (S.shape[0], idx.size)))
            if S.shape[0] < rows - e:  # a constant or short v: the rest is 0
                S = xp.concatenate([S, xp.zeros((rows - e - S.shape[0], idx.size),
                                                dtype=Y.dtype)])
            if known is not None:  # v_j = u_(m+j) is known for m + j <= n
                S[max(0, known - mm):] = xp.nan
                unknown[e + max(0, known - mm):, idx] = True
            Yf[e:, idx] = S
    if bool(unknown.any()):
        UNKNOWN[0] = True
    if bool((xp.isnan(Yf) & ~unknown)[: WARN_ROWS[0], zero].any()):
        # undefined derivatives, written, not computed: the one warning for them,
        # as a computed nan gives (fpe.py names the step)
        np.float64(0.0) * np.float64(np.inf)
    return Y


