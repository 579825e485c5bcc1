"""Taylor mode: every derivative up to order N from one replay of a recorded graph.

Repeated backprop (``create_graph`` N times) builds a graph that grows
exponentially with the order. Taylor mode instead pushes a truncated Taylor
series through the graph the forward pass already recorded: the input becomes
``x(t) = x0 + t`` and every node carries the coefficients ``c_0 .. c_N`` of its
value as a series in ``t``; the k-th derivative is ``k! * c_k``. The cost is
O(N) per linear node and O(N^2) per nonlinear one, and the order-0
coefficients are the values the forward pass recorded, never recomputed.

The recurrences are the standard ones (Griewank & Walther, *Evaluating
Derivatives*, 2nd ed., ch. 13): products are convolutions, quotients and
``log`` solve ``b q = a`` and ``u y' = u'`` order by order, ``exp``, ``sin``/
``cos``, ``sinh``/``cosh`` and ``tan``/``tanh``/``sigmoid`` integrate ``y' =
g(y) u'``, powers solve ``u y' = a y u'``, and the inverse functions integrate
their derivative's series. Where a function's input is linear in ``t`` (the
seed itself, ``2*x + 1``, ``-x``) closed forms replace the recurrences, and
integer powers are exact (binomials, or repeated products), so ``x**2`` at 0
gives exactly ``[0, 0, 2, 0, ...]``.

Rules: each elementwise registry entry carries its rule (``Builtin.taylor``,
also the generated class's ``taylor_rule``), called as
``rule(u0, U, y0, n) -> Y`` with ``u0`` the input's value, ``U`` its
coefficients 1..d stacked along a leading axis (``d >= 1`` rows; rows past
``d`` are zero and not stored; the trailing shape may be smaller than ``u0``'s
and broadcasts), ``y0`` the output's recorded value, and ``Y`` the output's
coefficients 1..n, shape ``(n,) + y0.shape``. The structural operations
(``Add``, ``Mul``, ``Sum``, ``MatMul`` ...) get theirs from ``STRUCTURAL_RULES``
below, keyed by class, called as ``rule(f, inputs, y0, n)`` where ``inputs``
are ``(value, coefficients or None)`` pairs (None: the input is a constant).
A Function with neither makes Taylor mode give up (``None``) so the caller
falls back to backprop.

Everything is vectorised over the elements with the array module (NumPy or
CuPy); Python loops run over orders only. One-element series (the common
``--at x=0.7`` case) are stored as 1-D arrays so a recurrence step is one dot
product whatever the order.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors import LimitError
from .backend import get_array_module
from .fpe import op_label
from .graph import Function, Variable
from .ops import (
    Add,
    BroadcastTo,
    Div,
    GetItem,
    GetItemGrad,
    MatMul,
    Max,
    Min,
    Mul,
    Neg,
    OneMinusSquare,
    Pow,
    Reshape,
    Sub,
    Sum,
    SumTo,
    Transpose,
)
from .stack import Stack

MAX_ORDER = 1000
"""The highest derivative order (that of the command line and the language)."""

FACTORIAL_ORDER = 170
"""The highest k whose k! float64 holds (170! ~ 7.3e306). Derivatives of higher
orders are taken from the series in t/s (see _scaled)."""

_FACT_PY = [float(math.factorial(k)) for k in range(FACTORIAL_ORDER + 1)]
_FACT = np.array(_FACT_PY)


def _scaled(run: Callable[[float, int, bool], Any], n: int, derivatives: bool) -> Any:
    """run(s, m, True): derivatives to order m from the series of y(x0 + s t),
    whose coefficients are c_k s^k, each times k! / s^k (see
    _derivative_factors); run(1, m, False): the coefficients c_k themselves.

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


def _by_exponents(coef: Any) -> Any:
    """k! c_k for rows c_1..c_n, multiplied as mantissas and exponents (past
    order 170 k! is no float64): a product beyond float64 is its signed
    infinity, with an overflow warning that names the derivative."""
    fpe_op = "derivative"  # noqa: F841 - read by fpe.py
    xp = get_array_module(coef)
    mantissas, exponents, f = [], [], 1
    for k in range(1, coef.shape[0] + 1):
        f *= k
        bits = f.bit_length()
        mantissas.append(f / (1 << bits))  # k! = m 2^bits, m in [0.5, 1): exactly rounded
        exponents.append(bits)
    m, e = xp.frexp(coef)
    ndim = coef.ndim - 1
    m *= _col(mantissas, ndim, xp, m.dtype)
    e += _col(exponents, ndim, xp, e.dtype)
    return xp.ldexp(m, e)


UNDERFLOW_ORDER = 8
"""From this order on (k! > 4e4) an array's derivatives are checked for a
Taylor coefficient f^(k)(a)/k! below the smallest normal number, lost or short
of digits, though the derivative is not (one point's always are, at the cost of
a comparison): in float64 the 130th derivative of exp(x/10), 1e-130, has c_k =
1.5e-350, and the 40th of exp(x)*1e-290 c_k = 1e-338; in float32, whose
numbers end at 1.2e-38, the 20th of exp(x) at -60, 8.8e-27, has c_k = 3.6e-45.
Where the series at s = 1 gave such a coefficient, _scaled takes the scaled
series' derivative instead (0 too where the derivative is). Below this order an
array's check would cost a pass over its result that the arithmetic hardly
exceeds, for derivatives within a factor 40,320 of the smallest normal number."""


def _underflowed(d: Any) -> Any:
    """Where derivatives ``d`` (row k-1: order k <= FACTORIAL_ORDER) came from a
    coefficient d / k! that is 0 or subnormal."""
    xp = get_array_module(d)
    tiny = float(np.finfo(d.dtype).tiny)
    bound = _col([tiny * f for f in _FACT_PY[1 : d.shape[0] + 1]], d.ndim - 1, xp, np.float64)
    return xp.abs(d) < bound


def _derivative_factors(n: int, s: float) -> list[float]:
    """k! / s^k for k = 1..n."""
    if s == 1.0:
        return _FACT_PY[1 : n + 1]
    out, f = [], 1.0
    for k in range(1, n + 1):
        f *= k / s
        out.append(f)
    return out

Rule = Callable[..., Any]
_NO_CONTEXT = contextlib.nullcontext()

# --- series storage ----------------------------------------------------------------
#
# A series is (c0, H): c0 the order-0 value (the recorded .data), H the higher
# coefficients stacked along a leading axis, H[k-1] = c_k, with only as many
# rows as can be nonzero (the seed has one, x**2 two, exp(x) n), and a
# trailing shape that may be smaller than c0's and broadcasts (the seed's is
# all ones). H is None for a constant (a node that does not depend on x).


def _lift(h: Any, ndim: int) -> Any:
    """Insert unit axes after the order axis so that rows have ``ndim`` dimensions."""
    extra = ndim - (h.ndim - 1)
    if extra > 0:
        return h.reshape(h.shape[:1] + (1,) * extra + h.shape[1:])
    return h


def _expand(h: Any, shape: tuple[int, ...]) -> Any:
    """Rows broadcast to the node's full shape (a view), for non-elementwise ops."""
    h = _lift(h, len(shape))
    full = h.shape[:1] + tuple(shape)
    if h.shape == full:
        return h
    return get_array_module(h).broadcast_to(h, full)


def _dtype(a: Any) -> Any:
    dt = a.dtype
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _zero_rows(like: Any) -> Any:
    xp = get_array_module(like)
    return xp.zeros((0,) + (1,) * like.ndim, dtype=_dtype(like))


