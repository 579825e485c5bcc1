"""The computational graph of one expression, or of its N-th derivative, as DOT.

``Session.graph`` (for ``gradcli plot`` and the REPL's ``:plot``) runs the
setup statements through the session, then builds the graph here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.derivatives import nested_derivative
from ..core.dot import count_nodes, get_dot_graph
from ..core.fpe import capture_fp_errors
from ..errors import GradcliError, LimitError, ShapeError, UsageError
from ..figures import GraphResult
from ..lang import ast
from ..lang.ast import free_names
from ..lang.evaluate import CONSTANTS, Evaluator
from ..lang.parser import parse
from ..limits import PLOT_MAX_NODES
from .curves import run_setup
from .expression import default_wrt, leaf_to_differentiate, order_limit

if TYPE_CHECKING:
    from .context import Grapher



def graph(session: Grapher, text: str, order: int = 0, wrt: str | None = None,
          verbose: bool = False, stand_ins: bool = False) -> GraphResult:
    """The graph of the last expression of ``text``, or with ``order`` N of its
    N-th derivative; the statements before it (assignments, definitions) run
    first. With ``stand_ins`` (and not ``verbose``, which shows values), a name
    with no value stands at a point of its own: a graph's shape needs none.
    Errors come worded in the session's words."""
    try:
        return _graph(session, text, order, wrt, verbose, stand_ins)
    except GradcliError as err:
        raise err.reword(session.words) from None


def _graph(session: Grapher, text: str, order: int, wrt: str | None,
           verbose: bool, stand_ins: bool) -> GraphResult:
    statements = parse(text)
    if not statements:
        raise UsageError("plot needs an expression to draw, as in: gradcli plot 'x^2' -o g.png")
    *setup, last = statements
    node = last.node
    if isinstance(node, (ast.Assign, ast.Define)) or any(
            not isinstance(st.node, (ast.Assign, ast.Define)) for st in setup):
        raise UsageError(
            "plot draws one expression (after any assignments and definitions)")
    if isinstance(node, ast.Call) and node.func == "grad":
        raise UsageError("plot draws an expression; for the graph of a gradient, "
                         "plot the expression with an order of 1 and the variable")
    order_limit("order", order)
    run_setup(session, setup)  # f(t) = ... before the expression that calls it
    unbound = {} if verbose or not stand_ins else {
        name: session.xp.asarray(0.5, dtype=session.dtype_type)
        for name in free_names(node, session.functions)
        if name not in session.values and name not in CONSTANTS and name != "ans"}
    # keep_graph: diff(...) and f'(x) stay graphs, to be drawn
    ev = Evaluator(session, keep_graph=True, overlay=unbound)
    ev.calculus.stand_ins = False  # a diff drawn shows its operations, 0/0 and all
    x = None
    if order:
        try:
            wrt = wrt or default_wrt(session, node)
        except GradcliError as err:  # several variables: the expression is the error
            raise err.at(node.line, node.column) from None
        if wrt is None:
            raise UsageError("the expression has no variable to differentiate by").at(
                node.line, node.column)
        x = leaf_to_differentiate(session, ev, wrt)
    with capture_fp_errors() as fp_messages:
        try:
            y = ev.eval(node)
        except ShapeError as err:  # A @ x with A unbound: the stand-in is a number
            if not unbound:
                raise
            names = ", ".join(sorted(unbound))
            raise err.prepend(f"{names} had no value, so a number stood in for "
                              f"{'it' if len(unbound) == 1 else 'each'}: ") from None
        # The output is "y" unless the user has a variable of that name.
        out = "out" if "y" in free_names(node) else "y"
        y.name = y.name or out
        if x is not None:
            y = nested_derivative(y, x, order, PLOT_MAX_NODES)
            n = order if order > 1 else ""
            y.name = f"d{n}{out}/d{wrt}{n}"  # dy/dx, d2y/dx2
    # warnings about the stand-in points' values would be about nothing the user gave
    session.replace_warnings([] if unbound else fp_messages)
    # the budget above counts the graphs built on the way; the one drawn counts too
    nodes = count_nodes(y)
    if nodes > PLOT_MAX_NODES:
        what = f"the order-{order} derivative's graph" if order else "the graph"
        raise LimitError(f"{what} has {nodes:,} nodes, more than the {PLOT_MAX_NODES:,} "
                         "drawn at most; ask for a lower order")
    return GraphResult(get_dot_graph(y, verbose=verbose, values=verbose), nodes, order, wrt)
