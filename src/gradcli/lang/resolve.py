"""What the names of a syntax tree mean, for both of its interpretations.

A statement is read two ways: as values (``lang.evaluate``: each node a core
``Variable``) and as a formula (``formula.from_ast``: each node a formula
``Expr``). Both read names, expand calls and check the arguments of ``diff``,
``grad`` and ``f'`` by the rules written here once; they differ only in what
a node computes.

Names resolve innermost first: the parameters of the function whose body is
being read (a caller's parameters are not visible to the callee), the
variables a ``diff`` binds around it, the values bound for the statement, the
constants (pi, e, inf, nan), and last the built-ins and the user's functions,
which must be called.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from ..core.registry import REGISTRY, closest
from ..errors import ArityError, GradcliError, LimitError, MathError, UnknownNameError
from ..limits import MAX_ORDER
from ..record import Record
from . import ast
from .ast import Call, Name, Prime
from .namespace import CONSTANT_ALIASES, CONSTANTS, SPECIAL_FORMS, Namespace

MAX_CALL_DEPTH = 64
"""Calls nested in calls, in both interpretations (a function defined in terms
of itself would expand forever)."""

T = TypeVar("T")

# What Resolver.lookup answers, besides a bound node: the kind of a name.
VALUE = "value"  # bound for the statement (a session value)
CONSTANT = "constant"  # pi, e, inf, nan
FUNCTION = "function"  # a built-in or the user's: it must be called
UNKNOWN = "unknown"


class Definition(Record):
    """A user function ``f(x, y) = body``."""

    name: str
    params: tuple[str, ...]
    body: ast.Node
    source: str

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


def position(node: Any) -> tuple[int | None, int | None]:
    """(line, column) of a node, or (None, None) where it has none (made by code)."""
    line = getattr(node, "line", 0)
    return (line, node.column) if line else (None, None)


def located(err: GradcliError, node: Any) -> GradcliError:
    """``err`` at ``node``'s position, unless it already has one."""
    return err.at(*position(node))


class DiffArgs(Record):
    """``diff(body, var[, order[, point]])``, its arguments checked."""

    body: Any
    var: Name
    order: Any  # a node, or None for 1
    point: Any  # a node, or None: the variable's own value


