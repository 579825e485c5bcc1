"""Derivatives by repeated backprop, with zeros where a derivative vanishes.

``Variable.grad`` keeps DeZero's meaning (None: nothing computed); these helpers
are for callers that want numbers, so an input the output does not depend on
gets a zero of its shape, never None.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

from ..errors import LimitError, NumericWarning, literal
from ..limits import BACKPROP_MAX_NODES
from .backend import get_array_module
from .graph import Constant, Function, Variable, attach, sharing
from .known import KnownRows, stand_in
from .memory import check_memory
from .ops import Add, Div, Mul, Neg, Pow, Sub, add, div, mul, neg, sub


def _zeros_like(x: Variable) -> Variable:
    return Variable(get_array_module(x.data).zeros_like(x.data))


def grad(
    y: Variable, inputs: Sequence[Variable], create_graph: bool = False
) -> list[Variable]:
    """d(sum y)/d input for each input, like ``torch.autograd.grad``.

    The inputs' own ``grad`` are left as they were found.
    """
    return _grad(y, inputs, create_graph)


def _grad(y: Variable, inputs: Sequence[Variable], create_graph: bool,
          seeded: bool = False) -> list[Variable]:
    """``grad``; ``seeded``: start from a Constant gradient, which a Builder folds."""
    saved = [x.grad for x in inputs]
    for x in inputs:
        x.grad = None
    y.grad = None
    if seeded:
        _seed(y)
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
        raise _too_many(order, k, max_nodes, hint)
    return spent


def _too_many(order: int, k: int, max_nodes: int, hint: str) -> LimitError:
    return LimitError.hinted(literal(
        f"repeated backprop to order {order} stopped at order {k}: its graphs "
        f"have grown past {max_nodes:,} nodes in all; ") + hint)


_COMMUTING = (Add, Mul)


class Builder:
    """What places each node while repeated backprop builds derivative graphs
    (``graph.sharing``), so that each order's graph stays near the size of the
    formula for it rather than a few times the last one's:

    * a Function of Constants gives a Constant (no node);
    * ``v*1``, ``v/1``, ``v+0``, ``v-0``, ``v**1`` and ``-(-v)`` are ``v``,
      ``v*-1`` is ``-v``, and a sign moves outward (``-a*b`` is ``-(a*b)``), and
      ``0*v`` and ``0/v`` a zero Constant where the product is zero: the values
      are the same bits, and their derivatives differ only where ``v``'s
      are not finite;
    * a node equal to one made before (the same Function class and parameters
      over the same inputs) is that node, so equal subgraphs are shared.

    It counts the nodes it makes and the bytes of their values, and raises
    LimitError once those pass ``max_bytes``: each node keeps its array.
    """

    def __init__(self, max_bytes: float | None = None, points: int = 1,
                 order: int = 0) -> None:
        self.memo: dict[Any, Variable] = {}
        self.uniform: dict[int, tuple[Variable, Any]] = {}
        self.nodes = 0
        self.bytes = 0
        self.base = 0.0  # the bytes of the graph it starts from
        self.max_bytes = max_bytes
        self.points = points
        self.order = order

    def remember(self, y: Variable) -> None:
        """Let the nodes already in y's graph be shared too."""
        if y.creator is None:
            return
        seen = {id(y.creator)}
        stack = [y.creator]
        while stack:
            f = stack.pop()
            outs = f.outputs
            if len(outs) == 1:
                out = outs[0]()
                key = self.key(f, f.inputs)
                if out is not None and key is not None:
                    self.memo.setdefault(key, out)
            for v in f.inputs:
                c = v.creator
                if c is not None and id(c) not in seen:
                    seen.add(id(c))
                    stack.append(c)

    def value(self, c: Variable) -> Any:
        """The one value all of Constant c's elements have, else None."""
        d = c.data
        if d.size == 1:
            return d.reshape(()).item()
        if d.size == 0:  # an empty constant has no value to fold by
            return None
        hit = self.uniform.get(id(c))
        if hit is not None and hit[0] is c:
            return hit[1]
        first = d.reshape(-1)[0]
        v = first.item() if bool((d == first).all()) else None
        self.uniform[id(c)] = (c, v)
        return v

    def key(self, f: Function, inputs: list[Variable]) -> Any:
        """What makes two nodes equal; None where it cannot be told (a parameter
        that is an array)."""
        ids: list[Any] = [type(f)]
        for v in inputs:
            d = v.data
            if type(v) is Constant and d.size == 1:
                ids.append((d.dtype.str, d.shape, d.tobytes()))
            else:
                ids.append(id(v))
        if type(f) in _COMMUTING and ids[1] != ids[2] and hash(ids[1]) > hash(ids[2]):
            ids[1], ids[2] = ids[2], ids[1]  # a*b is b*a, to the bit
        params = f.__dict__
        if params:
            ids.append(tuple(params.items()))
        k = tuple(ids)
        try:
            hash(k)
        except TypeError:
            return None
        return k

    def same(self, v: Variable, out: Variable) -> bool:
        """Whether v can stand for ``out`` (its shape and dtype)."""
        return v.data.shape == out.data.shape and v.data.dtype == out.data.dtype

    def folded(self, f: Function, inputs: list[Variable], out: Variable) -> Variable | None:
        """The Variable ``out`` folds to, else None."""
        t = type(f)
        if t is Neg:
            (v,) = inputs
            c = v.creator
            return c.inputs[0] if type(c) is Neg else None
        if t is Pow:
            c = getattr(f, "c", None)
            if c is not None and len(inputs) == 1 and c == 1 and self.same(inputs[0], out):
                return inputs[0]
            return None
        if t not in (Mul, Div, Add, Sub):
            return None
        a, b = inputs
        signs = self.signs(t, a, b)
        if signs is not None:
            return signs
        va = self.value(a) if type(a) is Constant else None
        vb = self.value(b) if type(b) is Constant else None
        if va is None and vb is None:
            return None
        if t is Mul:
            if vb == 1 and self.same(a, out):
                return a
            if va == 1 and self.same(b, out):
                return b
            if vb == -1 and self.same(a, out):
                return neg(a)
            if va == -1 and self.same(b, out):
                return neg(b)
            if (va == 0 or vb == 0) and not out.data.any():
                return self.constant(out)
        elif t is Div:
            if vb == 1 and self.same(a, out):
                return a
            if vb == -1 and self.same(a, out):
                return neg(a)
            if va == 0 and not out.data.any():
                return self.constant(out)
        elif t is Sub:
            if vb == 0 and self.same(a, out):
                return a
        else:
            for v, other in ((a, vb), (b, va)):
                # v + 0 is v but for -0, which becomes +0
                if other == 0 and self.same(v, out):
                    xp = get_array_module(out.data)
                    if bool((xp.signbit(v.data) == xp.signbit(out.data)).all()):
                        return v
        return None

    def signs(self, t: type, a: Variable, b: Variable) -> Variable | None:
        """A sign moved outward, where a or b is a negation: -a*b is -(a*b), a + -b
        is a - b (the same bits), so the terms of a sum meet as equal nodes."""
        na, nb = type(a.creator) is Neg, type(b.creator) is Neg
        if not (na or nb):
            return None
        u = a.creator.inputs[0] if na else a  # type: ignore[union-attr]
        v = b.creator.inputs[0] if nb else b  # type: ignore[union-attr]
        if t is Mul or t is Div:
            op = mul if t is Mul else div
            return op(u, v) if na and nb else neg(op(u, v))
        if t is Add:
            return neg(add(u, v)) if na and nb else sub(a, v) if nb else sub(b, u)
        return sub(v, u) if na and nb else add(a, v) if nb else neg(add(u, b))

    def constant(self, out: Variable) -> Variable:
        out.__class__ = Constant
        self.count(out)
        return out

    def count(self, out: Variable) -> None:
        self.nodes += 1
        self.bytes += out.data.nbytes
        if self.max_bytes is not None and self.base + self.bytes > self.max_bytes:
            check_memory(self.base + self.bytes, self.points, self.order, "repeated backprop")

    def __call__(self, f: Function, inputs: list[Variable], out: Variable,
                 gen: int) -> Variable:
        for v in inputs:
            if type(v) is not Constant:
                break
        else:
            return self.constant(out)
        done = self.folded(f, inputs, out)
        if done is not None:
            return done
        key = self.key(f, inputs)
        if key is not None:
            hit = self.memo.get(key)
            if hit is not None:
                return hit
            self.memo[key] = out
        attach(f, inputs, out, gen)
        self.count(out)
        return out


