"""Quotients whose numerator and denominator both vanish: divided as l'Hôpital
does, by the two series with their common leading zeros taken off.

Where a0 = b0 = 0 the forward pass recorded 0/0 = nan. If b's first nonzero
coefficient is b_k and a_0 .. a_(k-1) are all 0, then near the point
a / b = (a_k + a_(k+1) t + ...) / (b_k + b_(k+1) t + ...), an ordinary
quotient: the limit is a_k / b_k (sin(x)/x at 0 is 1), and its coefficients
follow. Order j of it needs a and b to order j + k, so a quotient with k
vanishing leading coefficients, replayed to order n, knows its orders 0 .. n-k
only: the rows past them are written nan, and the replay is asked for k more
orders (``shifts``; api.py replays again until every step has what it needs).
If some a_j (j < k) is not 0 the point is a pole (sin(x)/x^2 at 0) and stays
nan, with the forward pass's warning.

The quotient's new value reaches the replay through ``block_state.value0``: the
replay then computes again, by each Function's forward, the values of the
steps after it (exp(sin(x)/x) at 0 is e).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..backend import get_array_module
from .rows import block_state, float_dtype, lift_to

_SHIFTS: dict[int, int] = {}
"""Orders each quotient step (by its Function's id) lost to vanishing leading
coefficients in the last replay, the most over its elements and blocks."""
_LOCK = threading.Lock()  # a blockwise replay's threads note their shifts side by side


def reset_shifts() -> None:
    _SHIFTS.clear()


def shifts() -> int:
    """The orders a replay must add so that every quotient with vanishing leading
    coefficients has the orders asked of it: the sum over the steps, since one
    such quotient may feed another ((sin(x)/x - 1)/x^2)."""
    return sum(_SHIFTS.values())


def _note(key: int, k: int) -> None:
    with _LOCK:
        if _SHIFTS.get(key, 0) < k:
            _SHIFTS[key] = k


NO_LIMIT: set[int] = set()
"""Quotients (by their Function's id) of the replay under way that take no
limit: a series through abs at its kink (|x| at 0, whose "series" 0 is sign(0)
= 0's, no Taylor series) proves nothing about a 0/0 (abs(x)/x at 0 has no limit)."""


def vanishing(a0: Any, b0: Any) -> Any:
    """Where numerator and denominator are both 0 (None where nowhere)."""
    zero = b0 == 0
    if not bool(zero.any()):
        return None
    both = zero & (a0 == 0)
    return both if bool(both.any()) else None


def sanitized(where: Any, b0: Any, q0: Any) -> tuple[Any, Any]:
    """(b0, q0) with 1 and 0 where ``where``: the usual recurrence then runs there
    without a division by 0 or a nan (its numbers there are replaced after)."""
    xp = get_array_module(q0)
    one = xp.asarray(1, dtype=float_dtype(b0))
    zero = xp.asarray(0, dtype=q0.dtype)
    return xp.where(where, one, b0), xp.where(where, zero, q0)


def _gather(c0: Any, C: Any, idx: tuple[Any, ...], shape: tuple[int, ...], n: int,
            dtype: Any) -> tuple[Any, bool]:
    """(rows, exact): coefficients 0..n of a series at the elements ``idx`` (one
    column each), and whether those past n are known to be 0 (the series has
    fewer than n stored rows, or is a constant)."""
    xp = get_array_module(c0)
    nd = len(shape)
    m = idx[0].size if idx else 1
    out = xp.zeros((n + 1, m), dtype=dtype)

    def pick(a: Any) -> Any:  # a of (rows,) + a shape broadcasting to ``shape``
        ix = tuple(i if a.shape[1 + ax] != 1 else xp.zeros_like(i) for ax, i in enumerate(idx))
        return a[(slice(None),) + ix].reshape(a.shape[0], m)

    c0 = xp.asarray(c0)
    out[0] = pick(c0.reshape((1,) + (1,) * (nd - c0.ndim) + c0.shape))[0]
    if C is None:
        return out, True
    d = min(C.shape[0], n)
    if d:
        out[1 : d + 1] = pick(lift_to(C[:d], nd))
    return out, C.shape[0] < n


def _shifted_quotient(a: Any, b: Any, rows: int) -> Any:
    """Coefficients 0..rows-1 of a / b for columns of series with b[0] != 0."""
    xp = get_array_module(a)
    q = xp.empty((rows, a.shape[1]), dtype=a.dtype)
    r = 1.0 / b[0]
    for j in range(rows):
        s = a[j].copy()
        for i in range(1, min(j, b.shape[0] - 1) + 1):
            s -= b[i] * q[j - i]
        q[j] = s * r + 0.0  # no -0.0 from 0 * (-1)
    return q


def mend(key: int, where: Any, a0: Any, A: Any, b0: Any, B: Any, q0: Any, Q: Any,
         n: int) -> Any:
    """Q, the rows 1..n of a / b, computed with b0 = 1 where ``where`` (a0 = b0 = 0),
    with those elements' rows replaced: the quotient of the series with their
    common leading zeros taken off, nan past the orders known or at a pole.
    Sets ``block_state.value0`` to the quotient's values with the limits in place."""
    xp = get_array_module(q0)
    shape = q0.shape
    dtype = Q.dtype
    where = xp.broadcast_to(where, shape)
    idx = xp.nonzero(where) if shape else ()
    a, exact_a = _gather(a0, A, idx, shape, n, dtype)
    b, exact_b = _gather(b0, B, idx, shape, n, dtype)
    exact = exact_a and exact_b
    m = a.shape[1]
    value = xp.full(m, xp.nan, dtype=dtype)
    rows = xp.full((n, m), xp.nan, dtype=dtype)
    nz = b[1:] != 0
    k = xp.where(nz.any(axis=0), nz.argmax(axis=0) + 1, 0)
    if not exact_b and bool((k == 0).any()):
        _note(key, n + 1)  # b is 0 as far as known: more orders may find its leading term
    with np.errstate(all="ignore"):  # poles and unknown rows stay nan, unworded here
        for kk in (int(v) for v in xp.unique(k[k > 0])):
            col = k == kk
            lead = b[kk]
            below = a[:kk] if kk else a[:0]
            ok = col & (below == 0).all(axis=0) & xp.isfinite(lead)
            unknown = col & ~ok & (xp.isnan(below).any(axis=0) | xp.isnan(lead))
            if bool(unknown.any()):
                _note(key, kk)  # a row that an earlier quotient left unknown
            if not bool(ok.any()):
                continue
            if exact:  # polynomials: their coefficients past n are 0, all orders known
                pad = xp.zeros((kk, int(ok.sum())), dtype=dtype)
                q = _shifted_quotient(xp.concatenate([a[kk:, ok], pad]),
                                      xp.concatenate([b[kk:, ok], pad]), n + 1)
            else:
                _note(key, kk)
                q = _shifted_quotient(a[kk:, ok], b[kk:, ok], n + 1 - kk)
            value[ok] = q[0]
            rows[: q.shape[0] - 1, ok] = q[1:]
    if not getattr(Q.flags, "writeable", True):  # (CuPy's flags have no such field)
        Q = xp.array(Q)
    if not shape:
        Q = Q.reshape(n, 1)
        Q[:] = rows
        Q = Q.reshape((n,))
    else:
        Q[(slice(None),) + idx] = rows
    fixed = xp.array(xp.broadcast_to(q0, shape), dtype=q0.dtype)
    if shape:
        fixed[idx] = value
    else:
        fixed[()] = value[0]
    block_state.value0 = fixed
    return Q
