"""Taylor rules of the core's own operations (Add, Mul, Sum, MatMul ...),
called as rule(f, inputs, y0, n) and keyed by class (as autograd's defvjp)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..backend import get_array_module
from ..graph import Function
from ..ops import (
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
from ..stack import Stack
from . import singular
from .elementary import exp_rule, log_rule
from .powers import pow_hi
from .rows import broadcast_shape, expand_to, float_dtype, lift_to, new_array
from .series import div_hi, mul_hi

Rule = Callable[..., Any]


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
    out = new_array((max(da, db),) + broadcast_shape(A.shape[1:], B.shape[1:]),
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
    rows = mul_hi(u0, U, u0, U, n, y0.shape)  # u^2's; (1 - u)(1 + u) = 1 - u^2
    if f.sign > 0:  # type: ignore[attr-defined]
        get_array_module(rows).negative(rows, out=rows)
    return rows


def _mul_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    (a0, A), (b0, B) = ins
    return mul_hi(a0, A, b0, B, n, y0.shape)


def div_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    (a0, A), (b0, B) = ins
    where = None if B is None or id(f) in singular.NO_LIMIT else singular.vanishing(a0, b0)
    if where is None:
        return div_hi(a0, A, b0, B, y0, n)
    # 0/0 where the denominator's series moves: a limit, as l'Hopital's (singular.py)
    b1, q1 = singular.sanitized(where, b0, y0)
    return singular.mend(id(f), where, a0, A, b0, B, y0, div_hi(a0, A, b1, B, q1, n), n)


def _pow_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    c = getattr(f, "c", None)
    if c is not None:
        (u0, U), = ins
        return pow_hi(u0, U, y0, n, c)
    (b0, B), (e0, E) = ins
    if E is None:  # an array exponent
        return pow_hi(b0, B, y0, n, e0 if e0.size != 1 else e0.reshape(()))
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
        LB = lift_to(log_rule(b0, B, lb0, n), y0.ndim)
        V = mul_hi(e0, E, lb0, LB, n, y0.shape)
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
    U = expand_to(U, u0.shape)
    return U.sum(axis=_axes(f.axis, u0.ndim), keepdims=f.keepdims)


def _reshape_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    U = expand_to(U, u0.shape)
    return U.reshape(U.shape[:1] + y0.shape)


def _transpose_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    U = expand_to(U, u0.shape)
    nd = u0.ndim
    if f.axes is None:
        axes = (0,) + tuple(range(nd, 0, -1))
    else:
        axes = (0,) + tuple(a % nd + 1 for a in f.axes)
    return U.transpose(axes)


def _broadcast_to_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    return expand_to(expand_to(U, u0.shape), y0.shape)


def _sum_to_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    u0, U = ins[0]
    return sum_to_rows(expand_to(U, u0.shape), y0.shape)


def sum_to_rows(U: Any, shape: tuple[int, ...]) -> Any:
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
    U = expand_to(U, u0.shape)
    return get_array_module(U).stack([apply(U[i]) for i in range(U.shape[0])])


def _stack_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    # [a, b, c]: each item's rows in its place along the new first axis (zeros for
    # a constant item, and past a shorter series)
    d = max(H.shape[0] for _, H in ins if H is not None)
    out = get_array_module(y0).zeros((d,) + y0.shape, dtype=float_dtype(y0))
    for i, (_, H) in enumerate(ins):
        if H is not None:
            out[: H.shape[0], i] = expand_to(H, y0.shape[1:])
    return out


def _get_item_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    return _rowwise(f, ins, lambda row: row[f.slices])


def _get_item_grad_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    return _rowwise(f, ins, f.forward)


def _extreme_rule(f: Function, ins: list[tuple[Any, Any]], y0: Any, n: int) -> Any:
    # the tied elements share the extreme evenly, as backprop (ops.Extreme) splits
    # the gradient (max(x, x) is x, not 2x), unless one of them is the extreme on
    # both sides of the point: then it is that one's (see _extreme_branch)
    u0, U = ins[0]
    U = expand_to(U, u0.shape)
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
    Ar = [a0] if A is None else [a0, *expand_to(A, a0.shape)]
    Br = [b0] if B is None else [b0, *expand_to(B, b0.shape)]
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
        return xp.zeros((0,) + y0.shape, dtype=float_dtype(y0))
    return xp.stack(rows)


STRUCTURAL_RULES: dict[type[Function], Rule] = {
    Add: _add_rule,
    Sub: _sub_rule,
    Mul: _mul_rule,
    Div: div_rule,
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
    from ..registry import REGISTRY

    return sorted(
        name for name, b in REGISTRY.items() if b.kind == "elementwise" and b.taylor is None
    )
