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
from .expr import Expr, Num, Sym, add, as_expr, from_float, mul, neg, power
from .rewrite import substitute

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
        self.scopes: list[dict[str, Expr]] = [{}]
        self.depth = 0

    def build(self, node: Any) -> Expr:
        method = getattr(self, "_" + type(node).__name__.lower(), None)
        if method is None:
            raise _at(scalar_error(f"{type(node).__name__.lower()}"), node)
        try:
            return method(node)
        except GradcliError as err:
            raise _at(err, node) from None

    def _num(self, node: ast.Num) -> Expr:
        text = node.text
        exact = Fraction(text)
        return Num(exact, any(c in text for c in ".eE"))

    def _name(self, node: ast.Name) -> Expr:
        name = node.id
        scope = self.scopes[-1]
        if name in scope:
            return scope[name]
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
        self.scopes.append(dict(zip(definition.params, args)))
        try:
            return self.build(definition.body)
        finally:
            self.scopes.pop()
            self.depth -= 1

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
        order = self._order(args[2]) if len(args) > 2 else 1
        # diff binds its variable: inside, the name is the variable itself
        self.scopes.append({**self.scopes[-1], var.id: Sym(var.id)})
        try:
            body = self.build(args[0])
        finally:
            self.scopes.pop()
        out = derivatives(body, var.id, order, self.limit)[-1] if order else body
        if len(args) == 4:
            out = substitute(out, var.id, self.build(args[3]))
        return out

    def _prime(self, node: ast.Prime) -> Expr:
        definition = self.functions.get(node.func)
        entry = REGISTRY.get(node.func)
        if definition is None and (entry is None or entry.kind != "elementwise"):
            raise UnknownNameError(f"unknown function '{node.func}'")
        if len(node.args) != 1 or (definition is not None and len(definition.params) != 1):
            raise MathError(f"{node.func}{chr(39) * node.order} needs a function of one "
                            "variable; write diff(expr, x, n)")
        if definition is None:  # a built-in: sin'(a)
            param = "x"
            body = as_expr(entry.call(Sym(param)))
        else:
            param = definition.params[0]
            body = self._defined(definition, [Sym(param)])
        out = derivatives(body, param, node.order, self.limit)[-1]
        return substitute(out, param, self.build(node.args[0]))


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
