"""``--steps`` and ``:steps``: how a statement's formula was obtained.

A statement has steps where its answer is a formula made by differentiating
the whole of it: ``diff(expr, x)`` or ``diff(expr, x, n)`` by a variable with
no value, or an expression with ``--order N`` (without one, order 1: the
steps of d/dx EXPR; ``:steps EXPR`` asks the same).
The steps are the one differentiator's own (``formula.steps``), and each
order's ends at the formula the statement prints without ``--steps``.
Anything else asked with ``--steps`` is a usage error saying what has steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..lang import ast

if TYPE_CHECKING:
    from ..asked import EvalOptions
    from ..results import Result
    from .context import Context as Session

WHAT_HAS_STEPS = ("steps show how a derivative's formula is made: of diff(EXPR, x[, n]) "
                  "or of EXPR (orders 1..N with --order N, or :steps N), by a variable with "
                  "no value")


def evaluate_steps(session: Session, node: Any, options: EvalOptions, res: Result) -> None:
    """Fill ``res`` with the statement's formulas and the steps that make them."""
    from ..formula.steps import derivation
    from .formulas import applies, differentiates, evaluate_formulas, formula_of

    whole_diff = _diff(node) and len(node.args) <= 3  # diff(EXPR, x[, n]), no point
    if differentiates(node) and not _diff(node):
        # f'(2), 1 + diff(x^2, x): the derivative is a part of the statement
        raise UsageError(WHAT_HAS_STEPS + "; here the derivative is part of the statement: "
                         "ask for the steps of diff(EXPR, x) alone").at(
                             node.line or None, node.column or None)
    if options.order is None and not _diff(node):
        options = _with_order(options, 1)  # EXPR alone: the steps of its derivative
    elif whole_diff and options.order is None and options.formula:
        options = _with_order(options, None)
        options.formula = False  # the answer is diff's formula already
    if not applies(session, node, options) or options.grad or options.series is not None:
        raise _refused(session, node, options)  # (a series has formulas now, but no steps)
    evaluate_formulas(session, node, options, res)
    if res.gradient_formulas is not None:  # grad(...)
        raise _refused(session, node, options)
    if whole_diff and options.order is None:
        body, var = node.args[0], node.args[1]
        order = _whole(formula_of(session, node.args[2])) if len(node.args) == 3 else 1
        res.steps = derivation(formula_of(session, body), var.id, order)
    elif res.wrt is not None:  # EXPR (a diff(...) too) with --order N
        if not options.order:
            raise UsageError("steps need an order of 1 or more: there is nothing to "
                             "differentiate at order 0").at(node.line or None, None)
        res.steps = derivation(res.formulas[0], res.wrt, options.order)
    else:
        raise _refused(session, node, options)


def _diff(node: Any) -> bool:
    return isinstance(node, ast.Call) and node.func == "diff" and len(node.args) >= 2


def _with_order(options: EvalOptions, order: int | None) -> EvalOptions:
    from ..record import fields

    copied = type(options)(**{name: getattr(options, name) for name in fields(options)})
    copied.order = order
    return copied


def _whole(x: Any) -> int:
    from fractions import Fraction

    value = getattr(x, "value", None)
    # diff's own checks (from_ast) have passed: the order is a whole number
    return int(value) if isinstance(value, Fraction) else 1


def _refused(session: Session, node: Any, options: EvalOptions) -> UsageError:
    from .formulas import unbound

    free = unbound(session, node)
    if options.check or options.series is not None or options.grad:
        why = "; not with --check, --series or --grad"
    elif not free:
        why = "; here every variable has a value, so the answer is a number"
    elif len(free) > 1 and options.wrt is None and not _diff(node):
        why = (f"; here {' and '.join(free[:2])} have none: say which to differentiate by "
               "(--wrt X; in the REPL, wrt X)")
    else:
        why = ""
    return UsageError(WHAT_HAS_STEPS + why).at(getattr(node, "line", None) or None,
                                                getattr(node, "column", None) or None)


__all__ = ["WHAT_HAS_STEPS", "evaluate_steps"]
