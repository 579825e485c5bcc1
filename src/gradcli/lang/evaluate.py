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
import re
from collections.abc import Callable
from typing import Any, Protocol

from ..core import functions as _functions  # noqa: F401 - fills the registry
from ..core.backend import get_array_module
from ..core.derivatives import graph_size, spend_nodes, summed_warning
from ..core.graph import Constant, Variable, no_grad, using_config
from ..core.ops import add, get_item, matmul
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
)
from .names import power_meant

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}


def _nonzero_digits(text: str) -> bool:
    """Whether a number's digits (before any exponent) are not all 0: 1e-400 is
    not 0, though float() gives 0."""
    return any(c in "123456789" for c in text.lower().partition("e")[0])


_RADIX = {"x": (16, "hexadecimal"), "o": (8, "octal"), "b": (2, "binary")}


def literal_meant(number: str, name: str) -> str | None:
    """What a Python user meant by a number against an unknown name that reads
    as the rest of a literal: ``1_000`` (grouped digits) or ``0x10``."""
    if re.fullmatch(r"_[\d_]*\d", name) and number.isdigit():
        return f"digits are not grouped with '_' here: write {number}{name.replace('_', '')}"
    radix = _RADIX.get(name[:1].lower())
    if number == "0" and radix is not None:
        base, what = radix
        try:
            return f"{what} literals are not supported: write {int(name[1:], base)}"
        except ValueError:
            return None
    return None


CONSTANT_ALIASES = {"π": "pi", "PI": "pi", "Pi": "pi", "Inf": "inf", "NaN": "nan"}
"""Other tools' spellings of the constants, for "did you mean" hints (not names
of their own: ``PI = 3`` stays the user's)."""
SPECIAL_FORMS: dict[str, tuple[str, str]] = {
    "diff": ("diff(expr, x[, n[, a]])", "n-th derivative of expr by x (at x = a)"),
    "grad": ("grad(expr[, x, y...])", "all partial derivatives, as name: value"),
}
MAX_ORDER = 1000
MAX_CALL_DEPTH = 64


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

    values: dict[str, Any]
    functions: dict[str, Definition]
    hints: dict[str, str]  # how to tell the user to give a name a value

    def constant(self, value: float, text: str | None = None) -> Any: ...

    def derivatives(self, y: Variable, x: Variable, order: int) -> list[Any]: ...

    def warn(self, message: str) -> None: ...


def _position(node: Any) -> tuple[int | None, int | None]:
    line = getattr(node, "line", 0)
    return (line, node.column) if line else (None, None)


def _located(err: GradcliError, node: Any) -> GradcliError:
    return err.at(*_position(node))


def _fold(op: Callable[..., Variable], *args: Variable) -> Variable:
    """Apply ``op``; when every argument is a Constant, the result is one too."""
    if all(type(a) is Constant for a in args):
        with no_grad():
            return Constant(op(*args).data)
    return op(*args)


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


class Evaluator:
    """Evaluates one statement's expressions against a Context."""

    def __init__(self, ctx: Context, keep_graph: bool = False,
                 constants: frozenset[str] = frozenset()) -> None:
        """``keep_graph``: the caller will differentiate the result again, so
        a ``diff`` or ``f'`` inside it must stay a graph, not become numbers.
        ``constants``: bound names to read as constants, not as variables (those
        the result will not be differentiated by)."""
        self.ctx = ctx
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

    def leaf(self, name: str) -> Variable | None:
        """The Variable ``name`` means here, or None if it has no value."""
        seen_function = False
        for names, is_function in reversed(self.layers):
            if is_function:
                if seen_function:
                    continue  # a caller's parameters are not visible to the callee
                seen_function = True
            if name in names:
                return names[name]
        value = self.ctx.values.get(name)
        if value is not None:
            v = (Constant if name in self.constants else Variable)(value, name=name)
            self.layers[0][0][name] = v
            return v
        if name in CONSTANTS:
            return Constant(self.ctx.constant(CONSTANTS[name]).data, name=name)
        return None

    def known_names(self) -> list[str]:
        names = set(self.ctx.values) | set(CONSTANTS) | set(self.ctx.functions)
        names |= set(REGISTRY) | set(SPECIAL_FORMS)
        for layer, _ in self.layers:
            names |= set(layer)
        return sorted(names)

    def unknown(self, name: str, node: Any, what: str = "name") -> UnknownNameError:
        if name == "ans":
            why = getattr(self.ctx, "no_ans", None)
            message = f"'ans' has no value: {why}" if why else \
                "'ans' has no value yet: it is the last result"
            return UnknownNameError(message).at(
                *_position(node)
            )  # type: ignore[return-value]
        hint = power_meant(name, CONSTANT_ALIASES) or closest(
            name, self.known_names(), CONSTANT_ALIASES)
        suffix = f"; did you mean {hint}?" if hint else ""
        if not hint and what == "name":
            suffix = "; it has no value: " + self.ctx.hints["value"].format(name=name)
        err = UnknownNameError(f"unknown {what} '{name}'{suffix}")
        return err.at(*_position(node))  # type: ignore[return-value]

    # --- expressions -----------------------------------------------------------

    def eval(self, node: Any) -> Variable:
        try:
            method = self._dispatch[type(node)]
        except KeyError:
            raise MathError(f"cannot evaluate {type(node).__name__} here") from None
        return method(node)

    def _num(self, node: Num) -> Variable:
        value = float(node.text)
        shown = node.text if len(node.text) <= 24 else (
            f"{node.text[:12]}... ({len(node.text)} characters)"
        )
        if math.isinf(value) or (value == 0.0 and _nonzero_digits(node.text)):
            size, becomes = ("large", "inf") if value else ("small", "0")
            self.ctx.warn(f"the number {shown} is too {size} for floating point; it is {becomes}")
        return self.ctx.constant(value, shown)

    def _name(self, node: Name) -> Variable:
        v = self.leaf(node.id)
        if v is None:
            if node.id in self.ctx.functions or node.id in REGISTRY:
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
            raise LimitError(
                f"calls nested deeper than {MAX_CALL_DEPTH} levels "
                f"(is {definition.name} defined in terms of itself?)"
            ).at(*_position(node))
        self.layers.append((dict(zip(definition.params, args)), True))
        self.call_depth += 1
        try:
            return self.eval(definition.body)
        except GradcliError as err:
            # Positions inside the body belong to the definition's own line:
            # point at this call instead, and say which function failed.
            if not err.message.startswith("in "):
                err.message = f"in {definition.signature}: {err.message}"
            err.line, err.column = _position(node)
            raise
        finally:
            self.call_depth -= 1
            self.layers.pop()

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
            point = self._point(found, var.id, own=True)
        return self.differentiate(args[0], var.id, point, order, node)

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
            message = summed_warning(y, x)  # the session's derivatives warn themselves
            if message is not None:
                self.ctx.warn(message)
            # one budget for the statement: each diff of a nested diff starts from a
            # graph about 3 times the last, so it is the total that grows
            left = BACKPROP_MAX_NODES - self.nodes_spent
            with using_config("enable_backprop", True):
                d = nested_derivative(y, x, order, left)
            self.nodes_spent += graph_size(d, left)
            if self.nodes_spent > BACKPROP_MAX_NODES:
                raise LimitError(
                    f"nested derivatives have grown past {BACKPROP_MAX_NODES:,} graph nodes "
                    "in all; for an n-th derivative write diff(expr, x, n)")
            return d
        return Constant(self.ctx.derivatives(y, x, order)[-1])


