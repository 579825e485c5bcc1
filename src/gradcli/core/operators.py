"""Variable's operators and shape methods (``x + 1``, ``x.T``, ``x.reshape(2, 3)``).

They are set on the class here, above the operations they call: graph.py, which
defines Variable, sits below ops.py and shapes.py and imports neither.
"""

from __future__ import annotations

from typing import Any

from .graph import Variable, call_one, new_instance, operand_of
from .ops import (
    Add,
    Div,
    Mul,
    Neg,
    Sub,
    binop,
    np_add,
    np_div,
    np_mul,
    np_sub,
    pow,
    rdiv,
    rpow,
    rsub,
)
from .shapes import get_item, matmul, reshape, sum, transpose


def _v_add(self: Variable, other: Any) -> Variable:
    return binop(Add, np_add, self, operand_of(other, self))


def _v_sub(self: Variable, other: Any) -> Variable:
    return binop(Sub, np_sub, self, operand_of(other, self))


def _v_mul(self: Variable, other: Any) -> Variable:
    return binop(Mul, np_mul, self, operand_of(other, self))


def _v_truediv(self: Variable, other: Any) -> Variable:
    return binop(Div, np_div, self, operand_of(other, self))


def _v_neg(self: Variable) -> Variable:
    return call_one(new_instance(Neg), self)


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
