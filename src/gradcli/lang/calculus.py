"""Derivatives inside the language: ``diff``, ``f'``, ``grad``, and the matrix
forms (``hessian``, ``jacobian``, ``laplacian``: lang.matrices).

The Evaluator's differentiation, an object it owns: it reads names through
the evaluator's scopes (``diff`` binds its variable for the body), checks
arguments by the shared resolver's rules, and its results are Variables the
rest of the expression goes on with. At the top level the derivative engine
(``core.method.Derivatives``, Taylor mode where it applies) gives numbers;
inside another differentiation, backprop keeps a graph.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import derivatives
from ..core.backend import get_array_module
from ..core.derivatives import graph_size, mixed_warning, nested_derivative, summed_warning
from ..core.graph import Constant, Variable, attach, using_config
from ..core.hessian import count_variables
from ..core.known import KnownRows, stand_in
from ..core.method import Derivatives, undefined_where_nan
from ..core.ops import add
from ..errors import GradcliError, LimitError, MathError, UnknownNameError
from .ast import Call, Prime, free_names
from .matrices import by_each_variable, matrix_args, matrix_body, matrix_of, variable_names
from .namespace import CONSTANTS
from .resolve import MAX_ORDER, SPECIAL_FORMS, located, position

if TYPE_CHECKING:
    from .resolve import Definition, Resolver

    class Evaluator(Resolver[Variable]):
        """What Calculus reads of lang.evaluate.Evaluator (named here, not
        imported: the evaluator imports this module)."""

        ctx: Any

        def leaf(self, name: str) -> Variable | None: ...

__all__ = ["MAX_ORDER", "OFF", "SPECIAL_FORMS", "Calculus", "to_int"]


class Calculus:
    """``diff``, ``f'`` and ``grad`` for one Evaluator."""

    def __init__(self, ev: Evaluator, engine: Derivatives, keep_graph: bool = False) -> None:
        """``keep_graph``: the caller will differentiate the result again, so
        a ``diff`` or ``f'`` inside it must stay a graph, not become numbers."""
        self.ev = ev
        self.engine = engine
        self.keep_graph = keep_graph
        self.nodes_spent = 0  # by the nested derivatives of this statement
        self.diff_depth = 0
        self.filled: list[Variable] = []  # the nodes fill_limits gave a limit
        # whether a nested derivative may go through nodes that stand for their
        # own derivatives (_stand_in); a graph drawn shows its operations instead
        self.stand_ins = True

    def _order(self, node: Any, what: str) -> int:
        try:
            n = to_int(self.ev.eval(node), what)
        except GradcliError as err:
            if err.column is None:  # "not a whole number": the argument's own place
                err.at(*position(node))
            raise
        return self.ev.order_in_range(n, node, what)

    @staticmethod
    def _point(v: Variable, name: str | None, own: bool = False) -> Variable:
        # A constant point becomes a fresh leaf to differentiate by; a point
        # that depends on outer variables stays in the graph (chain rule), as a
        # node of its own: differentiating by the variable it is computed from
        # would also move that variable where the body uses it (diff(x*y, y, 1, x)
        # is x). A variable that is its ``own`` point (diff(x^3, x),
        # sin'(x)) is differentiated by itself: no node x + 0 in plots.
        if type(v) is Constant:
            return Variable(v.data, name=name)
        if own and v.creator is None:
            return v
        point = add(v, 0.0)
        point.name = name
        return point

    def diff(self, node: Call) -> Variable:
        ev = self.ev
        args = ev.diff_args(node)
        var = args.var
        order = self._order(args.order, "diff: the order") if args.order is not None else 1
        if args.point is not None:
            point = self._point(ev.eval(args.point), var.id)
        else:
            found = self.variable_point(var.id)
            if found is None:
                raise UnknownNameError(
                    f"'{var.id}' has no value; give the point: "
                    f"diff(expr, {var.id}, n, a)"
                ).at(*position(var))
            point = found
        self._value_not_formula(args.body, var.id)
        return self.differentiate(args.body, var.id, point, order, node)

    def variable_point(self, name: str) -> Variable | None:
        """The point a derivative by ``name`` is taken at, where ``name`` has a
        value here (None where it has none): a leaf of its own wherever the
        value is a constant (a parameter bound to a number, a name --wrt reads
        as one), so the derivative by it is not 0. ``diff`` and the matrix
        forms both bind their variables so."""
        found = self.ev.leaf(name)
        if found is None:
            return None
        # a parameter is a node apart from the argument it is bound to, or
        # whatever else reads that argument would move with it (g(t) =
        # diff(t*x, t) makes g(x) x; k(t, s) = diff(t*s, t) makes k(t, t) t)
        bound = self.ev.binding(name)
        return self._point(found, name, own=bound is None or not bound[1])

    def _value_not_formula(self, body: Any, var: str) -> None:
        """A note for diff(y, x) where y was assigned from x (y = x^2): y holds
        the number, so its derivative is 0, which is right but seldom meant."""
        reads = free_names(body, self.ev.functions)
        if var in reads:
            return
        held = [n for n in reads if n in self.ev.values and n != "ans"]
        if held:
            name = held[0]
            self.ev.ctx.warn(f"'{name}' holds a value, not a formula in {var}, so its derivative "
                          f"by {var} is 0; to differentiate a formula, define a function: "
                          f"{name}({var}) = ...")

    def differentiate(self, body: Any, name: str, point: Variable, order: int,
                      node: Any) -> Variable:
        self.diff_depth += 1
        try:
            # A derivative needs the graph even where the caller evaluates
            # without one (the central differences of --check).
            with self.ev.scope({name: point}), using_config("enable_backprop", True):
                y = self.ev.eval(body)
        finally:
            self.diff_depth -= 1
        try:
            return self.derivative(y, point, order)
        except GradcliError as err:
            raise located(err, node) from None

    def prime(self, node: Prime) -> Variable:
        definition, entry = self.ev.prime_target(node)
        # a built-in has no parameter name: its point is unnamed, so sin'(x)'s
        # graph has one node labelled x, the user's
        param = definition.params[0] if definition is not None else None
        # a built-in reads nothing but its argument: x can be its own point; a
        # defined function's body may read x besides (f(t) = t*x: f'(x) is x)
        point = self._point(self.ev.eval(node.args[0]), param, own=definition is None)
        self.diff_depth += 1
        try:
            with using_config("enable_backprop", True):
                if definition is not None:
                    y = self.ev.call_defined(definition, [point], node)
                else:
                    y = entry.call(point)
        finally:
            self.diff_depth -= 1
        try:
            return self.derivative(y, point, node.order)
        except GradcliError as err:
            raise located(err, node) from None

    def derivative(self, y: Variable, x: Variable, order: int) -> Variable:
        """The order-th derivative of y by x, as a Variable.

        Inside another differentiation the result must stay differentiable, so
        it is taken by backprop with create_graph; at the top level the
        session's engine (Taylor mode where it applies) gives plain numbers.
        """
        if order == 0:
            return y
        self.fill_limits(y, [x, *self.ev.statement_leaves()])
        if self.diff_depth > 0 or self.keep_graph:
            # the session's derivatives warn themselves
            message = summed_warning(y, x) or mixed_warning(y, x)
            if message is not None:
                self.ev.ctx.warn(message)
            # one budget for the statement: each diff of a nested diff starts from a
            # graph about 3 times the last, so it is the total that grows
            left = derivatives.BACKPROP_MAX_NODES - self.nodes_spent
            with using_config("enable_backprop", True):
                d = nested_derivative(y, x, order, left)
            self.nodes_spent += graph_size(d, left)
            if self.nodes_spent > derivatives.BACKPROP_MAX_NODES:
                raise LimitError(
                    f"nested derivatives have grown past {derivatives.BACKPROP_MAX_NODES:,} "
                    "graph nodes "
                    "in all; for an n-th derivative write diff(expr, x, n)")
            xp = get_array_module(d.data)
            if not (bool(xp.isnan(d.data).any()) or bool(xp.isnan(y.data).any())):
                return d
            if self.engine.method != "backprop" and self.stand_ins and _has_nan(d.data) \
                    and self._stand_in(y, x, order):
                # the graph again, through the nodes' own derivatives: the numbers
                # backprop had are kept, and the graph's derivatives are right too
                with using_config("enable_backprop", True):
                    again = nested_derivative(y, x, order, left)
                self.nodes_spent += graph_size(again, left)
                if again.shape == d.shape and again.creator is not None:
                    again.data = xp.where(xp.isnan(d.data), again.data, d.data)
                    d = again
            # Taylor mode's numbers where backprop's are nan at a removable
            # singularity (diff(2x/x, x) at 0), and nan where the value, its
            # limit included, is nan: as diff at the top level gives them. The
            # graph stays, for the derivatives taken of it.
            rows = None if self.engine.method == "backprop" else self._quietly(
                lambda: undefined_where_nan(
                    self.orders_through_limits(y, x, self.engine.orders(y, x, order))))
            if rows is not None and rows[-1].shape == d.shape:
                patched = xp.where(xp.isnan(d.data), rows[-1], d.data)
                patched = xp.where(xp.isnan(rows[-1]), xp.nan, patched)
                if d.creator is None:  # a leaf may be shared: a new one
                    return Constant(patched)
                d.data = patched
            elif d.shape == y.shape:  # a value that is nan has no derivatives
                d = d + Constant(xp.where(xp.isnan(y.data), xp.nan, 0.0))
            return d
        rows = self.orders_through_limits(y, x, self.engine.orders(y, x, order))
        # a value that is nan has no derivatives, whatever it depends on
        return Constant(undefined_where_nan(rows)[-1])

    def _stand_in(self, y: Variable, x: Variable, order: int) -> bool:
        """Make each node ``_cuts`` names in y's graph that depends on no leaf but
        x stand, for good, for its own derivatives by x (``KnownRows``: Taylor
        mode's, the limit's at a removable singularity, as many orders as are
        asked of it later), so that a derivative graph built through it, and
        the derivatives taken of that one, go through no 0/0 (diff(diff(sin(x)/x,
        x), x) at 0). Whether it made any."""
        swapped: list[tuple[Variable, Any]] = []

        def rows(o: Variable, n: int) -> list[Any] | None:
            # Taylor mode over the operations that made o (and the nodes below it)
            now = [(v, v.creator) for v, _ in swapped]
            for v, creator in swapped:
                v.creator = creator
            try:
                got = self._quietly(lambda: self.engine.orders(o, x, n))
            finally:
                for v, creator in now:
                    v.creator = creator
            return got if got is not None and all(r.shape == o.shape for r in got) \
                else None

        for reductions in (False, True):  # the fewest cuts first
            # a node that reads other variables too (sin(x*y)/(x*y)) stands for its
            # derivatives by x; by the others they are unknown (nan), not 0
            cut = [(o, () if _on_alone(o, x) else tuple(v for v in _leaves(o) if v is not x))
                   for o in _cuts(y, x, self.filled, reductions)
                   if type(o.creator) is not KnownRows]
            first = [(o, others, rows(o, order)) for o, others in cut]
            for o, others, got in first:
                if got is not None:
                    swapped.append((o, o.creator))
                    stand_in(o, x, KnownRows(
                        got, 0, lambda n, o=o: rows(o, n)), others)
            if swapped:
                return True
        return False

    def _quietly(self, work: Any) -> Any:
        """``work()`` by the engine, its method and notes left as they were (a
        number taken on the side); None where it fails."""
        used, notes = self.engine.used, len(self.engine.notes)
        try:
            return work()
        except GradcliError:
            return None
        finally:
            self.engine.used = used
            del self.engine.notes[notes:]

    def limit(self, y: Variable, leaves: list[Variable]) -> Any:
        """y's values, with its limit where it is nan and a limit exists along one
        of ``leaves`` (sin(x)/x at 0 is 1): Taylor mode's value, the one
        ``--order`` prints. Only an explicit backprop keeps the nan."""
        xp = get_array_module(y.data)
        bad = xp.isnan(y.data)
        if self.engine.method == "backprop" or y.creator is None or not bool(bad.any()):
            return y.data
        value = y.data
        for x in leaves:
            if type(x) is Constant or not x.data.size:
                continue
            row = self._quietly(lambda x=x: self.engine.orders(y, x, 1)[0])
            if row is not None and row.shape == value.shape:
                row = self._along_alone(y, x, row, bad)
                value = xp.where(bad, row, value)
                bad = xp.isnan(value)
                if not bool(bad.any()):
                    break
        return value

    def _along_alone(self, y: Variable, x: Variable, row: Any, bad: Any) -> Any:
        """``row`` (y's limit along x, the other leaves held at their values) where
        it is the limit in every variable, else nan. A 0/0 that one other leaf
        z's value makes (x/y at x = y = 0 along y: x = 0 is why the numerator
        vanishes) has no limit: only a 0/0 that stays one, with a finite limit
        along x, on the whole line x = x0 is removable (sin(x*y)/x: 0/0 at x = 0
        whatever y). Taken again with the other leaves moved off their values,
        y must still be nan where it was and its limit along x a number."""
        xp = get_array_module(row)
        others = [v for v in _leaves(y) if v is not x]
        found = bad & xp.isfinite(row)
        if not others or not bool(found.any()):
            return row
        keep = found & False
        for sign in (1.0, -1.0):  # a side may leave a domain (sqrt(y) at y = 0)
            moved = self._quietly(lambda s=sign: _moved(
                y, others, s, lambda: (y.data, self.engine.orders(y, x, 1)[0])))
            if moved is not None and moved[1].shape == row.shape:
                keep = keep | (found & xp.isnan(moved[0]) & xp.isfinite(moved[1]))
        return xp.where(keep | ~found, row, xp.nan)

    def across(self, y: Variable, v: Variable, order: int) -> list[Any] | None:
        """[y, dy/dv, ..., d^order y/dv^order] where y is 0/0 at the point, removable
        along another leaf x on the whole line x = x0 (_along_alone), and Taylor
        mode along v alone meets the 0/0 (sin(x*y)/x by y at x = 0). There y is
        the analytic function its limit is, whose derivatives by v are those of
        y along the directions (1, c) in (x, v), which Taylor mode takes through
        the 0/0 (the series of x moves): order k of that is a polynomial in c
        of degree k whose leading coefficient is the k-th derivative by v, its
        k-th difference over c = 0..k divided by k!. None where no leaf gives
        them, or past ACROSS_ORDER (the differences lose digits)."""
        if self.engine.method == "backprop" or y.creator is None or order > ACROSS_ORDER:
            return None
        xp = get_array_module(y.data)
        out: list[Any] | None = None
        # by a number v, of a sweep over x: the derivatives of the sum of y's
        # elements, each element's own by v summed (sin(x*y)/x --grad over x)
        summed = v.size == 1 and y.size > 1
        for x in _leaves(y):
            if x is v or (x.shape != v.shape and x.size != 1
                          and not (summed and x.shape == y.shape)):
                continue
            row = self._quietly(lambda x=x: self.engine.orders(y, x, 0)[0])
            if row is None or row.shape != y.shape:
                continue
            found = xp.isfinite(self._along_alone(y, x, row, xp.ones(row.shape, dtype=bool)))
            if not bool(found.any()):
                continue
            if summed:  # the elements that are no 0/0 count too: those undefined do not
                raw = _moved(y, [x], 0.0, lambda: xp.array(y.data))
                found = found | ~xp.isnan(raw)
            ds = [self._quietly(lambda c=c, x=x: _along_line(y, x, v, c, lambda s: (
                self.engine.orders(y, s, order)))) for c in range(order + 1)]
            if any(d is None or any(r.shape != y.shape for r in d) for d in ds):
                continue
            rows = [row]
            for k in range(1, order + 1):
                total = sum((-1) ** (k - i) * math.comb(k, i) * ds[i][k] for i in range(k + 1))
                rows.append(total / math.factorial(k))
            rows = [xp.where(found, r, xp.nan) for r in rows]
            if summed:
                rows[1:] = [r.sum().reshape(v.shape) for r in rows[1:]]
            out = rows if out is None else [xp.where(xp.isnan(a), b, a) for a, b in zip(out, rows)]
        return out

    def fill_limits(self, y: Variable, leaves: list[Variable]) -> None:
        """Give each node of y's graph that is nan at the point, from inputs that
        are not, its limit along one of ``leaves`` (the node sin(x)/x at x = 0 is
        1), and compute the nodes after it again: every derivative then reads the
        numbers the value path prints (d/dy of sin(x)/x*y at x = 0 is 1, and
        sum(sin(x)/x) keeps its other elements). Only an explicit backprop keeps
        the nan. At most ``MAX_FILLED`` nodes are tried: each is a Taylor pass."""
        xp = get_array_module(y.data)
        if self.engine.method == "backprop" or y.creator is None \
                or not _has_nan(y.data):
            return
        leaves = [x for x in leaves if type(x) is not Constant and x.data.size
                  and x.data.dtype.kind == "f"]
        if not leaves:
            return
        changed: set[int] = set()
        tries = 0
        for f in _functions(y):
            outs = [ref() for ref in f.outputs]
            if any(id(x) in changed for x in f.inputs):
                with xp.errstate(all="ignore"):
                    ys = f.forward(*[x.data for x in f.inputs])
                for out, data in zip(outs, ys if isinstance(ys, tuple) else (ys,)):
                    if out is not None:
                        out.data = xp.asarray(data, dtype=out.data.dtype)
                        changed.add(id(out))
            if any(_has_nan(x.data) for x in f.inputs):
                continue
            for out in outs:
                if out is None or not _has_nan(out.data) or tries >= MAX_FILLED:
                    continue
                tries += 1
                filled = self.limit(out, leaves)
                if filled is not out.data:
                    out.data = xp.asarray(filled, dtype=out.data.dtype)
                    changed.add(id(out))
                    self.filled.append(out)

    def gradient_values(self, y: Variable, leaves: dict[str, Variable]) -> dict[str, Any]:
        """y's partial derivatives by ``leaves`` (backprop), with Taylor mode's
        where backprop's are nan at a removable singularity (d/dx of sin(x)/x at
        0), and nan where the value is nan (log(-y) has no derivative at 1), as
        the derivatives by one variable are."""
        self.fill_limits(y, list(leaves.values()))
        gs = derivatives.grad(y, list(leaves.values())) if leaves else []
        out = {}
        for (name, leaf), g in zip(leaves.items(), gs):
            data = g.data
            if self.engine.method != "backprop" and data.dtype.kind in "fc" \
                    and not bool(get_array_module(data).isfinite(data).all()):
                data = self.through_limits(y, leaf, data)
            out[name] = undefined_where_nan([y.data, data])[1]
        return out

    def orders_through_limits(self, y: Variable, x: Variable, rows: list[Any]) -> list[Any]:
        """``rows`` (y and its derivatives by x, as the engine gave them) where
        backprop's are nan at a removable singularity that Taylor mode could not
        take whole (sum(sin(x)/x) at 0: the sum mixes x's elements): the first
        derivative by ``through_limits``, the higher ones by ``_higher_through``.
        Only an explicit backprop keeps the nan."""
        if self.engine.method == "backprop" or len(rows) < 2 \
                or not any(_has_nan(r) for r in rows[1:]):
            return rows
        rows = list(rows)
        if _has_nan(rows[1]):
            rows[1] = self.through_limits(y, x, rows[1])
        xp = get_array_module(rows[1])
        if len(rows) >= 3 and any(_has_nan(r) for r in rows[2:]):
            # a 0/0 removable along another variable (sin(x*y)/x by y at x = 0)
            more = self.across(y, x, len(rows) - 1)
            for k in range(2, len(rows)) if more is not None else ():
                if more[k].shape == rows[k].shape:
                    rows[k] = xp.where(xp.isnan(rows[k]), more[k], rows[k])
        if len(rows) < 3 or self.engine.used != "backprop" or y.creator is None:
            return rows  # Taylor mode's nan is no backprop's through a limit
        for reductions in (False, True):  # the fewest cuts first
            if not any(_has_nan(r) for r in rows[2:]):
                break
            more = self._higher_through(y, x, len(rows) - 1, reductions)
            for k in range(2, len(rows)) if more is not None else ():
                if more[k].shape == rows[k].shape:
                    rows[k] = xp.where(xp.isnan(rows[k]), more[k], rows[k])
        return rows

    def _higher_through(self, y: Variable, x: Variable, order: int,
                        reductions: bool) -> list[Any] | None:
        """[None, dy/dx, ..., d^order y/dx^order] by repeated backprop with each
        node ``_cuts`` names standing for its own derivatives by Taylor mode
        (elementwise in x: one row an order, the limit's where it has one), so
        that no order goes through the 0/0 inside them; None where no node can."""
        known = []
        for o in _cuts(y, x, self.filled, reductions):
            rows = self._quietly(lambda o=o: self.engine.orders(o, x, order))
            if rows is not None and all(r.shape == o.shape for r in rows):
                known.append((o, rows))
        if not known:
            return None
        used, notes = self.engine.used, len(self.engine.notes)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")  # a number taken on the side
                ds = derivatives.higher_derivatives_through(
                    y, x, order, known, derivatives.BACKPROP_MAX_NODES)
        except GradcliError:
            return None
        finally:
            self.engine.used = used
            del self.engine.notes[notes:]
        return [None, *(d.data for d in ds)]

    def through_limits(self, y: Variable, leaf: Variable, g: Any) -> Any:
        """dy/d``leaf`` where backprop's ``g`` is not finite: Taylor mode's where
        it applies (the number --order 1 prints); where it is still nan, the
        chain rule through the nodes ``_cuts`` names, each cut from its graph:
        backprop to them and to the leaf, times each one's own derivative by
        Taylor mode (elementwise in the leaf, so one number an element)."""
        xp = get_array_module(g)
        row = self._quietly(lambda: self.engine.orders(y, leaf, 1)[1])
        if row is not None and row.shape == g.shape:
            g = xp.where(xp.isfinite(g), g, row)
        if not _has_nan(g) or y.creator is None:
            return g
        rows = self.across(y, leaf, 1)
        if rows is not None and rows[1].shape == g.shape:
            g = xp.where(xp.isnan(g), rows[1], g)
            if not _has_nan(g):
                return g
        for reductions in (False, True):  # the fewest cuts first
            cut = _cuts(y, leaf, self.filled, reductions)
            total = self._chain(y, leaf, cut) if cut else None
            if total is not None:
                g = xp.where(xp.isnan(g), total, g)
            if not _has_nan(g):
                break
        return g

    def _chain(self, y: Variable, leaf: Variable, cut: list[Variable]) -> Any:
        """dy/d``leaf`` by backprop with the nodes ``cut`` from the graph, each
        one's part by its own derivative (Taylor mode's); None where one has none."""
        creators = [o.creator for o in cut]
        try:
            for o in cut:
                o.creator = None
            parts = derivatives.grad(y, [leaf, *cut])
        finally:
            for o, c in zip(cut, creators):
                o.creator = c
        total = parts[0].data
        for o, part in zip(cut, parts[1:]):
            local = self._quietly(lambda o=o: self.engine.orders(o, leaf, 1)[1])
            if local is None or local.shape != o.shape:
                return None
            total = total + part.data * local
        return total

    def call_limit(self, definition: Definition, args: list[Variable], node: Any,
                   y: Variable) -> Variable:
        """f(a) for f(t) = sin(t)/t where a is 0: its limit, as f(t) at t = a has
        it (see ``limit``), taken along each parameter in turn. A result that
        is a graph keeps it: only its values change (what is differentiated
        is the graph, whose own derivatives Taylor mode takes)."""
        xp = get_array_module(y.data)
        if self.engine.method == "backprop" or not bool(xp.isnan(y.data).any()):
            return y
        value = y.data
        for i, arg in enumerate(args):
            if arg.data.dtype.kind != "f":
                continue
            # the other parameters are variables too: a 0/0 that they make (a/b
            # at a = b = 0) has no limit (_along_alone)
            points = [Variable(a.data, name=p) if a.data.dtype.kind == "f" else Constant(a.data)
                      for a, p in zip(args, definition.params)]
            x = points[i]
            with using_config("enable_backprop", True):
                fx = self.ev.call_defined(definition, points, node)
            limit = self.limit(fx, [x])
            if limit.shape == value.shape:
                value = xp.where(xp.isnan(value), limit, value)
            if not bool(xp.isnan(value).any()):
                break
        if type(y) is Constant:
            return Constant(value)
        y.data = value
        self.filled.append(y)
        return y

    def gradient(self, node: Call, variables: list[str]) -> tuple[Variable, dict[str, Variable]]:
        """``grad(expr[, x, y...])``: the expression's value and the leaves it is
        differentiated by (the names written, else ``variables``), checked."""
        ev = self.ev
        body, var_nodes = ev.grad_args(node)
        names = [v.id for v in var_nodes] or variables
        leaves = {}
        written = {v.id: v for v in reversed(var_nodes)}  # each name's first place
        for name in names:
            leaf = ev.leaf(name)
            if leaf is None:
                if name not in written:
                    ev.eval(body)  # says which name, where the body uses it
                raise ev.unknown(name, written.get(name))
            leaves[name] = leaf
        y = ev.eval(body)  # first: a name without a value is reported as such
        if not names:
            raise MathError("grad: the expression has no variable to differentiate by").at(
                *position(node))
        for leaf in leaves.values():
            message = summed_warning(y, leaf)
            if message is not None:
                ev.ctx.warn(message)
        return y, leaves

    def matrix(self, node: Call) -> Variable:
        """``hessian``, ``jacobian`` or ``laplacian`` in an expression (lang.matrices):
        numbers, or inside a derivative a graph that differentiates again."""
        functions = self.ev.functions
        args = matrix_args(node, functions)
        names = variable_names(args, functions, CONSTANTS)
        points = {name: self.variable_point(name) for name in names}
        self.diff_depth += 1  # the body's diffs keep their graphs, as inside diff
        try:
            y, leaves = matrix_body(self.ev, args, points, node)
        finally:
            self.diff_depth -= 1
        nested = self.diff_depth > 0 or self.keep_graph
        if args.form == "laplacian" and by_each_variable(y, leaves):
            # diff(y, x, 2) by each variable, on each path as diff takes it: at
            # the top level Taylor mode's numbers, with its limits (sin(x)/x
            # at 0); inside a derivative a graph; over a sweep one a point
            try:
                count_variables(leaves, "a Laplacian")
                total = self.derivative(y, leaves[0], 2)
                for leaf in leaves[1:]:
                    d = self.derivative(y, leaf, 2)
                    total = total + d if nested else Constant(total.data + d.data)
            except GradcliError as err:
                raise located(err, node) from None
            return total
        m = matrix_of(args.form, y, leaves, node, nested)
        if nested or self.engine.method == "backprop" or not _has_nan(m.data):
            return m
        # backprop's nan at a removable singularity (hessian(sin(x)/x) at 0)
        patched = self._quietly(lambda: self._matrix_limits(args.form, y, leaves, m.data))
        return m if patched is None else Constant(patched)

    def _matrix_limits(self, form: str, y: Variable, leaves: list[Variable],
                       numbers: Any) -> Any:
        """``numbers`` (a Hessian or Jacobian by backprop) with the limit's where
        they are nan at a removable singularity, as diff takes them: each
        derivative by one variable through ``orders_through_limits``; a Hessian's
        mixed partial from the second derivative along the direction (1, 1) in
        the two variables, which Taylor mode takes through the 0/0 (it is
        H_ii + 2 H_ij + H_jj); nan where the value is nan, as diff has it. None
        where some variable is an array (their elements are the rows)."""
        if form not in ("hessian", "jacobian") or any(x.size != 1 for x in leaves):
            return None
        xp = get_array_module(numbers)
        self.fill_limits(y, leaves)
        value = xp.asarray(self.limit(y, leaves)).reshape(-1)
        out = xp.array(numbers)
        # a value that is nan has no derivatives (x/y at (0, 0)), as diff gives them
        bad = xp.isnan(value)
        if form == "hessian" and bool(bad.any()):
            return xp.full_like(out, xp.nan)
        if form == "jacobian":
            out[bad] = xp.nan

        def orders(o: Variable, x: Variable, n: int) -> list[Any]:
            rows = self.orders_through_limits(o, x, self.engine.orders(o, x, n))
            return undefined_where_nan(rows)

        if form == "jacobian":
            flat = y.reshape((y.size,)) if y.ndim != 1 else y
            for i in range(y.size):
                if bool(xp.isnan(value[i])):
                    continue
                yi = flat[i]
                for j, x in enumerate(leaves):
                    if bool(xp.isnan(out[i, j])):
                        out[i, j] = orders(yi, x, 1)[1].reshape(())
            return out
        diag = [orders(y, x, 2)[2].reshape(()) for x in leaves]
        for i, x in enumerate(leaves):
            if bool(xp.isnan(out[i, i])):
                out[i, i] = diag[i]
            for j in range(i + 1, len(leaves)):
                if bool(xp.isnan(out[i, j])):
                    d2 = _along_line(y, x, leaves[j], 1.0,
                                     lambda s: self.engine.orders(y, s, 2))[2].reshape(())
                    out[i, j] = out[j, i] = (d2 - diag[i] - diag[j]) / 2
        return out


