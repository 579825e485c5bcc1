"""A gradcli syntax tree as a formula.

Numbers stay exact (``2.5`` is 5/2, printed as typed), ``pi`` and ``e`` stay
symbols, names without a value become variables, user functions are expanded
with their arguments, and ``diff(expr, x, n)`` or ``f'(a)`` inside an
expression become the derivative's formula. Built-ins are called through the
registry's own wrappers, which return formulas when given formulas. Arrays,
indexing and the non-elementwise built-ins are refused: formulas cover scalar
expressions. A list of scalars in brackets is read where its result is one:
``sum``, ``mean``, ``max`` and ``min`` of it, and an item by a whole number.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..core.graph import Variable
from ..errors import GradcliError, MathError
from ..lang import ast
from ..lang.matrices import MATRIX_FORMS, matrix_args, variable_names
from ..lang.namespace import CONSTANTS
from ..lang.resolve import CONSTANT, FUNCTION, VALUE, Definition, Resolver, located
from .diff import SIZE_LIMIT, derivatives
from .expr import Expr, Num, Sym, add, as_expr, from_float, mul, neg, power, typed
from .rewrite import free_names, substitute

_CONSTANTS = ("pi", "e")
_REDUCTIONS = ("sum", "mean", "max", "min")
"""The reductions whose formula exists over a list of scalars in brackets."""


def scalar_error(what: str) -> MathError:
    return MathError(f"formulas cover scalar expressions; {what} is not one")


class _Builder(Resolver[Expr]):
    """Reads a syntax tree by the shared resolver's rules: each node a formula."""

    def __init__(self, functions: Mapping[str, Any], values: Mapping[str, Any],
                 limit: int) -> None:
        super().__init__(values, functions)
        self.limit = limit
        self.fresh = 0

    def eval(self, node: Any) -> Expr:
        return self.build(node)

    def build(self, node: Any) -> Expr:
        method = getattr(self, "_" + type(node).__name__.lower(), None)
        if method is None:
            raise located(scalar_error(f"{type(node).__name__.lower()}"), node)
        try:
            return method(node)
        except GradcliError as err:
            raise located(err, node) from None

    def _num(self, node: ast.Num) -> Expr:
        return typed(node.text)

    def _variable(self, name: str) -> Sym:
        # a name no user can write (a quote is no part of a name), sorted where
        # ``name`` sorts: it stands for the variable differentiated by while
        # the body is built, so that a different ``name`` there, read from a
        # caller's argument, stays apart (k(t, s) = diff(t*s, t); k(x, t) is t)
        self.fresh += 1
        return Sym(f"{name}'{self.fresh}")

    def _name(self, node: ast.Name) -> Expr:
        name = node.id
        bound = self.bound(name)
        if bound is not None:
            return bound
        kind = self.lookup(name)
        if kind == VALUE:
            return _value(self.values[name], name)
        if kind == CONSTANT:
            if name in _CONSTANTS:
                return Sym(name)
            raise MathError(f"formulas need finite numbers; got {name}")
        if kind == FUNCTION:
            raise self.not_a_value(node)
        return Sym(name)

    def _chain(self, node: ast.Chain) -> Expr:
        acc = self.build(node.first)
        for op, operand in node.rest:
            rhs = self.build(operand)
            if op == "+":
                acc = add(acc, rhs)
            elif op == "-":
                acc = add(acc, neg(rhs))
            elif op == "*":
                acc = mul(acc, rhs)
            elif op == "/":
                acc = mul(acc, power(rhs, Num(Fraction(-1))))
            else:
                raise located(scalar_error(f"'{op}' (a matrix product)"), operand)
        return acc

    def _power(self, node: ast.Power) -> Expr:
        values = [self.build(n) for n in node.operands]
        acc = values[-1]
        for base in reversed(values[:-1]):
            acc = power(base, acc)
        return acc

    def _unary(self, node: ast.Unary) -> Expr:
        v = self.build(node.operand)
        return neg(v) if node.op == "-" else v

    def _implicit(self, node: ast.Implicit) -> Expr:
        return mul(self._num(node.number), self.build(node.operand))

    def _call(self, node: ast.Call) -> Expr:
        if node.func == "diff":
            return self._diff(node)
        if node.func == "grad":
            raise scalar_error("grad(...) (one value per variable)")
        if node.func == "laplacian":
            return self._laplacian(node)
        if node.func in MATRIX_FORMS:
            raise located(MathError(
                f"{node.func}(...) gives formulas as a whole statement only; inside an "
                "expression give its variables values"), node)
        if node.func == "roots":
            raise scalar_error("roots(...) (numbers, as many as it finds)")
        callee = self.callee(node)
        if node.func in _REDUCTIONS and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Array):
            return self._reduce(node.func, node.args[0], callee)
        if isinstance(callee, Definition):
            return self.call_defined(callee, [self.build(a) for a in node.args], node)
        several = callee.kind == "several" or (node.func in ("max", "min") and len(node.args) > 1)
        if callee.kind != "elementwise" and not several:
            raise scalar_error(f"{node.func}(...)")
        # log(x, b), max(x, 2): the entry writes what formulas can, or refuses
        return as_expr(callee.call(*[self.build(a) for a in node.args]))

    def _items(self, node: ast.Array) -> list[Expr]:
        """The formulas of a list of scalars written in brackets (no nested
        brackets: a matrix is no scalar)."""
        if not node.items or any(isinstance(i, ast.Array) for i in node.items):
            raise scalar_error("an array")
        return [self.build(i) for i in node.items]

    def _reduce(self, func: str, node: ast.Array, callee: Any) -> Expr:
        """sum, mean, max or min of a list of scalars: one scalar, whose formula
        is the items' (sum([x, x^2]) is x + x^2)."""
        items = self._items(node)
        if func in ("max", "min"):
            return items[0] if len(items) == 1 else as_expr(callee.call(*items))
        total = items[0]
        for item in items[1:]:
            total = add(total, item)
        return total if func == "sum" else mul(total, Num(Fraction(1, len(items))))

    def _index(self, node: ast.Index) -> Expr:
        """An item of a list of scalars written in brackets, by a whole number
        (``[x, x^2][1]``); any other indexing reads an array."""
        if not (isinstance(node.target, ast.Array) and len(node.indices) == 1
                and not isinstance(node.indices[0], ast.Slice)):
            raise scalar_error("an index")
        items = self._items(node.target)
        k = self.build(node.indices[0])
        if not isinstance(k, Num) or k.value.denominator != 1:
            raise located(MathError("an index must be a whole number"), node.indices[0])
        if not -len(items) <= k.value < len(items):
            from ..core.shapes import index_error

            raise located(MathError(index_error(int(k.value), (len(items),))),
                          node.indices[0])
        return items[int(k.value)]

    def _by(self, body: Expr, var: Sym, name: str) -> tuple[Expr, str]:
        """``body``, built with ``var`` standing for ``name``, and the name to
        differentiate it by: ``name`` itself where nothing else in it is called
        so (the formula reads as written), else ``var``."""
        if name in free_names(body):
            return body, var.name
        return substitute(body, var.name, Sym(name)), name

    def _order(self, node: Any) -> int:
        v = self.build(node)
        if not isinstance(v, Num) or v.value.denominator != 1:
            raise located(MathError("diff: the order must be a whole number, 0 or more"), node)
        return self.order_in_range(int(v.value), node)

    def _diff(self, node: ast.Call) -> Expr:
        args = self.diff_args(node)
        var = args.var
        order = self._order(args.order) if args.order is not None else 1
        # diff binds its variable for the body; without a point, the derivative
        # is taken where the name has its value around the diff (a parameter's
        # argument: g(t) = diff(t^3, t) makes g(x) 3*x^2, not 3*t^2)
        around = self._name(var) if args.point is None else None
        v = self._variable(var.id)
        with self.scope({var.id: v}):
            body = self.build(args.body)
        body, by = self._by(body, v, var.id)
        out = derivatives(body, by, order, self.limit)[-1] if order else body
        point = self.build(args.point) if around is None else around
        return out if point == Sym(by) else substitute(out, by, point)

    def _laplacian(self, node: ast.Call) -> Expr:
        """The sum of the second derivatives by each variable (lang.matrices'
        rule for which), each bound as ``diff`` binds its own: taken where the
        name has its value around the call."""
        args = matrix_args(node, self.functions)
        names = variable_names(args, self.functions, CONSTANTS)
        if not names:
            raise located(MathError("laplacian: the expression has no variable to "
                                    "differentiate by"), node)
        written = {n.id: n for n in args.names or ()}
        around = {n: self._name(written.get(n) or ast.Name(n, node.line, node.column))
                  for n in names}
        fresh = {n: self._variable(n) for n in names}
        with self.scope(dict(fresh)):
            body = self.build(args.body)
        total: Expr | None = None
        for n in names:
            term = derivatives(body, fresh[n].name, 2, self.limit)[-1]
            total = term if total is None else add(total, term)
        assert total is not None
        for n in names:
            total = substitute(total, fresh[n].name, around[n])
        return total

    def _prime(self, node: ast.Prime) -> Expr:
        definition, entry = self.prime_target(node)
        if definition is None:  # a built-in: sin'(a)
            by = "x"
            body = as_expr(entry.call(Sym(by)))
        else:  # the body may read a variable named as the parameter besides
            v = self._variable(definition.params[0])
            body, by = self._by(self.call_defined(definition, [v], node), v,
                                definition.params[0])
        out = derivatives(body, by, node.order, self.limit)[-1]
        return substitute(out, by, self.build(node.args[0]))


def _value(v: Any, name: str) -> Expr:
    if isinstance(v, Expr):
        return v
    data = v.data if isinstance(v, Variable) else v
    if getattr(data, "ndim", 0) != 0:
        raise scalar_error(f"'{name}' (an array)")
    f = float(data)
    return from_float(f)


def from_ast(node: Any, functions: Mapping[str, Any] | None = None,
             values: Mapping[str, Any] | None = None, limit: int = SIZE_LIMIT) -> Expr:
    """The formula of the expression ``node`` (a ``gradcli.lang.ast`` node).

    ``functions``: the user's definitions by name (``lang.evaluate.Definition``:
    ``params`` and ``body``); ``values``: names with a value (numbers, 0-d
    arrays or formulas); every other name is a variable. Raises a GradcliError
    (with the node's position where it has one) for what is not a scalar
    formula, and FormulaTooLarge past ``limit`` characters.
    """
    return _Builder(functions or {}, values or {}, limit).build(node)


__all__ = ["from_ast", "scalar_error"]
