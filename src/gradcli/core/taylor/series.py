"""Products and quotients of series (the convolution, and b q = a solved order
by order), and the flags a replay's power rules leave for the caller: orders
left unknown at a zero base, and the orders whose undefined derivatives warn."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..backend import get_array_module
from .rows import (
    PY_MAX,
    Work,
    as_float,
    binary,
    block_state,
    new_array,
    py_array,
    rows_out,
)
from .scaling import MAX_ORDER

NO_CONTEXT = contextlib.nullcontext()


def mul_hi(a0: Any, A: Any, b0: Any, B: Any, n: int, shape: tuple[int, ...]) -> Any:
    """Coefficients 1..m of (a0 + A) * (b0 + B), m = min(deg A + deg B, n)."""
    if A is None:
        return binary(np.multiply, a0, B)
    if B is None:
        return binary(np.multiply, A, b0)
    da, db = A.shape[0], B.shape[0]
    m = min(da + db, n)
    xp = get_array_module(A)
    dtype = np.result_type(A.dtype, B.dtype)
    size = 1
    for s in shape:
        size *= s
    if size == 1 and m <= PY_MAX and not getattr(block_state, "nopy", False):
        af = [as_float(a0), *A.reshape(-1).tolist()]
        bf = [as_float(b0), *B.reshape(-1).tolist()]
        vals = []
        for k in range(1, m + 1):
            acc = 0.0
            for i in range(max(0, k - db), min(k, da) + 1):
                acc += af[i] * bf[k - i]
            vals.append(acc)
        return py_array(vals, tuple(shape), xp, dtype)
    if size == 1:
        af = xp.empty(da + 1, dtype=dtype)
        af[:1] = a0.reshape(1)
        af[1:] = A.reshape(da)
        bf = xp.empty(db + 1, dtype=dtype)
        bf[:1] = b0.reshape(1)
        bf[1:] = B.reshape(db)
        c = xp.convolve(af, bf)[1 : m + 1] if xp is np else _cauchy(af, bf, m)
        if not bool(xp.isfinite(c).all()):
            # convolve is no ufunc and reports no floating-point error: the products
            # again as a ufunc's, so that 0 * inf warns, and their sums as a reduction's
            p = (af[:, None] * bf[None, :])[:, ::-1]
            c = xp.stack([p.diagonal(db - k).sum() for k in range(1, m + 1)])
        return c.reshape((m,) + tuple(shape))
    # one row at a time, into the result and one scratch row: no stacked temporaries
    out = rows_out((m,) + tuple(shape), dtype, xp)
    tmp = new_array(tuple(shape), dtype, xp)
    Ar = [a0, *A]
    Br = [b0, *B]
    for k in range(1, m + 1):
        row = out[k - 1]
        i0, i1 = max(0, k - db), min(k, da)
        xp.multiply(Ar[i0], Br[k - i0], out=row)
        for i in range(i0 + 1, i1 + 1):
            xp.multiply(Ar[i], Br[k - i], out=tmp)
            row += tmp
    return out


def _cauchy(a: Any, b: Any, m: int) -> Any:
    """c_k = sum_i a_i b_{k-i} for k = 1..m, for 1-D series on any array module.

    CuPy's convolve takes an FFT for long series, whose rounding is relative to
    the largest coefficient, so the small high orders came out as noise
    (sin(x)*exp(x) at 0.7, order 60: 1e67 for 3e9 on an H200). Here each sum is
    of its own products, as NumPy's convolve makes it.
    """
    xp = get_array_module(a)
    j = xp.arange(1, m + 1)[:, None] - xp.arange(a.size)[None, :]  # k - i
    overlap = (j >= 0) & (j < b.size)
    terms = a[None, :] * b[xp.clip(j, 0, b.size - 1)]
    return xp.where(overlap, terms, 0.0).sum(axis=1)


def div_hi(a0: Any, A: Any, b0: Any, B: Any, q0: Any, n: int) -> Any:
    """Coefficients 1..n of q = a / b: b0 q_k = a_k - sum_{j=1..k} b_j q_{k-j}."""
    if B is None:
        return binary(np.divide, A, b0)
    w = Work(q0, n)
    if not w.vec:
        return _div_rows(w, a0, A, b0, B, q0)
    db = B.shape[0]
    Br = w.rows(b0, B)
    Ar = None if A is None else w.rows(a0, A)
    da = 0 if A is None else A.shape[0]
    if _is_one(A, a0):
        r = w.s(q0)  # 1 / b0 is the recorded value itself: no division
    else:
        r = w.s(1.0 / b0)
    rneg = -r
    Q = w.out(w.s(q0))
    sp = w.sp
    for k in range(1, n + 1):
        if Ar is not None and k <= da:
            w.put(Q, k, Ar[k] - sp(Br, Q, k, 1, min(k, db)), r)
        else:
            w.spput(Q, k, Br, Q, 1, min(k, db), rneg)
    return w.result(Q)


def _is_one(A: Any, a0: Any) -> bool:
    """Whether the numerator is the constant 1 (then q0 = 1 / b0)."""
    return A is None and a0 is not None and a0.size == 1 and float(a0.reshape(())) == 1.0


def _div_rows(w: Work, a0: Any, A: Any, b0: Any, B: Any, q0: Any) -> Any:
    """div_hi for an array: q_k = -(sum_{j=1..k} b_j q_{k-j} - a_k) / b0.

    Every row comes from the block arena. Scaling each sum by -1 / b0 costs a
    pass per order, but scaling b's rows once instead measured slower: three
    more rows no longer fit in the cache.
    """
    xp, n, shape, dtype = w.xp, w.n, w.shape, w.dtype
    m = new_array(shape, dtype, xp)  # -1 / b0
    if _is_one(A, a0):
        xp.negative(q0, out=m)  # 1 / b0 is the recorded value itself: no division
    else:
        xp.divide(-1.0, b0, out=m)
    db = min(B.shape[0], n)
    da = 0 if A is None else min(A.shape[0], n)
    Q = w.out(q0)
    tmp = new_array(shape, dtype, xp) if db > 1 and n > 1 else None
    for k in range(1, n + 1):
        row = Q[k]
        xp.multiply(B[0], Q[k - 1], out=row)
        for j in range(2, min(k, db) + 1):
            xp.multiply(B[j - 1], Q[k - j], out=tmp)
            row += tmp
        if k <= da:
            row -= A[k - 1]
        row *= m
    return w.result(Q)


UNKNOWN = [False]  # set by any thread of a blockwise replay, read by the caller's
WARN_ROWS = [MAX_ORDER]  # the orders whose undefined derivatives warn (see more_orders)


@contextlib.contextmanager
def more_orders(asked: int) -> Iterator[None]:
    """While orders past ``asked`` are computed only to resolve unknown ones (see
    unknown_at_zero), their own undefined derivatives do not warn."""
    WARN_ROWS[0] = asked
    try:
        yield
    finally:
        WARN_ROWS[0] = MAX_ORDER


def unknown_at_zero() -> bool:
    """Whether the last taylor_derivatives(_at) left a derivative nan because a
    power's base is 0 and the orders asked for do not reach far enough into it
    (more orders would give a number), and clears it."""
    unknown = UNKNOWN[0]
    UNKNOWN[0] = False
    return unknown
