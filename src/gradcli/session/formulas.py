"""Statements whose answer is a formula: derivatives by a variable with no value.

Formulas come only where derivatives are asked for: ``--order N`` or ``:d N``
by a variable with no value (N = 0 too: the formula of order 0), ``--grad``
and ``grad(...)`` of variables with no value, ``diff(...)`` or
``f'(...)`` by one, and ``--series N`` where a name other than the series'
variable has no value (its coefficients are formulas in those names; about
the variable's value, or 0 where it has none). A bare expression
with an unbound name (``x + 1``) stays a name error. With ``--formula`` a
numeric answer gets the formulas beside its numbers. The formulas themselves
come from ``gradcli.formula`` (the registry's own derivative rules).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import UsageError
from ..lang import ast
from ..lang.ast import free_names

if TYPE_CHECKING:
    from ..asked import EvalOptions
    from ..results import Result
    from .context import Context as Session

_DIFFERENTIATING = ("diff", "grad", "laplacian")


def unbound(session: Session, node: Any) -> list[str]:
    """The variables ``node`` reads (itself or through its functions) that have no value."""
    from ..lang.namespace import UNKNOWN, Namespace

    names = Namespace(session.values, session.functions)
    return [n for n in free_names(node, session.functions) if names.kind(n) == UNKNOWN]


def differentiates(node: Any) -> bool:
    """Whether ``node`` has a diff(...), grad(...), laplacian(...) or f'(...) in it."""
    return any(isinstance(n, ast.Prime) or (isinstance(n, ast.Call) and n.func in
                                             _DIFFERENTIATING) for n in ast.walk(node))


def applies(session: Session, node: Any, options: EvalOptions) -> bool:
    """Whether the statement's answer is a formula: it asks for a derivative by
    a variable with no value (a gradient, by one of its variables); --check
    wants numbers, and --series too unless another name than its variable has
    no value."""

    if options.check:
        return False
    if options.series is not None:
        return not options.grad and _series_of_formulas(session, node, options)
    if isinstance(node, ast.Call) and node.func == "grad":
        # grad(x^2*y) with y = 2 is --grad's gradient: formulas (below)
        body = node.args[0] if node.args else None
        return body is not None and _gradient_formulas(session, body) and all(
            isinstance(v, ast.Name) for v in node.args[1:])
    if options.grad:
        return _gradient_formulas(session, node)
    if options.order is not None or options.formula:  # --order 0, --formula: order 0
        wrt = formula_wrt(session, node, options)
        if wrt is None or wrt in session.values:
            return False
        # x^2 --wrt y: y has no value and x none either: formulas (the
        # derivatives by y are 0), as diff(x^2, y) gives
        return wrt in unbound(session, node) or (
            options.wrt is not None and _free_to_differentiate(session, wrt)
            and bool(unbound(session, node)))
    return differentiates(node) and bool(unbound(session, node))


def _gradient_formulas(session: Session, node: Any) -> bool:
    """Whether the gradient of ``node`` is formulas: x^2*y --at y=2 --grad is, in
    x, with y's number put in after differentiating (a gradient partly in
    numbers and partly a name error is no answer); a bound array cannot be
    put into a formula."""
    return bool(unbound(session, node)) and all(
        np.ndim(session.values[n]) == 0 for n in _variables(session, node)
        if n in session.values)


def _series_of_formulas(session: Session, node: Any, options: EvalOptions) -> bool:
    """--series by a variable with no value, or one number, of an expression
    that reads another name with no value (x^2*y by x: y*x^2's coefficients
    are formulas in y), or with --order by a variable with no value. About an
    array of points the name stays an error, and grad(...) gives its partial
    derivatives alone, as with numbers."""
    if isinstance(node, ast.Call) and node.func == "grad":
        return False
    wrt = formula_wrt(session, node, options)
    if wrt is None:
        return False
    if wrt in session.values:
        if np.ndim(session.values[wrt]) != 0 or wrt == "ans":
            return False
    elif not _free_to_differentiate(session, wrt):
        return False
    # sin(x) --order 1 --series 3 with x free: --order's formulas, as without
    # --series, and the series beside them
    return any(n != wrt for n in unbound(session, node)) or (
        options.order is not None and wrt not in session.values)


