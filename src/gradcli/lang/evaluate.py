"""Syntax trees to core graphs: the one evaluator behind the CLI and the REPL.

Names resolve innermost first: a function's parameters, then the variables a
``diff`` binds, then the leaves made for this statement from the session's
values, then the constants (pi, e, inf, nan). A session value becomes one
leaf ``Variable`` per statement, named after it, so ``x*x`` uses the same leaf
twice and graphs show the user's names. Sub-expressions made only of
constants are folded into one ``Constant``, which keeps graphs small and lets
``x**-1`` use the exact integer-power rule.
"""

from __future__ import annotations

import math
from collections import ChainMap
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np

from ..core import functions as _functions  # noqa: F401 - fills the registry
from ..core.derivatives import BACKPROP_MAX_NODES, nested_derivative
from ..core.graph import Constant, Variable, no_grad
from ..core.ops import MAX_ELEMENTS, check_size, get_item, matmul
from ..core.registry import REGISTRY, closest
from ..core.stack import stack
from ..errors import (
    ArityError,
    GradcliError,
    LimitError,
    MathError,
    UnknownNameError,
)
from ..record import Record
from . import ast
from .ast import (
    Array,
    Call,
    Chain,
    Implicit,
    Index,
    Name,
    Num,
    Power,
    Prime,
    Slice,
    Unary,
    free_names,
)
from .calculus import MAX_ORDER, SPECIAL_FORMS, Calculus, _located, _position, _to_int
from .matrices import MATRIX_FORMS, matrix_args, matrix_value, variable_names
from .names import literal_meant, nonzero_digits, power_meant
from .namespace import CONSTANT_ALIASES, CONSTANTS, Namespace

MAX_CALL_DEPTH = 64
MAX_STEPS = 250_000
"""Syntax-tree nodes one statement may evaluate (about 2 s): a budget for the
forward pass, as repeated backprop has one for its graphs."""


class Definition(Record):
    """A user function ``f(x, y) = body``."""

    name: str
    params: tuple[str, ...]
    body: ast.Node
    source: str

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


class Context(Protocol):
    """What the evaluator needs from a session."""

    values: Mapping[str, Any]
    functions: Mapping[str, Definition]
    no_ans: str | None  # why ans has no value, when a result left none

    def constant(self, value: float, text: str | None = None) -> Any: ...

    def derivatives(self, y: Variable, x: Variable, order: int) -> list[Any]: ...

    def warn(self, message: str) -> None: ...


def _fold(op: Callable[..., Variable], *args: Variable) -> Variable:
    """Apply ``op``; when every argument is a Constant, the result is one too."""
    if all(type(a) is Constant for a in args):
        with no_grad():
            return Constant(op(*args).data)
    return op(*args)


