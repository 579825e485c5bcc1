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
from ..core.method import Derivatives
from ..core.ops import MAX_ELEMENTS, check_size, get_item, matmul
from ..core.stack import stack
from ..errors import GradcliError, LimitError, MathError, UnknownNameError
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
from .calculus import Calculus, to_int
from .matrices import MATRIX_FORMS
from .names import literal_meant, nonzero_digits
from .namespace import CONSTANT_ALIASES, CONSTANTS
from .resolve import (
    CONSTANT,
    FUNCTION,
    MAX_CALL_DEPTH,
    MAX_ORDER,
    SPECIAL_FORMS,
    VALUE,
    Definition,
    Resolver,
    located,
    position,
)

MAX_STEPS = 250_000
"""Syntax-tree nodes one statement may evaluate (about 2 s): a budget for the
forward pass, as repeated backprop has one for its graphs."""


class Context(Protocol):
    """What the evaluator needs from a session."""

    values: Mapping[str, Any]
    functions: Mapping[str, Definition]
    no_ans: str | None  # why ans has no value, when a result left none
    engine: Derivatives  # takes the derivatives at the top level

    def constant(self, value: float, text: str | None = None) -> Any: ...

    def warn(self, message: str) -> None: ...


AXIS_MEANING_CHANGED = {"max": "larg", "min": "small"}
"""Built-ins whose second positional argument was an axis (now: keyword axis=)."""


def check_keywords(name: str, entry: Any, node: Call) -> None:
    """A keyword argument is a built-in's, and one it takes (max(A, axis=0))."""
    takes = entry.keywords if entry is not None else ()
    for key, value in node.keywords:
        if key not in takes:
            what = (f"{name} takes {', '.join(k + '=' for k in takes)} only" if takes
                    else f"{name} takes no keyword arguments")
            raise MathError(f"{what}; got {key}=").at(value.line or None, value.column or None)


def _fold(op: Callable[..., Variable], *args: Variable) -> Variable:
    """Apply ``op``; when every argument is a Constant, the result is one too."""
    if all(type(a) is Constant for a in args):
        with no_grad():
            return Constant(op(*args).data)
    return op(*args)


class Evaluator(Resolver[Variable]):
    """Evaluates one statement's expressions against a Context: each node a Variable."""

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
        values: Mapping[str, Any] = (
            ChainMap(dict(overlay), ctx.values) if overlay else ctx.values)  # type: ignore[arg-type]
        super().__init__(values, ctx.functions, ctx.no_ans)
        self.ctx = ctx
        self.steps = 0  # nodes evaluated, against MAX_STEPS
        self.constants = constants
        self.calculus = Calculus(self, ctx.engine, keep_graph)
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

    def leaf(self, name: str) -> Variable | None:
        """The Variable ``name`` means here, or None if it has no value."""
        bound = self.bound(name)
        if bound is not None:
            return bound
        kind = self.lookup(name)
        if kind == VALUE:
            v = (Constant if name in self.constants else Variable)(self.values[name], name=name)
            self.layers[0][0][name] = v
            return v
        if kind == CONSTANT:
            return Constant(self.ctx.constant(CONSTANTS[name]).data, name=name)
        return None

    def statement_leaves(self) -> list[Variable]:
        """The leaves made for this statement from the session's values."""
        return list(self.layers[0][0].values())

    def gradient(self, node: Call, variables: list[str]) -> tuple[Variable, dict[str, Variable]]:
        return self.calculus.gradient(node, variables)

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
            raise err.at(*position(node))
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
            if self.lookup(node.id) == FUNCTION:
                raise self.not_a_value(node)
            raise self.unknown(node.id, node)
        return v

    def _chain(self, node: Chain) -> Variable:
        acc = self.eval(node.first)
        for op, operand in node.rest:
            rhs = self.eval(operand)
            try:
                acc = _fold(_BINARY[op], acc, rhs)
            except GradcliError as err:
                raise located(err, operand) from None
        return acc

    def _power(self, node: Power) -> Variable:
        values = [self.eval(n) for n in node.operands]
        acc = values[-1]
        for base, base_node in zip(reversed(values[:-1]), reversed(node.operands[:-1])):
            try:
                acc = self._pow(base, acc)
            except GradcliError as err:
                raise located(err, base_node) from None
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
            raise located(err, node) from None

    def _index(self, node: Index) -> Variable:
        target = self.eval(node.target)
        index: list[Any] = []
        for item in node.indices:
            if isinstance(item, Slice):
                parts = [
                    None if p is None else to_int(self.eval(p), "a slice bound")
                    for p in (item.start, item.stop, item.step)
                ]
                if parts[2] == 0:
                    raise MathError("slice step must not be zero").at(*position(item))
                index.append(slice(*parts))
            else:
                try:
                    index.append(to_int(self.eval(item), "an index"))
                except GradcliError as err:
                    raise located(err, item) from None
        key = index[0] if len(index) == 1 else tuple(index)
        bracket = node.bracket if node.bracket[0] else position(node)
        if target.ndim < len(index):
            count = f"{len(index)} ind{'ex' if len(index) == 1 else 'ices'}"
            raise MathError(
                f"{count} for a number, which has no elements to index" if target.ndim == 0
                else f"{count} for an array of {target.shape[0]} elements, which takes one"
                if target.ndim == 1
                else f"{count} for an array of shape {target.shape}, which takes "
                f"{target.ndim} at most").at(*bracket)
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
            raise located(err, node) from None

    # --- calls -----------------------------------------------------------------

    def _call(self, node: Call) -> Variable:
        if node.func == "diff":
            return self.calculus.diff(node)
        if node.func == "roots":
            from .roots import roots_form

            return roots_form(self, node)
        if node.func == "grad":
            raise MathError(
                "grad(...) gives one value per variable; use it as a whole statement"
            ).at(*position(node))
        if node.func in MATRIX_FORMS:
            return self.calculus.matrix(node)
        callee = self.callee(node)
        if node.keywords:
            check_keywords(node.func, None if isinstance(callee, Definition) else callee, node)
        args = [self.eval(a) for a in node.args]
        if isinstance(callee, Definition):
            y = self.call_defined(callee, args, node)
            return self.calculus.call_limit(callee, args, node, y)  # f(0): its limit at 0/0
        call = callee.call
        if node.keywords:
            keys, n = [k for k, _ in node.keywords], len(args)
            args += [self.eval(v) for _, v in node.keywords]  # _fold sees them too

            def call(*a: Variable) -> Variable:
                return callee.call(*a[:n], **dict(zip(keys, a[n:])))
        elif node.func in AXIS_MEANING_CHANGED and len(args) == 2:
            self.warn_axis(node.func, node, args[0])
        try:
            return _fold(call, *args)
        except GradcliError as err:
            raise located(err, node) from None

    def _prime(self, node: Prime) -> Variable:
        return self.calculus.prime(node)

    def warn_axis(self, name: str, node: Call, first: Variable) -> None:
        """max(A, 0) was A's largest along axis 0 until max took several
        arguments; for one release an integer literal there says so."""
        second = node.args[1]
        if first.ndim and type(second) is Num and second.text.isdigit():
            n, most = second.text, AXIS_MEANING_CHANGED[name]
            self.ctx.warn(f"{name}(array, {n}) is now the {most}er of each element and {n}; "
                          f"for the {most}est along axis {n}, write {name}(array, axis={n})")


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
    "CONSTANT_ALIASES",
    "Context",
    "Definition",
    "Evaluator",
    "MAX_CALL_DEPTH",
    "MAX_ORDER",
    "SPECIAL_FORMS",
    "free_names",
    "nested_derivative",
]