def _free_to_differentiate(session: Session, name: str) -> bool:
    """A name that may be a variable: not a function, a built-in or a constant."""
    from ..lang.namespace import UNKNOWN, Namespace

    return Namespace(session.values, session.functions).kind(name) == UNKNOWN


def _variables(session: Session, node: Any) -> list[str]:
    """The variables ``node`` reads, bound or not, in the order written."""
    from .variables import variable_names

    return variable_names(session, free_names(node, session.functions))


def formula_wrt(session: Session, node: Any, options: EvalOptions) -> str | None:
    """The variable of --order's formulas: --wrt, or the only variable; None
    where there are several (a*x^2 with a bound needs --wrt x: with x + nosuch
    and x bound, the name without a value is a typo far more often)."""
    from .variables import default_wrt

    if options.wrt is not None:
        return options.wrt
    try:
        return default_wrt(session, node)
    except UsageError:
        return None


def _values(session: Session) -> dict[str, Any]:
    # a bound scalar is its number in the formula; an array cannot be one
    from ..core.backend import as_numpy

    return {k: float(as_numpy(v)) for k, v in session.values.items()
            if np.ndim(v) == 0 and k != "ans"}


def formula_of(session: Session, node: Any) -> Any:
    from ..errors import MathError
    from ..formula import from_ast  # only statements with formulas

    values = _values(session)
    try:
        return from_ast(node, session.functions, values)
    except MathError:  # a bound name's value divides by 0: its limit, if it has one
        f = _through_a_limit(session, node, values)
        if f is None:
            raise
        return f


def _through_a_limit(session: Session, node: Any, values: dict[str, float]) -> Any:
    """The formula of ``node`` where the values of the bound names make a 0/0
    (x = 0; diff(y*sin(x)/x, y) is 1): built with those names free, and their
    values put in after (``at_values``). None where it has none."""
    from ..errors import GradcliError
    from ..formula import from_ast

    reads = [n for n in free_names(node, session.functions) if n in values]
    held = {k: v for k, v in values.items() if k not in reads}
    try:
        f = from_ast(node, session.functions, held)
    except GradcliError:
        return None
    return at_values(f, {n: values[n] for n in reads})


def at_values(f: Any, values: dict[str, float]) -> Any:
    """The formula ``f`` with the names of ``values`` given their numbers (diff(
    sin(x)/x, y) is 0 whatever x), or where that divides by 0, its limit along
    one of them, x, as the values' path takes it (Calculus.limit): only where
    it is 0/0 on the whole line x = x0 (the others moved off their values, it
    is still undefined at x0 and has a limit there). A 0/0 that the values of
    several names make (x*z/(x^2 + z^2) at x = z = 0) has none: None."""
    from ..errors import GradcliError
    from ..formula import from_float
    from ..formula.rewrite import substitute, substitute_all
    from ..formula.series import series_coefficients
    from ..lang.calculus import OFF

    def put(f: Any, names: list[str], moved: bool = False) -> Any:
        return substitute_all(f, {m: from_float(values[m] + OFF * (1 + abs(values[m]))
                                                if moved else values[m]) for m in names})

    names = list(values)
    try:
        return put(f, names)
    except GradcliError:
        pass
    for n in names:
        others = [m for m in names if m != n]
        point = from_float(values[n])
        try:
            moved = put(f, others, moved=True)
            try:
                substitute(moved, n, point)
                continue  # a number there: no 0/0 on the line
            except GradcliError:
                pass
            # (order 1: a series of order 0 has no term to take a common zero off)
            series_coefficients(moved, n, point, 1)
            return series_coefficients(put(f, others), n, point, 1)[0]
        except GradcliError:
            continue
    return None