MAX_FILLED = 16
"""Nodes of one graph whose limits ``fill_limits`` looks for (a Taylor pass each)."""


def _has_nan(data: Any) -> bool:
    return data.dtype.kind in "fc" and bool(get_array_module(data).isnan(data).any())


def _functions(y: Variable) -> list[Any]:
    """The Functions of y's graph, each after those that compute its inputs."""
    seen: set[int] = set()
    stack, out = [y.creator], []
    seen.add(id(y.creator))
    while stack:
        f = stack.pop()
        out.append(f)
        for x in f.inputs:
            if x.creator is not None and id(x.creator) not in seen:
                seen.add(id(x.creator))
                stack.append(x.creator)
    out.sort(key=lambda f: f.generation)
    return out


def _cuts(y: Variable, leaf: Variable, filled: list[Variable],
          reductions: bool) -> list[Variable]:
    """The nodes of y's graph to take the chain rule through by Taylor mode, for
    dy/d``leaf`` where backprop's is nan: those given a limit, and with
    ``reductions`` the arguments of a reduction (sum(sin(x)/x), sum((x - x)^0.5)),
    each of the leaf's shape (a limit given to a sum is no one element's) and
    elementwise in it; at most ``MAX_FILLED``."""
    found: dict[int, Variable] = {}
    graph = _functions(y)
    inside = {id(ref()) for f in graph for ref in f.outputs}
    for o in filled:
        if id(o) in inside:
            found[id(o)] = o
    for f in graph if reductions else ():
        outs = [ref() for ref in f.outputs]
        if all(out is not None and out.shape == leaf.shape for out in outs):
            continue
        for x in f.inputs:
            if x.creator is not None and x.shape == leaf.shape:
                found.setdefault(id(x), x)
    return [o for o in found.values() if o is not leaf and o.shape == leaf.shape
            and mixed_warning(o, leaf) is None][:MAX_FILLED]