class Evaluator(Calculus):
    """Evaluates one statement's expressions against a Context."""

    def __init__(self, ctx: Context, keep_graph: bool = False,
                 constants: frozenset[str] = frozenset(),
                 overlay: Mapping[str, Any] | None = None) -> None:
        """``keep_graph``: the caller will differentiate the result again, so
        a ``diff`` or ``f'`` inside it must stay a graph, not become numbers.
        ``constants``: bound names to read as constants, not as variables (those
        the result will not be differentiated by). ``overlay``: values that
        stand in for the session's for this evaluation only (a point of
        --check's differences, a block of a large array); the session's own
        values are never written."""
        self.ctx = ctx
        self.values: Mapping[str, Any] = (
            ChainMap(dict(overlay), ctx.values) if overlay else ctx.values)  # type: ignore[arg-type]
        self.steps = 0  # nodes evaluated, against MAX_STEPS
        self.calling: list[str] = []  # the defined functions being called, outermost first
        self.constants = constants
        self.nodes_spent = 0  # by the nested derivatives of this statement
        self.keep_graph = keep_graph
        # Each layer: (names -> Variables, is_function_layer).
        self.layers: list[tuple[dict[str, Variable], bool]] = [({}, False)]
        self.diff_depth = 0
        self.call_depth = 0
        self._dispatch: dict[type, Callable[[Any], Variable]] = {
            Num: self._num,
            Name: self._name,
            Chain: self._chain,
            Power: self._power,
            Unary: self._unary,
            Implicit: self._implicit,
            Call: self._call,
            Prime: self._prime,
            Index: self._index,
            Array: self._array,
        }

    # --- names -----------------------------------------------------------------

    def binding(self, name: str) -> tuple[dict[str, Variable], bool] | None:
        """(the layer binding ``name`` here, whether it is a call's parameters), or None."""
        seen_function = False
        for names, is_function in reversed(self.layers):
            if is_function:
                if seen_function:
                    continue  # a caller's parameters are not visible to the callee
                seen_function = True
            if name in names:
                return names, is_function
        return None

    def leaf(self, name: str) -> Variable | None:
        """The Variable ``name`` means here, or None if it has no value."""
        bound = self.binding(name)
        if bound is not None:
            return bound[0][name]
        value = self.values.get(name)
        if value is not None:
            v = (Constant if name in self.constants else Variable)(value, name=name)
            self.layers[0][0][name] = v
            return v
        if name in CONSTANTS:
            return Constant(self.ctx.constant(CONSTANTS[name]).data, name=name)
        return None

    def known_names(self) -> list[str]:
        names = Namespace(self.values, self.ctx.functions)
        return names.known(name for layer, _ in self.layers for name in layer)

    def unknown(self, name: str, node: Any, what: str = "name") -> UnknownNameError:
        if name == "ans":
            why = self.ctx.no_ans
            message = f"'ans' has no value: {why}" if why else \
                "'ans' has no value yet: it is the last result"
            return UnknownNameError(message).at(
                *_position(node)
            )  # type: ignore[return-value]
        hint = power_meant(name, CONSTANT_ALIASES) or closest(
            name, self.known_names(), CONSTANT_ALIASES)
        if not hint and what == "name":
            err = UnknownNameError.hinted(f"unknown {what} '{name}'; it has no value: {{value}}",
                                          name)
        else:
            suffix = f"; did you mean {hint}?" if hint else ""
            err = UnknownNameError(f"unknown {what} '{name}'{suffix}")
        return err.at(*_position(node))  # type: ignore[return-value]

    # --- expressions -----------------------------------------------------------

    def eval(self, node: Any) -> Variable:
        try:
            method = self._dispatch[type(node)]
        except KeyError:
            raise MathError(f"cannot evaluate {type(node).__name__} here") from None
        self.steps += 1
        if self.steps > MAX_STEPS:
            # f(t) = g(g(t)), g(t) = h(h(t)) ...: calls of calls double the work per level
            err = LimitError(
                f"evaluating this statement takes more than {MAX_STEPS:,} steps (calls "
                "nested in calls multiply the work); simplify it")
            err.whole_statement = True  # not one function's failing: no "in f(t): "
            raise err.at(*_position(node))
        return method(node)

    def _num(self, node: Num) -> Variable:
        value = float(node.text)
        shown = node.text if len(node.text) <= 24 else (
            f"{node.text[:12]}... ({len(node.text)} characters)"
        )
        if math.isinf(value) or (value == 0.0 and nonzero_digits(node.text)):
            size, becomes = ("large", "inf") if value else ("small", "0")
            self.ctx.warn(f"the number {shown} is too {size} for floating point; it is {becomes}")
        return self.ctx.constant(value, shown)

    def _name(self, node: Name) -> Variable:
        v = self.leaf(node.id)
        if v is None:
            if Namespace(self.values, self.ctx.functions).is_function(node.id):
                raise MathError(
                    f"'{node.id}' is a function; call it with arguments, e.g. {node.id}(x)"
                ).at(*_position(node))
            raise self.unknown(node.id, node)
        return v

    def _chain(self, node: Chain) -> Variable:
        acc = self.eval(node.first)
        for op, operand in node.rest:
            rhs = self.eval(operand)
            try:
                acc = _fold(_BINARY[op], acc, rhs)
            except GradcliError as err:
                raise _located(err, operand) from None
        return acc

    def _power(self, node: Power) -> Variable:
        values = [self.eval(n) for n in node.operands]
        acc = values[-1]
        for base, base_node in zip(reversed(values[:-1]), reversed(node.operands[:-1])):
            try:
                acc = self._pow(base, acc)
            except GradcliError as err:
                raise _located(err, base_node) from None
        return acc

    @staticmethod
    def _pow(base: Variable, exponent: Variable) -> Variable:
        if type(exponent) is Constant and exponent.data.size == 1:
            # A number exponent takes the exact integer-power rule where it applies.
            c = exponent.data.reshape(()).item()
            return _fold(lambda b: b**c, base)
        return _fold(lambda b, e: b**e, base, exponent)

    def _unary(self, node: Unary) -> Variable:
        v = self.eval(node.operand)
        return _fold(lambda a: -a, v) if node.op == "-" else v

    def _implicit(self, node: Implicit) -> Variable:
        number = self._num(node.number)
        try:
            operand = self.eval(node.operand)
        except UnknownNameError as err:
            name = getattr(node.operand, "id", "")
            meant = literal_meant(node.number.text, name)
            if meant is None:
                raise
            raise UnknownNameError(f"unknown name '{name}'; {meant}").at(
                err.line, err.column) from None
        try:
            return _fold(lambda a, b: a * b, number, operand)
        except GradcliError as err:
            raise _located(err, node) from None

    def _index(self, node: Index) -> Variable:
        target = self.eval(node.target)
        index: list[Any] = []
        for item in node.indices:
            if isinstance(item, Slice):
                parts = [
                    None if p is None else _to_int(self.eval(p), "a slice bound")
                    for p in (item.start, item.stop, item.step)
                ]
                if parts[2] == 0:
                    raise MathError("slice step must not be zero").at(*_position(item))
                index.append(slice(*parts))
            else:
                try:
                    index.append(_to_int(self.eval(item), "an index"))
                except GradcliError as err:
                    raise _located(err, item) from None
        key = index[0] if len(index) == 1 else tuple(index)
        bracket = node.bracket if node.bracket[0] else _position(node)
        if target.ndim < len(index):
            raise MathError(
                f"too many indices ({len(index)}) for an array of shape {target.shape}"
            ).at(*bracket)
        try:
            return _fold(lambda t: get_item(t, key), target)
        except GradcliError as err:
            raise err.at(*bracket) from None

    def _array(self, node: Array) -> Variable:
        items = [self.eval(item) for item in node.items]
        if not items:
            return Constant(self.ctx.constant(0.0).data.reshape(1)[:0])
        try:
            # before the copy is made: b = [a, a] doubles a each time
            if len(items) * items[0].size > MAX_ELEMENTS:
                check_size((len(items), *items[0].shape), "an array")
            return _fold(lambda *xs: stack(list(xs)), *items)
        except GradcliError as err:
            raise _located(err, node) from None

    # --- calls -----------------------------------------------------------------

    def _call(self, node: Call) -> Variable:
        name = node.func
        if name == "diff":
            return self._diff(node)
        if name == "grad":
            raise MathError(
                "grad(...) gives one value per variable; use it as a whole statement"
            ).at(*_position(node))
        if name in MATRIX_FORMS:
            args = matrix_args(node, set(REGISTRY) | set(SPECIAL_FORMS) | set(self.ctx.functions))
            names = variable_names(args, self.ctx.functions, CONSTANTS)
            return matrix_value(self, args, names, node)
        definition = self.ctx.functions.get(name)
        if definition is not None:
            args = [self.eval(a) for a in node.args]
            return self.call_defined(definition, args, node)
        entry = REGISTRY.get(name)
        if entry is None:
            if self.leaf(name) is not None:
                raise MathError(f"'{name}' is a variable, not a function").at(*_position(node))
            raise self.unknown(name, node, "function")
        try:
            entry.check_arity(len(node.args))
        except ArityError as err:
            raise _located(err, node) from None
        args = [self.eval(a) for a in node.args]
        try:
            return _fold(entry.call, *args)
        except GradcliError as err:
            raise _located(err, node) from None

    def call_defined(self, definition: Definition, args: list[Variable], node: Any) -> Variable:
        if len(args) != len(definition.params):
            n = len(definition.params)
            raise ArityError(
                f"{definition.name} takes {n} argument{'s' if n != 1 else ''}: "
                f"{definition.signature}; got {len(args)}"
            ).at(*_position(node))
        if self.call_depth >= MAX_CALL_DEPTH:
            # a chain of 65 distinct functions is deep, not recursive
            why = (f" (is {definition.name} defined in terms of itself?)"
                   if definition.name in self.calling else "")
            raise LimitError(
                f"calls nested deeper than {MAX_CALL_DEPTH} levels{why}"
            ).at(*_position(node))
        self.layers.append((dict(zip(definition.params, args)), True))
        self.calling.append(definition.name)
        self.call_depth += 1
        try:
            return self.eval(definition.body)
        except GradcliError as err:
            # Positions inside the body belong to the definition's own line:
            # point at this call instead, and say which function failed.
            if not err.message.startswith("in ") and not getattr(err, "whole_statement", False):
                err.prepend(f"in {definition.signature}: ")
            err.line, err.column = _position(node)
            raise
        finally:
            self.calling.pop()
            self.call_depth -= 1
            self.layers.pop()

_BINARY: dict[str, Callable[[Variable, Variable], Variable]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "@": lambda a, b: matmul(a, b) if _matmul_fits(a, b) else a,
}


def _matmul_fits(a: Variable, b: Variable) -> bool:
    """True, or a LimitError for a product too large to make (an outer product
    of 10^6 by 100 elements) before it is made."""
    if a.ndim >= 2 and b.ndim >= 2:
        try:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            return True  # matmul says what does not fit
        check_size((*batch, a.shape[-2], b.shape[-1]), "'@'")
    return True


__all__ = [
    "BACKPROP_MAX_NODES",
    "CONSTANTS",
    "Context",
    "Definition",
    "Evaluator",
    "MAX_CALL_DEPTH",
    "MAX_ORDER",
    "SPECIAL_FORMS",
    "free_names",
    "nested_derivative",
]