class _Arena:
    """The buffers of a blockwise replay, handed out again as soon as they are free.

    A block's steps take their rows and scratch rows here (``get``); _replay
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
        self.taken: list[Any] = []  # handed out, until _replay sorts them out
        self.ids: dict[int, Any] = {}  # every buffer get made, by id (kept: no id reused)
        self.held: list[Any] = []  # given back at reset
        self.values: list[Any] = []

    def get(self, shape: tuple[int, ...], dtype: Any) -> Any:
        spare = self.free.get((shape, dtype))
        if spare:
            buf = spare.pop()
        else:
            buf = np.empty(shape, dtype=dtype)
            self.ids[id(buf)] = buf
        self.taken.append(buf)
        return buf

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
            buf = values[i] = np.empty(shape, dtype=dtype)
            return buf
        buf = np.empty(shape, dtype=dtype)
        values.append(buf)
        return buf

    def reset(self) -> None:
        for buf in self.held:
            self.give(buf)
        self.held.clear()
        self.taken.clear()


_local = threading.local()


def _empty(shape: tuple[int, ...], dtype: Any, xp: Any) -> Any:
    """A new array for a result: from the block arena during a blockwise replay."""
    arena = getattr(_local, "arena", None)
    if arena is None or xp is not np:
        return xp.empty(shape, dtype=dtype)
    return arena.get(shape, dtype)


def _rows_out(shape: tuple[int, ...], dtype: Any, xp: Any) -> Any:
    """A new array for a rule's result rows: the caller's output block when one is
    offered for this shape (the last step of a blockwise replay writes its rows
    where they belong), else as _empty."""
    target = getattr(_local, "target", None)
    if target is not None and target.shape == shape and target.dtype == dtype:
        _local.target = None
        _local.given = target
        return target
    return _empty(shape, dtype, xp)


def _writes_derivatives(rows: Any) -> bool:
    """Whether ``rows`` are the caller's output block and the caller wants
    derivatives (k! c_k) there: a rule that can write those directly, saving
    the scaling pass over the block, asks this and then must write them."""
    if rows is not None and rows is getattr(_local, "given", None) \
            and getattr(_local, "factorials", False):
        _local.scaled = True
        return True
    return False


def _bshape(s1: tuple[int, ...], s2: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two shapes the forward pass already found compatible."""
    if s1 == s2:
        return s1
    n1, n2 = len(s1), len(s2)
    if n1 < n2:
        s1 = (1,) * (n2 - n1) + s1
    elif n2 < n1:
        s2 = (1,) * (n1 - n2) + s2
    return tuple(b if a == 1 else a for a, b in zip(s1, s2))


def _binary(ufunc: Any, a: Any, b: Any) -> Any:
    """ufunc(a, b) for two arrays, into a new (arena) array; a NumPy ufunc name
    picks the array module's own."""
    xp = get_array_module(a)
    dt = np.result_type(_dtype(a), _dtype(b))
    return getattr(xp, ufunc.__name__)(a, b, out=_empty(_bshape(a.shape, b.shape), dt, xp))


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
    acc = _binary(np.multiply, A[j0], B[k - j0])
    tmp = None
    for j in range(j0 + 1, j1 + 1):
        a, b = A[j], B[k - j]
        if _bshape(a.shape, b.shape) == acc.shape:
            if tmp is None:
                tmp = _empty(acc.shape, acc.dtype, get_array_module(acc))
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


class _Redo(Exception):
    """A Python-float computation met a non-finite number: redo it in NumPy, which
    reports the floating-point error (fpe.py names the operation)."""


def _py_ok(y0: Any, n: int) -> bool:
    return y0.size == 1 and n <= PY_MAX and not getattr(_local, "nopy", False)


def _f(a: Any) -> float:
    """A Python float of a one-element array (or number)."""
    return float(a.reshape(())) if hasattr(a, "reshape") else float(a)


def _py_rows(vals: list[float], y0: Any) -> Any:
    """Rows from Python floats, as an array like y0's; _Redo if one is not finite."""
    return _py_array(vals, y0.shape, get_array_module(y0), _dtype(y0))


def _py_array(vals: list[float], shape: tuple[int, ...], xp: Any, dtype: Any) -> Any:
    for v in vals:
        if v - v != 0.0:  # inf or nan
            raise _Redo
    return xp.asarray(vals, dtype=dtype).reshape((len(vals),) + shape)


def _sp_py(A: Any, B: Any, k: int, j0: int, j1: int) -> float:
    """sum_{j=j0..j1} A[j] * B[k-j] for lists of Python floats."""
    acc = 0.0
    for j in range(j0, j1 + 1):
        acc += A[j] * B[k - j]
    return acc


class _Work:
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
        self.dtype = _dtype(y0)
        self.vec = y0.size == 1
        self.py = self.vec and n <= PY_MAX and not getattr(_local, "nopy", False)
        self.sp = _sp_py if self.py else _sp_vec if self.vec else _sp_rows

    def s(self, a: Any) -> Any:
        """An order-0 value as the workspace uses it (a float or 0-d array for one element)."""
        if self.py:
            return _f(a)
        return a.reshape(()) if self.vec and hasattr(a, "reshape") else a

    def rows(self, c0: Any, h: Any) -> Any:
        """[c0, c1, ..., c_d] (and zeros to c_n for one element)."""
        n = self.n
        if self.py:
            r = [_f(c0), *h.reshape(-1)[:n].tolist()]
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
        return [None, R[1]] + [xp.multiply(R[j], float(j), out=_empty(R[j].shape, self.dtype, xp))
                               for j in range(2, d + 1)]

    def out(self, c0: Any) -> Any:
        """Rows to fill: [c0, ?, ..., ?]."""
        if self.py:
            return [_f(c0)] + [0.0] * self.n
        if self.vec:
            r = self.xp.empty(self.n + 1, dtype=self.dtype)
            r[:1] = c0.reshape(1) if hasattr(c0, "reshape") else c0
            return r
        backing = _rows_out((self.n,) + self.shape, self.dtype, self.xp)
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
            tmp = _empty(row.shape, row.dtype, xp)
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
            return _py_array(Y[1:], self.shape, self.xp, self.dtype)
        if self.vec:
            return Y[1:].reshape((self.n,) + self.shape)
        return Y.backing


def _geom(q: Any, weights: Any, dtype: Any, signs: Any = None) -> Any:
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
            return _col(vals, q.ndim, xp, dtype)
    w = xp.asarray(weights, dtype=dtype)
    if w.ndim == 1:
        w = w.reshape(w.shape + (1,) * q.ndim)
    rows = xp.cumprod(q[None] * w, axis=0)
    if signs is not None:
        rows = rows * _col(signs, q.ndim, xp, dtype)
    return rows


def _geom_underflows(u: float, n: int) -> bool:
    """Whether |u|^k / k! falls below the normal numbers by k = n."""
    return u == 0.0 or n * math.log(abs(u)) - math.lgamma(n + 1) < -700.0


def _times_geom(base: Any, q: Any, weights: list[float], dtype: Any,
                signs: list[float] | None = None) -> Any:
    """Rows base * prod_{i<=k} q w_i (times signs[k-1]) for k = 1..n, as
    _binary(np.multiply, base, _geom(...)), but where that column underflows
    (exp(x/2) at 1000: 0.5^k / k! is subnormal past order 150 while e^500
    0.5^k / k! is not), by mantissas and exponents kept apart."""
    if q.size != 1 or not _geom_underflows(float(q.reshape(())), len(weights)):
        return _binary(np.multiply, base, _geom(q, weights, dtype, signs))
    xp = get_array_module(base)
    u, m, e, ms, es = float(q.reshape(())), 1.0, 0, [], []
    for k, wk in enumerate(weights):
        m, de = math.frexp(m * u * wk)
        e += de
        ms.append(m * (signs[k] if signs is not None else 1.0))
        es.append(e)
    rows = _binary(np.multiply, base, _col(ms, q.ndim, xp, dtype))
    return xp.ldexp(rows, _col(es, q.ndim, xp, np.int32), out=rows)