def evaluate_formulas(session: Session, node: Any, options: EvalOptions, res: Result) -> None:
    """Fill ``res`` with the formulas the statement asks for (see the module)."""
    from ..formula import FormulaTooLarge, derivatives
    from .variables import order_limit

    order_limit("order", options.order or 0)
    if options.series is not None:
        order_limit("series order", options.series)
    res.kind = "formula"
    session.values.pop("ans", None)
    session.no_ans = "the last result is a formula"
    if options.series is not None:
        _series(session, node, options, res)
        return
    if isinstance(node, ast.Call) and node.func == "grad":
        from ..lang.resolve import grad_args

        body, var_nodes = grad_args(node, session.functions)  # as the values' path checks
        res.gradient_formulas = _gradient(session, body, [v.id for v in var_nodes])
        return
    f = formula_of(session, node)
    res.formulas = [f]
    if options.grad:
        res.gradient_formulas = _gradient(session, node)
    if options.order is not None or options.formula:
        wrt = formula_wrt(session, node, options)
        if wrt is None and options.order:  # several variables: as with values
            from .variables import default_wrt

            default_wrt(session, node)
        res.wrt = wrt
        try:
            for _ in range(options.order or 0):
                res.formulas.append(derivatives(res.formulas[-1], wrt, 1)[-1])
        except FormulaTooLarge as err:
            # x^x --order 12: the orders that fit, then why the next does not
            order = len(res.formulas)
            res.error = FormulaTooLarge(order, err.size, err.limit).at(
                node.line or None, node.column or None)


def _series(session: Session, node: Any, options: EvalOptions, res: Result) -> None:
    """--series with formula coefficients (see ``_series_of_formulas``): the
    formula stays one in its variable, bound or not, and the coefficients are
    its derivatives' formulas at the point over k! (formula/series.py)."""
    from ..formula import FormulaTooLarge, derivatives, from_ast
    from ..formula.rewrite import free_names
    from ..formula.series import series_coefficients
    from ..rules import SERIES_CENTRE

    wrt = formula_wrt(session, node, options)
    assert wrt is not None  # (applies made sure)
    values = _values(session)
    values.pop(wrt, None)
    f = from_ast(node, session.functions, values)
    res.wrt, res.formulas = wrt, [f]
    # the hint names the names with no value: numbers need a value for each
    free = tuple(sorted(free_names(f) - {wrt}))
    try:
        for _ in range(options.order or 0):  # one at a time: the orders that fit stay
            res.formulas.append(derivatives(res.formulas[-1], wrt, 1)[-1])
    except FormulaTooLarge as err:  # the orders that fit, then why the next does not
        res.error = FormulaTooLarge(len(res.formulas), err.size, err.limit, free).at(
            node.line or None, node.column or None)
        return
    point, res.point_text = _series_point(session, wrt)
    res.point = np.asarray(float(session.values.get(wrt, SERIES_CENTRE)))
    try:
        res.series_formulas = series_coefficients(f, wrt, point, options.series or 0,
                                                  res.point_text)
    except FormulaTooLarge as err:
        raise FormulaTooLarge(err.order, err.size, err.limit, free) from None


def _series_point(session: Session, wrt: str) -> tuple[Any, str | None]:
    """The formula of the series' point and its text: 0 (SymPy's centre)
    where ``wrt`` has no value; else its --at text where that is the number
    (``pi``, ``1/3``: exact), or the number itself."""
    from ..formula import from_ast, from_float, plain
    from ..formula.series import closed_value
    from ..rules import SERIES_CENTRE

    if wrt not in session.values:
        return from_float(SERIES_CENTRE), None
    value = float(session.values[wrt])
    text = session.at_text.get(wrt)
    if text is not None:
        from ..errors import GradcliError
        from ..lang.parser import parse

        try:
            statements = parse(text)
            formula = from_ast(statements[0].node) if len(statements) == 1 else None
        except GradcliError:
            formula = None
        exact = None if formula is None else closed_value(formula)
        if exact is not None and session.dtype_type(exact) == session.dtype_type(value):
            return formula, text
    point = from_float(value)
    return point, plain(point)


