"""Arithmetic, broadcasting and shape operations (DeZero steps 1-40).

Every backward is written in these same operations, so a gradient is itself a
graph that can be differentiated again (``create_graph=True``).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..errors import LimitError, OutOfRangeError, ShapeError
from .backend import get_array_module
from .graph import Constant, Function, Variable, _call1, _link, _new, as_variable
from .registry import lookup
from .running import NOW, builtin

_ndarray = np.ndarray

MAX_ELEMENTS = 10_000_000
"""The largest array any operation may create (80 MB of float64)."""


MAX_DIMS = 64
"""The most dimensions an array may have: NumPy's own limit."""


def check_size(shape: tuple[int, ...], what: str) -> None:
    if len(shape) > MAX_DIMS:
        raise LimitError(
            f"{what}: a result with {len(shape)} dimensions; the limit is {MAX_DIMS}"
        )
    size = 1
    for n in shape:
        size *= n
    if size > MAX_ELEMENTS:
        raise LimitError(
            f"{what}: result of shape {_count_text(shape)} has {_count(size)} elements; "
            f"the limit is {MAX_ELEMENTS:,}"
        )


def _big(n: int) -> str:
    """A huge integer to 3 digits (zeros(1e300) would print 301 of them); as a
    Decimal: float() fails past 1e308."""
    from decimal import Decimal  # an error message's business only

    mantissa, _, exponent = f"{Decimal(n):.2e}".partition("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{exponent}"


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"about {_big(n)}"


def _count_text(shape: tuple[int, ...]) -> str:
    if all(n < 10**15 for n in shape):
        return str(shape)
    dims = ", ".join(str(n) if n < 10**15 else _big(n) for n in shape)
    return f"({dims},)" if len(shape) == 1 else f"({dims})"


_const_tables: dict[Any, dict[Any, Constant]] = {}
_F64 = np.dtype(np.float64)
_f64_consts: dict[Any, Constant] = _const_tables.setdefault(_F64, {})


def _operand(c: Any, like: Variable) -> Any:
    """Wrap a non-Variable operand, keeping a float Variable's dtype (NEP 50).

    Python numbers become shared read-only Constants: a chain that adds 0.001
    a thousand times makes one array, not a thousand. (Zero is not shared: 0.0
    and -0.0 are equal as keys but not as operands.)
    """
    tc = type(c)
    if tc is float or tc is int:
        data = like.data
        if type(data) is _ndarray and c:
            dt = data.dtype
            if dt is _F64:
                table = _f64_consts
            else:
                table = _const_tables.get(dt)  # type: ignore[assignment]
                if table is None:
                    if dt.kind != "f":
                        return Constant(np.asarray(c))
                    table = _const_tables[dt] = {}
            const = table.get(c)
            if const is None:
                if len(table) > 1024:
                    table.clear()
                arr = np.array(c, dtype=dt)
                arr.flags.writeable = False
                const = table[c] = Constant(arr)
            return const
    elif isinstance(c, Variable):
        return c
    xp = get_array_module(like.data)
    if isinstance(c, (int, float)) and like.data.dtype.kind == "f":
        return Constant(xp.asarray(c, dtype=like.data.dtype))
    return Constant(xp.asarray(c))


def _broadcast_shape(s0: tuple[int, ...], s1: tuple[int, ...], op: str) -> None:
    try:
        shape = np.broadcast_shapes(s0, s1)
    except ValueError:
        raise ShapeError(f"shapes {s0} and {s1} do not broadcast together for '{op}'") from None
    check_size(shape, f"'{op}'")


def _array_out() -> Any:
    """``out=...`` makes a ufunc return a 0-d array rather than a scalar (NumPy >= 2.3);
    on older NumPy the Function wraps the scalar instead."""
    try:
        np.add(np.zeros(()), np.zeros(()), out=...)
    except TypeError:
        return None
    return ...


_OUT = _array_out()
_np_add, _np_sub, _np_mul, _np_div, _np_neg = (
    np.add, np.subtract, np.multiply, np.true_divide, np.negative
)


def _fit_data(g: Any, shape: tuple[int, ...]) -> Any:
    """Sum an array gradient back to ``shape`` after broadcasting."""
    if g is None or g.shape == shape:
        return g
    return sum_to_array(get_array_module(g).asarray(g), shape)


class _Binary(Function):
    """An elementwise binary op that broadcasts and sums gradients back to shape.

    ``backward`` works on Variables (``create_graph=True``); ``_backward_data``
    is the same derivative on arrays for the plain backward pass.
    """

    __slots__ = ("x0_shape", "x1_shape")
    op_name = "?"

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

    def _fit_data(self, gx0: Any, gx1: Any) -> tuple[Any, Any]:
        if self.x0_shape != self.x1_shape:
            return _fit_data(gx0, self.x0_shape), _fit_data(gx1, self.x1_shape)
        return gx0, gx1


# The forwards are spelled out (no shared helper call): they are the hot path.
class Add(_Binary):
    __slots__ = ()
    ufunc = _np_add
    op_name = "+"

    def forward(self, x0: Any, x1: Any) -> Any:
        s0 = self.x0_shape = x0.shape
        s1 = self.x1_shape = x1.shape
        if s0 != s1:
            _broadcast_shape(s0, s1, "+")
        if type(x0) is _ndarray and type(x1) is _ndarray:
            return _np_add(x0, x1, out=_OUT)
        return x0 + x1

    def backward(self, gy: Variable) -> tuple[Any, Any]:
        if self.x0_shape == self.x1_shape:
            return gy, gy
        return self._fit(gy, gy)

    def _backward_data(self, gy: Any) -> tuple[Any, Any]:
        if self.x0_shape == self.x1_shape:
            return gy, gy
        return self._fit_data(gy, gy)


class Sub(_Binary):
    __slots__ = ()
    ufunc = _np_sub
    op_name = "-"

    def forward(self, x0: Any, x1: Any) -> Any:
        s0 = self.x0_shape = x0.shape
        s1 = self.x1_shape = x1.shape
        if s0 != s1:
            _broadcast_shape(s0, s1, "-")
        if type(x0) is _ndarray and type(x1) is _ndarray:
            return _np_sub(x0, x1, out=_OUT)
        return x0 - x1

    def backward(self, gy: Variable) -> tuple[Any, Any]:
        return self._fit(gy, -gy)

    def _backward_data(self, gy: Any) -> tuple[Any, Any]:
        x1 = self.inputs[1]
        return self._fit_data(gy, None if type(x1) is Constant else -gy)


class Mul(_Binary):
    __slots__ = ()
    ufunc = _np_mul
    op_name = "*"

    def forward(self, x0: Any, x1: Any) -> Any:
        s0 = self.x0_shape = x0.shape
        s1 = self.x1_shape = x1.shape
        if s0 != s1:
            _broadcast_shape(s0, s1, "*")
        if type(x0) is _ndarray and type(x1) is _ndarray:
            return _np_mul(x0, x1, out=_OUT)
        return x0 * x1

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
        return self._fit_data(gx0, gx1)


class Div(_Binary):
    __slots__ = ()
    ufunc = _np_div
    op_name = "/"

    def forward(self, x0: Any, x1: Any) -> Any:
        s0 = self.x0_shape = x0.shape
        s1 = self.x1_shape = x1.shape
        if s0 != s1:
            _broadcast_shape(s0, s1, "/")
        if type(x0) is _ndarray and type(x1) is _ndarray:
            return _np_div(x0, x1, out=_OUT)
        return x0 / x1

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
        return self._fit_data(gx0, gx1)


class Neg(Function):
    op_name = "-"
    ufunc = _np_neg

    def forward(self, x: Any) -> Any:
        if type(x) is _ndarray:
            return _np_neg(x, out=_OUT)
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
            return _fit_data(gx0, self.x0_shape), _fit_data(gx1, self.x1_shape)
        return gx0, gx1


def _is_integer(c: Any) -> bool:
    try:
        return float(c) == int(c)
    except (TypeError, ValueError, OverflowError):
        return False


def _binop(cls: type[_Binary], ufunc: Any, x0: Variable, x1: Variable) -> Variable:
    """``cls()(x0, x1)`` for the arithmetic operators, without the generic call:
    the ufunc on two arrays, else ``forward``.
    """
    f = _new(cls)
    d0 = x0.data
    d1 = x1.data
    s0 = f.x0_shape = d0.shape
    s1 = f.x1_shape = d1.shape
    if s0 != s1:
        _broadcast_shape(s0, s1, cls.op_name)
    NOW.op = f  # forwards do not nest: no outer one to restore
    try:
        if type(d0) is _ndarray and type(d1) is _ndarray:
            y = ufunc(d0, d1, out=_OUT)
        else:
            y = f.forward(d0, d1)
    finally:
        NOW.op = None
    gen = x0.generation
    if x1.generation > gen:
        gen = x1.generation
    return _link(f, [x0, x1], y, gen)


def add(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return _binop(Add, _np_add, x0, _operand(x1, x0))


def sub(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return _binop(Sub, _np_sub, x0, _operand(x1, x0))


def rsub(x0: Variable, x1: Any) -> Variable:
    return _binop(Sub, _np_sub, _operand(x1, x0), x0)


def mul(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return _binop(Mul, _np_mul, x0, _operand(x1, x0))


def div(x0: Any, x1: Any) -> Variable:
    if not isinstance(x0, Variable):
        x0 = as_variable(x0)
    return _binop(Div, _np_div, x0, _operand(x1, x0))


def rdiv(x0: Variable, x1: Any) -> Variable:
    return _binop(Div, _np_div, _operand(x1, x0), x0)


def neg(x: Any) -> Variable:
    return _call1(_new(Neg), x)


def pow(x: Any, c: Any) -> Variable:
    """``x ** c``; ``c`` may be a number or a Variable (``x ** x``, ``2 ** x``)."""
    x = as_variable(x)
    if isinstance(c, Variable):
        return Pow()(x, c)
    if isinstance(c, np.ndarray) and c.ndim > 0:
        return Pow()(x, _operand(c, x))
    return _call1(Pow(c.item() if hasattr(c, "item") else c), x)


def rpow(x: Variable, base: Any) -> Variable:
    return Pow()(_operand(base, x), x)


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
    return _call1(OneMinusSquare(sign), x)


# --- shapes --------------------------------------------------------------------


class Reshape(Function):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, x: Any) -> Any:
        self.x_shape = x.shape
        try:
            return x.reshape(self.shape)
        except ValueError:
            raise ShapeError(
                f"cannot reshape an array of shape {x.shape} into shape {self.shape}"
            ) from None

    def backward(self, gy: Variable) -> Variable:
        return reshape(gy, self.x_shape)

    def _backward_data(self, gy: Any) -> Any:
        return gy.reshape(self.x_shape)


def reshape(x: Any, shape: Any) -> Variable:
    x = as_variable(x)
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if x.shape == shape:
        return x
    check_size(shape, "reshape")
    return Reshape(shape)(x)


class Transpose(Function):
    def __init__(self, axes: Any = None) -> None:
        self.axes = axes

    def forward(self, x: Any) -> Any:
        try:
            return x.transpose(self.axes)
        except ValueError as exc:
            # an axis past the end is NumPy's AxisError, an IndexError too
            error = OutOfRangeError if isinstance(exc, IndexError) else ShapeError
            raise error(
                f"axes {self.axes} do not fit an array of shape {x.shape}"
            ) from None

    def backward(self, gy: Variable) -> Variable:
        if self.axes is None:
            return transpose(gy)
        return transpose(gy, self._inverse_axes())

    def _inverse_axes(self) -> tuple[int, ...]:
        return tuple(int(i) for i in np.argsort([ax % len(self.axes) for ax in self.axes]))

    def _backward_data(self, gy: Any) -> Any:
        return gy.transpose() if self.axes is None else gy.transpose(self._inverse_axes())


def transpose(x: Any, axes: Any = None) -> Variable:
    return Transpose(axes)(x)


def _reduced_shape(
    gy_shape: tuple[int, ...], x_shape: tuple[int, ...], axis: Any, keepdims: bool
) -> tuple[int, ...] | None:
    """The shape that makes a reduction's gradient broadcast back over ``x_shape``
    (None: it already does)."""
    ndim = len(x_shape)
    if ndim == 0 or keepdims or axis is None and len(gy_shape) == ndim:
        return None
    if axis is None:
        return (1,) * ndim
    axes = (axis,) if isinstance(axis, int) else axis
    shape = list(gy_shape)
    for a in sorted(a % ndim for a in axes):
        shape.insert(a, 1)
    return tuple(shape)


def _reduced_gy(gy: Variable, x_shape: tuple[int, ...], axis: Any, keepdims: bool) -> Variable:
    """Reshape a reduction's gradient so it broadcasts back over ``x_shape``."""
    shape = _reduced_shape(gy.shape, x_shape, axis, keepdims)
    return gy if shape is None else reshape(gy, shape)


def _broadcast_data(g: Any, shape: tuple[int, ...]) -> Any:
    if g.shape == shape:
        return g
    return get_array_module(g).broadcast_to(g, shape)


class Sum(Function):
    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def forward(self, x: Any) -> Any:
        self.x_shape = x.shape
        try:
            return x.sum(axis=self.axis, keepdims=self.keepdims)
        except np.exceptions.AxisError as exc:  # an IndexError too, as NumPy's
            raise OutOfRangeError(
                f"sum over axis {self.axis} of shape {x.shape}: {exc}") from None
        except ValueError as exc:
            raise ShapeError(f"sum over axis {self.axis} of shape {x.shape}: {exc}") from None

    def backward(self, gy: Variable) -> Variable:
        gy = _reduced_gy(gy, self.x_shape, self.axis, self.keepdims)
        return broadcast_to(gy, self.x_shape)

    def _backward_data(self, gy: Any) -> Any:
        shape = _reduced_shape(gy.shape, self.x_shape, self.axis, self.keepdims)
        if shape is not None:
            gy = gy.reshape(shape)
        return _broadcast_data(gy, self.x_shape)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    return Sum(axis, keepdims)(x)


class BroadcastTo(Function):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)

    def forward(self, x: Any) -> Any:
        self.x_shape = x.shape
        xp = get_array_module(x)
        try:
            return xp.broadcast_to(x, self.shape)
        except ValueError:
            raise ShapeError(f"cannot broadcast shape {x.shape} to {self.shape}") from None

    def backward(self, gy: Variable) -> Variable:
        return sum_to(gy, self.x_shape)

    def _backward_data(self, gy: Any) -> Any:
        return _fit_data(gy, self.x_shape)


def broadcast_to(x: Any, shape: tuple[int, ...]) -> Variable:
    x = as_variable(x)
    if x.shape == tuple(shape):
        return x
    check_size(tuple(shape), "broadcast_to")
    return BroadcastTo(shape)(x)


def sum_to_array(x: Any, shape: tuple[int, ...]) -> Any:
    ndim = len(shape)
    lead = x.ndim - ndim
    lead_axis = tuple(range(lead))
    axis = tuple(i + lead for i, sx in enumerate(shape) if sx == 1)
    y = x.sum(lead_axis + axis, keepdims=True)
    if lead > 0:
        y = y.squeeze(lead_axis)
    return y


class SumTo(Function):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)

    def forward(self, x: Any) -> Any:
        self.x_shape = x.shape
        return sum_to_array(x, self.shape)

    def backward(self, gy: Variable) -> Variable:
        return broadcast_to(gy, self.x_shape)

    def _backward_data(self, gy: Any) -> Any:
        return _broadcast_data(gy, self.x_shape)


def sum_to(x: Any, shape: tuple[int, ...]) -> Variable:
    x = as_variable(x)
    if x.shape == tuple(shape):
        return x
    return SumTo(shape)(x)


class MatMul(Function):
    op_name = "@"

    def forward(self, x: Any, W: Any) -> Any:
        try:
            return x @ W
        except ValueError:
            raise ShapeError(
                f"shapes {x.shape} and {W.shape} do not fit for '@' (matrix product)"
            ) from None

    def backward(self, gy: Variable) -> tuple[Any, Any]:
        # NumPy's rules: a 1-D operand is a row (left) or a column (right) vector whose
        # new axis is dropped from the result, and leading axes broadcast. Promote both
        # operands and the gradient to that 2-D-or-more form, take the usual matrix
        # gradients there, sum away the broadcast axes and reshape back.
        x, W = self.inputs
        x_const, W_const = type(x) is Constant, type(W) is Constant
        if x_const and W_const:
            return None, None
        x_shape, W_shape = x.shape, W.shape
        x2, W2 = x, W
        if len(x_shape) == 1:
            x2 = reshape(x, (1, x_shape[0]))
            gy = reshape(gy, gy.shape[:-1] + (1,) + gy.shape[-1:])
        if len(W_shape) == 1:
            W2 = reshape(W, (W_shape[0], 1))
            gy = reshape(gy, gy.shape + (1,))
        gx = gW = None
        if not x_const:
            gx = matmul(gy, _swap_last(W2))
            gx = reshape(sum_to(gx, x2.shape), x_shape)
        if not W_const:
            gW = matmul(_swap_last(x2), gy)
            gW = reshape(sum_to(gW, W2.shape), W_shape)
        return gx, gW


def _swap_last(x: Variable) -> Variable:
    if x.ndim == 2:
        return transpose(x)
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return transpose(x, tuple(axes))


def matmul(x: Any, W: Any) -> Variable:
    if not isinstance(x, Variable):
        W = as_variable(W)
        x = _operand(x, W)
    else:
        W = _operand(W, x)
    if x.ndim == 0 or W.ndim == 0:
        raise ShapeError(f"'@' needs arrays, got shapes {x.shape} and {W.shape}")
    return MatMul()(x, W)


class GetItem(Function):
    def __init__(self, slices: Any) -> None:
        self.slices = slices

    def forward(self, x: Any) -> Any:
        try:
            return x[self.slices]
        except IndexError as exc:
            raise OutOfRangeError(f"index {_show_index(self.slices)} out of range for shape "
                                  f"{x.shape}: {exc}") from None

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return GetItemGrad(self.slices, x.shape)(gy)


class GetItemGrad(Function):
    def __init__(self, slices: Any, in_shape: tuple[int, ...]) -> None:
        self.slices = slices
        self.in_shape = in_shape

    def forward(self, gy: Any) -> Any:
        xp = get_array_module(gy)
        gx = xp.zeros(self.in_shape, dtype=gy.dtype)
        if xp is np:
            np.add.at(gx, self.slices, gy)
        else:
            xp.add.at(gx, self.slices, gy)
        return gx

    def backward(self, ggx: Variable) -> Variable:
        return get_item(ggx, self.slices)


def _show_index(slices: Any) -> str:
    return str(slices) if isinstance(slices, tuple) else f"[{slices}]"


def get_item(x: Any, slices: Any) -> Variable:
    return GetItem(slices)(x)


class _Extreme(Function):
    """max / min: the gradient is split evenly among the elements equal to the extreme.

    DeZero gives each tied element the whole gradient, so d max(x, x)/dx came
    out 2; splitting it (as PyTorch's amax does) keeps the derivative 1.
    """

    reduce = "max"

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def forward(self, x: Any) -> Any:
        if x.size == 0 and (self.axis is None or x.shape[self.axis] == 0):
            # an empty result is no error (max(zeros(0, 3), 1)): nothing is compared
            raise ShapeError(f"{self.reduce} of an empty array")
        return getattr(x, self.reduce)(axis=self.axis, keepdims=self.keepdims)

    def backward(self, gy: Variable) -> Variable:
        x = self.inputs[0]
        y = self.outputs[0]()
        y_data = _reduced_gy(Constant(y.data), x.shape, self.axis, self.keepdims).data
        gy = _reduced_gy(gy, x.shape, self.axis, self.keepdims)
        hits = (x.data == y_data).astype(x.data.dtype)
        share = hits / hits.sum(axis=self.axis, keepdims=True)
        return broadcast_to(gy, x.shape) * Constant(share)


class Max(_Extreme):
    reduce = "max"


class Min(_Extreme):
    reduce = "min"


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    return Max(axis, keepdims)(x)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    return Min(axis, keepdims)(x)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    x = as_variable(x)
    with builtin("mean"):  # an overflow in its sum is mean's
        y = sum(x, axis, keepdims)
        n = x.size // builtins.max(y.size, 1)
        if n == 0 and y.size:  # as max and min; NumPy says nan with a RuntimeWarning
            raise ShapeError("mean of an empty array")
        return y / n if n else y


# --- Variable's operators -------------------------------------------------------
# Set on the class here, beside the operations they call: graph.py, which defines
# Variable, sits below this module and imports none of it.


def _v_add(self: Variable, other: Any) -> Variable:
    return _binop(Add, _np_add, self, _operand(other, self))


def _v_sub(self: Variable, other: Any) -> Variable:
    return _binop(Sub, _np_sub, self, _operand(other, self))


def _v_mul(self: Variable, other: Any) -> Variable:
    return _binop(Mul, _np_mul, self, _operand(other, self))


def _v_truediv(self: Variable, other: Any) -> Variable:
    return _binop(Div, _np_div, self, _operand(other, self))


def _v_neg(self: Variable) -> Variable:
    return _call1(_new(Neg), self)


def _v_rmatmul(self: Variable, other: Any) -> Variable:
    return matmul(other, self)


def _v_reshape(self: Variable, *shape: Any) -> Variable:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return reshape(self, shape)


def _v_transpose(self: Variable, *axes: Any) -> Variable:
    if len(axes) == 0:
        axes = None
    elif len(axes) == 1 and (isinstance(axes[0], (tuple, list)) or axes[0] is None):
        axes = axes[0]
    return transpose(self, axes)


def _v_sum(self: Variable, axis: Any = None, keepdims: bool = False) -> Variable:
    return sum(self, axis, keepdims)


for _name, _method in {
    "__add__": _v_add, "__radd__": _v_add, "__sub__": _v_sub, "__rsub__": rsub,
    "__mul__": _v_mul, "__rmul__": _v_mul, "__truediv__": _v_truediv,
    "__rtruediv__": rdiv, "__neg__": _v_neg, "__pow__": pow, "__rpow__": rpow,
    "__matmul__": matmul, "__rmatmul__": _v_rmatmul, "__getitem__": get_item,
    "reshape": _v_reshape, "transpose": _v_transpose, "sum": _v_sum,
    "T": property(transpose),
}.items():
    setattr(Variable, _name, _method)
del _name, _method