def _recips(n: int) -> list[float]:
    return [1.0 / k for k in range(1, n + 1)]


def _col(values: Any, ndim: int, xp: Any, dtype: Any) -> Any:
    """A per-order column (n, 1, ..., 1) that scales the rows of a stacked array."""
    v = xp.asarray(values, dtype=dtype)
    return v.reshape(v.shape + (1,) * ndim)


# --- products and quotients ----------------------------------------------------------


def _mul_hi(a0: Any, A: Any, b0: Any, B: Any, n: int, shape: tuple[int, ...]) -> Any:
    """Coefficients 1..m of (a0 + A) * (b0 + B), m = min(deg A + deg B, n)."""
    if A is None:
        return _binary(np.multiply, a0, B)
    if B is None:
        return _binary(np.multiply, A, b0)
    da, db = A.shape[0], B.shape[0]
    m = min(da + db, n)
    xp = get_array_module(A)
    dtype = np.result_type(A.dtype, B.dtype)
    size = 1
    for s in shape:
        size *= s
    if size == 1 and m <= PY_MAX and not getattr(_local, "nopy", False):
        af = [_f(a0), *A.reshape(-1).tolist()]
        bf = [_f(b0), *B.reshape(-1).tolist()]
        vals = []
        for k in range(1, m + 1):
            acc = 0.0
            for i in range(max(0, k - db), min(k, da) + 1):
                acc += af[i] * bf[k - i]
            vals.append(acc)
        return _py_array(vals, tuple(shape), xp, dtype)
    if size == 1:
        af = xp.empty(da + 1, dtype=dtype)
        af[:1] = a0.reshape(1)
        af[1:] = A.reshape(da)
        bf = xp.empty(db + 1, dtype=dtype)
        bf[:1] = b0.reshape(1)
        bf[1:] = B.reshape(db)
        c = xp.convolve(af, bf)[1 : m + 1]
        if not bool(xp.isfinite(c).all()):
            # convolve is no ufunc and reports no floating-point error: the products
            # again as a ufunc's, so that 0 * inf warns, and their sums as a reduction's
            p = (af[:, None] * bf[None, :])[:, ::-1]
            c = xp.stack([p.diagonal(db - k).sum() for k in range(1, m + 1)])
        return c.reshape((m,) + tuple(shape))
    # one row at a time, into the result and one scratch row: no stacked temporaries
    out = _rows_out((m,) + tuple(shape), dtype, xp)
    tmp = _empty(tuple(shape), dtype, xp)
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


def _div_hi(a0: Any, A: Any, b0: Any, B: Any, q0: Any, n: int) -> Any:
    """Coefficients 1..n of q = a / b: b0 q_k = a_k - sum_{j=1..k} b_j q_{k-j}."""
    if B is None:
        return _binary(np.divide, A, b0)
    w = _Work(q0, n)
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


def _div_rows(w: _Work, a0: Any, A: Any, b0: Any, B: Any, q0: Any) -> Any:
    """_div_hi for an array: q_k = -(sum_{j=1..k} b_j q_{k-j} - a_k) / b0.

    Every row comes from the block arena. Scaling each sum by -1 / b0 costs a
    pass per order, but scaling b's rows once instead measured slower: three
    more rows no longer fit in the cache.
    """
    xp, n, shape, dtype = w.xp, w.n, w.shape, w.dtype
    m = _empty(shape, dtype, xp)  # -1 / b0
    if _is_one(A, a0):
        xp.negative(q0, out=m)  # 1 / b0 is the recorded value itself: no division
    else:
        xp.divide(-1.0, b0, out=m)
    db = min(B.shape[0], n)
    da = 0 if A is None else min(A.shape[0], n)
    Q = w.out(q0)
    tmp = _empty(shape, dtype, xp) if db > 1 and n > 1 else None
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


def _int_pow_hi(u0: Any, U: Any, n: int, p: int, shape: tuple[int, ...]) -> Any:
    """Coefficients of u**p for an integer p >= 2, exactly (no division by u0)."""
    xp = get_array_module(U)
    dtype = _dtype(U)
    d = U.shape[0]
    if d == 1:
        # (u0 + u1 t)**p = sum_k C(p, k) u0**(p-k) u1**k t**k
        m = min(p, n)
        u1 = U[0]
        coefs = [float(math.comb(p, k)) for k in range(1, m + 1)]
        if u0.size == 1 and U.size == 1 and m <= PY_MAX and not getattr(_local, "nopy", False):
            a, b = _f(u0), _f(U)
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
            pw = _empty((m,) + u0.shape, dtype, xp)
            e = p - m
            if e == 0:
                pw[m - 1] = 1.0
            elif e == 1:
                pw[m - 1] = u0
            else:
                xp.power(u0, float(e), out=pw[m - 1])
            for k in range(m - 1, 0, -1):
                xp.multiply(pw[k], u0, out=pw[k - 1])
        scale = _geom(u1, [1.0] * m, dtype) * _col(coefs, u1.ndim, xp, dtype)
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
                          _mul_hi(result[0], result[1], base[0], base[1], n, shape))
        e >>= 1
        if e:
            base = (base[0] * base[0], _mul_hi(base[0], base[1], base[0], base[1], n, shape))
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
    rows = _empty((m,) + u0.shape, dtype, xp)
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


def _pow_hi(u0: Any, U: Any, y0: Any, n: int, a: Any) -> Any:
    """Coefficients of y = u**a (a a number, or an array broadcasting with u)."""
    xp = get_array_module(U)
    dtype = _dtype(y0)
    nd = y0.ndim
    if np.ndim(a) == 0 or getattr(a, "size", 1) == 1:
        a = float(a.reshape(()) if hasattr(a, "reshape") else a)
        if math.isfinite(a) and a == int(a) and abs(a) <= 1024:
            p = int(a)
            if p == 0:
                return _zero_rows(y0)
            if p == 1:
                return U
            if p > 1:
                return _int_pow_hi(u0, U, n, p, y0.shape)
    else:
        a = xp.asarray(a, dtype=dtype)
        a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    d = U.shape[0]
    if d == 1 and np.ndim(a) == 0 and _py_ok(y0, n) and _f(u0) != 0.0:
        q, p, vals = _f(U) / _f(u0), _f(y0), []
        for k in range(1, n + 1):
            p *= q * (a - k + 1.0) / k
            vals.append(p)
        return _py_rows(vals, y0)
    if d == 1:
        # y0 * C(a, k) * (u1 / u0)**k, as one cumulative product
        kcol = xp.arange(1, n + 1, dtype=dtype).reshape((n,) + (1,) * nd)
        weights = (a - kcol + 1.0) / kcol
        if bool(xp.all(u0)):  # no zero in u0
            if np.ndim(a) or U[0].size != 1:
                return y0 * _geom(U[0] / u0, weights, dtype)
            # y0 q**k, row by row, then the binomial weights
            q = U[0] / u0
            out = _empty((n,) + y0.shape, dtype, xp)
            xp.multiply(y0, q, out=out[0:1])
            for k in range(1, n):
                xp.multiply(out[k - 1 : k], q, out=out[k : k + 1])
            return xp.multiply(out, xp.cumprod(weights, axis=0), out=out)
        with np.errstate(divide="ignore", invalid="ignore"):
            Y = y0 * _geom(U[0] / u0, weights, dtype)
        return _pow_at_zero(u0, U, a, Y, n)
    # u y' = a y u':  y_k = (a * sum y_j ~u_{k-j} - sum ~y_j u_{k-j}) / (k u0)
    zeros = not bool(xp.all(u0))  # there the recurrence divides by 0: mended below
    with np.errstate(divide="ignore", invalid="ignore") if zeros else _NO_CONTEXT:
        w = _Work(y0, n)
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