class Resolver(ABC, Generic[T]):
    """Names, scopes, calls and the argument checks of one statement's reading.

    ``T`` is what a node computes (a Variable, a formula). Subclasses give
    ``eval``; everything about names is here."""

    def __init__(self, values: Mapping[str, Any], functions: Mapping[str, Definition],
                 no_ans: str | None = None) -> None:
        self.values = values
        self.functions = functions
        self.no_ans = no_ans  # why ans has no value, when a result left none
        # Each layer: (names -> nodes, is_function_layer), innermost last.
        self.layers: list[tuple[dict[str, T], bool]] = [({}, False)]
        self.calling: list[str] = []  # the defined functions being called, outermost first

    @abstractmethod
    def eval(self, node: Any) -> T:
        """What ``node`` computes."""

    # --- names -----------------------------------------------------------------

    def binding(self, name: str) -> tuple[dict[str, T], bool] | None:
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

    def bound(self, name: str) -> T | None:
        found = self.binding(name)
        return None if found is None else found[0][name]

    def lookup(self, name: str) -> str:
        """What an unbound ``name`` is past the scopes: VALUE, CONSTANT, FUNCTION or UNKNOWN."""
        if name in self.values:
            return VALUE
        if name in CONSTANTS:
            return CONSTANT
        if name in self.functions or name in REGISTRY:
            return FUNCTION
        return UNKNOWN

    @contextmanager
    def scope(self, names: dict[str, T], is_function: bool = False) -> Iterator[None]:
        self.layers.append((names, is_function))
        try:
            yield
        finally:
            self.layers.pop()

    def is_variable(self, name: str) -> bool:
        """Whether ``name`` has a value here (so ``name(...)`` calls no function)."""
        return self.binding(name) is not None or self.lookup(name) in (VALUE, CONSTANT)

    def known_names(self) -> list[str]:
        names = Namespace(self.values, self.functions)
        return names.known(name for layer, _ in self.layers for name in layer)

    def unknown(self, name: str, node: Any, what: str = "name") -> UnknownNameError:
        """The error for a name with no meaning here, with the closest known one."""
        if name == "ans":
            why = self.no_ans
            message = f"'ans' has no value: {why}" if why else \
                "'ans' has no value yet: it is the last result"
            return located(UnknownNameError(message), node)  # type: ignore[return-value]
        hint = closest(name, self.known_names(), CONSTANT_ALIASES)
        if not hint and what == "name":
            err = UnknownNameError.hinted(f"unknown {what} '{name}'; it has no value: {{value}}",
                                          name)
        else:
            suffix = f"; did you mean {hint}?" if hint else ""
            err = UnknownNameError(f"unknown {what} '{name}'{suffix}")
        return located(err, node)  # type: ignore[return-value]

    def not_a_value(self, node: Name) -> MathError:
        """The error for a function's name read as a value."""
        return located(MathError(
            f"'{node.id}' is a function; call it with arguments, e.g. {node.id}(x)"),
            node)  # type: ignore[return-value]

    def callee(self, node: Call) -> Definition | Any:
        """The user's Definition or the registry entry ``node`` calls (not diff
        nor grad); an error where it names no function."""
        definition = self.functions.get(node.func)
        if definition is not None:
            return definition
        entry = REGISTRY.get(node.func)
        if entry is None:
            if self.is_variable(node.func):
                raise MathError(f"'{node.func}' is a variable, not a function").at(
                    *position(node))
            raise self.unknown(node.func, node, "function")
        try:
            entry.check_arity(len(node.args))
        except ArityError as err:
            raise located(err, node) from None
        return entry

    # --- calls -----------------------------------------------------------------

    def call_defined(self, definition: Definition, args: list[T], node: Any) -> T:
        """The body of ``definition`` read with its parameters bound to ``args``."""
        if len(args) != len(definition.params):
            n = len(definition.params)
            raise ArityError(
                f"{definition.name} takes {n} argument{'s' if n != 1 else ''}: "
                f"{definition.signature}; got {len(args)}"
            ).at(*position(node))
        if len(self.calling) >= MAX_CALL_DEPTH:
            # a chain of 65 distinct functions is deep, not recursive
            why = (f" (is {definition.name} defined in terms of itself?)"
                   if definition.name in self.calling else "")
            raise LimitError(
                f"calls nested deeper than {MAX_CALL_DEPTH} levels{why}"
            ).at(*position(node))
        self.calling.append(definition.name)
        try:
            with self.scope(dict(zip(definition.params, args)), True):
                return self.eval(definition.body)
        except GradcliError as err:
            # Positions inside the body belong to the definition's own line:
            # point at this call instead, and say which function failed.
            if not err.message.startswith("in ") and not getattr(err, "whole_statement", False):
                err.prepend(f"in {definition.signature}: ")
            err.line, err.column = position(node)
            raise
        finally:
            self.calling.pop()

    # --- the arguments of diff, grad and f' ---------------------------------------

    def not_a_function(self, form: str, var: Name) -> None:
        not_a_function(form, var, self.functions)

    def diff_args(self, node: Call) -> DiffArgs:
        args = node.args
        if not 2 <= len(args) <= 4:
            raise ArityError(
                f"diff takes 2 to 4 arguments: {SPECIAL_FORMS['diff'][0]}; got {len(args)}"
            ).at(*position(node))
        var = args[1]
        if not isinstance(var, Name):
            raise MathError(
                "diff: the second argument must be a variable name, as in diff(x^2, x)"
            ).at(*position(var))
        self.not_a_function("diff", var)
        return DiffArgs(args[0], var, args[2] if len(args) > 2 else None,
                        args[3] if len(args) == 4 else None)

    @staticmethod
    def order_in_range(n: int, node: Any, what: str = "diff: the order") -> int:
        if n < 0:
            raise MathError(f"{what} must not be negative, got {n}").at(*position(node))
        if n > MAX_ORDER:
            raise LimitError(f"{what} {n} is above the limit of {MAX_ORDER}").at(*position(node))
        return n

    def grad_args(self, node: Call) -> tuple[Any, list[Name]]:
        """``grad(body, x, y...)``: the body and the names written."""
        return grad_args(node, self.functions)

    def prime_target(self, node: Prime) -> tuple[Definition | None, Any]:
        """(the user's Definition, or None and the built-in's registry entry) that
        ``f'(a)`` differentiates; an error where it is no function of one variable."""
        definition = self.functions.get(node.func)
        entry = REGISTRY.get(node.func)
        if definition is None and (entry is None or entry.kind != "elementwise"):
            if entry is not None or node.func in SPECIAL_FORMS:
                raise MathError(
                    f"{node.func}' needs a function of one variable"
                    + ("; write diff(expr, x, n)" if node.func in SPECIAL_FORMS else "")
                ).at(*position(node))
            if self.is_variable(node.func):
                raise MathError(f"'{node.func}' is a variable, not a function").at(
                    *position(node))
            raise self.unknown(node.func, node, "function")
        if definition is not None and len(definition.params) != 1:
            raise ArityError(prime_of_several(definition)).at(*position(node))
        if len(node.args) != 1:
            raise ArityError(
                f"{node.func}{chr(39) * node.order}(a) needs a function of one variable "
                "and one argument"
            ).at(*position(node))
        return definition, entry