def _graph_variables(y: Variable) -> list[Variable]:
    from ..core.dot import walk  # noqa: PLC0415 - only nested derivatives need it

    return walk(y)[0]


BACKPROP_MAX_NODES = 150_000
"""Repeated backprop stops once its graphs add up to more nodes than this (about
3 s): each order's graph is a few times the last one's."""


def nested_derivative(y: Variable, x: Variable, order: int,
                      max_nodes: int | None = None) -> Variable:
    """d^order y / dx^order as a differentiable graph, for any Variable x (leaf or not).

    Raises LimitError once the graphs of the orders so far add up to more than
    ``max_nodes`` nodes (default BACKPROP_MAX_NODES).
    """
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
        for v in _graph_variables(current):
            v.grad = None
        current.backward(retain_grad=True, create_graph=True)
        g = x.grad
        for v in _graph_variables(current):
            v.grad = None
        if g is None:
            return Constant(get_array_module(x.data).zeros_like(x.data))
        current = g
    return current


_BINARY: dict[str, Callable[[Variable, Variable], Variable]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "@": matmul,
}


def free_names(node: Any, functions: dict[str, Definition] | None = None) -> list[str]:
    """Variable names used in ``node``, in order of first use (no function names).

    With ``functions``, the names that the user functions ``node`` calls use
    (their bodies, parameters aside; and the functions those call) count too,
    after the names written in ``node`` itself: ``g(a) = a*x`` makes ``g(2)``
    depend on x, and with ``f(t) = a*t``, ``f(x)*b`` gives x, b, a.
    """
    written: dict[str, None] = {}
    through: dict[str, None] = {}
    visited: set[tuple[str, tuple[str, ...]]] = set()

    def visit(tree: Any, params: tuple[str, ...], diffs: tuple[str, ...],
              seen: dict[str, None]) -> None:
        # params: the parameters of the function whose body this is; diffs: the
        # names bound by diff(expr, x, n, a) around it, which a called function's
        # body sees too (a caller's parameters it does not)
        stack = [(tree, diffs)]
        while stack:
            n, around = stack.pop()
            if isinstance(n, Name):
                if n.id not in params and n.id not in around:
                    seen.setdefault(n.id)
                continue
            if functions and isinstance(n, (Call, Prime)) and n.func in functions \
                    and (n.func, around) not in visited:
                visited.add((n.func, around))
                definition = functions[n.func]
                visit(definition.body, definition.params, around, through)
            parts = [(child, around) for child in ast.children(n)]
            if isinstance(n, Call) and n.func == "diff" and len(n.args) == 4 \
                    and isinstance(n.args[1], Name):
                # diff(expr, x, n, a) binds x to a inside expr: x is not free there
                x = n.args[1].id
                parts = [(n.args[0], (*around, x)), (n.args[2], around), (n.args[3], around)]
            stack.extend(reversed(parts))

    visit(node, (), (), written)
    return [*written, *(name for name in through if name not in written)]


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