def _memory_cap(x: Variable, max_nodes: int) -> float | None:
    """The bytes repeated backprop's new nodes may take, where ``max_nodes`` nodes of
    x's size could pass the limit (else None: nothing to count)."""
    from .memory import max_memory

    if max_nodes * x.data.nbytes < SMALL_BYTES:
        return None
    return float(max_memory())


SMALL_BYTES = 64 << 20
"""Repeated backprop whose whole budget of nodes cannot reach this many bytes is
not counted against the memory limit (scalars pay nothing)."""


PREDICTION_MARGIN = 1.5
"""A request is refused up front only where the growth so far predicts this many
times the budget; nearer it, the budget itself stops it (when it is spent)."""


class Plan:
    """The budget of one repeated backprop to ``order``: the nodes walked (the
    time) and, for arrays, the bytes kept (the memory), each checked before the
    next order is taken by what the orders so far predict."""

    def __init__(self, y: Variable, x: Variable, order: int, max_nodes: int,
                 hint: str, builder: Builder) -> None:
        self.order = order
        self.max_nodes = max_nodes
        self.hint = hint
        self.builder = builder
        self.spent = 0
        self.sizes = [graph_size(y, max_nodes)]
        builder.remember(y)
        self.added = [float(builder.bytes)]
        if builder.max_bytes is not None:
            builder.base = float(sum(v.data.nbytes for v in _variables(y)))
            # every order's derivative is kept, each at least of x's size
            check_memory(builder.base + order * x.data.nbytes, x.data.size, order,
                         "repeated backprop")

    def before(self, current: Variable, k: int) -> None:
        """Check before differentiating ``current``, the order-k derivative (k >= 1)."""
        size = graph_size(current, self.max_nodes - self.spent)
        self.spent += size
        if self.spent > self.max_nodes:
            raise _too_many(self.order, k, self.max_nodes, self.hint)
        self.sizes.append(size)
        if len(self.sizes) < 4:  # the first orders' growth says little of the next ones'
            return self.check_memory(k)
        growth = max(1.0, min(self.sizes[-1] / self.sizes[-2], self.sizes[-2] / self.sizes[-3]))
        total = float(self.spent)
        for _ in range(k + 1, self.order):
            size *= growth
            total += size
            if total > PREDICTION_MARGIN * self.max_nodes:
                raise LimitError.hinted(literal(
                    f"repeated backprop to order {self.order} would build graphs of more "
                    f"than {self.max_nodes:,} nodes in all: they grow about {growth:.1f}x "
                    f"per order (order {k}'s has {self.sizes[-1]:,}); ") + self.hint)
        self.check_memory(k)

    def check_memory(self, k: int) -> None:
        b = self.builder
        if b.max_bytes is None:
            return
        added = b.bytes - sum(self.added)
        self.added.append(float(added))
        last = self.added[-3:]  # the growth of the last two orders, the smaller
        growth = max(1.0, min(last[1] / last[0], last[2] / last[1])) \
            if len(last) == 3 and min(last) > 0 else 1.0
        used = b.base + b.bytes
        for j in range(k + 1, self.order + 1):  # the last order's gradients pass too
            added *= growth
            used += added
            if used > b.max_bytes:
                check_memory(used, b.points, j, "repeated backprop")


