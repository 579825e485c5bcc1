"""Derivatives by repeated backprop, with zeros where a derivative vanishes.

``Variable.grad`` keeps DeZero's meaning (None: nothing computed); these helpers
are for callers that want numbers, so an input the output does not depend on
gets a zero of its shape, never None.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from ..errors import LimitError, NumericWarning, literal
from ..limits import BACKPROP_MAX_NODES
from .backend import get_array_module
from .graph import Constant, Variable


def _zeros_like(x: Variable) -> Variable:
    return Variable(get_array_module(x.data).zeros_like(x.data))


def grad(
    y: Variable, inputs: Sequence[Variable], create_graph: bool = False
) -> list[Variable]:
    """d(sum y)/d input for each input, like ``torch.autograd.grad``.

    The inputs' own ``grad`` are left as they were found.
    """
    saved = [x.grad for x in inputs]
    for x in inputs:
        x.grad = None
    y.grad = None
    # an input that is not a leaf (diff(sum(v^2), v) by a bound v, whose point is
    # v + 0) keeps its grad only if every intermediate does: theirs are dropped after
    retain = any(x.creator is not None for x in inputs)
    try:
        y.backward(retain_grad=retain, create_graph=create_graph)
        return [x.grad if x.grad is not None else _zeros_like(x) for x in inputs]
    finally:
        y.grad = None
        if retain:
            from .dot import walk  # only for inputs that are not leaves

            for v in walk(y)[0]:
                if v.creator is not None:
                    v.grad = None
        for x, g in zip(inputs, saved):
            x.grad = g


def summed_warning(y: Variable, x: Variable) -> str | None:
    """What to tell a user whose y is not of x's shape (and not one number): its
    derivatives by x are those of the sum of its elements (DeZero's rule), where
    one may expect one derivative per element ([cos(t), sin(t)] by t)."""
    if not y.ndim or y.shape == x.shape:
        return None
    return (f"the result has shape {y.shape} and {x.name or 'the variable'} {x.shape}: "
            "its derivatives are those of the sum of its elements; for one "
            "element's, index it, as in (expr)[0]")



def mixed_warning(y: Variable, x: Variable) -> str | None:
    """What to tell a user whose y has x's shape but mixes x's elements (x*sum(x),
    A @ x): its derivatives by x are still those of the sum of its elements."""
    if not y.ndim or y.shape != x.shape or x.size < 2:
        return None
    from .mixing import mixes_elements  # walks the graph

    if not mixes_elements(y, x):
        return None
    return (f"the result mixes the elements of {x.name or 'the variable'}: its derivatives "
            "are those of the sum of its elements (a gradient), not one per element; "
            "for one element's, index it, as in (expr)[0]")


GRAPH_WARN_NODES = 20_000
"""Repeated backprop warns (once) before it builds a graph larger than this."""


def graph_size(y: Variable, cap: int) -> int:
    """Variables and Functions in y's graph, counting no further than just past ``cap``."""
    if y.creator is None:
        return 1
    seen_v = {id(y)}
    seen_f = {id(y.creator)}
    stack = [y.creator]
    count = 2
    while stack and count <= cap:
        f = stack.pop()
        for v in f.inputs:
            if id(v) not in seen_v:
                seen_v.add(id(v))
                count += 1
            c = v.creator
            if c is not None and id(c) not in seen_f:
                seen_f.add(id(c))
                stack.append(c)
                count += 1
    return count


def spend_nodes(spent: int, y: Variable, max_nodes: int, order: int, k: int,
                hint: str) -> int:
    """``spent`` plus the size of y's graph (the order-k derivative's, on the way
    to ``order``); LimitError, ending with ``hint`` (a hint template), once past
    ``max_nodes``."""
    spent += graph_size(y, max_nodes - spent)
    if spent > max_nodes:
        raise LimitError.hinted(literal(
            f"repeated backprop to order {order} stopped at order {k}: its graphs "
            f"have grown past {max_nodes:,} nodes in all; ") + hint
        )
    return spent


def higher_derivatives(
    y: Variable, x: Variable, order: int, max_nodes: int | None = None
) -> list[Variable]:
    """[d^k y / dx^k for k in 1..order] by backprop through backprop (DeZero's way).

    For a non-scalar ``y`` each order is the gradient of the sum of the
    previous one, which for an elementwise expression is elementwise.

    Each order's graph is a few times larger than the last one's, so the cost
    grows exponentially with the order: before a step would build or walk a
    graph of more than GRAPH_WARN_NODES nodes this warns, once, with a
    NumericWarning that gives the count and points to Taylor mode, then goes on.
    With ``max_nodes``, the walk stops with a LimitError once the graphs of
    all orders so far add up to more nodes than that: the total is what the
    time grows with (the calculator sets it; a library caller may not).
    """
    out: list[Variable] = []
    current = y
    previous = 0
    warned = False
    spent = 0
    for k in range(order):
        if current.creator is None and current is not x:
            # constant in x: every higher order vanishes
            out.extend(_zeros_like(x) for _ in range(order - k))
            break
        if max_nodes is not None and k > 0:
            spent = spend_nodes(spent, current, max_nodes, order, k,
                                "Taylor mode gives every order in one pass"
                                "{method_paren}")
        if not warned and k > 0:
            size = graph_size(current, GRAPH_WARN_NODES)
            growth = size / previous if previous else 3.0
            expected = size * growth if k + 1 < order else size
            if expected > GRAPH_WARN_NODES:
                warned = True
                warnings.warn(
                    NumericWarning.hinted(
                        f"repeated backprop to order {order}: the graph of the order-{k} "
                        f"derivative already has {size:,}"
                        f"{'+' if size > GRAPH_WARN_NODES else ''} nodes and grows about "
                        f"{growth:.1f}x per order; Taylor mode gives every order in one "
                        "pass{method_use}"),
                    stacklevel=2,
                )
            previous = size
        (current,) = grad(current, [x], create_graph=k + 1 < order)
        out.append(current)
    return out


def nested_derivative(y: Variable, x: Variable, order: int,
                      max_nodes: int | None = None) -> Variable:
    """d^order y / dx^order as a differentiable graph, for any Variable x (leaf or not).

    Raises LimitError once the graphs of the orders so far add up to more than
    ``max_nodes`` nodes (default BACKPROP_MAX_NODES).
    """
    from .dot import walk  # only nested derivatives need it

    if max_nodes is None:
        max_nodes = BACKPROP_MAX_NODES
    current = y
    spent = 0
    for k in range(order):
        if current is x:
            current = Constant(get_array_module(x.data).ones_like(x.data))
            continue
        if current.creator is None:
            return Constant(get_array_module(x.data).zeros_like(x.data))
        if k:
            spent = spend_nodes(spent, current, max_nodes, order, k, "ask for a lower order")
        for v in walk(current)[0]:
            v.grad = None
        current.backward(retain_grad=True, create_graph=True)
        g = x.grad
        for v in walk(current)[0]:
            v.grad = None
        if g is None:
            return Constant(get_array_module(x.data).zeros_like(x.data))
        current = g
    return current