def not_a_function(form: str, var: Name, functions: Mapping[str, Definition]) -> None:
    if var.id in REGISTRY or var.id in SPECIAL_FORMS or var.id in functions:
        # a function's name bound as a variable would be read by no call
        raise MathError(f"{form}: cannot differentiate by the function '{var.id}'").at(
            *position(var))


def grad_args(node: Call, functions: Mapping[str, Definition]) -> tuple[Any, list[Name]]:
    """``grad(body, x, y...)``: the body and the names written, checked (the
    statement's values and its formulas read them alike)."""
    if not node.args:
        raise ArityError("grad takes at least 1 argument: grad(expr[, x, y...]); got 0").at(
            *position(node))
    body, var_nodes = node.args[0], list(node.args[1:])
    for v in var_nodes:
        if not isinstance(v, Name):
            raise MathError("grad: variables must be names, as in grad(x*y, x, y)").at(
                *position(v))
        not_a_function("grad", v, functions)
    return body, var_nodes


def prime_of_several(definition: Definition) -> str:
    """Why ``g'`` means nothing for a function of other than one parameter."""
    n, name = len(definition.params), definition.name
    message = (f"{name} takes {n} argument{'s' if n != 1 else ''}; "
               "' is for functions of one")
    if n:
        call = f"{name}({','.join(definition.params)})"
        message += f"; use diff({call}, {definition.params[0]}) or grad({call})"
    return message


def prime_without_call(err: GradcliError, functions: Mapping[str, Definition]) -> GradcliError:
    """A parse error at ``g'`` not followed by its bracket, reworded where ``g``
    is the user's function of several variables: the prime cannot apply."""
    name = getattr(err, "primed", None)
    definition = functions.get(name) if name else None
    if definition is not None and len(definition.params) != 1:
        err.message = prime_of_several(definition)
        err.template = None
    return err


__all__ = [
    "CONSTANT", "FUNCTION", "MAX_CALL_DEPTH", "MAX_ORDER", "SPECIAL_FORMS", "UNKNOWN", "VALUE",
    "Definition", "DiffArgs", "Resolver", "grad_args", "located", "not_a_function", "position",
    "prime_of_several", "prime_without_call",
]
