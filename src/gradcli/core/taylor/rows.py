"""How a series is stored and where its rows come from.

A series is (c0, H): c0 the order-0 value (the recorded .data), H the higher
coefficients stacked along a leading axis, H[k-1] = c_k, with only as many
rows as can be nonzero (the seed has one, x**2 two, exp(x) n), and a
trailing shape that may be smaller than c0's and broadcasts (the seed's is
all ones). H is None for a constant (a node that does not depend on x).

Here: the block arena that a blockwise replay takes its buffers from, the
workspace of one recurrence (Work: Python floats, one vector, or rows), and
the geometric rows q^k w_1..w_k of a linear input."""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from ..backend import get_array_module


def lift_to(h: Any, ndim: int) -> Any:
    """Insert unit axes after the order axis so that rows have ``ndim`` dimensions."""
    extra = ndim - (h.ndim - 1)
    if extra > 0:
        return h.reshape(h.shape[:1] + (1,) * extra + h.shape[1:])
    return h


def expand_to(h: Any, shape: tuple[int, ...]) -> Any:
    """Rows broadcast to the node's full shape (a view), for non-elementwise ops."""
    h = lift_to(h, len(shape))
    full = h.shape[:1] + tuple(shape)
    if h.shape == full:
        return h
    return get_array_module(h).broadcast_to(h, full)


def float_dtype(a: Any) -> Any:
    dt = a.dtype
    return dt if dt.kind == "f" else np.dtype(np.float64)


def zero_rows(like: Any) -> Any:
    xp = get_array_module(like)
    return xp.zeros((0,) + (1,) * like.ndim, dtype=float_dtype(like))


class Arena:
    """The buffers of a blockwise replay, handed out again as soon as they are free.

    A block's steps take their rows and scratch rows here (``get``); replay_plan
    gives back a step's scratch when the step ends and a node's rows after the
    node's last use, and ``reset`` what was held to the block's end. The most
    recently freed buffer goes out first: it is still in the cache, where a
    fresh buffer per call (this arena's first form) made every pass of a block
    a trip to L3. The block's values (its forward pass) have buffers of their
    own, the same for every block (``value``).
    """

    __slots__ = ("free", "taken", "ids", "held", "values")

    def __init__(self) -> None:
        self.free: dict[tuple[Any, ...], list[Any]] = {}
        self.taken: list[Any] = []  # handed out, until replay_plan sorts them out
        # every buffer get made, by the id of the memory it views (kept: no id reused)
        self.ids: dict[int, Any] = {}
        self.held: list[Any] = []  # given back at reset
        self.values: list[Any] = []

    def get(self, shape: tuple[int, ...], dtype: Any) -> Any:
        spare = self.free.get((shape, dtype))
        if spare:
            buf = spare.pop()
        else:
            buf = aligned_empty(shape, dtype)
            self.ids[id(buf.base)] = buf
        self.taken.append(buf)
        return buf

    def owner(self, rows: Any) -> Any:
        """The buffer of this arena that ``rows`` lie in (it or a view of it), or None."""
        return self.ids.get(id(rows if rows.base is None else rows.base))

    def give(self, buf: Any) -> None:
        key = (buf.shape, buf.dtype)
        spare = self.free.get(key)
        if spare is None:
            self.free[key] = [buf]
        else:
            spare.append(buf)

    def value(self, i: int, shape: tuple[int, ...], dtype: Any) -> Any:
        """The buffer of the block's i-th value."""
        values = self.values
        if i < len(values):
            buf = values[i]
            if buf.shape == shape and buf.dtype == dtype:
                return buf
            buf = values[i] = aligned_empty(shape, dtype)
            return buf
        buf = aligned_empty(shape, dtype)
        values.append(buf)
        return buf

    def reset(self) -> None:
        for buf in self.held:
            self.give(buf)
        self.held.clear()
        self.taken.clear()


block_state = threading.local()

ALIGN = 64