def _gradient(session: Session, node: Any, names: list[str] | None = None) -> dict[str, Any]:
    """The gradient's formulas by ``names`` (by default every variable ``node``
    reads): the bound ones are symbols while differentiating, then their numbers."""
    from ..formula import diff, from_ast
    from ..formula.expr import from_float
    from ..formula.rewrite import substitute_all

    names = names or _variables(session, node)
    values = _values(session)
    symbols = {k: v for k, v in values.items() if k not in names}
    f = from_ast(node, session.functions, symbols)
    out = {}
    bound = {other: values[other] for other in names if other in values}
    for name in names:
        d = diff(f, name)
        if bound:
            at = at_values(d, bound)  # its limit where the values make a 0/0
            if at is None:
                d = substitute_all(d, {k: from_float(v) for k, v in bound.items()})  # the error
            else:
                d = at
        out[name] = d
    return out


def add_formulas(session: Session, node: Any, options: EvalOptions, res: Result) -> None:
    """``--formula``: the formulas of a numeric answer beside its numbers. The
    variable differentiated by stays a symbol, and the others are their
    values; without --order, --series or --check the variable is the one they
    would take (--wrt, or the only one), so the value's formula of ``x^3`` at
    x = 2 is ``x^3``, not 8. With --grad, every variable of the gradient."""
    from ..errors import GradcliError
    from ..formula import derivatives, diff, from_ast
    from .variables import default_wrt

    values = _values(session)
    try:
        wrt = res.wrt
        if wrt is None and res.gradient is None:
            # several variables and no --wrt: --order's usage error, as a warning
            wrt = options.wrt or default_wrt(session, node)
        if wrt is not None:
            values.pop(wrt, None)
        for name in res.gradient or ():
            values.pop(name, None)
        f = from_ast(node, session.functions, values)
        formulas = [f]
        if res.wrt is not None and options.order:
            formulas = [f, *derivatives(f, res.wrt, options.order)]
        gradient = {n: diff(f, n) for n in res.gradient} if res.gradient is not None else None
    except GradcliError as err:  # the numbers stand; only the formulas are missing
        why = err.reword(session.words).message.split("; ask for numbers")[0]
        session.warn(f"no formulas beside the numbers: {why}")
        return
    res.formulas, res.gradient_formulas = formulas, gradient


def prime_formula(session: Session, name: str, order: int) -> str | None:
    """``f'(x) = ...``: the formula of the derivative of a function of one
    variable (defined, or an elementwise built-in); None for any other name."""
    from ..formula import from_ast, plain
    from ..lang.namespace import builtin_function

    definition = session.functions.get(name)
    entry = builtin_function(name)
    if definition is not None and len(definition.params) == 1:
        param = definition.params[0]
    elif definition is None and entry is not None and entry.kind == "elementwise":
        param = "x"
    else:
        return None
    from ..errors import GradcliError

    values = {k: v for k, v in _values(session).items() if k != param}
    # f'(param) itself: differentiating f(param) by param would also take in
    # a variable of that name that f's body reads besides (h(u) = u + t, f(t) = h(t))
    prime = ast.Prime(func=name, order=order, args=(ast.Name(id=param, line=0, column=0),),
                      line=0, column=0)
    try:
        f = from_ast(prime, session.functions, values)
    except GradcliError as err:  # of the line as a whole: no column inside the body
        err.line = err.column = None
        raise err.reword(session.words) from None
    return f"{name}{chr(39) * order}({param}) = {plain(f)}"


def definition_text(session: Session, definition: Any) -> str | None:
    """The body of a definition that takes a derivative (``df(x) = diff(...)``)
    as the formula it is; None for other definitions, or where it has none."""
    from ..errors import GradcliError
    from ..formula import from_ast, plain

    if not differentiates(definition.body):
        return None
    values = {k: v for k, v in _values(session).items() if k not in definition.params}
    try:
        return plain(from_ast(definition.body, session.functions, values))
    except GradcliError:
        return None