def _leading(U: Any) -> tuple[Any, Any]:
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
    m, lead = _leading(Uf)
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
            S = _pow_hi(v0, V, v0**a, rows - e, a) if V.shape[0] else None
            S = xp.zeros((rows - e, idx.size), dtype=Y.dtype) if S is None else \
                xp.array(xp.broadcast_to(_lift(S, 1), (S.shape[0], idx.size)))
            if S.shape[0] < rows - e:  # a constant or short v: the rest is 0
                S = xp.concatenate([S, xp.zeros((rows - e - S.shape[0], idx.size),
                                                dtype=Y.dtype)])
            if known is not None:  # v_j = u_(m+j) is known for m + j <= n
                S[max(0, known - mm):] = xp.nan
                unknown[e + max(0, known - mm):, idx] = True
            Yf[e:, idx] = S
    if bool(unknown.any()):
        _UNKNOWN[0] = True
    if bool((xp.isnan(Yf) & ~unknown)[: _WARN_ROWS[0], zero].any()):
        # undefined derivatives, written, not computed: the one warning for them,
        # as a computed nan gives (fpe.py names the step)
        np.float64(0.0) * np.float64(np.inf)  # noqa: B018
    return Y


_UNKNOWN = [False]  # set by any thread of a blockwise replay, read by the caller's
_WARN_ROWS = [MAX_ORDER]  # the orders whose undefined derivatives warn (see more_orders)


@contextlib.contextmanager
def more_orders(asked: int) -> Iterator[None]:
    """While orders past ``asked`` are computed only to resolve unknown ones (see
    unknown_at_zero), their own undefined derivatives do not warn."""
    _WARN_ROWS[0] = asked
    try:
        yield
    finally:
        _WARN_ROWS[0] = MAX_ORDER


def unknown_at_zero() -> bool:
    """Whether the last taylor_derivatives(_at) left a derivative nan because a
    power's base is 0 and the orders asked for do not reach far enough into it
    (more orders would give a number), and clears it."""
    unknown = _UNKNOWN[0]
    _UNKNOWN[0] = False
    return unknown


# --- the elementwise registry rules ----------------------------------------------------


def exp_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """y' = y u': k y_k = sum_j j u_j y_{k-j}; for a linear input y0 u1**k / k!."""
    d = U.shape[0]
    if d == 1:
        if _py_ok(y0, n):
            p, u1, vals = _f(y0), _f(U), []
            for k in range(1, n + 1):
                p = p * u1 / k
                vals.append(p)
            return _py_rows(vals, y0)
        return _times_geom(y0, U[0], _recips(n), _dtype(y0))
    w = _Work(y0, n)
    Ut = w.weighted(w.rows(u0, U), d)
    Y = w.out(w.s(y0))
    for k in range(1, n + 1):
        w.spput(Y, k, Ut, Y, 1, min(k, d), 1.0 / k)
    return w.result(Y)


def log_rule(u0: Any, U: Any, y0: Any, n: int, scale: float = 1.0) -> Any:
    """u y' = u': k y_k = (k u_k - sum_{j<k} j y_j u_{k-j}) / u0."""
    xp = get_array_module(U)
    dtype = _dtype(y0)
    d = U.shape[0]
    coefs = [-scale / k for k in range(1, n + 1)]
    if d == 1:
        # log(u0 + u1 t) = log u0 - sum_k (-u1/u0)**k / k
        if _py_ok(y0, n) and _f(u0) != 0.0:
            q = -_f(U) / _f(u0)
            p, vals = 1.0, []
            for k in range(1, n + 1):
                p *= q
                vals.append(p * (-scale / k))
            return _py_rows(vals, y0)
        q = (-U[0]) / u0
        P = _empty((n,) + q.shape, dtype, xp)
        P[0] = q
        for k in range(1, n):
            xp.multiply(P[k - 1 : k], q, out=P[k : k + 1])
        return xp.multiply(P, _col(coefs, q.ndim, xp, dtype), out=P)
    w = _Work(y0, n)
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
    out *= _col([scale / k for k in range(1, n + 1)], y0.ndim, xp, dtype)
    return out


def _log_rows(w: _Work, u0: Any, U: Any, d: int, scale: float) -> Any:
    """log_rule for an array, in place in its rows (k y_k until the last step)."""
    xp, n, shape, dtype = w.xp, w.n, w.shape, w.dtype
    r = xp.divide(1.0, u0, out=_empty(shape, dtype, xp))
    mr = xp.negative(r, out=_empty(shape, dtype, xp)) if n > d else None
    Yt = w.out(u0)
    tmp = _empty(shape, dtype, xp) if n > 1 else None
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
    return _pow_hi(u0, U, y0, n, 0.5)


def _sincos(u0: Any, U: Any, y0: Any, n: int, partner: str, signs: list[float],
            ysign: float, psign: float) -> Any:
    """sin, cos, sinh, cosh: y0 the output, p0 = partner(u0) its partner (cos
    for sin ...).

    y' = ysign p u' and p' = psign y u'. ``signs[k % 4]`` is the sign of the
    k-th derivative for a linear input: +-p0 for odd k, +-y0 for even k.
    """
    d = U.shape[0]
    xp = get_array_module(U)
    dtype = _dtype(y0)
    pfun = getattr(xp, partner)
    if d == 1 and signs[1] == 1.0 and U.size == 1 and y0.size > 1 \
            and float(U.reshape(())) == 1.0 and u0.shape == y0.shape and u0.dtype == dtype \
            and not _geom_underflows(1.0, n):
        # x itself, over an array: the partner (sin's cos, not cos's -sin) is the
        # first row as it is, written there (no copy, no scaling pass); the other
        # rows are +-p0 / k!, +-y0 / k!
        out = _empty((n,) + y0.shape, dtype, xp)
        p0 = pfun(u0, out=out[0])
        sg = [signs[k % 4] / math.factorial(k) for k in range(1, n + 1)]
        if n > 2:
            xp.multiply(p0, _col(sg[2::2], y0.ndim, xp, dtype), out=out[2::2])
        if n > 1:
            xp.multiply(y0, _col(sg[1::2], y0.ndim, xp, dtype), out=out[1::2])
        return out
    p0 = pfun(u0)
    if d == 1:
        if _py_ok(y0, n):
            p, u1, base, vals = 1.0, _f(U), (_f(y0), _f(p0)), []
            for k in range(1, n + 1):
                p = p * u1 / k
                vals.append(base[k % 2] * signs[k % 4] * p)
            return _py_rows(vals, y0)
        sg = [signs[k % 4] for k in range(1, n + 1)]
        if U.size == 1 and _geom_underflows(float(U.reshape(())), n):
            rows = [_times_geom(p0, U[0], _recips(n), dtype, sg),
                    _times_geom(y0, U[0], _recips(n), dtype, sg)]
            return xp.stack([rows[k % 2][k] for k in range(n)])
        P = _geom(U[0], _recips(n), dtype, sg)
        out = _empty((n,) + y0.shape, dtype, xp)
        xp.multiply(p0, P[0::2], out=out[0::2])
        xp.multiply(y0, P[1::2], out=out[1::2])
        return out
    w = _Work(y0, n)
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
    w = _Work(y0, n)
    if d == 1 and U.size == 1 and not w.vec:
        return _riccati_linear_rows(w, u0, y0, float(U.reshape(())), g, beta, gamma)
    Y = w.out(w.s(y0))
    sp = w.sp
    vec = w.vec
    g0 = w.s(g(u0, y0, None if vec else _empty(w.shape, w.dtype, w.xp)))
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