def _leaves(y: Variable) -> list[Variable]:
    """The leaves of y's graph that are variables (no Constant)."""
    seen: set[int] = set()
    out = []
    for f in _functions(y) if y.creator is not None else ():
        for v in f.inputs:
            if v.creator is None and type(v) is not Constant and id(v) not in seen \
                    and v.data.dtype.kind == "f":
                seen.add(id(v))
                out.append(v)
    return out


OFF = 0.3183098861837907
"""How far ``_moved`` moves a leaf, relative to 1 + its size (1/pi: no round
number, where an expression is seldom singular)."""


def _moved(y: Variable, leaves: list[Variable], sign: float, work: Any) -> Any:
    """``work()`` with y's graph computed again with ``leaves`` moved off their
    values by sign * OFF * (1 + |value|); the graph's values (and the state its
    Functions keep from their forward pass) are put back after."""
    graph = _functions(y)
    nodes = [ref() for f in graph for ref in f.outputs]
    saved = [(v, v.data) for v in [*leaves, *nodes] if v is not None]

    def forward() -> None:
        for f in graph:
            xp = get_array_module(f.inputs[0].data) if f.inputs else np
            with xp.errstate(all="ignore"):
                ys = f.forward(*[v.data for v in f.inputs])
            for ref, data in zip(f.outputs, ys if isinstance(ys, tuple) else (ys,)):
                out = ref()
                if out is not None:
                    out.data = xp.asarray(data, dtype=out.data.dtype)

    try:
        for v in leaves:
            xp = get_array_module(v.data)
            v.data = v.data + sign * OFF * (1 + xp.abs(v.data))
        forward()
        return work()
    finally:
        for v, data in saved[: len(leaves)]:
            v.data = data
        forward()
        for v, data in saved:
            v.data = data


