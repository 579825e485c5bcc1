"""Shapes, reductions and indexing: reshape, transpose, sum, broadcasting,
matrix products, indexing, max and min (DeZero steps 37-40), and the size
limits every operation that makes an array checks.

As in ops.py, every backward is written in these same operations, and each
that can also has ``_backward_data``, the same derivative on arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import LimitError, OutOfRangeError, ShapeError
from ..limits import MAX_DIMS, MAX_ELEMENTS
from .backend import get_array_module
from .graph import Constant, Function, Variable, as_variable, operand_of


def check_size(shape: tuple[int, ...], what: str) -> None:
    """LimitError for a shape past MAX_DIMS, or with a dimension or a product past
    MAX_ELEMENTS. A zero dimension counts as 1 in the product: an empty array of
    shape (1e8, 1e8, 0) is as slow to make and to print as its 1e16 rows."""
    if len(shape) > MAX_DIMS:
        raise LimitError(
            f"{what}: a result with {len(shape)} dimensions; the limit is {MAX_DIMS}"
        )
    size = 1
    for n in shape:
        size *= n or 1
    if size > MAX_ELEMENTS or any(n > MAX_ELEMENTS for n in shape):
        if 0 in shape:
            raise LimitError(
                f"{what}: an empty result of shape {_count_text(shape)} spans "
                f"{_count(size)} positions (a zero dimension counted as 1); "
                f"the limit is {MAX_ELEMENTS:,}"
            )
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


def fit_data(g: Any, shape: tuple[int, ...]) -> Any:
    """Sum an array gradient back to ``shape`` after broadcasting."""
    if g is None or g.shape == shape:
        return g
    return sum_to_array(get_array_module(g).asarray(g), shape)


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
        return fit_data(gy, self.x_shape)


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
        x = operand_of(x, W)
    else:
        W = operand_of(W, x)
    if x.ndim == 0 or W.ndim == 0:
        raise ShapeError(f"'@' needs arrays, got shapes {x.shape} and {W.shape}")
    return MatMul()(x, W)


class GetItem(Function):
    def __init__(self, slices: Any) -> None:
        self.slices = slices

    def forward(self, x: Any) -> Any:
        try:
            return x[self.slices]
        except IndexError:
            raise OutOfRangeError(index_error(self.slices, x.shape)) from None

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


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _elements(n: int) -> str:
    return f"{n} element{'s' if n != 1 else ''}"


def _valid(n: int) -> str:
    """The indices an axis of ``n`` elements takes, counted from either end."""
    if n == 0:
        return "that axis is empty"
    if n == 1:
        return "valid: 0, or -1"
    return f"valid: 0 to {n - 1}, or -{n} to -1"


def index_error(slices: Any, shape: tuple[int, ...]) -> str:
    """Why ``slices`` does not index an array of ``shape``, in the language's
    words (an index per axis, negative ones counted from the end)."""
    key = slices if isinstance(slices, tuple) else (slices,)
    for axis, (item, n) in enumerate(zip(key, shape, strict=False)):
        if isinstance(item, slice) or -n <= int(item) < n:
            continue  # a slice is never out of range: it takes what there is
        if len(shape) == 1 and n == 0:
            return f"index {item} is out of range: the array is empty"
        if len(shape) == 1:
            return f"index {item} is out of range for an array of {_elements(n)} ({_valid(n)})"
        return (f"the {_ordinal(axis + 1)} index, {item}, is out of range for an array of "
                f"shape {shape} ({_valid(n)})")
    return f"index {slices} is out of range for an array of shape {shape}"


def get_item(x: Any, slices: Any) -> Variable:
    return GetItem(slices)(x)


class Extreme(Function):
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


class Max(Extreme):
    reduce = "max"


class Min(Extreme):
    reduce = "min"


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    return Max(axis, keepdims)(x)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    return Min(axis, keepdims)(x)