def _riccati_linear_rows(w: _Work, u0: Any, y0: Any, u1: float,
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
    v = _empty(w.shape, w.dtype, xp)
    xp.multiply(y0, 2.0 * gamma * u1, out=v)
    if beta:
        v += beta * u1
    tmp = _empty(w.shape, w.dtype, xp) if n > 2 else None
    tmp2 = _empty(w.shape, w.dtype, xp) if n > 5 else None
    c = gamma * u1
    if _writes_derivatives(Y.backing):
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


def _integral(u0: Any, U: Any, y0: Any, n: int, alpha: float, gamma: float,
              power: float, sign: float) -> Any:
    """y = integral of sign * (alpha + gamma u**2)**power du (asin, atan, acosh, ...).

    The derivative's series g is needed to order n-1 only; then
    k y_k = sum_{j=1..k} j u_j g_{k-j}.
    """
    xp = get_array_module(U)
    dtype = _dtype(y0)
    d = U.shape[0]
    if alpha == gamma:
        w0 = alpha + gamma * (u0 * u0)
    else:  # 1 - u**2 or u**2 - 1 as a product: the subtraction cancels near |u| = 1
        # + 0.0 makes -0.0 (gamma = -1 at |u| = 1) +0.0, the limit from inside the
        # domain: acos's derivatives at 1 came out -inf, inf, inf (all are -inf)
        w0 = gamma * ((u0 - 1.0) * (u0 + 1.0)) + 0.0
    g0 = 1.0 / w0 if power == -1.0 else w0**power
    if n > 1:
        sq = _mul_hi(u0, U, u0, U, n - 1, u0.shape)
        W = sq * gamma if gamma != 1.0 else sq
        if power == -1.0:
            G = _div_hi(None, None, w0, W, g0, n - 1)
        else:
            # the series of w**power itself, signed after: at w0 = 0 its rule reads
            # an infinite value as w0**power, and acos's -inf flipped orders 2, 3
            G = _pow_hi(w0, W, g0, n - 1, power)
        if sign < 0:
            G = -G
    else:
        G = xp.zeros((0,) + y0.shape, dtype=dtype)
    if sign < 0:
        g0 = -g0
    w = _Work(y0, n)
    Gr = w.rows(g0, G) if w.vec else [g0, *G]
    Ut = w.weighted(w.rows(u0, U), d)
    Y = w.out(w.s(y0))
    for k in range(1, n + 1):
        w.spput(Y, k, Ut, Gr, 1, min(k, d), 1.0 / k)
    return w.result(Y)


def asin_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, -1.0, -0.5, 1.0)


def acos_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, -1.0, -0.5, -1.0)


def atan_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, 1.0, -1.0, 1.0)


def asinh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, 1.0, -0.5, 1.0)


def acosh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, -1.0, 1.0, -0.5, 1.0)


def atanh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, -1.0, -1.0, 1.0)


def abs_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """|u| = sign(u0) u near u0. Where u0 = 0 and u's first nonzero coefficient
    u_m has an even order m, |u| is sign(u_m) u on both sides (|x^2| is x^2);
    for an odd m it has a kink, and sign(0) = 0 there, as backprop's derivative
    (and SymPy's sign, and PyTorch) has it."""
    xp = get_array_module(u0)
    s = xp.sign(u0)
    if not bool(xp.all(u0)):
        m, lead = _leading(xp.broadcast_to(U, (U.shape[0],) + s.shape))
        even = (m > 0) & (m % 2 == 0) & xp.isfinite(lead)
        s = xp.where((u0 == 0) & even, xp.sign(lead), s)
    return _binary(np.multiply, s, U)


# --- the structural operations ---------------------------------------------------------


def _add_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    return _linear(ins[0][1], ins[1][1], 1.0)


def _sub_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    return _linear(ins[0][1], ins[1][1], -1.0)


def _linear(A: Any, B: Any, sign: float) -> Any:
    if B is None:
        return A
    if A is None:
        return B if sign > 0 else -B
    da, db = A.shape[0], B.shape[0]
    if da == db:
        return A + B if sign > 0 else A - B
    # the shorter series padded with zero rows, without making the padding
    xp = get_array_module(A)
    op = xp.add if sign > 0 else xp.subtract
    m = min(da, db)
    out = _empty((max(da, db),) + _bshape(A.shape[1:], B.shape[1:]),
                 np.result_type(A.dtype, B.dtype), xp)
    op(A[:m], B[:m], out=out[:m])
    if da > db:
        op(A[m:], 0.0, out=out[m:])
    else:
        op(0.0, B[m:], out=out[m:])
    return out


def _neg_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    return -ins[0][1]


def _one_minus_square_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    (u0, U), = ins
    rows = _mul_hi(u0, U, u0, U, n, y0.shape)  # u^2's; (1 - u)(1 + u) = 1 - u^2
    if f.sign > 0:  # type: ignore[attr-defined]
        get_array_module(rows).negative(rows, out=rows)
    return rows


def _mul_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    (a0, A), (b0, B) = ins
    return _mul_hi(a0, A, b0, B, n, y0.shape)


def _div_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    (a0, A), (b0, B) = ins
    return _div_hi(a0, A, b0, B, y0, n)


