"""``hessian(...)``, ``jacobian(...)`` and ``laplacian(...)`` as statements.

Where every variable differentiated by has a value the answer is numbers (the
value path, ``lang.matrices``); where none has, formulas from
``gradcli.formula``, each mixed partial derived once and mirrored. A Hessian
or Jacobian is a Result of kind "matrix" whose ``matrix`` names its rows and
columns; a laplacian is one value, so its statement is an ordinary expression's
(numbers, or a formula where a variable has no value, as diff's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.backend import as_numpy
from ..errors import GradcliError, MathError, UnknownNameError, worded
from ..lang import ast
from ..lang.evaluate import CONSTANTS, Evaluator
from ..lang.matrices import MatrixArgs, element_labels, matrix_args, variable_names
from ..matrices import Matrix
from .formulas import formula_of, unbound

if TYPE_CHECKING:
    from ..asked import EvalOptions
    from ..results import Result
    from .context import Context as Session


def matrix_statement(session: Session, node: ast.Call, options: EvalOptions,
                     res: Result) -> bool:
    """Fill ``res`` for a matrix form written as a whole statement; False where
    the statement is an ordinary expression (a laplacian: one value, numbers or
    a formula, which --order, --series and --check apply to as to any)."""
    if node.func == "laplacian":
        return False
    args = matrix_args(node, session.functions)
    names = variable_names(args, session.functions, CONSTANTS)
    free = set(unbound(session, args.body)) | {
        n.id for n in args.names or () if n.id not in session.values}
    formulas = bool(names) and all(n in free for n in names)
    missing = [n for n in names if n in free]
    if missing and not formulas:
        has = next(n for n in names if n not in free)
        raise UnknownNameError(
            f"{node.func}: '{missing[0]}' has no value and '{has}' has one; give every "
            "variable a value for numbers, or none for formulas").at(node.line or None,
                                                                    node.column or None)
    _not_applied(session, node.func, options)
    if formulas:
        _formulas(session, args, names, res)
        return True
    value = Evaluator(session).eval(node)
    res.kind, res.value = "matrix", as_numpy(value.data)
    columns = [label for n in names for label in element_labels(n, np.shape(session.values[n]))]
    rows = columns if args.form == "hessian" else _components(session, args, value.shape[0])
    res.matrix = Matrix(args.form, tuple(rows), tuple(columns))
    session.values["ans"] = value.data
    session.no_ans = None
    return True


def _components(session: Session, args: MatrixArgs, count: int) -> list[str]:
    """A Jacobian's row labels: its components as formulas, where written in
    brackets, one a row; else the rows' indices."""
    items = args.body.items if isinstance(args.body, ast.Array) else ()
    if len(items) == count:
        from ..formula import from_ast, plain

        try:
            return [plain(from_ast(item, session.functions, {})) for item in items]
        except GradcliError:
            pass
    return [f"[{i}]" for i in range(count)]


def _formulas(session: Session, args: MatrixArgs, names: list[str], res: Result) -> None:
    from ..formula import diff, plain

    session.values.pop("ans", None)
    session.no_ans = "the last result is a formula"
    if args.form == "jacobian":
        if not isinstance(args.body, ast.Array):
            raise MathError("jacobian: for formulas write the components in brackets, "
                            "as in jacobian([f, g], [x, y])").at(args.body.line or None,
                                                                  args.body.column or None)
        components = [formula_of(session, item) for item in args.body.items]
        rows = tuple(tuple(diff(f, n) for n in names) for f in components)
        res.kind, res.matrix = "matrix", Matrix(
            "jacobian", tuple(plain(f) for f in components), tuple(names), rows)
        return
    f = formula_of(session, args.body)
    first = [diff(f, n) for n in names]
    upper = {(i, j): diff(first[i], names[j])
             for i in range(len(names)) for j in range(i, len(names))}
    matrix = tuple(tuple(upper[min(i, j), max(i, j)] for j in range(len(names)))
                   for i in range(len(names)))
    res.kind, res.matrix = "matrix", Matrix("hessian", tuple(names), tuple(names), matrix)


def _not_applied(session: Session, form: str, options: EvalOptions) -> None:
    asked = [flag for flag, on in (
        ("order", options.order), ("series", options.series is not None),
        ("check", options.check), ("grad", options.grad)) if on]
    slotted = ["{" + flag + "}" for flag in asked]
    if getattr(options, "steps", False):  # no shell word for it: the REPL's :steps is apart
        slotted.append("steps")
    if slotted:
        slots = ", ".join(slotted)
        session.warn(worded(f"{form}(...) gives its matrix only; {slots} did not apply to it",
                            "", session.words))


__all__ = ["matrix_statement"]
