"""Stacking Variables into one array: the core op behind ``[a, b, c]``."""

from __future__ import annotations

from typing import Any

from ..errors import LimitError, ShapeError
from .backend import get_array_module
from .graph import Function, Variable
from .ops import MAX_DIMS, get_item


class Stack(Function):
    """Stack equally shaped inputs along a new first axis; differentiable in each."""

    def forward(self, *xs: Any) -> Any:
        shapes = {x.shape for x in xs}
        if len(shapes) > 1:
            a, b = sorted(shapes, key=str)[:2]
            raise ShapeError(f"array items have different shapes: {a} and {b}")
        if xs[0].ndim >= MAX_DIMS:
            raise LimitError(f"arrays nest at most {MAX_DIMS} deep")
        return get_array_module(xs[0]).stack(xs)

    def backward(self, gy: Variable) -> tuple[Variable, ...]:
        return tuple(get_item(gy, i) for i in range(len(self.inputs)))


def stack(items: list[Any]) -> Variable:
    return Stack()(*items)