def _pow_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    c = getattr(f, "c", None)
    if c is not None:
        (u0, U), = ins
        return _pow_hi(u0, U, y0, n, c)
    (b0, B), (e0, E) = ins
    if E is None:  # an array exponent
        return _pow_hi(b0, B, y0, n, e0 if e0.size != 1 else e0.reshape(()))
    xp = get_array_module(E)
    # x0 ** x1 = exp(x1 log x0)
    if B is not None and b0.ndim < B.ndim - 1:
        # B's rows were lifted to the output's ndim: log_rule wants b0 alike
        b0 = b0.reshape((1,) * (B.ndim - 1 - b0.ndim) + b0.shape)
    if B is None:
        # a constant base: where it is 0 the power is 0 (or inf) whatever the
        # exponent, and log(0) = -inf would make every order nan; as backprop
        # does, log there is taken of 1 instead
        zeros = b0 == 0
        lb0 = xp.log(xp.where(zeros, 1.0, b0) if bool(zeros.any()) else b0)
        V = E * lb0
    else:
        lb0 = xp.log(b0)
        LB = _lift(log_rule(b0, B, lb0, n), y0.ndim)
        V = _mul_hi(e0, E, lb0, LB, n, y0.shape)
    return exp_rule(e0 * lb0, V, y0, n)


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """Axes of one order's array, shifted past the leading order axis."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(a % ndim + 1 for a in axis)


def _sum_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    U = _expand(U, u0.shape)
    return U.sum(axis=_axes(f.axis, u0.ndim), keepdims=f.keepdims)


def _reshape_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    U = _expand(U, u0.shape)
    return U.reshape(U.shape[:1] + y0.shape)


def _transpose_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    U = _expand(U, u0.shape)
    nd = u0.ndim
    if f.axes is None:
        axes = (0,) + tuple(range(nd, 0, -1))
    else:
        axes = (0,) + tuple(a % nd + 1 for a in f.axes)
    return U.transpose(axes)


def _broadcast_to_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    return _expand(_expand(U, u0.shape), y0.shape)


def _sum_to_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    return _sum_to_rows(_expand(U, u0.shape), y0.shape)


def _sum_to_rows(U: Any, shape: tuple[int, ...]) -> Any:
    """Each row summed down to ``shape`` (as ``sum_to``)."""
    lead = U.ndim - 1 - len(shape)
    axes = tuple(range(1, 1 + lead)) + tuple(
        1 + lead + i for i, s in enumerate(shape) if s == 1 and U.shape[1 + lead + i] != 1
    )
    if axes:
        U = U.sum(axis=axes, keepdims=True)
    return U.reshape(U.shape[:1] + tuple(shape))


def _rowwise(f: Function, ins: list[tuple[Any, Any]], apply: Callable[[Any], Any]) -> Any:
    u0, U = ins[0]
    U = _expand(U, u0.shape)
    return get_array_module(U).stack([apply(U[i]) for i in range(U.shape[0])])


def _stack_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    # [a, b, c]: each item's rows in its place along the new first axis (zeros for
    # a constant item, and past a shorter series)
    d = max(H.shape[0] for _, H in ins if H is not None)
    out = get_array_module(y0).zeros((d,) + y0.shape, dtype=_dtype(y0))
    for i, (_, H) in enumerate(ins):
        if H is not None:
            out[: H.shape[0], i] = _expand(H, y0.shape[1:])
    return out


def _get_item_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    return _rowwise(f, ins, lambda row: row[f.slices])


def _get_item_grad_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    return _rowwise(f, ins, f.forward)


def _extreme_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    # the tied elements share the extreme evenly, as backprop (ops._Extreme) splits
    # the gradient (max(x, x) is x, not 2x), unless one of them is the extreme on
    # both sides of the point: then it is that one's (see _extreme_branch)
    u0, U = ins[0]
    U = _expand(U, u0.shape)
    axes = _axes(f.axis, u0.ndim)  # of U, whose axis 0 is the order
    y0k = y0 if f.keepdims else y0.reshape(
        tuple(1 if i + 1 in axes else s for i, s in enumerate(u0.shape))
    )
    uaxes = tuple(a - 1 for a in axes)
    hits = u0 == y0k
    chosen = _extreme_branch(hits, U, uaxes, 1.0 if isinstance(f, Max) else -1.0)
    share = chosen / chosen.sum(axis=uaxes, keepdims=True)
    return (U * share).sum(axis=axes, keepdims=f.keepdims)


def _extreme_branch(hits: Any, U: Any, uaxes: tuple[int, ...], sign: float) -> Any:
    """Which of the tied elements (``hits``) the extreme follows near the point.

    After t > 0 the greatest (for max) is the one whose series is greatest in
    the first coefficient where they differ; before it, the same with the odd
    coefficients' signs turned. Where both sides pick the same elements the
    extreme is smooth there and is theirs (max(x^2, 0) is x^2 at 0); else it
    has a kink, and the tied elements share evenly (max(x, -x) = |x| has
    derivative 0 at 0, as abs)."""
    xp = get_array_module(U)
    after, before = hits.copy(), hits.copy()
    with np.errstate(invalid="ignore"):
        for k in range(U.shape[0]):
            for side, turn in ((after, 1.0), (before, -1.0 if k % 2 == 0 else 1.0)):
                row = xp.where(side, U[k] * (sign * turn), -xp.inf)
                side &= row == row.max(axis=uaxes, keepdims=True)
    smooth = (after == before).all(axis=uaxes, keepdims=True) & \
        after.any(axis=uaxes, keepdims=True)
    return xp.where(smooth, after, hits).astype(U.dtype)


def _matmul_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    (a0, A), (b0, B) = ins
    xp = get_array_module(y0)
    Ar = [a0] if A is None else [a0, *_expand(A, a0.shape)]
    Br = [b0] if B is None else [b0, *_expand(B, b0.shape)]
    da, db = len(Ar) - 1, len(Br) - 1
    m = min(da + db, n)
    rows = []
    for k in range(1, m + 1):
        acc = None
        for i in range(max(0, k - db), min(k, da) + 1):
            t = xp.matmul(Ar[i], Br[k - i])
            acc = t if acc is None else acc + t
        rows.append(acc)
    if not rows:
        return xp.zeros((0,) + y0.shape, dtype=_dtype(y0))
    return xp.stack(rows)


STRUCTURAL_RULES: dict[type[Function], Rule] = {
    Add: _add_rule,
    Sub: _sub_rule,
    Mul: _mul_rule,
    Div: _div_rule,
    Neg: _neg_rule,
    OneMinusSquare: _one_minus_square_rule,
    Pow: _pow_rule,
    Sum: _sum_rule,
    SumTo: _sum_to_rule,
    BroadcastTo: _broadcast_to_rule,
    Reshape: _reshape_rule,
    Transpose: _transpose_rule,
    GetItem: _get_item_rule,
    GetItemGrad: _get_item_grad_rule,
    MatMul: _matmul_rule,
    Max: _extreme_rule,
    Min: _extreme_rule,
    Stack: _stack_rule,
}
"""Taylor rules of the core's own operations, keyed by class (as autograd's defvjp)."""

ELEMENTWISE_STRUCTURAL = frozenset({Add, Sub, Mul, Div, Neg, Pow, OneMinusSquare})
"""Structural operations that act element by element (with broadcasting)."""


def missing_rules() -> list[str]:
    """Names of elementwise registry entries that have no Taylor rule (fall back to backprop)."""
    from . import functions  # noqa: F401, PLC0415 - fills the registry
    from .registry import REGISTRY  # noqa: PLC0415

    return sorted(
        name for name, b in REGISTRY.items() if b.kind == "elementwise" and b.taylor is None
    )


# --- the replay ------------------------------------------------------------------------


CHUNK = 32768
"""Elements per block when a large elementwise expression is replayed block by
block. A row of a block is 256 KiB: a rule's few live rows stay in the cache
(L2 and L3) across its whole-row operations, while the Python work of a block
(the same whatever its size) is paid 31 times per million elements. Blocks of
8,192, 16,384, 24,576 and 65,536 elements measured slower."""

CHUNK_MIN = 4 * CHUNK
"""Arrays at least this large (NumPy only) are replayed in blocks: each block's
temporaries stay in cache and are reused, where whole-array temporaries would
each cost a trip through memory (and page faults for every new buffer)."""

THREADS = min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
              else os.cpu_count() or 1)
"""Threads that replay blocks side by side (at most one per two blocks): the
CPUs this process may use, up to 8. 1 replays every block in this thread."""


def _path(y: Variable, x: Variable) -> list[Function]:
    """The Functions between x and y (those y depends on that depend on x), in order."""
    if y.creator is None or y is x:
        return []
    funcs: list[Function] = []
    stack = [y.creator]
    seen = {id(y.creator)}
    while stack:
        f = stack.pop()
        funcs.append(f)
        for v in f.inputs:
            c = v.creator
            if c is not None and v is not x and id(c) not in seen:
                seen.add(id(c))
                stack.append(c)
    funcs.sort(key=lambda f: f.generation)
    dep = {id(x)}
    path = []
    for f in funcs:
        for v in f.inputs:
            if id(v) in dep:
                path.append(f)
                for ref in f.outputs:
                    out = ref()
                    if out is not None:
                        dep.add(id(out))
                break
    return path


class _Plan:
    """The steps that carry x's series to y, over numbered slots.

    ``variables[i]`` is the Variable in slot i (x is slot 0); a step is
    ``(label, f, rule, erule, lift, ins, at)``: the operation's name for fpe.py,
    the Function, its structural rule or its registry rule, whether its inputs'
    rows are lifted to the output's ndim (elementwise operations), its inputs'
    slots and its output's slot. Slots make a replay list lookups, which a
    blockwise replay repeats for every block.
    """

    __slots__ = ("variables", "steps", "y_at", "_at", "_dead")

    def __init__(self, x: Variable) -> None:
        self.variables: list[Variable] = [x]
        self.steps: list[tuple[str, Function, Any, Any, bool, tuple[int, ...], int]] = []
        self.y_at = 0
        self._at = {id(x): 0}
        self._dead: list[tuple[int, ...]] | None = None

    def dead(self) -> list[tuple[int, ...]]:
        """For each step, the slots whose series no later step reads (y's excepted)."""
        if self._dead is None:
            last = {}
            for j, step in enumerate(self.steps):
                for i in step[5]:
                    last[i] = j
            dead: list[list[int]] = [[] for _ in self.steps]
            for i, j in last.items():
                if i != self.y_at:
                    dead[j].append(i)
            self._dead = [tuple(d) for d in dead]
        return self._dead

    def at(self, v: Variable) -> int:
        i = self._at.get(id(v))
        if i is None:
            i = self._at[id(v)] = len(self.variables)
            self.variables.append(v)
        return i

    def data(self) -> list[Any]:
        return [v.data for v in self.variables]


def _plan(y: Variable, x: Variable) -> _Plan | None:
    """The replay's plan from x to y, or None when a step has no rule."""
    scalar_x = x.data.size == 1
    plan = _Plan(x)
    for f in _path(y, x):
        cls = type(f)
        rule = STRUCTURAL_RULES.get(cls)
        erule = None
        if rule is None:
            erule = getattr(cls, "taylor_rule", None)
            if erule is None:
                return None
            lift = True
        else:
            lift = cls in ELEMENTWISE_STRUCTURAL
            if not lift and not scalar_x:
                return None  # mixes the elements of an array x: backprop's business
        if len(f.outputs) != 1:
            return None
        out = f.outputs[0]()
        if out is None:
            continue
        if out.data.dtype.kind != "f":
            return None
        ins = tuple(plan.at(v) for v in f.inputs)
        plan.steps.append((_LABELS.get(cls) or _label(f), f, rule, erule, lift, ins,
                           plan.at(out)))
    plan.y_at = plan.at(y)
    return plan


_LABELS: dict[type, str] = {}


def _label(f: Function) -> str:
    label = _LABELS[type(f)] = op_label(f)
    return label


def _replay(plan: _Plan, data: list[Any], seed: Any, n: int, target: Any = None) -> Any:
    """Run the rules on the values ``data`` (by slot: the recorded values, or one
    block of them); returns y's higher coefficients (None: y is constant).

    ``target``, when given, is offered to y's rule for its result rows (see
    _rows_out): the returned array is then ``target`` itself."""
    vals: list[Any] = [None] * len(data)
    vals[0] = seed
    y_at = plan.y_at
    arena = getattr(_local, "arena", None)
    if arena is not None:
        dead = plan.dead()
        owners: list[Any] = [None] * len(data)
        refs: dict[int, int] = {}
    fpe_derivative = True  # noqa: F841 - read by fpe.py: a nan here is a derivative's
    for j, (fpe_op, f, rule, erule, lift, ins_at, at) in enumerate(plan.steps):  # noqa: B007 - fpe.py reads fpe_op
        y0 = data[at]
        ins = []
        live = False
        for i in ins_at:
            h = vals[i]
            if h is not None and h.shape[0]:
                live = True
                if lift and h.ndim - 1 < y0.ndim:
                    h = _lift(h, y0.ndim)
                ins.append((data[i], h))
            else:
                ins.append((data[i], None))
        if not live:
            vals[at] = _zero_rows(y0)
            continue
        if at == y_at and target is not None:
            _local.target = target
        if arena is not None:
            mark = len(arena.taken)
        try:
            hi = erule(ins[0][0], ins[0][1], y0, n) if erule else rule(f, ins, y0, n)
        except _Redo:  # a non-finite number in Python floats: NumPy reports it
            _local.nopy = True
            try:
                hi = erule(ins[0][0], ins[0][1], y0, n) if erule else rule(f, ins, y0, n)
            finally:
                _local.nopy = False
        finally:
            # never offered to a later rule, whatever happened: a stale block would
            # be overwritten
            _local.target = _local.given = None
        vals[at] = hi
        if arena is not None:
            _release(arena, mark, hi, at, dead[j], owners, refs)
    if arena is not None and owners[y_at] is not None:
        arena.held.append(owners[y_at])  # the caller copies y's rows out first
    return vals[y_at]


def _release(arena: _Arena, mark: int, hi: Any, at: int, dead: tuple[int, ...],
             owners: list[Any], refs: dict[int, int]) -> None:
    """Give back to the arena the step's scratch (what it took but its rows
    ``hi`` are not), and the rows of the slots that are ``dead`` now. A buffer
    two slots share (a rule may hand on its input's rows) waits for both."""
    taken = arena.taken
    keep = hi if hi.base is None else hi.base
    if id(keep) not in arena.ids:
        keep = None
    if len(taken) > mark:
        give = arena.give
        for buf in taken[mark:]:
            if buf is not keep:
                give(buf)
        del taken[mark:]
    if keep is not None:
        owners[at] = keep
        k = id(keep)
        refs[k] = refs.get(k, 0) + 1
    for i in dead:
        buf = owners[i]
        if buf is not None:
            owners[i] = None
            k = id(buf)
            left = refs[k] = refs[k] - 1
            if not left:
                arena.give(buf)


def blockwise(values: Any) -> bool:
    """Whether an x holding ``values`` is large enough to be replayed block by
    block (a NumPy float array of at least CHUNK_MIN elements)."""
    return type(values) is np.ndarray and values.dtype.kind == "f" and values.size >= CHUNK_MIN


def _elementwise(plan: _Plan, constants_like_x: bool = True) -> bool:
    """Whether every step acts element by element, every node has x's shape and
    every constant is one number (or, with ``constants_like_x``, of x's shape)."""
    shape = plan.variables[0].data.shape
    made = {at for *_, at in plan.steps}
    for *_, lift, ins, at in plan.steps:
        if not lift or plan.variables[at].data.shape != shape:
            return False
        for i in ins:
            a = plan.variables[i].data
            if i and i not in made and a.size != 1 and (
                    not constants_like_x or a.shape != shape):
                return False
    return True


def _blockwise(plan: _Plan) -> bool:
    """Whether the replay can run block by block: NumPy, large, elementwise, every
    node of x's shape and every constant either one number or of x's shape."""
    return blockwise(plan.variables[0].data) and _elementwise(plan)


def _coefficients(y: Variable, x: Variable, order: int, derivatives: bool = False) -> Any:
    """Coefficients 1..order of y(x0 + t) as one array (order, *shape), with the
    backprop semantics (see taylor_derivatives), or with ``derivatives`` the
    derivatives k! c_k; None when Taylor mode does not apply."""
    if order < 0:
        raise ValueError(f"order must be >= 0, got {order}")
    _UNKNOWN[0] = False  # see unknown_at_zero
    x0 = x.data
    if x0.dtype.kind not in "fiub":
        return None
    plan = _plan(y, x)
    if plan is None:
        return None
    if order == 0:  # no rule is asked for nothing (some wrote coefficient 1 regardless)
        return get_array_module(x0).empty((0,) + x0.shape, dtype=_dtype(y.data))
    return _scaled(lambda s, n, d: _coefficients_at(plan, y, n, d, s), order, derivatives)


def _coefficients_at(plan: _Plan, y: Variable, n: int, derivatives: bool, s: float) -> Any:
    """_coefficients for the series of y(x0 + s t) (see _scaled)."""
    fpe_op = "derivative"  # noqa: F841 - read by fpe.py: k! * c_k may overflow
    x0 = plan.variables[0].data
    xp = get_array_module(x0)
    dtype = _dtype(x0)
    seed = xp.full((1,) + (1,) * x0.ndim, s, dtype=dtype)
    y0 = y.data
    rdtype = np.result_type(_dtype(y0), dtype)
    if n and plan.steps and _blockwise(plan):
        return _coefficients_blockwise(plan, n, derivatives, rdtype, s)[1]
    factors = _derivative_factors(n, s) if derivatives else None
    scale = np.array(factors) if derivatives else None
    hi = _replay(plan, plan.data(), seed, n)
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
            return _py_array(vals, x0.shape, xp, rdtype)
        except _Redo:
            pass
    hi = _lift(hi, y0.ndim)
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
            coef = _sum_to_rows(coef, x0.shape)
    if scale is None:
        return coef
    col = scale.reshape((n,) + (1,) * (coef.ndim - 1))
    if xp is not np:
        col = xp.asarray(col)
    if coef.dtype == col.dtype:
        return coef * col
    return (coef.astype(col.dtype) * col).astype(coef.dtype)


def _coefficients_blockwise(plan: _Plan, n: int, derivatives: bool, dtype: Any, s: float,
                            values: Any = None) -> tuple[Any, Any]:
    """(value, coefficients): the replay run block by block on x's recorded values,
    value None; or, given ``values``, on them, each block's forward pass computed
    (by each step's Function) before its series, and value y at ``values``."""
    x0 = plan.variables[0].data if values is None else values
    size = x0.size
    # every value flat, one-element constants as 0-d arrays that broadcast
    flat = [a.reshape(()) if a.size == 1 else np.ravel(a) for a in plan.data()]
    if values is None:
        whole = [i for i, a in enumerate(flat) if a.ndim]
        forward = ()
    else:
        flat[0] = np.ravel(values)
        whole = [0]
        forward = [(label, type(f).ufunc, f.forward, ins, at, plan.variables[at].data.dtype)
                   for label, f, _, _, _, ins, at in plan.steps]
    seed = np.full((1, 1), s, dtype=_dtype(x0))
    coef = np.empty((n, size), dtype=dtype)
    value = None if values is None else np.empty(size, dtype=plan.variables[plan.y_at].data.dtype)
    y_at = plan.y_at
    col = np.array(_derivative_factors(n, s)).reshape(n, 1) if derivatives else None
    starts = range(0, size, CHUNK)

    def run(mine: range) -> None:
        fpe_op = "derivative"  # noqa: F841 - read by fpe.py: k! * c_k may overflow
        arena = _Arena()
        outer = getattr(_local, "arena", None)
        _local.arena = arena
        _local.factorials = derivatives and s == 1.0  # k! c_k, for a seed of slope 1
        try:
            for lo in mine:
                hi_ = min(lo + CHUNK, size)
                data = flat.copy()
                for i in whole:
                    data[i] = flat[i][lo:hi_]
                arena.reset()
                # a ufunc writes into the block arena, and y into its place in value:
                # no new array and no copy per block (fpe.py names the step's label)
                for j, (fpe_op, ufunc, fwd, ins, at, dt) in enumerate(forward):  # noqa: B007
                    if ufunc is None:
                        data[at] = fwd(*[data[i] for i in ins])
                        if at == y_at:
                            value[lo:hi_] = data[at]
                    else:
                        out = value[lo:hi_] if at == y_at else arena.value(j, (hi_ - lo,), dt)
                        data[at] = ufunc(*[data[i] for i in ins], out=out)
                fpe_op = "derivative"  # noqa: F841 - read by fpe.py: k! * c_k may overflow
                _local.scaled = False
                block = coef[:, lo:hi_]
                h = _replay(plan, data, seed, n, block)
                d = 0 if h is None else min(h.shape[0], n)
                if h is block:  # y's rule wrote its rows in place: scale them there
                    if col is not None and not _local.scaled:
                        if s == 1.0:
                            block[1:] *= col[1:]  # row 0 is c_1 itself (1! = 1)
                        else:
                            block *= col
                elif d:
                    if col is None:
                        block[:d] = h[:d]
                    else:
                        np.multiply(h[:d], col[:d], out=block[:d])
                if d < n:
                    block[d:] = 0
        finally:
            _local.arena = outer
            _local.factorials = False

    threads = max(1, min(THREADS, len(starts) // 2))
    if threads == 1:
        run(starts)
    else:
        _run_threads(run, [starts[i::threads] for i in range(threads)])
    if value is not None:
        value = value.reshape(x0.shape)
    return value, coef.reshape((n,) + x0.shape)


def _run_threads(run: Callable[[range], None], parts: list[range]) -> None:
    """run(part) for each part, one thread each (this one runs the first).

    NumPy's ufuncs release the GIL, so the blocks' arithmetic runs in
    parallel. The other threads get this thread's floating-point error
    settings (fpe.capture_fp_errors is active here when the session calls),
    and the first exception any of them raises is raised here.
    """
    errors: list[BaseException] = []
    settings, call = np.geterr(), np.geterrcall()

    def worker(part: range) -> None:
        try:
            with np.errstate(call=call, **settings):
                run(part)
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            errors.append(exc)

    others = [threading.Thread(target=worker, args=(part,), daemon=True) for part in parts[1:]]
    for thread in others:
        thread.start()
    try:
        run(parts[0])
    finally:
        for thread in others:
            thread.join()
    if errors:
        raise errors[0]


def taylor_coefficients(y: Variable, x: Variable, order: int) -> list[Any] | None:
    """[c_0, c_1, ..., c_order]: the Taylor coefficients f^(k)(x0) / k! of y about x0.

    ``c_0`` is ``y.data``; the others follow the derivative semantics of
    ``taylor_derivatives`` (summed over y when x is a scalar and y an array).
    None when Taylor mode does not apply. Any order is allowed; coefficients of
    entire functions underflow to 0 somewhere past order 170.
    """
    coef = _coefficients(y, x, order)
    if coef is None:
        return None
    return [y.data, *coef]


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
    (_scaled), so that a derivative that float64 holds comes out (the
    1000th of sin). Raises LimitError for an order above MAX_ORDER (1000).
    """
    _check_order(order)
    coef = _coefficients(y, x, order, derivatives=True)
    if coef is None:
        return None
    return [y.data, *coef]


def sample(values: Any) -> Any:
    """The first block of ``values``, flat (a view): the x to record a graph on for
    taylor_derivatives_at."""
    return values.reshape(-1)[:CHUNK]


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
    plan = _plan(y, x)
    if plan is None or not plan.steps or not _elementwise(plan, constants_like_x=False):
        return None
    _UNKNOWN[0] = False  # see unknown_at_zero
    rdtype = np.result_type(_dtype(y.data), _dtype(values))
    value = None

    def run(s: float, n: int, derivatives: bool) -> Any:
        nonlocal value
        value, coef = _coefficients_blockwise(plan, n, derivatives, rdtype, s, values)
        return coef

    coef = _scaled(run, order, True)
    return [value, *coef]
