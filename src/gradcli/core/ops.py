"""Arithmetic with broadcasting: + - * / and powers, and mean (DeZero steps 1-40).

Every backward is written in these same operations, so a gradient is a graph
that differentiates again; ``_backward_data`` is the same derivative on arrays.
The structural operations live in shapes.py (importable from here too).
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from ..errors import ShapeError
from .backend import get_array_module
from .graph import (
    UFUNC_OUT,
    Constant,
    Function,
    Variable,
    as_variable,
    call_one,
    link_output,
    new_instance,
    operand_of,
)
from .registry import lookup
from .running import NOW, builtin
from .shapes import (  # noqa: F401 - ops offered the structural operations: still does
    MAX_DIMS,
    MAX_ELEMENTS,
    BroadcastTo,
    GetItem,
    GetItemGrad,
    MatMul,
    Max,
    Min,
    Reshape,
    Sum,
    SumTo,
    Transpose,
    check_size,
    fit_data,
    get_item,
    matmul,
    sum,
    sum_to,
)

_ndarray = np.ndarray


def _broadcast_shape(s0: tuple[int, ...], s1: tuple[int, ...], op: str) -> None:
    try:
        shape = np.broadcast_shapes(s0, s1)
    except ValueError:
        raise ShapeError(f"shapes {s0} and {s1} do not broadcast together for '{op}'") from None
    check_size(shape, f"'{op}'")


np_add, np_sub, np_mul, np_div, _np_neg = (
    np.add, np.subtract, np.multiply, np.true_divide, np.negative
)


class _Binary(Function):
    """An elementwise binary op that broadcasts and sums gradients back to shape.

    ``backward`` works on Variables (``create_graph=True``); ``_backward_data``
    is the same derivative on arrays for the plain backward pass.
    """

    __slots__ = ("x0_shape", "x1_shape")
    op_name = "?"
    apply: Any = None  # the operator, for arrays that are not NumPy's (CuPy's)

    def forward(self, x0: Any, x1: Any) -> Any:
        # the operators take binop's shorter way; this is Add()(a, b)'s
        self._shapes(x0, x1)
        if type(x0) is _ndarray and type(x1) is _ndarray:
            return self.ufunc(x0, x1, out=UFUNC_OUT)
        return self.apply(x0, x1)

    def _shapes(self, x0: Any, x1: Any) -> None:
        s0, s1 = x0.shape, x1.shape
        if s0 != s1:
            _broadcast_shape(s0, s1, self.op_name)
        self.x0_shape, self.x1_shape = s0, s1

    def _fit(self, gx0: Any, gx1: Any) -> tuple[Any, Any]:
        if self.x0_shape != self.x1_shape:
            if gx0 is not None:
                gx0 = sum_to(gx0, self.x0_shape)
            if gx1 is not None:
                gx1 = sum_to(gx1, self.x1_shape)
        return gx0, gx1

    def fit_data(self, gx0: Any, gx1: Any) -> tuple[Any, Any]:
        if self.x0_shape != self.x1_shape:
            return fit_data(gx0, self.x0_shape), fit_data(gx1, self.x1_shape)
        return gx0, gx1


class Add(_Binary):
    __slots__ = ()
    ufunc = np_add
    op_name = "+"
    apply = staticmethod(operator.add)

    def backward(self, gy: Variable) -> tuple[Any, Any]:
        if self.x0_shape == self.x1_shape:
            return gy, gy
        return self._fit(gy, gy)

    def _backward_data(self, gy: Any) -> tuple[Any, Any]:
        if self.x0_shape == self.x1_shape:
            return gy, gy
        return self.fit_data(gy, gy)


class Sub(_Binary):
    __slots__ = ()
    ufunc = np_sub
    op_name = "-"
    apply = staticmethod(operator.sub)

    def backward(self, gy: Variable) -> tuple[Any, Any]:
        return self._fit(gy, -gy)

    def _backward_data(self, gy: Any) -> tuple[Any, Any]:
        x1 = self.inputs[1]
        return self.fit_data(gy, None if type(x1) is Constant else -gy)


class Mul(_Binary):
    __slots__ = ()
    ufunc = np_mul
    op_name = "*"
    apply = staticmethod(operator.mul)

    def backward(self, gy: Variable) -> tuple[Any, Any]:
        x0, x1 = self.inputs
        gx0 = None if type(x0) is Constant else gy * x1
        gx1 = None if type(x1) is Constant else gy * x0
        if self.x0_shape == self.x1_shape:
            return gx0, gx1
        return self._fit(gx0, gx1)

    def _backward_data(self, gy: Any) -> tuple[Any, Any]:
        # ``a[()]`` is a NumPy scalar for a 0-d array: scalar arithmetic is several
        # times cheaper than 0-d array arithmetic, with the same result and dtype.
        x0, x1 = self.inputs
        gx0 = None if type(x0) is Constant else gy * x1.data[()]
        gx1 = None if type(x1) is Constant else gy * x0.data[()]
        if self.x0_shape == self.x1_shape:
            return gx0, gx1
        return self.fit_data(gx0, gx1)


class Div(_Binary):
    __slots__ = ()
    ufunc = np_div
    op_name = "/"
    apply = staticmethod(operator.truediv)

    def backward(self, gy: Variable) -> tuple[Any, Any]:
        x0, x1 = self.inputs
        gx0 = None if type(x0) is Constant else gy / x1
        # -(gy / x1) * (x0 / x1), not gy * (-x0 / x1**2): written with the square,
        # each further order squares the denominator again (x1**4, x1**8, ...),
        # which overflows float64 by order ~11 although the math is the same.
        gx1 = None if type(x1) is Constant else -(gy / x1) * (x0 / x1)
        return self._fit(gx0, gx1)

    def _backward_data(self, gy: Any) -> tuple[Any, Any]:
        x0, x1 = self.inputs
        d0, d1 = x0.data[()], x1.data[()]
        gx0 = None if type(x0) is Constant else gy / d1
        # as backward computes it: the same numbers with create_graph or without
        gx1 = None if type(x1) is Constant else -(gy / d1) * (d0 / d1)
        return self.fit_data(gx0, gx1)


class Neg(Function):
    op_name = "-"
    ufunc = _np_neg

    def forward(self, x: Any) -> Any:
        if type(x) is _ndarray:
            return _np_neg(x, out=UFUNC_OUT)
        return -x

    def backward(self, gy: Variable) -> Variable:
        return -gy

    def _backward_data(self, gy: Any) -> Any:
        return -gy


class Pow(Function):
    """``x ** c`` for a constant ``c`` (DeZero's form), or ``x0 ** x1`` for two Variables.

    Integer exponents differentiate exactly: the derivative of ``x ** 0`` is 0
    times x ** 0, never ``0 * x ** -1``, so repeated backprop of ``x ** 2`` at 0
    gives 2, then 0 at every order, never ``0 * inf``. The chain stays in x's
    graph as DeZero's does (x ** 1, x ** 0 are nodes): the third derivative of
    ``x ** 2`` is ``variable(0.0)``, not a ``grad`` left None. But that zero
    leaves the incoming gradient behind where it is finite (0 * gy is 0): each
    order's graph keeps the same few nodes, where it grew by the whole chain
    of gradients above it (x^3 stopped on the node budget at order 223).
    """

    op_name = "**"

    def __init__(self, c: Any = None) -> None:
        self.c = c

    def forward(self, x: Any, *exponent: Any) -> Any:
        if self.c is None:
            _Binary._shapes(self, x, exponent[0])  # type: ignore[arg-type]
            return x ** exponent[0]
        return x**self.c

    def backward(self, gy: Variable) -> Any:
        if self.c is not None:
            (x,) = self.inputs
            if _is_integer(self.c) and self.c == 0:
                # d/dx x**0 = 0 everywhere (never 0 * x**-1, which is nan at 0)
                zero = Pow(0)(x) * 0.0
                xp = get_array_module(gy.data)
                if bool(xp.isfinite(gy.data).all()):
                    return zero * Constant(xp.zeros_like(gy.data))  # gy's shape, dtype
                return gy * zero  # nan where gy is not finite, as 0 * inf is
            return gy * (self.c * Pow(self.c - 1)(x))
        x0, x1 = self.inputs
        gx0 = None if type(x0) is Constant else gy * x1 * x0 ** (x1 - 1)
        gx1 = None
        if type(x1) is not Constant:
            log = lookup("log").call  # registered by functions.py, above this module
            # d(x0**x1)/dx1 = x0**x1 * log(x0), which is 0 where x0 is 0 (the
            # power vanishes faster than log); shifting those zeros to 1 keeps
            # log finite and the product exactly 0, still in core operations.
            zeros = x0.data == 0
            base = x0 + Constant(zeros.astype(x0.data.dtype)) if zeros.any() else x0
            gx1 = gy * self.outputs[0]() * log(base)
        if self.x0_shape != self.x1_shape:
            gx0 = None if gx0 is None else sum_to(gx0, self.x0_shape)
            gx1 = None if gx1 is None else sum_to(gx1, self.x1_shape)
        return gx0, gx1

    def _backward_data(self, gy: Any) -> Any:
        c = self.c
        if c is not None:
            x = self.inputs[0].data
            if _is_integer(c):
                if c == 0:
                    return get_array_module(x).zeros_like(gy)
                if c == 1:
                    return gy * 1
            return gy * (c * x[()] ** (c - 1))
        x0, x1 = self.inputs
        d0, d1 = x0.data[()], x1.data[()]
        gx0 = None if type(x0) is Constant else gy * d1 * d0 ** (d1 - 1)
        gx1 = None
        if type(x1) is not Constant:
            xp = get_array_module(d0)
            base = xp.where(d0 == 0, 1, d0) if xp.any(d0 == 0) else d0  # see backward
            gx1 = gy * self.outputs[0]().data[()] * xp.log(base)
        if self.x0_shape != self.x1_shape:
            return fit_data(gx0, self.x0_shape), fit_data(gx1, self.x1_shape)
        return gx0, gx1


def _is_integer(c: Any) -> bool:
    try:
        return float(c) == int(c)
    except (TypeError, ValueError, OverflowError):
        return False


def binop(cls: type[_Binary], ufunc: Any, x0: Variable, x1: Variable) -> Variable:
    """``cls()(x0, x1)`` for the arithmetic operators, without the generic call:
    the ufunc on two arrays, else ``forward``.
    """
    f = new_instance(cls)
    d0 = x0.data
    d1 = x1.data
    s0 = f.x0_shape = d0.shape
    s1 = f.x1_shape = d1.shape
    if s0 != s1:
        _broadcast_shape(s0, s1, cls.op_name)
    NOW.op = f  # forwards do not nest: no outer one to restore
    try:
        if type(d0) is _ndarray and type(d1) is _ndarray:
            y = ufunc(d0, d1, out=UFUNC_OUT)
        else:
            y = f.apply(d0, d1)
    finally:
        NOW.op = None
    gen = x0.generation
    if x1.generation > gen:
        gen = x1.generation
    return link_output(f, [x0, x1], y, gen)


def add(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return binop(Add, np_add, x0, operand_of(x1, x0))


def sub(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return binop(Sub, np_sub, x0, operand_of(x1, x0))


def rsub(x0: Variable, x1: Any) -> Variable:
    return binop(Sub, np_sub, operand_of(x1, x0), x0)


def mul(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return binop(Mul, np_mul, x0, operand_of(x1, x0))


def div(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return binop(Div, np_div, x0, operand_of(x1, x0))


def rdiv(x0: Variable, x1: Any) -> Variable:
    return binop(Div, np_div, operand_of(x1, x0), x0)


def neg(x: Any) -> Variable:
    return call_one(new_instance(Neg), x)


def pow(x: Any, c: Any) -> Variable:
    """``x ** c``; ``c`` may be a number or a Variable (``x ** x``, ``2 ** x``)."""
    x = as_variable(x)
    if isinstance(c, Variable):
        return Pow()(x, c)
    if isinstance(c, np.ndarray) and c.ndim > 0:
        return Pow()(x, operand_of(c, x))
    return call_one(Pow(c.item() if hasattr(c, "item") else c), x)


def rpow(x: Variable, base: Any) -> Variable:
    return Pow()(operand_of(base, x), x)


def square(x: Any) -> Variable:
    return pow(x, 2)


class OneMinusSquare(Function):
    """``(1 - x)(1 + x)``, or with ``sign`` -1 ``(x - 1)(x + 1)``: the factor in
    the derivatives of asin, acos, atanh and acosh.

    The product keeps the value exact near |x| = 1, where ``1 - x*x`` cancels
    (asin'(1 - 1e-12) lost five digits); the derivative ``-2x`` keeps the next
    order exact near 0, where the product's own, ``(1 - x) - (1 + x)``, cancels
    (backprop's asin'' at 1e-9 was 3e-8 off).
    """

    op_name = "1 - x^2"

    def __init__(self, sign: float = 1.0) -> None:
        self.sign = sign

    def forward(self, x: Any) -> Any:
        y = (1 - x) * (1 + x)
        return y if self.sign > 0 else -y

    def backward(self, gy: Variable) -> Variable:
        return gy * (self.inputs[0] * (-2.0 * self.sign))

    def _backward_data(self, gy: Any) -> Any:
        return gy * (self.inputs[0].data * (-2.0 * self.sign))


def one_minus_square(x: Any, sign: float = 1.0) -> Variable:
    return call_one(OneMinusSquare(sign), x)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    x = as_variable(x)
    with builtin("mean"):  # an overflow in its sum is mean's
        y = sum(x, axis, keepdims)
        n = x.size // builtins.max(y.size, 1)
        if n == 0 and y.size:  # as max and min; NumPy says nan with a RuntimeWarning
            raise ShapeError("mean of an empty array")
        return y / n if n else y
