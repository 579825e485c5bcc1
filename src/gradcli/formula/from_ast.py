"""A gradcli syntax tree as a formula.

Numbers stay exact (``2.5`` is 5/2, printed as typed), ``pi`` and ``e`` stay
symbols, names without a value become variables, user functions are expanded
with their arguments, and ``diff(expr, x, n)`` or ``f'(a)`` inside an
expression become the derivative's formula. Built-ins are called through the
registry's own wrappers, which return formulas when given formulas. Arrays,
indexing and the non-elementwise built-ins are refused: formulas cover scalar
expressions.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..core.functions import REGISTRY
from ..core.graph import Variable
from ..core.registry import closest
from ..errors import GradcliError, LimitError, MathError, UnknownNameError
from ..lang import ast
from ..lang.calculus import MAX_ORDER
from .diff import SIZE_LIMIT, derivatives
from .expr import Expr, Num, Sym, add, as_expr, from_float, mul, neg, power, typed
from .rewrite import free_names, substitute

# User functions calling themselves would expand forever.
MAX_CALL_DEPTH = 64
_CONSTANTS = ("pi", "e")


def scalar_error(what: str) -> MathError:
    return MathError(f"formulas cover scalar expressions; {what} is not one")


def _at(err: GradcliError, node: Any) -> GradcliError:
    line = getattr(node, "line", 0)
    return err.at(line, getattr(node, "column", 0)) if line else err


class _Builder:
    def __init__(self, functions: Mapping[str, Any], values: Mapping[str, Any],
                 limit: int) -> None:
        self.functions = functions
        self.values = values
        self.limit = limit
        # the names bound around the node, innermost last, as the evaluator's
        # layers: a function's parameters (True) or diff's variable (False)
        self.layers: list[tuple[dict[str, Expr], bool]] = []
        self.depth = 0
        self.fresh = 0

    def build(self, node: Any) -> Expr:
        method = getattr(self, "_" + type(node).__name__.lower(), None)
        if method is None:
            raise _at(scalar_error(f"{type(node).__name__.lower()}"), node)
        try:
            return method(node)
        except GradcliError as err:
            raise _at(err, node) from None

    def _num(self, node: ast.Num) -> Expr:
        return typed(node.text)

    def _bound(self, name: str) -> Expr | None:
        """What ``name`` is bound to here, as the evaluator's ``leaf`` sees it:
        the parameters of the function whose body this is, and every diff
        variable around (a caller's parameters are not visible)."""
        seen_function = False
        for names, is_function in reversed(self.layers):
            if is_function:
                if seen_function:
                    continue
                seen_function = True
            if name in names:
                return names[name]
        return None

    def _variable(self, name: str) -> Sym:
        # a name no user can write (a quote is no part of a name), sorted where
        # ``name`` sorts: it stands for the variable differentiated by while
        # the body is built, so that a different ``name`` there, read from a
        # caller's argument, stays apart (k(t, s) = diff(t*s, t); k(x, t) is t)
        self.fresh += 1
        return Sym(f"{name}'{self.fresh}")

    def _name(self, node: ast.Name) -> Expr:
        name = node.id
        bound = self._bound(name)
        if bound is not None:
            return bound
        if name in self.values:
            return _value(self.values[name], name)
        if name in _CONSTANTS:
            return Sym(name)
        if name in ("inf", "nan"):
            raise MathError(f"formulas need finite numbers; got {name}")
        if name in self.functions or name in REGISTRY:
            raise MathError(f"'{name}' is a function; call it with arguments, e.g. {name}(x)")
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
                raise _at(scalar_error(f"'{op}' (a matrix product)"), operand)
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
        name = node.func
        if name == "diff":
            return self._diff(node)
        if name == "grad":
            raise scalar_error("grad(...) (one value per variable)")
        definition = self.functions.get(name)
        if definition is not None:
            return self._defined(definition, [self.build(a) for a in node.args])
        entry = REGISTRY.get(name)
        if entry is None:
            hint = closest(name, [*REGISTRY, *self.functions])
            raise UnknownNameError(
                f"unknown function '{name}'" + (f"; did you mean {hint}?" if hint else ""))
        if entry.kind != "elementwise":
            raise scalar_error(f"{name}(...)")
        entry.check_arity(len(node.args))
        return as_expr(entry.call(self.build(node.args[0])))

    def _defined(self, definition: Any, args: list[Expr]) -> Expr:
        n = len(definition.params)
        if len(args) != n:
            raise MathError(f"{definition.name} takes {n} argument{'s' if n != 1 else ''}: "
                            f"{definition.signature}; got {len(args)}")
        if self.depth >= MAX_CALL_DEPTH:
            raise LimitError(f"calls nested deeper than {MAX_CALL_DEPTH} levels "
                             f"(is {definition.name} defined in terms of itself?)")
        self.depth += 1
        self.layers.append((dict(zip(definition.params, args)), True))
        try:
            return self.build(definition.body)
        finally:
            self.layers.pop()
            self.depth -= 1

    def _by(self, body: Expr, var: Sym, name: str) -> tuple[Expr, str]:
        """``body``, built with ``var`` standing for ``name``, and the name to
        differentiate it by: ``name`` itself where nothing else in it is called
        so (the formula reads as written), else ``var``."""
        if name in free_names(body):
            return body, var.name
        return substitute(body, var.name, Sym(name)), name

    def _order(self, node: Any) -> int:
        v = self.build(node)
        if not isinstance(v, Num) or v.value.denominator != 1 or v.value < 0:
            raise MathError("diff: the order must be a whole number, 0 or more")
        if v.value > MAX_ORDER:  # the language's limit, as for numbers
            raise LimitError(f"diff: the order {v.value} is above the limit of {MAX_ORDER}")
        return int(v.value)

    def _diff(self, node: ast.Call) -> Expr:
        args = node.args
        if not 2 <= len(args) <= 4:
            raise MathError("diff takes 2 to 4 arguments: diff(expr, x[, n[, a]]); "
                            f"got {len(args)}")
        var = args[1]
        if not isinstance(var, ast.Name):
            raise MathError("diff: the second argument must be a variable name, as in diff(x^2, x)")
        if var.id in self.functions or var.id in REGISTRY:
            raise MathError(f"diff: cannot differentiate by the function '{var.id}'")
        order = self._order(args[2]) if len(args) > 2 else 1
        # diff binds its variable for the body; without a point, the derivative
        # is taken where the name has its value around the diff (a parameter's
        # argument: g(t) = diff(t^3, t) makes g(x) 3*x^2, not 3*t^2)
        around = self._name(var) if len(args) < 4 else None
        v = self._variable(var.id)
        self.layers.append(({var.id: v}, False))
        try:
            body = self.build(args[0])
        finally:
            self.layers.pop()
        body, by = self._by(body, v, var.id)
        out = derivatives(body, by, order, self.limit)[-1] if order else body
        point = self.build(args[3]) if around is None else around
        return out if point == Sym(by) else substitute(out, by, point)

    def _prime(self, node: ast.Prime) -> Expr:
        definition = self.functions.get(node.func)
        entry = REGISTRY.get(node.func)
        if definition is None and (entry is None or entry.kind != "elementwise"):
            raise UnknownNameError(f"unknown function '{node.func}'")
        if len(node.args) != 1 or (definition is not None and len(definition.params) != 1):
            raise MathError(f"{node.func}{chr(39) * node.order} needs a function of one "
                            "variable; write diff(expr, x, n)")
        if definition is None:  # a built-in: sin'(a)
            by = "x"
            body = as_expr(entry.call(Sym(by)))
        else:  # the body may read a variable named as the parameter besides
            v = self._variable(definition.params[0])
            body, by = self._by(self._defined(definition, [v]), v, definition.params[0])
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


__all__ = ["MAX_CALL_DEPTH", "from_ast", "scalar_error"]
