"""``hessian``, ``jacobian`` and ``laplacian``: the special forms that
differentiate by several variables at once.

``hessian(expr)``, ``hessian(expr, [x, y])``, ``jacobian([f, g], [x, y])`` and
``laplacian(expr[, [x, y]])``. Without the list, the variables are those the
expression reads, in order of first appearance. A Laplacian is one value, an
expression as any other (``diff`` of it, ``--order``, sweeps and curves: one
a point); a Hessian or Jacobian is a matrix. Both interpretations read the
arguments here: the value path (``matrix_body`` and ``matrix_of``: numbers at
a point, or a graph inside a derivative) and the formulas.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..core import hessian as engine
from ..core.graph import Variable, using_config
from ..errors import ArityError, GradcliError, MathError, UnknownNameError
from ..record import Record
from .ast import Array, Call, Name, free_names
from .resolve import SPECIAL_FORMS, Definition, located, not_a_function

MATRIX_FORMS = ("hessian", "jacobian", "laplacian")
"""The special forms of this module (their signatures: ``SPECIAL_FORMS``)."""


def is_matrix_form(node: Any) -> bool:
    """Whether ``node`` is a call of a matrix form (hessian(...), ...)."""
    return isinstance(node, Call) and node.func in MATRIX_FORMS


class MatrixArgs(Record):
    """A matrix form's arguments, checked: the body and the names written (None
    where the variables are the body's own)."""

    form: str
    body: Any
    names: tuple[Name, ...] | None


def _at(err: Any, node: Any) -> Any:
    return located(err, node)


def matrix_args(node: Call, functions: Mapping[str, Definition]) -> MatrixArgs:
    """The arguments of ``node`` (a call of a matrix form), or a positioned error;
    ``functions``: the user's (a variable may not be named as a function)."""
    form = node.func
    signature = SPECIAL_FORMS[form][0]
    if not 1 <= len(node.args) <= 2:
        raise _at(ArityError(f"{form} takes 1 or 2 arguments: {signature}; "
                             f"got {len(node.args)}"), node)
    if len(node.args) == 1:
        return MatrixArgs(form, node.args[0], None)
    given = node.args[1]
    items = given.items if isinstance(given, Array) else (given,)
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, Name):
            raise _at(MathError(f"{form}: the variables must be names in brackets, "
                                f"as in {signature}"), item)
        not_a_function(form, item, functions)
        if item.id in seen:
            raise _at(MathError(f"{form}: the variable '{item.id}' is named twice"), item)
        seen.add(item.id)
    if not items:
        raise _at(MathError(f"{form}: name at least one variable, as in {signature}"), given)
    return MatrixArgs(form, node.args[0], tuple(items))  # type: ignore[arg-type]


def variable_names(args: MatrixArgs, functions: Mapping[str, Any],
                   constants: Collection[str]) -> list[str]:
    """The names differentiated by: those written, else the body's variables in
    order of first appearance (``constants``, such as pi, left out)."""
    if args.names is not None:
        return [n.id for n in args.names]
    return [n for n in free_names(args.body, functions) if n not in constants]


def element_labels(name: str, shape: tuple[int, ...]) -> list[str]:
    """The rows or columns one variable gives: ``x``, or ``v[0]``, ``A[0, 1]``..."""
    if not shape:
        return [name]
    import numpy as np

    return [f"{name}[{', '.join(map(str, i))}]" for i in np.ndindex(*shape)]


def grad_of_grad(node: Any) -> Call | None:
    """``grad(grad(f[, x, y])[, x, y])`` as the ``hessian(f, [x, y])`` it is (the
    outer grad's variables, where written, must be the inner one's); None for
    any other node."""
    if not (isinstance(node, Call) and node.func == "grad" and node.args
            and isinstance(node.args[0], Call) and node.args[0].func == "grad"
            and node.args[0].args):
        return None
    inner = node.args[0]
    names, outer = inner.args[1:], node.args[1:]
    ids = [getattr(n, "id", None) for n in names]
    if outer and names and [getattr(n, "id", None) for n in outer] != ids:
        raise _at(MathError("grad(grad(f, ...), ...) takes the same variables twice; for "
                            "other pairs write jacobian([diff(f, x), ...], [y, ...])"), node)
    names = names or outer
    args = (inner.args[0],) if not names else (
        inner.args[0], Array(tuple(names), line=names[0].line, column=names[0].column))
    return Call("hessian", args, line=node.line, column=node.column)


class Reader(Protocol):
    """What ``matrix_body`` needs of the evaluator."""

    def eval(self, node: Any) -> Variable: ...

    def scope(self, names: dict[str, Variable],
              is_function: bool = False) -> AbstractContextManager[None]: ...


def matrix_body(reader: Reader, args: MatrixArgs, points: Mapping[str, Variable | None],
                node: Call) -> tuple[Variable, list[Variable]]:
    """(the body's value, the points): the body read with each name bound to
    its point (as ``diff`` binds its variable; None where the name has no
    value, an error), so a parameter bound to a number, or a name ``--wrt``
    reads as a constant, is still differentiated by."""
    for name, point in points.items():
        if point is None:
            written = {n.id: n for n in args.names or ()}
            if name not in written:
                reader.eval(args.body)  # says which name, where the body uses it
            raise _at(UnknownNameError(
                f"'{name}' has no value: {args.form} gives numbers where every variable has "
                "a value, formulas where none has"), written.get(name, node))
    if not points:
        raise _at(MathError(f"{args.form}: the expression has no variable to differentiate "
                            "by"), node)
    leaves: list[Variable] = list(points.values())  # type: ignore[arg-type]
    # a derivative needs the graph even where the caller evaluates without one
    with reader.scope(dict(zip(points, leaves))), using_config("enable_backprop", True):
        y = reader.eval(args.body)
    return y, leaves


def by_each_variable(y: Variable, leaves: list[Variable]) -> bool:
    """Whether a Laplacian of ``y`` is the sum of its second derivatives by each
    of ``leaves`` as ``diff(y, x, 2)`` takes them: always but for a value of one
    element by an array, whose Laplacian is the trace over its elements."""
    return y.size != 1 or all(x.size == 1 for x in leaves)


def matrix_of(form: str, y: Variable, leaves: list[Variable], node: Call,
              nested: bool) -> Variable:
    """The form's numbers (a Constant), or, ``nested`` inside a derivative, a
    graph that differentiates again."""
    try:
        return _ENGINE[form](y, leaves, create_graph=nested)
    except GradcliError as err:
        raise _at(err, node) from None


_ENGINE = {"hessian": engine.hessian, "jacobian": engine.jacobian,
           "laplacian": engine.laplacian}


__all__ = ["MATRIX_FORMS", "MatrixArgs", "Reader", "by_each_variable", "element_labels",
           "grad_of_grad", "is_matrix_form", "matrix_args", "matrix_body", "matrix_of",
           "variable_names"]
