"""One expression statement: its value, and the derivatives, series, check and
gradient the options ask for.

The session hands each expression statement to ``evaluate_expression``; the
derivative method is chosen by the core (``core.method``), the check is
``checking``'s, and what the user must be told goes to the session's warnings.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..asked import EvalOptions
from ..core.backend import as_numpy
from ..core.graph import Constant, Variable
from ..core.method import blockwise, sample, undefined_where_nan
from ..core.registry import REGISTRY
from ..errors import GradcliError, ReservedNameError, UnknownNameError, UsageError
from ..lang.ast import Define, free_names
from ..lang.evaluate import MAX_ORDER, Evaluator
from ..lang.namespace import is_builtin, special_forms
from ..limits import FACTORIAL_ORDER
from ..results import Result
from ..rules import SERIES_CENTRE
from .variables import (
    default_wrt,
    order_limit,
    variable_names,
    variables_of,
)

if TYPE_CHECKING:
    from .context import Context as Session


def evaluate_expression(session: Session, node: Any, options: EvalOptions, res: Result) -> None:
    """Fill ``res`` with the value of ``node`` and what ``options`` ask for."""
    from .formulas import add_formulas, applies, evaluate_formulas

    if options.steps:  # the formula and the steps that make it (session/steps.py)
        from .steps import evaluate_steps

        evaluate_steps(session, node, options, res)
        return
    if applies(session, node, options):
        evaluate_formulas(session, node, options, res)
        return

    x = ds = None
    order_limit("order", options.order or 0)
    order_limit("series order", options.series or 0)
    gradient_check = _checks_the_gradient(session, node, options)
    if gradient_check:  # the derivatives by one variable are not asked for, nor checked
        options = EvalOptions(grad=True, formula=options.formula)
    top = max(options.order or 0, options.series or 0, 2 if options.check else 0)
    engine = session.engine
    leaves = {}
    over_blocks = _over_blocks(session, node, options, top)
    if over_blocks is not None:
        y, x, ds = over_blocks
        res.wrt, res.point = x.name, as_numpy(x.data)
    else:
        constants = _not_differentiated(session, node, options)
        ev = Evaluator(session, keep_graph=_differentiated(session, node, options),
                       constants=constants, overlay=_series_at_zero(session, node, options))
        # Evaluate first: a wrong name is reported as such, not as a missing
        # variable. The leaves made on the way are the ones differentiated by.
        try:
            y = ev.eval(node)
            if constants and session.method != "backprop" and _has_nan(y):
                # a 0/0 in a name read as a constant (sin(x)/x + y by y at x = 0)
                # has its limit only in a graph of that name
                ev = Evaluator(session, keep_graph=ev.calculus.keep_graph,
                               overlay=_series_at_zero(session, node, options))
                y = ev.eval(node)
            ev.calculus.fill_limits(y, ev.statement_leaves())
        except UnknownNameError as err:
            if options.order and options.wrt is None and not options.grad \
                    and not options.check and options.series is None \
                    and err.template and "{value}" in err.template \
                    and err.hint_name in free_names(node):
                # sin(x)*y with y bound: x may be a typo, or the variable of formulas
                err.suffixed("formula")
            raise
        wrt = options.wrt or default_wrt(session, node) if options.wants_derivatives else None
        if options.wants_derivatives and wrt is None:
            _constant_derivatives(y, options, res)  # no variable: all derivatives are 0
        elif options.wants_derivatives and _absent(session, ev, node, wrt):
            # x^2 --wrt y, y with no value: derivatives 0, as diff(x^2, y) gives
            res.wrt = wrt
            _constant_derivatives(y, options, res)
        elif options.wants_derivatives:
            res.wrt = wrt
            try:
                x = leaf_to_differentiate(session, ev, wrt)
            except GradcliError as err:
                if wrt not in free_names(node):
                    # the variable chosen is not in the expression: no column to point at
                    if isinstance(err, UnknownNameError):
                        err.prefixed("wrt_named", wrt)
                    raise err.at(node.line or None, None) from None
                raise
            res.point, res.point_text = as_numpy(x.data), session.at_text.get(wrt)
        if options.grad:
            for name in variables_of(session, node):
                leaf = ev.leaf(name)
                if leaf is not None and type(leaf) is not Constant:
                    leaves[name] = leaf
    res.value = as_numpy(y.data)
    if x is None and over_blocks is None:  # sin(x)/x at 0: its limit, as --order gives
        res.value = as_numpy(ev.calculus.limit(y, ev.statement_leaves()))
    if x is not None:
        if options.series is not None:
            _check_series_shape(y, x, res.wrt)  # before the work, and its warnings
        cs = None
        if ds is None:
            if options.series is not None and over_blocks is None:
                cs = engine.coefficients(y, x, top)
                if cs is not None and any(_has_nan(Variable(c)) for c in cs[1:]) \
                        and not _has_nan(Variable(cs[0])):
                    cs = None  # the derivatives through a limit (orders_through_limits)
            if cs is None:
                ds = engine.orders(y, x, top)
            else:  # the derivatives printed only: k! c_k of the others may overflow
                shown = max(options.order or 0, 2 if options.check else 0)
                ds = engine.orders(y, x, shown) if shown else [y.data]
        if over_blocks is None:
            # backprop's derivatives through a limit (sum(sin(x)/x) at 0)
            ds = ev.calculus.orders_through_limits(y, x, ds)
        # a value that is nan has no derivatives, whatever it depends on (diff
        # gives nan there; --wrt x of an expression without x gave 0)
        ds = undefined_where_nan(ds)
        cs = undefined_where_nan(cs) if cs else cs
        engine.warn_if_cancelling(y, x, top, (cs or ds)[top])
        # Taylor mode's value: the limit where y is 0/0 at the point (sin(x)/x at 0);
        # the value computed where Taylor mode has none (q(0*x) for q(t) = sin(t)/t,
        # whose limit the call took along its own parameter)
        row = as_numpy((cs or ds)[0])
        forward = as_numpy(y.data)
        res.value = np.where(np.isnan(row), forward, row) if forward.shape == row.shape \
            and bool(np.isnan(row).any()) else row
        if options.order:
            res.derivatives = [as_numpy(d) for d in ds[1 : options.order + 1]]
        if options.series is not None:
            res.series = [as_numpy(c) for c in cs[: options.series + 1]] if cs else \
                [as_numpy(ds[k]) / _factorial(k) for k in range(options.series + 1)]
            res.series[0] = res.value  # c0 is the value, the limit where it has one
        if options.check:
            from .checking import check_derivatives  # only with --check

            res.check = check_derivatives(session, node, x.name or options.wrt or "", x, y, ds)
    if options.grad:
        for leaf in leaves.values():
            engine.warn_if_summed(y, leaf)
        res.gradient = {n: as_numpy(g) for n, g in ev.calculus.gradient_values(y, leaves).items()}
        if gradient_check:
            from .checking import check_gradient

            res.check = check_gradient(session, node, leaves, res.gradient, y)
    if options.formula:
        add_formulas(session, node, options, res)
    # last: --check evaluates the expression again, and its ans is the one before
    session.values["ans"] = session.xp.asarray(res.value) if x is not None else y.data
    session.no_ans = None


def _differentiated(session: Session, node: Any, options: EvalOptions) -> bool:
    """Whether the result will be differentiated by a variable it reads: a closed
    statement (diff(x^3, x, 1000, 1)) gives its value and zero derivatives
    under every option, without building the graphs of its inner diff."""
    if not (options.wants_derivatives or options.grad):
        return False
    reads = free_names(node, session.functions)
    if options.wrt is not None and not options.grad:
        return options.wrt in reads
    return bool(variable_names(session, reads))


def check_bindable(name: str, node: Any) -> str | None:
    """A ReservedNameError where an assignment or definition would bind a
    special form's name (diff, grad); where it shadows a built-in function
    (``ln(x) = ...`` in a script older than ln), the warning that says so.
    (A typeset power, x² = 3, is no name: it does not parse.)"""
    if name in special_forms():
        raise ReservedNameError(
            f"'{name}' is a built-in function; choose another name"
        ).at(node.line or None, node.column or None)
    if is_builtin(name):
        entry = REGISTRY[name]
        if isinstance(node, Define):
            return (f"your function '{name}' hides the built-in {entry.signature} "
                    f"({entry.doc}) until :clear {name}")
        return (f"your variable '{name}' is named like the built-in {entry.signature}; "
                f"{name}(...) still calls the built-in")
    return None


def gradient_statement(session: Session, node: Any) -> dict[str, np.ndarray]:
    """``grad(expr[, x, y...])`` as a statement: its partial derivatives; ans is the
    gradient (or none, where the partials differ in shape)."""
    body_names = variables_of(session, node.args[0]) if node.args else []
    ev = Evaluator(session, keep_graph=True)
    y, leaves = ev.gradient(node, body_names)
    gs = list(ev.calculus.gradient_values(y, leaves).values())
    # ans is what was printed: the partial derivative, or the gradient vector
    # of several of one shape (of different shapes there is no one value)
    session.no_ans = None
    if len(gs) == 1:
        session.values["ans"] = gs[0]
    elif len({g.shape for g in gs}) == 1:
        session.values["ans"] = session.xp.stack(gs)
    else:  # a stale ans would be read as this result
        session.values.pop("ans", None)
        session.no_ans = "the last result is a gradient whose partial derivatives differ in shape"
    return {n: as_numpy(g) for n, g in zip(leaves, gs)}


def _not_differentiated(session: Session, node: Any, options: EvalOptions) -> frozenset[str]:
    """The bound names derivatives by one variable will not be taken by: read
    as constants, backprop computes no gradient for them (nor warns about
    one: log of a negative base for x^n by x), and x^n with n bound is an
    integer power, exact at 0."""
    if not options.wants_derivatives or options.grad:
        return frozenset()
    try:
        wrt = options.wrt or default_wrt(session, node)
    except GradcliError:  # several variables: said after evaluating
        return frozenset()
    return frozenset(name for name in session.values if name != wrt)


def _check_series_shape(y: Variable, x: Variable, wrt: str | None) -> None:
    # The derivatives of a result of another shape are those of its sum (a
    # gradient, for sum(x^2)): no polynomial of x's points is made of them;
    # nor of one that mixes x's elements (A @ x), whatever its shape.
    if y.shape != x.shape and not (y.size == 1 and x.size == 1):
        raise UsageError(
            f"a series needs a result of the shape of {wrt} (one value per point); "
            f"this one has shape {tuple(y.shape)} and {wrt} {tuple(x.shape)}")
    from ..core.mixing import mixes_elements

    if mixes_elements(y, x):
        raise UsageError(
            f"a series needs each value to depend on its own element of {wrt} alone; "
            f"this expression mixes the elements of {wrt} (a sum, a product of "
            "matrices, an index), so no polynomial per point exists")


def leaf_to_differentiate(session: Session, ev: Evaluator, wrt: str) -> Variable:
    """The Variable ``wrt`` names in ``ev``; a clear error when it is a function,
    a constant or has no value."""
    if is_builtin(wrt) or wrt in session.functions:
        raise UsageError(f"cannot differentiate by the function '{wrt}'")
    x = ev.leaf(wrt)
    if x is None:
        raise UnknownNameError.hinted(f"'{wrt}' has no value; {{value}}", wrt)
    if type(x) is Constant:
        raise UsageError(f"cannot differentiate by the constant '{wrt}'")
    return x


def _over_blocks(session: Session, node: Any, options: EvalOptions,
                 top: int) -> tuple[Variable, Variable, list[Any]] | None:
    """(y, x, [y, dy/dx, ...]) for a large array variable by Taylor mode block by
    block: y's graph is recorded on x's first block only, then replayed over
    all of x, each block's values and derivatives together while they are in
    the cache. None where that does not apply; the caller then evaluates the
    whole array as usual, and reports any error the first block met."""
    if not options.wants_derivatives or options.grad or session.method == "backprop":
        return None
    if not 1 <= top <= MAX_ORDER:
        return None
    if not any(map(blockwise, session.values.values())):
        return None  # the usual case, decided before any look at the expression
    try:
        wrt = options.wrt or default_wrt(session, node)
    except GradcliError:
        return None
    values = session.values.get(wrt) if wrt else None
    if not blockwise(values):
        return None
    try:
        ev = Evaluator(session, keep_graph=True, overlay={wrt: sample(values)})
        y, x = ev.eval(node), ev.leaf(wrt)
    except Exception:  # the whole array is evaluated instead
        return None
    if x is None or type(x) is Constant:
        return None
    ds = session.engine.at_values(y, x, values, top)
    if ds is None:
        return None
    return Variable(ds[0]), Variable(values, name=wrt), ds


def _series_at_zero(session: Session, node: Any, options: EvalOptions) -> dict[str, Any]:
    """A series by a variable with no value expands about 0, as SymPy's does
    (rules.SERIES_CENTRE, which the help text states)."""
    if options.series is None:
        return {}
    try:
        wrt = options.wrt or default_wrt(session, node)
    except UsageError:
        return {}
    if wrt is None or wrt in session.values or wrt not in free_names(node, session.functions):
        return {}
    return {wrt: session.xp.asarray(SERIES_CENTRE, dtype=session.dtype_type)}


def _checks_the_gradient(session: Session, node: Any, options: EvalOptions) -> bool:
    """--grad --check of an expression of several variables, no --wrt, --order or
    --series: each partial derivative is checked (of one variable, or by the
    one chosen, orders 1 and 2 are checked as without --grad)."""
    if not (options.grad and options.check) or options.wrt is not None or options.order \
            or options.series is not None:
        return False
    try:
        default_wrt(session, node)
    except UsageError:
        return True
    return False


def _absent(session: Session, ev: Evaluator, node: Any, wrt: str) -> bool:
    """Whether ``wrt`` is a name with no value that the expression does not read
    (nor a function): a variable everything here is constant in."""
    return ev.leaf(wrt) is None and not is_builtin(wrt) and wrt not in session.functions \
        and wrt not in free_names(node, session.functions)


def _constant_derivatives(y: Variable, options: EvalOptions, res: Result) -> None:
    value = as_numpy(y.data)
    zero = np.where(np.isnan(value), np.nan, np.zeros_like(value))
    if options.order:
        res.derivatives = [zero] * options.order
    if options.series is not None:
        res.series = [as_numpy(y.data)] + [zero] * options.series
    if options.check:
        res.check = []






def _has_nan(y: Variable) -> bool:
    return y.data.dtype.kind in "fc" and bool(np.isnan(as_numpy(y.data)).any())


def _factorial(k: int) -> float:
    """k! as a float; inf past 170! (a coefficient f^(k)/k! then underflows to 0)."""
    return float(math.factorial(k)) if k <= FACTORIAL_ORDER else math.inf