ACROSS_ORDER = 6
"""The highest order ``Calculus.across`` takes (its differences over c = 0..k
lose about k*log10(k) digits)."""


def _along_line(y: Variable, x: Variable, v: Variable, c: float, work: Any) -> Any:
    """``work(s)`` with the leaves x and v made, for the while, the nodes
    x0 + s and v0 + c*s of a new leaf s at 0 (Taylor mode along s is then
    along the direction (1, c) in (x, v)); the graph is as it was after."""
    xp = get_array_module(x.data)
    s = Variable(xp.zeros(x.shape if x.size >= v.size else v.shape, dtype=x.data.dtype))
    s.generation = -6
    saved = [(x, x.creator, x.generation), (v, v.creator, v.generation)]
    try:
        with using_config("enable_backprop", True):
            mx = add(s, Constant(x.data))
            mv = add(s * Constant(xp.asarray(c, dtype=v.data.dtype)), Constant(v.data))
        # generations below every node the graph had (a Constant's is 0): x and
        # v are made first
        scaled = mv.creator.inputs[0]
        scaled.creator.generation, scaled.generation = -5, -4
        for node, made in ((x, mx), (v, mv)):
            f = made.creator
            attach(f, list(f.inputs), node, -3)
        return work(s)
    finally:
        for node, creator, generation in saved:
            node.creator, node.generation = creator, generation


def _on_alone(o: Variable, x: Variable) -> bool:
    """Whether o depends on no leaf but x (constants aside): a node that stands
    for its derivatives by x has none by another variable."""
    seen: set[int] = set()
    stack = [o]
    while stack:
        v = stack.pop()
        if v is x or id(v) in seen or type(v) is Constant:
            continue
        seen.add(id(v))
        if v.creator is None:
            return False
        stack.extend(v.creator.inputs)
    return True


def to_int(v: Variable, what: str) -> int:
    data = v.data
    if data.ndim:  # [0] too: NumPy reads v[[0]] as [v0], not v[0]
        raise MathError(f"{what} must be a single whole number, got shape {data.shape}")
    f = float(data.reshape(()))
    if not math.isfinite(f) or f != int(f):
        raise MathError(f"{what} must be a whole number, got {f:g}")
    if abs(f) > 2.0**62:  # no array is this large; NumPy's own message is a puzzle
        raise MathError(f"{what} {f:g} is out of range")
    return int(f)
