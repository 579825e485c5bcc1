"""Second derivatives by several variables at once: Hessians and Jacobians at a point.

The Hessian is taken forward-over-reverse in spirit and reverse-over-reverse in
code: one backprop with ``create_graph`` gives the gradient as a graph, then
one backprop of each of its n elements gives a row, n + 1 passes in all, not
the n^2 of differentiating every partial derivative again. Each pass walks only
what its element depends on, so a sum of terms that each read two variables
costs a few nodes a row. A mixed partial is computed once: the upper triangle
is kept and mirrored, so the matrix is exactly symmetric.

The variables may be arrays: their elements, flattened in order, are the
Hessian's rows and columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import LimitError, MathError
from ..limits import BACKPROP_MAX_NODES, MATRIX_MAX_NODES
from ..limits import MATRIX_MAX_VARIABLES as MAX_VARIABLES
from .backend import get_array_module
from .derivatives import grad, graph_size, nested_derivative
from .graph import Constant, Variable, using_config
from .shapes import get_item, reshape
from .stack import stack


def _flat(v: Variable) -> list[Variable]:
    """The elements of ``v`` as scalar Variables of its graph, in C order."""
    if v.ndim == 0:
        return [v]
    flat = reshape(v, (v.size,)) if v.ndim > 1 else v
    return [get_item(flat, i) for i in range(v.size)]


def _zero(x: Variable) -> Variable:
    return Constant(get_array_module(x.data).zeros((), dtype=x.data.dtype))


def _one(x: Variable) -> Variable:
    return Constant(get_array_module(x.data).ones((), dtype=x.data.dtype))


def count_variables(leaves: Sequence[Variable], what: str) -> int:
    """The elements of ``leaves``; an error where there are none, or more than
    ``MAX_VARIABLES`` (each a backprop pass or a Taylor pass)."""
    n = sum(x.size for x in leaves)
    if not n:
        raise MathError(f"{what} needs at least one variable to differentiate by")
    _check_count(n, what)
    return n


def _check_count(n: int, what: str) -> None:
    if n > MAX_VARIABLES:
        raise LimitError(f"{what} by {n:,} variables is above the limit of "
                         f"{MAX_VARIABLES:,} (one backprop pass each); name fewer variables")


class _Work:
    """The nodes the passes walk, against MATRIX_MAX_NODES. Where ``rows``
    passes over the whole graph (``size`` nodes) fit, nothing is counted; else
    each pass counts what it walks (its output's part of the graph) before it
    runs, and the first that would go past the limit stops them all."""

    def __init__(self, rows: int, size: int, what: str) -> None:
        self.counting = rows * size > MATRIX_MAX_NODES
        self.spent, self.rows, self.what = 0, rows, what

    def spend(self, y: Variable, done: int) -> None:
        if not self.counting:
            return
        self.spent += graph_size(y, MATRIX_MAX_NODES - self.spent)
        if self.spent > MATRIX_MAX_NODES:
            raise LimitError(
                f"{self.what}: its backprop passes walk more than {MATRIX_MAX_NODES:,} graph "
                f"nodes in all (past that after {done:,} of {self.rows:,} rows); name fewer "
                "variables or simplify the expression")


def _rows(outputs: list[Variable], leaves: list[Variable], skip_lower: bool,
          work: _Work) -> list[list[Variable]]:
    """Row i: the gradient of ``outputs[i]`` by every element of ``leaves``, as
    scalar graphs (with ``skip_lower``, columns j < i are None: a Hessian's)."""
    rows: list[list[Variable]] = []
    for i, out in enumerate(outputs):
        if out.creator is None:  # constant in every variable, or one of them
            row = [_one(x) if x is out else _zero(x) for x in leaves for _ in range(x.size)]
        else:
            work.spend(out, i)
            row = [e for g in grad(out, leaves, create_graph=True) for e in _flat(g)]
        if skip_lower:
            row[:i] = [None] * i  # type: ignore[list-item] - mirrored by the caller
        rows.append(row)
    return rows


def _numbers(outputs: list[Variable], leaves: list[Variable], skip_lower: bool,
             work: _Work) -> Any:
    """The rows of ``_rows`` as one array of numbers, written in place: passes
    that make no graph, reading each leaf's gradient where it has one."""
    xp = get_array_module(leaves[0].data)
    offsets = [0]
    for x in leaves:
        offsets.append(offsets[-1] + x.size)
    dtype = xp.result_type(*(x.data.dtype for x in leaves), *(y.data.dtype for y in outputs))
    numbers = xp.zeros((len(outputs), offsets[-1]), dtype=dtype)
    for i, y in enumerate(outputs):  # an output that is a variable itself: 1 by it
        for k, x in enumerate(leaves):
            if y is x:
                numbers[i, offsets[k]] = 1
    if any(x.creator is not None for x in leaves):  # points inside a diff: grad() keeps them
        for i, y in enumerate(outputs):
            if y.creator is not None:
                work.spend(y, i)
                numbers[i] = xp.concatenate([g.data.reshape(-1) for g in grad(y, leaves)])
    else:
        saved = [x.grad for x in leaves]
        try:
            for i, y in enumerate(outputs):
                if y.creator is None:
                    continue
                work.spend(y, i)
                for x in leaves:
                    x.grad = None
                y.grad = None
                y.backward()
                y.grad = None
                for k, x in enumerate(leaves):
                    if x.grad is not None:
                        numbers[i, offsets[k]:offsets[k + 1]] = x.grad.data.reshape(-1)
        finally:
            for x, g in zip(leaves, saved):
                x.grad = g
    if skip_lower:  # the lower triangle mirrors the upper: each mixed partial once
        lower = xp.tril_indices(len(outputs), -1)
        numbers[lower] = numbers.T[lower]
    return numbers


def _stacked(rows: list[list[Variable]]) -> Variable:
    return stack([stack(r) for r in rows])


def hessian(y: Variable, leaves: Sequence[Variable], create_graph: bool = False) -> Variable:
    """The Hessian of the scalar ``y`` by the elements of ``leaves``: an (n, n)
    Variable, n the number of their elements; with ``create_graph`` it is a graph
    (a Hessian inside a derivative), else a Constant of numbers."""
    if y.size != 1:
        raise MathError(f"the Hessian needs an expression of one value; this one has shape "
                        f"{y.shape}: for a vector's derivatives take its jacobian")
    leaves = list(leaves)
    n = count_variables(leaves, "a Hessian")
    with using_config("enable_backprop", True):
        if y.creator is None:
            first = [_zero(x) for x in leaves for _ in range(x.size)]
            work = _Work(0, 0, "a Hessian")
        else:
            size = graph_size(y, MATRIX_MAX_NODES)
            if size > BACKPROP_MAX_NODES:  # the gradient's graph, a few times this, is made first
                raise LimitError(f"a Hessian: the expression's graph has more than "
                                 f"{BACKPROP_MAX_NODES:,} nodes; simplify it")
            work = _Work(n, 3 * size, "a Hessian")
            gs = grad(reshape(y, ()) if y.ndim else y, leaves, create_graph=True)
            first = [e for g in gs for e in _flat(g)]
        if not create_graph:
            return Constant(_numbers(first, leaves, skip_lower=True, work=work))
        rows = _rows(first, leaves, skip_lower=True, work=work)
    for i in range(n):  # the lower triangle mirrors the upper: each mixed partial once
        for j in range(i):
            rows[i][j] = rows[j][i]
    return _stacked(rows)


def jacobian(y: Variable, leaves: Sequence[Variable], create_graph: bool = False) -> Variable:
    """The Jacobian of ``y`` (its elements, flattened, are the rows) by the
    elements of ``leaves`` (the columns): one backprop pass a row."""
    leaves = list(leaves)
    count_variables(leaves, "a Jacobian")
    _check_count(y.size, "a Jacobian")
    with using_config("enable_backprop", True):
        work = _Work(y.size, graph_size(y, MATRIX_MAX_NODES), "a Jacobian")
        if not create_graph:
            return Constant(_numbers(_flat(y), leaves, skip_lower=False, work=work))
        return _stacked(_rows(_flat(y), leaves, skip_lower=False, work=work))


def laplacian(y: Variable, leaves: Sequence[Variable], create_graph: bool = False) -> Variable:
    """The trace of the Hessian: the sum of the second derivatives by each
    element of ``leaves`` (n + 1 passes, as for the Hessian). A ``y`` of
    several values (a sweep over points) has one Laplacian a point: the sum of
    its second derivatives by each variable, as ``diff(diff(y, x), x)`` takes
    them (those of the sum of y's elements, see ``pointwise_laplacian``)."""
    if y.size != 1:
        return pointwise_laplacian(y, leaves, create_graph)
    h = hessian(y, leaves, create_graph)
    if create_graph:
        total: Variable = get_item(h, (0, 0))
        for i in range(1, h.shape[0]):
            total = total + get_item(h, (i, i))
        return total
    return Constant(h.data.trace())


def pointwise_laplacian(y: Variable, leaves: Sequence[Variable],
                        create_graph: bool = False) -> Variable:
    """Σ d²y/dx² over ``leaves``, each by repeated backprop as a nested ``diff``
    takes it: elementwise where y is elementwise in x (y = x^3 over a sweep of
    x is 6x at each point), else those of the sum of y's elements. One budget
    of nodes for all the variables."""
    leaves = list(leaves)
    count_variables(leaves, "a Laplacian")
    left = BACKPROP_MAX_NODES
    total: Variable | None = None
    with using_config("enable_backprop", True):
        for x in leaves:
            d = nested_derivative(y, x, 2, left)
            left -= graph_size(d, left)
            if left < 0:
                raise LimitError(f"a Laplacian: its second derivatives have grown past "
                                 f"{BACKPROP_MAX_NODES:,} graph nodes in all; name fewer "
                                 "variables or simplify the expression")
            total = d if total is None else total + d
    assert total is not None
    return total if create_graph else Constant(total.data)


__all__ = ["MAX_VARIABLES", "count_variables", "hessian", "jacobian", "laplacian",
           "pointwise_laplacian"]
