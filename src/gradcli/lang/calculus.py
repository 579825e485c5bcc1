"""Derivatives inside the language: ``diff``, ``f'``, and ``grad``.

A mixin of the Evaluator: differentiation needs its name layers (``diff``
binds its variable for the body), and its results are Variables the rest of
the expression goes on with. ``grad`` lives here beside ``diff``: both are
special forms that differentiate by names.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..core import derivatives
from ..core.derivatives import graph_size, mixed_warning, nested_derivative, summed_warning
from ..core.graph import Constant, Variable, using_config
from ..core.ops import add
from ..core.registry import REGISTRY
from ..errors import ArityError, GradcliError, LimitError, MathError, UnknownNameError
from .ast import Call, Name, Prime, free_names
from .matrices import MATRIX_FORMS

if TYPE_CHECKING:
    from .evaluate import Context, Definition

from ..limits import MAX_ORDER

SPECIAL_FORMS: dict[str, tuple[str, str]] = {
    "diff": ("diff(expr, x[, n[, a]])", "n-th derivative of expr by x (at x = a)"),
    "grad": ("grad(expr[, x, y...])", "all partial derivatives, as name: value"),
    **MATRIX_FORMS,
}


def _position(node: Any) -> tuple[int | None, int | None]:
    line = getattr(node, "line", 0)
    return (line, node.column) if line else (None, None)


def _located(err: GradcliError, node: Any) -> GradcliError:
    return err.at(*_position(node))


class Calculus:
    """The Evaluator's differentiation (see lang.evaluate.Evaluator)."""

    ctx: Context
    keep_graph: bool
    nodes_spent: int
    diff_depth: int
    layers: list[tuple[dict[str, Variable], bool]]

    def eval(self, node: Any) -> Variable:  # the Evaluator's
        raise NotImplementedError

    def leaf(self, name: str) -> Variable | None:  # the Evaluator's
        raise NotImplementedError

    def binding(self, name: str) -> tuple[dict[str, Variable], bool] | None:  # the Evaluator's
        raise NotImplementedError

    def call_defined(self, definition: Definition, args: list[Variable],
                     node: Any) -> Variable:  # the Evaluator's
        raise NotImplementedError

    def unknown(self, name: str, node: Any, what: str = "name") -> UnknownNameError:
        raise NotImplementedError

    def _order(self, node: Any, what: str) -> int:
        try:
            n = _to_int(self.eval(node), what)
        except GradcliError as err:
            if err.column is None:  # "not a whole number": the argument's own place
                err.at(*_position(node))
            raise
        if n < 0:
            raise MathError(f"{what} must not be negative, got {n}").at(*_position(node))
        if n > MAX_ORDER:
            raise LimitError(
                f"{what} {n} is above the limit of {MAX_ORDER}"
            ).at(*_position(node))
        return n

    @staticmethod
    def _point(v: Variable, name: str | None, own: bool = False) -> Variable:
        # A constant point becomes a fresh leaf to differentiate by; a point
        # that depends on outer variables stays in the graph (chain rule), as a
        # node of its own: differentiating by the variable it is computed from
        # would also move that variable where the body uses it (diff(x*y, y, 1, x)
        # gave 2x, not x). A variable that is its ``own`` point (diff(x^3, x),
        # sin'(x)) is differentiated by itself: no node x + 0 in plots.
        if type(v) is Constant:
            return Variable(v.data, name=name)
        if own and v.creator is None:
            return v
        point = add(v, 0.0)
        point.name = name
        return point

    def _diff(self, node: Call) -> Variable:
        args = node.args
        if not 2 <= len(args) <= 4:
            raise ArityError(
                f"diff takes 2 to 4 arguments: {SPECIAL_FORMS['diff'][0]}; got {len(args)}"
            ).at(*_position(node))
        var = args[1]
        if not isinstance(var, Name):
            raise MathError(
                "diff: the second argument must be a variable name, as in diff(x^2, x)"
            ).at(*_position(var))
        if var.id in REGISTRY or var.id in SPECIAL_FORMS or var.id in self.ctx.functions:
            # diff(sin(1), sin, 1, 2) bound 'sin' as a variable no call reads: 0
            raise MathError(f"diff: cannot differentiate by the function '{var.id}'").at(
                *_position(var))
        order = self._order(args[2], "diff: the order") if len(args) > 2 else 1
        if len(args) == 4:
            point = self._point(self.eval(args[3]), var.id)
        else:
            found = self.leaf(var.id)
            if found is None:
                raise UnknownNameError(
                    f"'{var.id}' has no value; give the point: "
                    f"diff(expr, {var.id}, n, a)"
                ).at(*_position(var))
            # a parameter is a node apart from the argument it is bound to, or
            # whatever else reads that argument would move with it: g(t) =
            # diff(t*x, t) gave 2x for g(x), and k(t, s) = diff(t*s, t) 2t for k(t, t)
            bound = self.binding(var.id)
            point = self._point(found, var.id, own=bound is None or not bound[1])
        self._value_not_formula(args[0], var.id)
        return self.differentiate(args[0], var.id, point, order, node)

    def _value_not_formula(self, body: Any, var: str) -> None:
        """A note for diff(y, x) where y was assigned from x (y = x^2): y holds
        the number, so its derivative is 0, which is right but seldom meant."""
        reads = free_names(body, self.ctx.functions)
        if var in reads:
            return
        held = [n for n in reads if n in self.ctx.values and n != "ans"]
        if held:
            name = held[0]
            self.ctx.warn(f"'{name}' holds a value, not a formula in {var}, so its derivative "
                          f"by {var} is 0; to differentiate a formula, define a function: "
                          f"{name}({var}) = ...")

    def differentiate(self, body: Any, name: str, point: Variable, order: int,
                      node: Any) -> Variable:
        self.layers.append(({name: point}, False))
        self.diff_depth += 1
        try:
            # A derivative needs the graph even where the caller evaluates
            # without one (the central differences of --check).
            with using_config("enable_backprop", True):
                y = self.eval(body)
        finally:
            self.diff_depth -= 1
            self.layers.pop()
        try:
            return self.derivative(y, point, order)
        except GradcliError as err:
            raise _located(err, node) from None

    def _prime(self, node: Prime) -> Variable:
        definition = self.ctx.functions.get(node.func)
        entry = REGISTRY.get(node.func)
        if definition is None and (entry is None or entry.kind != "elementwise"):
            if entry is not None or node.func in SPECIAL_FORMS:
                raise MathError(
                    f"{node.func}' needs a function of one variable"
                    + ("; write diff(expr, x, n)" if node.func in SPECIAL_FORMS else "")
                ).at(*_position(node))
            if self.leaf(node.func) is not None:
                raise MathError(f"'{node.func}' is a variable, not a function").at(
                    *_position(node))
            raise self.unknown(node.func, node, "function")
        if len(node.args) != 1 or (definition is not None and len(definition.params) != 1):
            raise ArityError(
                f"{node.func}{chr(39) * node.order}(a) needs a function of one variable "
                "and one argument"
            ).at(*_position(node))
        # a built-in has no parameter name: its point is unnamed (it was "x", a second
        # node labelled x beside the user's x in sin'(x)'s graph)
        param = definition.params[0] if definition is not None else None
        # a built-in reads nothing but its argument: x can be its own point; a
        # defined function's body may read x besides (f(t) = t*x: f'(x) is x)
        point = self._point(self.eval(node.args[0]), param, own=definition is None)
        self.diff_depth += 1
        try:
            with using_config("enable_backprop", True):
                if definition is not None:
                    y = self.call_defined(definition, [point], node)
                else:
                    y = entry.call(point)
        finally:
            self.diff_depth -= 1
        try:
            return self.derivative(y, point, node.order)
        except GradcliError as err:
            raise _located(err, node) from None

    def derivative(self, y: Variable, x: Variable, order: int) -> Variable:
        """The order-th derivative of y by x, as a Variable.

        Inside another differentiation the result must stay differentiable, so
        it is taken by backprop with create_graph; at the top level the
        session's engine (Taylor mode where it applies) gives plain numbers.
        """
        if order == 0:
            return y
        if self.diff_depth > 0 or self.keep_graph:
            # the session's derivatives warn themselves
            message = summed_warning(y, x) or mixed_warning(y, x)
            if message is not None:
                self.ctx.warn(message)
            # one budget for the statement: each diff of a nested diff starts from a
            # graph about 3 times the last, so it is the total that grows
            left = derivatives.BACKPROP_MAX_NODES - self.nodes_spent
            with using_config("enable_backprop", True):
                d = nested_derivative(y, x, order, left)
            self.nodes_spent += graph_size(d, left)
            if self.nodes_spent > derivatives.BACKPROP_MAX_NODES:
                raise LimitError(
                    f"nested derivatives have grown past {derivatives.BACKPROP_MAX_NODES:,} "
                    "graph nodes "
                    "in all; for an n-th derivative write diff(expr, x, n)")
            return d
        return Constant(self.ctx.derivatives(y, x, order)[-1])

    def gradient(self, node: Call, variables: list[str]) -> tuple[Variable, dict[str, Variable]]:
        """``grad(expr[, x, y...])``: the expression's value and the leaves it is
        differentiated by (the names written, else ``variables``), checked."""
        if not node.args:
            raise ArityError("grad takes at least 1 argument: grad(expr[, x, y...]); got 0").at(
                node.line, node.column)
        body, var_nodes = node.args[0], node.args[1:]
        for v in var_nodes:
            if not isinstance(v, Name):
                raise MathError("grad: variables must be names, as in grad(x*y, x, y)").at(
                    v.line, v.column)
            if v.id in REGISTRY or v.id in SPECIAL_FORMS or v.id in self.ctx.functions:
                raise MathError(f"grad: cannot differentiate by the function '{v.id}'").at(
                    v.line, v.column)
        names = [v.id for v in var_nodes] or variables
        leaves = {}
        written = {v.id: v for v in reversed(var_nodes)}  # each name's first place
        for name in names:
            leaf = self.leaf(name)
            if leaf is None:
                if name not in written:
                    self.eval(body)  # says which name, where the body uses it
                raise self.unknown(name, written.get(name))
            leaves[name] = leaf
        y = self.eval(body)  # first: a name without a value is reported as such
        if not names:
            raise MathError("grad: the expression has no variable to differentiate by").at(
                node.line, node.column)
        for leaf in leaves.values():
            message = summed_warning(y, leaf)
            if message is not None:
                self.ctx.warn(message)
        return y, leaves



def _to_int(v: Variable, what: str) -> int:
    data = v.data
    if data.ndim:  # [0] too: v[[0]] read as v[0] gave a number where NumPy gives [v0]
        raise MathError(f"{what} must be a single whole number, got shape {data.shape}")
    f = float(data.reshape(()))
    if not math.isfinite(f) or f != int(f):
        raise MathError(f"{what} must be a whole number, got {f:g}")
    if abs(f) > 2.0**62:  # no array is this large; NumPy's own message is a puzzle
        raise MathError(f"{what} {f:g} is out of range")
    return int(f)