def _variables(y: Variable) -> list[Variable]:
    from .dot import walk  # only for arrays large enough to count

    return walk(y)[0]


def _seed(y: Variable) -> None:
    """Start backprop at y with a gradient of ones that folds (DeZero's is a Variable)."""
    y.grad = Constant(get_array_module(y.data).ones_like(y.data))


def higher_derivatives(
    y: Variable, x: Variable, order: int, max_nodes: int | None = None
) -> list[Variable]:
    """[d^k y / dx^k for k in 1..order] by backprop through backprop (DeZero's way),
    folding constants and sharing equal nodes as each order's graph is built
    (see ``Builder``).

    For a non-scalar ``y`` each order is the gradient of the sum of the
    previous one, which for an elementwise expression is elementwise.

    Where the graphs still grow (1/sqrt(x): about 1.4x per order), the cost
    grows with them: before a step would build or walk a graph of more than
    GRAPH_WARN_NODES nodes this warns, once, with a NumericWarning that gives
    the count and points to Taylor mode, then goes on. With ``max_nodes``, it
    raises LimitError once the graphs of all orders so far add up to more
    nodes than that, or as soon as their growth predicts they will: the total
    is what the time grows with (the calculator sets it; a library caller may
    not). Either way it raises LimitError before the nodes' arrays would pass
    the memory limit (core/memory.py), as predicted from the orders so far.
    """
    hint = "Taylor mode gives every order in one pass{method_paren}"
    out: list[Variable] = []
    builder = Builder(_memory_cap(x, max_nodes or BACKPROP_MAX_NODES), x.data.size, order)
    plan = Plan(y, x, order, sys.maxsize if max_nodes is None else max_nodes, hint, builder)
    current = y
    previous = 0
    warned = False
    with sharing(builder):
        for k in range(order):
            if current.creator is None and current is not x:
                # constant in x: every higher order vanishes
                out.extend(_zeros_like(x) for _ in range(order - k))
                break
            if k > 0:
                plan.before(current, k)
            if not warned and k > 0:
                size = plan.sizes[-1]
                growth = size / previous if previous else 3.0
                expected = size * growth if k + 1 < order else size
                if expected > GRAPH_WARN_NODES:
                    warned = True
                    warnings.warn(
                        NumericWarning.hinted(
                            f"repeated backprop to order {order}: the graph of the order-{k} "
                            f"derivative already has {size:,} nodes and grows about "
                            f"{growth:.1f}x per order; Taylor mode gives every order in one "
                            "pass{method_use}"),
                        stacklevel=2,
                    )
                previous = size
            (current,) = _grad(current, [x], k + 1 < order, seeded=True)
            out.append(current)
    return out