def aligned_empty(shape: tuple[int, ...] | int, dtype: Any) -> Any:
    """np.empty(shape, dtype) whose data starts on a 64-byte boundary."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    count = math.prod(shape)
    raw = np.empty(count * dtype.itemsize + ALIGN, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGN
    return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape)


def new_array(shape: tuple[int, ...], dtype: Any, xp: Any) -> Any:
    """A new array for a result: from the block arena during a blockwise replay."""
    arena = getattr(block_state, "arena", None)
    if arena is None or xp is not np:
        return xp.empty(shape, dtype=dtype)
    return arena.get(shape, dtype)


def rows_out(shape: tuple[int, ...], dtype: Any, xp: Any) -> Any:
    """A new array for a rule's result rows: the caller's output block when one is
    offered for this shape (the last step of a blockwise replay writes its rows
    where they belong), else as new_array."""
    target = getattr(block_state, "target", None)
    if target is not None and target.shape == shape and target.dtype == dtype:
        block_state.target = None
        block_state.given = target
        return target
    return new_array(shape, dtype, xp)


def writes_derivatives(rows: Any) -> bool:
    """Whether ``rows`` are the caller's output block and the caller wants
    derivatives (k! c_k) there: a rule that can write those directly, saving
    the scaling pass over the block, asks this and then must write them."""
    if rows is not None and rows is getattr(block_state, "given", None) \
            and getattr(block_state, "factorials", False):
        block_state.scaled = True
        return True
    return False


def broadcast_shape(s1: tuple[int, ...], s2: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two shapes the forward pass already found compatible."""
    if s1 == s2:
        return s1
    n1, n2 = len(s1), len(s2)
    if n1 < n2:
        s1 = (1,) * (n2 - n1) + s1
    elif n2 < n1:
        s2 = (1,) * (n1 - n2) + s2
    return tuple(b if a == 1 else a for a, b in zip(s1, s2))


def binary(ufunc: Any, a: Any, b: Any) -> Any:
    """ufunc(a, b) for two arrays, into a new (arena) array; a NumPy ufunc name
    picks the array module's own."""
    xp = get_array_module(a)
    dt = np.result_type(float_dtype(a), float_dtype(b))
    out = new_array(broadcast_shape(a.shape, b.shape), dt, xp)
    return getattr(xp, ufunc.__name__)(a, b, out=out)


def _sp_vec(A: Any, B: Any, k: int, j0: int, j1: int) -> Any:
    """sum_{j=j0..j1} A[j] * B[k-j] for 1-D series (one element): one dot product."""
    if j1 < j0:
        return 0.0
    if j0 == j1:
        return A[j0] * B[k - j0]
    return A[j0 : j1 + 1] @ B[k - j1 : k - j0 + 1][::-1]


def _sp_rows(A: Any, B: Any, k: int, j0: int, j1: int) -> Any:
    """sum_{j=j0..j1} A[j] * B[k-j] for lists of row arrays (one product per term)."""
    if j1 < j0:
        return 0.0
    acc = binary(np.multiply, A[j0], B[k - j0])
    tmp = None
    for j in range(j0 + 1, j1 + 1):
        a, b = A[j], B[k - j]
        if broadcast_shape(a.shape, b.shape) == acc.shape:
            if tmp is None:
                tmp = new_array(acc.shape, acc.dtype, get_array_module(acc))
            get_array_module(acc).multiply(a, b, out=tmp)
            acc += tmp
        else:
            acc = acc + a * b
    return acc


class _RowList(list):  # type: ignore[type-arg]
    """Rows [c0, c1, ..., cn] whose rows 1..n are views of one array, ``backing``."""

    backing: Any


PY_MAX = 24
"""Up to this order a one-element series is worked in Python floats: a step
costs a few hundred nanoseconds there, against a microsecond or more for any
NumPy call. Above it a step is one NumPy dot product over the whole series."""


class Redo(Exception):
    """A Python-float computation met a non-finite number: redo it in NumPy, which
    reports the floating-point error (fpe.py names the operation)."""


def py_ok(y0: Any, n: int) -> bool:
    return y0.size == 1 and n <= PY_MAX and not getattr(block_state, "nopy", False)


def as_float(a: Any) -> float:
    """A Python float of a one-element array (or number)."""
    return float(a.reshape(())) if hasattr(a, "reshape") else float(a)


def py_rows(vals: list[float], y0: Any) -> Any:
    """Rows from Python floats, as an array like y0's; Redo if one is not finite."""
    return py_array(vals, y0.shape, get_array_module(y0), float_dtype(y0))


def py_array(vals: list[float], shape: tuple[int, ...], xp: Any, dtype: Any) -> Any:
    for v in vals:
        if v - v != 0.0:  # inf or nan
            raise Redo
    return xp.asarray(vals, dtype=dtype).reshape((len(vals),) + shape)


def _sp_py(A: Any, B: Any, k: int, j0: int, j1: int) -> float:
    """sum_{j=j0..j1} A[j] * B[k-j] for lists of Python floats."""
    acc = 0.0
    for j in range(j0, j1 + 1):
        acc += A[j] * B[k - j]
    return acc