def nested_derivative(y: Variable, x: Variable, order: int,
                      max_nodes: int | None = None) -> Variable:
    """d^order y / dx^order as a differentiable graph, for any Variable x (leaf or
    not), folding and sharing as ``higher_derivatives`` does.

    Raises LimitError once the graphs of the orders so far add up to more than
    ``max_nodes`` nodes (default BACKPROP_MAX_NODES), or as soon as their growth
    predicts they will, or their arrays the memory limit.
    """
    from .dot import walk  # only nested derivatives need it

    if max_nodes is None:
        max_nodes = BACKPROP_MAX_NODES
    builder = Builder(_memory_cap(x, max_nodes), x.data.size, order)
    plan = Plan(y, x, order, max_nodes, "ask for a lower order", builder)
    before = {id(v) for v in walk(y)[0]} | {id(x)}
    current = y
    with sharing(builder):
        for k in range(order):
            if current is x:
                current = Constant(get_array_module(x.data).ones_like(x.data))
                continue
            if current.creator is None:
                return Constant(get_array_module(x.data).zeros_like(x.data))
            if k:
                plan.before(current, k)
            for v in walk(current)[0]:
                v.grad = None
            _seed(current)
            try:
                current.backward(retain_grad=True, create_graph=True)
                g = x.grad
            finally:
                for v in walk(current)[0]:
                    v.grad = None
            if g is None:
                return Constant(get_array_module(x.data).zeros_like(x.data))
            current = g
    if id(current) in before:
        # folded to a node of y's graph (x*y by x is y): a node of its own, which
        # a caller may name without renaming the user's variable
        current = current * 1.0
    return current


def higher_derivatives_through(y: Variable, x: Variable, order: int,
                               known: Sequence[tuple[Variable, list[Any]]],
                               max_nodes: int | None = None) -> list[Variable]:
    """``higher_derivatives`` of y by x with each node of ``known`` standing for
    its rows (``KnownRows``: its derivatives by x to ``order``, taken another way)
    instead of the operations that made it, which backprop would go through.
    The graph is as it was after."""
    saved = [(v, v.creator, v.generation) for v, _ in known]
    try:
        for v, rows in known:
            stand_in(v, x, KnownRows(list(rows)))
        return higher_derivatives(y, x, order, max_nodes)
    finally:
        for v, creator, generation in saved:
            v.creator, v.generation = creator, generation