class Work:
    """The workspace of one recurrence: how rows are stored and combined.

    A one-element node keeps each series as a list of Python floats (order up
    to PY_MAX) or a 1-D array of n+1 numbers, so a step of a recurrence is a
    short loop or one dot product; a larger node keeps a list of row arrays, so
    a step is a few whole-array operations.
    """

    __slots__ = ("xp", "n", "shape", "dtype", "vec", "py", "sp")

    def __init__(self, y0: Any, n: int) -> None:
        self.xp = get_array_module(y0)
        self.n = n
        self.shape = y0.shape
        self.dtype = float_dtype(y0)
        self.vec = y0.size == 1
        self.py = self.vec and n <= PY_MAX and not getattr(block_state, "nopy", False)
        self.sp = _sp_py if self.py else _sp_vec if self.vec else _sp_rows

    def s(self, a: Any) -> Any:
        """An order-0 value as the workspace uses it (a float or 0-d array for one element)."""
        if self.py:
            return as_float(a)
        return a.reshape(()) if self.vec and hasattr(a, "reshape") else a

    def rows(self, c0: Any, h: Any) -> Any:
        """[c0, c1, ..., c_d] (and zeros to c_n for one element)."""
        n = self.n
        if self.py:
            r = [as_float(c0), *h.reshape(-1)[:n].tolist()]
            return r + [0.0] * (n + 1 - len(r))
        if self.vec:
            r = self.xp.zeros(n + 1, dtype=self.dtype)
            r[:1] = c0.reshape(1)
            m = min(h.shape[0], n)
            if m:
                r[1 : m + 1] = h[:m].reshape(m)
            return r
        return [c0, *h[:n]]

    def weighted(self, R: Any, d: int) -> Any:
        """Rows j * R[j] for j = 1..d (row 0 unused)."""
        if self.py:
            return [R[j] * j for j in range(len(R))]
        if self.vec:
            return R * self.xp.arange(len(R), dtype=self.dtype)
        xp = self.xp
        return [None, R[1]] + [
            xp.multiply(R[j], float(j), out=new_array(R[j].shape, self.dtype, xp))
            for j in range(2, d + 1)]

    def out(self, c0: Any) -> Any:
        """Rows to fill: [c0, ?, ..., ?]."""
        if self.py:
            return [as_float(c0)] + [0.0] * self.n
        if self.vec:
            r = self.xp.empty(self.n + 1, dtype=self.dtype)
            r[:1] = c0.reshape(1) if hasattr(c0, "reshape") else c0
            return r
        backing = rows_out((self.n,) + self.shape, self.dtype, self.xp)
        rows = _RowList([c0])
        rows.extend(backing)
        rows.backing = backing
        return rows

    def spput(self, Y: Any, k: int, A: Any, B: Any, j0: int, j1: int, scale: Any) -> None:
        """Y[k] = scale * sum_{j=j0..j1} A[j] B[k-j], summed in place in Y[k] for rows."""
        if self.vec:
            Y[k] = self.sp(A, B, k, j0, j1) * scale
            return
        row = Y[k]
        xp = self.xp
        xp.multiply(A[j0], B[k - j0], out=row)
        if j1 > j0:
            tmp = new_array(row.shape, row.dtype, xp)
            for j in range(j0 + 1, j1 + 1):
                xp.multiply(A[j], B[k - j], out=tmp)
                row += tmp
        if type(scale) is not float or scale != 1.0:
            xp.multiply(row, scale, out=row)

    def put(self, Y: Any, k: int, value: Any, scale: Any = 1.0) -> None:
        if self.vec:
            Y[k] = value * scale
        else:
            self.xp.multiply(value, scale, out=Y[k])

    def result(self, Y: Any) -> Any:
        if self.py:
            return py_array(Y[1:], self.shape, self.xp, self.dtype)
        if self.vec:
            return Y[1:].reshape((self.n,) + self.shape)
        return Y.backing


def recips(n: int) -> list[float]:
    return [1.0 / k for k in range(1, n + 1)]


def column(values: Any, ndim: int, xp: Any, dtype: Any) -> Any:
    """A per-order column (n, 1, ..., 1) that scales the rows of a stacked array."""
    v = xp.asarray(values, dtype=dtype)
    return v.reshape(v.shape + (1,) * ndim)


def integrated(y0: Any, n: int, g0: Any, G: Any, u0: Any, U: Any) -> Any:
    """The rows of y, to order n, where y' = g(u) u' (erf, asin, atan, ...):
    ``g0``, ``G`` are g's series to order n - 1 and ``u0``, ``U`` u's; then
    k y_k = sum_{j=1..k} j u_j g_{k-j}."""
    d = U.shape[0]
    w = Work(y0, n)
    Gr = w.rows(g0, G) if w.vec else [g0, *G]
    Ut = w.weighted(w.rows(u0, U), d)
    Y = w.out(w.s(y0))
    for k in range(1, n + 1):
        w.spput(Y, k, Ut, Gr, 1, min(k, d), 1.0 / k)
    return w.result(Y)
