"""The session: bindings, definitions, and ``run(text) -> results``.

One Session sits under each shell: ``gradcli eval`` feeds it its arguments or
standard input, the REPL feeds it lines. It turns statements into Results and
never prints; everything a user sees comes from a renderer.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .core import backend
from .core.check import ATOL, RTOL, central_difference, step_size, within_tolerance
from .core.derivatives import grad as core_grad
from .core.derivatives import higher_derivatives, summed_warning
from .core.fpe import INF_RESULT, NAN_RESULT, capture_fp_errors
from .core.graph import Constant, Variable, no_grad
from .core.registry import REGISTRY
from .errors import (
    ArityError,
    GradcliError,
    LimitError,
    MathError,
    NumericWarning,
    ReservedNameError,
    UnknownNameError,
    UsageError,
)
from .lang import ast
from .lang.evaluate import (
    BACKPROP_MAX_NODES,
    CONSTANT_ALIASES,
    CONSTANTS,
    MAX_ORDER,
    SPECIAL_FORMS,
    Definition,
    Evaluator,
    free_names,
    nested_derivative,
)
from .lang.names import is_name, power_meant
from .lang.parser import BadStatement, Statement, parse, parse_each
from .record import Record
from .results import CheckEntry, Result

METHODS = ("auto", "taylor", "backprop")
CLI_HINTS = {
    "value": "give one with --at {name}=... or {name} = ...",
    "wrt": "choose one with --wrt",
    "order": "--order", "series": "--series", "check": "--check", "grad": "--grad",
}
REPL_HINTS = {
    "value": "assign one first: {name} = ...",
    "wrt": "differentiate by one through a function of it (f(t) = ..., then f(x)), "
           "or use diff(expr, x, n)",
    "order": ":d's order", "series": "a series", "check": ":check", "grad": "grad",
}
DTYPES = {"float64": np.float64, "float32": np.float32}
MAX_CHECK_ELEMENTS = 1000
ACCURATE_ORDER = 30
"""Orders up to this agree with 50-digit mpmath to 1e-6 on the benchmark formulas."""
PLOT_MAX_NODES = 20_000
"""A derivative's graph is drawn up to this many nodes (all orders' graphs
together): a larger picture is unreadable, and Graphviz takes minutes on it."""


class EvalOptions(Record, mutable=True):
    """What to compute for each expression statement, beyond its value."""

    wrt: str | None = None
    order: int = 0
    grad: bool = False
    check: bool = False
    series: int | None = None

    @property
    def wants_derivatives(self) -> bool:
        return self.order > 0 or self.check or self.series is not None


class GraphResult(Record):
    """The DOT text of an expression's graph (or of its N-th derivative's)."""

    dot: str
    nodes: int
    order: int
    wrt: str | None


class Session:
    """Bindings, definitions and settings that outlive one statement, and the
    evaluator's context: the CLI and the REPL each hold one."""

    def __init__(
        self,
        dtype: str = "float64",
        device: str = "cpu",
        method: str = "auto",
        values: dict[str, Any] | None = None,
        functions: dict[str, Definition] | None = None,
        at: dict[str, np.ndarray] | None = None,
        hints: dict[str, str] | None = None,
    ) -> None:
        if dtype not in DTYPES:
            raise UsageError(f"unknown dtype {dtype!r}; expected float64 or float32")
        if method not in METHODS:
            raise UsageError(f"unknown method {method!r}; expected auto, taylor or backprop")
        self.dtype, self.device, self.method = dtype, device, method
        self.values: dict[str, Any] = {} if values is None else values
        self.functions: dict[str, Definition] = {} if functions is None else functions
        self.at: dict[str, np.ndarray] = {} if at is None else at
        # How messages tell the user to fix a missing value or an ambiguous
        # variable: the CLI's flags by default; the REPL words them its own way.
        self.hints: dict[str, str] = dict(CLI_HINTS) if hints is None else hints
        self.xp = backend.xp_for(device)  # a DeviceError when no GPU is there
        self._reports_fp_errors = self.xp is np  # see _on_cpu
        self._dtype = DTYPES[dtype]
        self._warnings: list[str] = []
        self.no_ans: str | None = None  # why ans has no value, when a result left none
        self._last_method: str | None = None

    # --- what the evaluator needs ---------------------------------------------

    def constant(self, value: float, text: str | None = None) -> Constant:
        """``value`` in the session's dtype; a warning names it as ``text`` (as typed)."""
        with np.errstate(over="ignore"):
            data = self.xp.asarray(value, dtype=self._dtype)
        shown = f"{value:g}" if text is None else text
        if math.isfinite(value) and not bool(self.xp.isfinite(data)):
            self._warnings.append(f"the number {shown} is too large for {self.dtype}; it is inf")
        elif value != 0.0 and not bool(data):
            self._warnings.append(f"the number {shown} is too small for {self.dtype}; it is 0")
        return Constant(data)

    def derivatives(self, y: Variable, x: Variable, order: int) -> list[Any]:
        """[y, dy/dx, ..., d^order y/dx^order] as arrays, by the session's method."""
        if order:
            self._warn_if_summed(y, x)
        if y is x or y.creator is None:
            zero = self.xp.zeros_like(x.data)
            first = self.xp.ones_like(x.data) if y is x else zero
            return ([y.data, first] + [zero] * order)[: order + 1]
        if self.method != "backprop":
            # Taylor mode's order limit is the language's: no order reaches past it
            result = self._unknowns_resolved(_taylor(y, x, order), order,
                                             lambda n: _taylor(y, x, n))
            if result is not None:
                self._last_method = "taylor"
                return _undefined_where_nan(list(result))
            if self.method == "taylor":
                self._warnings.append(
                    "Taylor mode does not apply to this expression (it mixes the elements "
                    "of an array variable); derivatives were taken by backprop"
                )
        self._last_method = "backprop"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NumericWarning)
            ds = higher_derivatives(y, x, order, max_nodes=BACKPROP_MAX_NODES)
        self._warnings.extend(str(w.message) for w in caught)
        return _undefined_where_nan([y.data] + [d.data for d in ds])

    def _warn_if_summed(self, y: Variable, x: Variable) -> None:
        # DeZero's rule, as SPEC has it; [cos(t), sin(t)] by t gave 1 with no word
        message = summed_warning(y, x)
        if message is not None:
            self._warnings.append(message)

    # --- running text -------------------------------------------------------------

    def run(self, text: str, options: EvalOptions | None = None,
            first_line: int = 1, whole: bool = False) -> list[Result]:
        """Every statement of ``text``, in order; a failed one does not stop the rest.
        With ``whole`` (a REPL line), a statement that does not parse stops them
        all before any runs: the errors are the results."""
        options = options or EvalOptions()
        try:
            statements = parse_each(text)
        except GradcliError as err:
            return [Result(input=text.strip()[:200], line=first_line, kind="error", error=err)]
        if whole and any(isinstance(st, BadStatement) for st in statements):
            statements = [st for st in statements if isinstance(st, BadStatement)]
        out = []
        for st in statements:
            res = self.run_statement(st, options)
            if first_line != 1:  # the statement's text started that far into a stream
                res.line += first_line - 1
                if res.error is not None and res.error.line is not None:
                    res.error.line += first_line - 1
            out.append(res)
        return out

    def run_statement(self, st: Statement | BadStatement, options: EvalOptions) -> Result:
        if "ans" in self.at:  # --at ans=3: every result rebinds it, as x = 5 does x
            ans = self.values.get("ans")
            if ans is None:
                del self.at["ans"]
            else:
                self.at["ans"] = _host(ans)
        res = Result(input=st.source, line=st.line, at=dict(self.at))
        if isinstance(st, BadStatement):
            res.kind, res.error = "error", st.error
            return res
        self._warnings = []
        self._last_method = None
        with self._capture_fp_errors() as fp_messages:
            try:
                self._execute(st, options, res)
            except GradcliError as err:
                res.kind, res.error = "error", err.at(st.line, st.column)
            except RecursionError:
                res.kind, res.error = "error", LimitError(
                    "expression too deeply nested to evaluate"
                ).at(st.line, st.column)
            except MemoryError:
                res.kind, res.error = "error", LimitError(
                    "not enough memory for this computation"
                ).at(st.line, st.column)
            except Exception as exc:  # a bug of ours: say so briefly, never a traceback
                res.kind, res.error = "error", MathError(
                    f"internal error ({type(exc).__name__}: {exc}); please report it"
                ).at(st.line, st.column)
        if not fp_messages and res.error is None and not self._reports_fp_errors \
                and _non_finite(_result_arrays(res)):
            fp_messages = self._on_cpu(lambda shadow: shadow._execute(st, options, Result(
                input=st.source, line=st.line, at=dict(shadow.at))))
        res.warnings = _unique(self._warnings + _shown(fp_messages, res))
        res.method = self._last_method
        return res

    def _capture_fp_errors(self) -> contextlib.AbstractContextManager[list[str]]:
        # NumPy's errors; a CuPy array's operations report none (tests that stand in
        # for a GPU override this)
        return capture_fp_errors()

    def _on_cpu(self, work: Callable[[Session], object]) -> list[str]:
        """The floating-point warnings of ``work`` done again by a NumPy copy of this
        session. CuPy has no floating-point error flags, so a GPU session learns
        which operation made a nan or an infinity, and how to word it, by running
        the statement that made it on the CPU; its results are dropped, and
        nothing of this session changes."""
        shadow = Session(dtype=self.dtype, method=self.method,
                         values={k: _host(v) for k, v in self.values.items()},
                         functions=dict(self.functions), at=dict(self.at), hints=self.hints)
        with capture_fp_errors() as fp_messages:
            try:
                work(shadow)
            except GradcliError:
                pass
        return fp_messages

    def _execute(self, st: Statement, options: EvalOptions, res: Result) -> None:
        node = st.node
        if isinstance(node, ast.Assign):
            self._check_bindable(node.name, node)
            value = Evaluator(self).eval(node.value)
            self.values[node.name] = value.data
            res.kind, res.name, res.value = "assign", node.name, _host(value.data)
            if node.name in self.at:  # rebound: later results are not at the --at value
                self.at[node.name] = res.value
            return
        if isinstance(node, ast.Define):
            self._check_bindable(node.name, node)
            self.functions[node.name] = Definition(node.name, node.params, node.body, st.source)
            res.kind, res.name = "define", f"{node.name}({', '.join(node.params)})"
            return
        if isinstance(node, ast.Call) and node.func == "grad":
            res.kind, res.value = "grad", self._grad_statement(node)
            if options.wants_derivatives or options.grad:
                asked = [self._hint(flag, "") for flag, on in (
                    ("order", options.order), ("series", options.series is not None),
                    ("check", options.check), ("grad", options.grad)) if on]
                self._warnings.append(
                    f"grad(...) gives the first partial derivatives only; {', '.join(asked)} "
                    "did not apply to it")
            return
        self._expression(node, options, res)

    def _check_bindable(self, name: str, node: Any) -> None:
        if _builtin(name):
            raise ReservedNameError(
                f"'{name}' is a built-in function; choose another name"
            ).at(node.line or None, node.column or None)
        meant = power_meant(name, CONSTANT_ALIASES)
        if meant:  # x² = 3 made a name no --at or --wrt could take
            raise ReservedNameError(
                f"'{name}' reads as a power, not a name: write {meant}"
            ).at(node.line or None, node.column or None)

    def _expression(self, node: Any, options: EvalOptions, res: Result) -> None:
        x = ds = None
        order_limit("order", options.order)
        order_limit("series order", options.series or 0)
        top = max(options.order, options.series or 0, 2 if options.check else 0)
        leaves = {}
        over_blocks = self._over_blocks(node, options, top)
        if over_blocks is not None:
            y, x, ds = over_blocks
            res.wrt, res.point = x.name, _host(x.data)
        else:
            ev = Evaluator(self, keep_graph=options.wants_derivatives or options.grad,
                           constants=self._not_differentiated(node, options))
            # Evaluate first: a wrong name is reported as such, not as a missing
            # variable. The leaves made on the way are the ones differentiated by.
            y = ev.eval(node)
            wrt = options.wrt or self.default_wrt(node) if options.wants_derivatives else None
            if options.wants_derivatives and wrt is None:
                # No variable at all: a constant, whose derivatives are all 0.
                self._constant_derivatives(y, options, res)
            elif options.wants_derivatives:
                res.wrt = wrt
                try:
                    x = self._leaf_to_differentiate(ev, wrt)
                except GradcliError as err:
                    if wrt not in free_names(node):
                        # --wrt names what the expression lacks: no column of it to point at
                        if isinstance(err, UnknownNameError):
                            err.message = f"--wrt {wrt}: {err.message}"
                        raise err.at(node.line or None, None) from None
                    raise
                res.point = _host(x.data)
            if options.grad:
                for name in self._variables_of(node):
                    leaf = ev.leaf(name)
                    if leaf is not None and type(leaf) is not Constant:
                        leaves[name] = leaf
        res.value = _host(y.data)
        if x is not None:
            cs = None
            if ds is None:
                if options.series is not None and over_blocks is None:
                    cs = self._coefficients(y, x, top)
                if cs is None:
                    ds = self.derivatives(y, x, top)
                else:  # the derivatives printed only: k! c_k of the others may overflow
                    shown = max(options.order, 2 if options.check else 0)
                    ds = self.derivatives(y, x, shown) if shown else [y.data]
            if top > ACCURATE_ORDER and bool(np.any(_host((cs or ds)[top]) != 0)) \
                    and _taylor_module().multiplies_two_series(y, x):
                self._warnings.append(
                    f"derivatives of order above {ACCURATE_ORDER} of a product of two "
                    "expressions in the variable can lose many digits to cancellation in "
                    "floating point (sin(x)*exp(x) at order 100 is off by 5%); check them "
                    "with a high-precision tool"
                )
            if options.order:
                res.derivatives = [_host(d) for d in ds[1 : options.order + 1]]
            if options.series is not None:
                self._check_series_shape(y, x, res.wrt)
                res.series = [_host(c) for c in cs[: options.series + 1]] if cs else \
                    [_host(ds[k]) / _factorial(k) for k in range(options.series + 1)]
            if options.check:
                res.check = self._check(node, options, x, y, ds)
        if options.grad:
            for leaf in leaves.values():
                self._warn_if_summed(y, leaf)
            gs = core_grad(y, list(leaves.values())) if leaves else []
            res.gradient = {n: _host(g.data) for n, g in zip(leaves, gs)}
        # last: --check evaluates the expression again, and its ans is the one before
        self.values["ans"] = y.data
        self.no_ans = None

    def _not_differentiated(self, node: Any, options: EvalOptions) -> frozenset[str]:
        """The bound names derivatives by one variable will not be taken by: read
        as constants, backprop computes no gradient for them (nor warns about
        one: log of a negative base for x^n by x), and x^n with n bound is an
        integer power, exact at 0."""
        if not options.wants_derivatives or options.grad:
            return frozenset()
        try:
            wrt = options.wrt or self.default_wrt(node)
        except GradcliError:  # several variables: said after evaluating
            return frozenset()
        return frozenset(name for name in self.values if name != wrt)

    def _coefficients(self, y: Variable, x: Variable, n: int) -> list[Any] | None:
        """Taylor mode's coefficients f^(k)/k! to order n, for a series (None where it
        does not apply or backprop is asked for): f^(k) overflows long before
        f^(k)/k! does (1/(1-x) at 0.9 has c_117 = 1e118, its derivative 1e311)."""
        if self.method == "backprop" or y is x or y.creator is None:
            return None
        taylor = _taylor_module()
        cs = self._unknowns_resolved(taylor.taylor_coefficients(y, x, n), n,
                                     lambda m: taylor.taylor_coefficients(y, x, m))
        if cs is None:
            return None
        self._last_method = "taylor"
        return _undefined_where_nan(list(cs))

    @staticmethod
    def _check_series_shape(y: Variable, x: Variable, wrt: str | None) -> None:
        # The derivatives of a result of another shape are those of its sum (a
        # gradient, for sum(x^2)): no polynomial of x's points is made of them.
        if y.shape != x.shape and not (y.size == 1 and x.size == 1):
            raise UsageError(
                f"a series needs a result of the shape of {wrt} (one value per point); "
                f"this one has shape {tuple(y.shape)} and {wrt} {tuple(x.shape)}")

    def _leaf_to_differentiate(self, ev: Evaluator, wrt: str) -> Variable:
        """The Variable ``wrt`` names in ``ev``; a clear error when it is a function,
        a constant or has no value."""
        if _builtin(wrt) or wrt in self.functions:
            raise UsageError(f"cannot differentiate by the function '{wrt}'")
        x = ev.leaf(wrt)
        if x is None:
            raise UnknownNameError(f"'{wrt}' has no value; " + self._hint("value", wrt))
        if type(x) is Constant:
            raise UsageError(f"cannot differentiate by the constant '{wrt}'")
        return x

    def _over_blocks(self, node: Any, options: EvalOptions,
                     top: int) -> tuple[Variable, Variable, list[Any]] | None:
        """(y, x, [y, dy/dx, ...]) for a large array variable by Taylor mode block by
        block: y's graph is recorded on x's first block only, then replayed over
        all of x, each block's values and derivatives together while they are in
        the cache (core.taylor.taylor_derivatives_at). None where that does not
        apply; the caller then evaluates the whole array as usual, and reports
        any error the first block met."""
        if not options.wants_derivatives or options.grad or self.method == "backprop":
            return None
        taylor = _taylor_module()
        if not 1 <= top <= taylor.MAX_ORDER:
            return None
        if not any(map(taylor.blockwise, self.values.values())):
            return None  # the usual case, decided before any look at the expression
        try:
            wrt = options.wrt or self.default_wrt(node)
        except GradcliError:
            return None
        values = self.values.get(wrt) if wrt else None
        if not taylor.blockwise(values):
            return None
        self.values[wrt] = taylor.sample(values)
        try:
            ev = Evaluator(self, keep_graph=True)
            y, x = ev.eval(node), ev.leaf(wrt)
        except Exception:  # noqa: BLE001 - the whole array is evaluated instead
            return None
        finally:
            self.values[wrt] = values
        if x is None or type(x) is Constant:
            return None
        ds = self._unknowns_resolved(taylor.taylor_derivatives_at(y, x, values, top), top,
                                     lambda n: taylor.taylor_derivatives_at(y, x, values, n))
        if ds is None:
            return None
        self._last_method = "taylor"
        return Variable(ds[0]), Variable(values, name=wrt), _undefined_where_nan(ds)

    def _unknowns_resolved(self, ds: list[Any] | None, order: int,
                           taylor_at: Callable[[int], list[Any] | None]) -> list[Any] | None:
        """``ds``, Taylor mode's derivatives to ``order``, or those of ``taylor_at`` a
        higher order where ``ds`` left some unknown: a power of a base that is 0
        there can need more of the base's series than asked for ((x^4)^0.5 at 0)."""
        taylor = _taylor_module()
        if ds is None or not taylor.unknown_at_zero():
            return ds
        with taylor.more_orders(order):
            more = taylor_at(min(taylor.MAX_ORDER, 2 * order + 4))
        if taylor.unknown_at_zero():
            self._warnings.append(
                "a power whose base is 0 here needs more terms of the base than Taylor "
                "mode reached; the derivatives it left unknown are nan")
        return ds if more is None else more[: order + 1]

    def _variables_of(self, node: Any) -> list[str]:
        return [n for n in free_names(node, self.functions)
                if n in self.values and n != "ans"]

    def _constant_derivatives(self, y: Variable, options: EvalOptions, res: Result) -> None:
        zero = np.zeros_like(_host(y.data))
        if options.order:
            res.derivatives = [zero] * options.order
        if options.series is not None:
            res.series = [_host(y.data)] + [zero] * options.series
        if options.check:
            res.check = []

    def default_wrt(self, node: Any) -> str | None:
        """The only variable written in ``node``, bound or not, not counting
        constants (``f(x)`` is by x, whatever f's body uses besides its
        parameter); with none written, the only one the functions it calls use
        (``g(2)`` with ``g(t) = t*a`` is by a); None when it has none."""
        through = ""
        names = self._variable_names(free_names(node))
        if not names:
            names = self._variable_names(free_names(node, self.functions))
            through = " through the functions it calls"
        if len(names) == 1:
            return names[0]
        if not names:
            return None
        listed = ", ".join(names)
        raise UsageError(
            f"the expression has several variables{through} ({listed}); "
            + self._hint("wrt", "")
        )

    def _variable_names(self, names: list[str]) -> list[str]:
        return [n for n in names if (n not in CONSTANTS or n in self.values) and n != "ans"]

    def _grad_statement(self, node: ast.Call) -> dict[str, np.ndarray]:
        if not node.args:
            raise ArityError("grad takes at least 1 argument: grad(expr[, x, y...]); got 0").at(
                node.line, node.column
            )
        body, var_nodes = node.args[0], node.args[1:]
        for v in var_nodes:
            if not isinstance(v, ast.Name):
                raise MathError("grad: variables must be names, as in grad(x*y, x, y)").at(
                    v.line, v.column
                )
            if _builtin(v.id) or v.id in self.functions:  # "assign it first" could not be done
                raise MathError(f"grad: cannot differentiate by the function '{v.id}'").at(
                    v.line, v.column)
        names = [v.id for v in var_nodes] or self._variables_of(body)
        ev = Evaluator(self, keep_graph=True)
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
                node.line, node.column
            )
        for leaf in leaves.values():
            self._warn_if_summed(y, leaf)
        gs = [g.data for g in core_grad(y, list(leaves.values()))] if leaves else []
        # ans is what was printed: the partial derivative, or the gradient vector
        # of several of one shape (of different shapes there is no one value)
        self.no_ans = None
        if len(gs) == 1:
            self.values["ans"] = gs[0]
        elif len({g.shape for g in gs}) == 1:
            self.values["ans"] = self.xp.stack(gs)
        else:  # a stale ans would be read as this result
            self.values.pop("ans", None)
            self.no_ans = "the last result is a gradient whose partial derivatives differ in shape"
        return {n: _host(g) for n, g in zip(leaves, gs)}

    # --- --check ---------------------------------------------------------------------

    def _check(self, node: Any, options: EvalOptions, x: Variable, y: Variable,
               ds: list[Any]) -> list[CheckEntry]:
        wrt = x.name or options.wrt or ""
        a = _host(x.data).astype(np.float64)
        elementwise = x.size == 1 or y is x or (
            self._last_method == "taylor" and y.shape == x.shape)
        # points where the value is not finite (nan outside the domain, inf at a
        # pole), so neither are the derivatives nor their estimates, are left out
        # of the comparison, unless no point is left
        undefined = ~np.isfinite(_host(y.data))
        out = []
        for order in (1, 2):
            auto = _host(ds[order]).astype(np.float64)
            if elementwise:
                # a step that leaves the domain is the check's doing, not the user's:
                # no warning, and the point is left out below
                with np.errstate(all="ignore"):
                    est = central_difference(
                        lambda p: self._value_at(node, wrt, p), a, order, self._dtype
                    )
                if x.size == 1:
                    est = np.asarray(np.sum(est)).reshape(auto.shape)
            elif order == 1 and x.size <= MAX_CHECK_ELEMENTS:
                with np.errstate(all="ignore"):  # as above
                    est = self._numerical_gradient(node, wrt, a)
            else:
                continue
            err = np.abs(auto - est)
            with np.errstate(all="ignore"):  # a zero derivative has an infinite relative error
                rel = np.where(err == 0, 0.0, err / np.abs(auto))
            passed = within_tolerance(auto, est, RTOL, ATOL)
            # also left out: points where no estimate can be made (the step reaches
            # past the edge of the domain) and autodiff has a number; a step across
            # a pole gives a finite, wrong estimate, and fails
            skip = ~np.isfinite(est) & ~np.isnan(auto)
            if undefined.shape == skip.shape:
                skip |= undefined
            if skip.any() and not skip.all():
                err, rel, passed = err[~skip], rel[~skip], passed[~skip]
            out.append(CheckEntry(
                order=order,
                autodiff=auto,
                numerical=est,
                abs_error=_max(err),
                rel_error=_max(rel),
                ok=bool(np.all(passed)),
            ))
        return out

    def _value_at(self, node: Any, wrt: str, point: np.ndarray) -> np.ndarray:
        saved = self.values.get(wrt)
        self.values[wrt] = self.xp.asarray(point, dtype=self._dtype)
        try:
            with no_grad():
                return _host(Evaluator(self).eval(node).data)
        finally:
            if saved is None:
                self.values.pop(wrt, None)
            else:
                self.values[wrt] = saved

    def _numerical_gradient(self, node: Any, wrt: str, a: np.ndarray) -> np.ndarray:
        h = step_size(a, 1, self._dtype)
        grad = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            up, down = a.copy(), a.copy()
            up[i] += h[i]
            down[i] -= h[i]
            step = up[i] - down[i]
            fu = np.sum(self._value_at(node, wrt, up))
            fd = np.sum(self._value_at(node, wrt, down))
            grad[i] = (fu - fd) / step
        return grad

    # --- --at, plots and the REPL's views ---------------------------------------------

    def bind_at(self, name: str, text: str) -> np.ndarray:
        """Evaluate ``text`` and bind it to ``name`` for every later statement."""
        if not is_name(name):
            raise UsageError(f"'{name}' is not a variable name")
        if _builtin(name):  # as 'sin = 3' is refused
            raise UsageError(f"'{name}' is a built-in function; choose another name")
        statements = parse(text)
        if len(statements) != 1 or isinstance(statements[0].node, (ast.Assign, ast.Define)):
            raise UsageError(f"the value must be one expression, got {text!r}")
        self._warnings = []  # constant() adds its own (a number too large for float32)
        with self._capture_fp_errors() as fp_messages:
            value = Evaluator(self).eval(statements[0].node)
        if not fp_messages and not self._reports_fp_errors and _non_finite([value.data]):
            fp_messages = self._on_cpu(lambda shadow: Evaluator(shadow).eval(statements[0].node))
        self._warnings = _unique(self._warnings + fp_messages)
        self.values[name] = value.data
        self.at[name] = _host(value.data)
        return self.at[name]

    def graph(self, text: str, order: int = 0, wrt: str | None = None,
              verbose: bool = False) -> GraphResult:
        """The graph of one expression, or with ``order`` N of its N-th derivative."""
        from .core.dot import count_nodes, get_dot_graph  # noqa: PLC0415

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
        for st in setup:  # f(t) = ... before the expression that calls it
            done = self.run_statement(st, EvalOptions())
            if done.error is not None:
                raise done.error
        # keep_graph: diff(...) and f'(x) stay graphs, to be drawn
        ev = Evaluator(self, keep_graph=True)
        x = None
        if order:
            try:
                wrt = wrt or self.default_wrt(node)
            except GradcliError as err:  # several variables: the expression is the error
                raise err.at(node.line, node.column) from None
            if wrt is None:
                raise UsageError("the expression has no variable to differentiate by").at(
                    node.line, node.column)
            x = self._leaf_to_differentiate(ev, wrt)
        with capture_fp_errors() as fp_messages:
            y = ev.eval(node)
            # The output is "y" unless the user has a variable of that name.
            out = "out" if "y" in free_names(node) else "y"
            y.name = y.name or out
            if x is not None:
                y = nested_derivative(y, x, order, PLOT_MAX_NODES)
                n = order if order > 1 else ""
                y.name = f"d{n}{out}/d{wrt}{n}"  # dy/dx, d2y/dx2
        self._warnings = fp_messages
        # the budget above counts the graphs built on the way; the one drawn counts too
        nodes = count_nodes(y)
        if nodes > PLOT_MAX_NODES:
            what = f"the order-{order} derivative's graph" if order else "the graph"
            raise LimitError(f"{what} has {nodes:,} nodes, more than the {PLOT_MAX_NODES:,} "
                             "drawn at most; ask for a lower order")
        return GraphResult(get_dot_graph(y, verbose=verbose, values=verbose),
                           nodes, order, wrt)

    def warn(self, message: str) -> None:
        """A warning for the statement being run (shown after its result)."""
        self._warnings.append(message)

    def _hint(self, kind: str, name: str) -> str:
        return self.hints[kind].format(name=name)

    def clear(self) -> None:
        self.values.clear()
        self.no_ans = None
        self.functions.clear()
        self.at.clear()

    def forget(self, names: list[str]) -> None:
        """Forget the variables and functions ``names``: all of them, or, when one
        is neither, none (an UnknownNameError naming it, in ``.name``)."""
        for name in names:
            if name not in self.values and name not in self.functions:
                if _builtin(name) or name in CONSTANTS:
                    what = "a built-in function" if _builtin(name) else "a constant"
                    why = f"'{name}' is {what}, not one of your names"
                elif name == "ans":
                    why = "'ans' has no value yet"
                else:
                    why = f"'{name}' is neither a variable nor a function"
                err = UnknownNameError(why + "; nothing was forgotten")
                err.name = name
                raise err
        for name in names:
            self.values.pop(name, None)
            self.functions.pop(name, None)
            self.at.pop(name, None)

    def variables(self) -> Iterator[tuple[str, np.ndarray]]:
        for name in sorted(self.values):
            yield name, _host(self.values[name])

    def pending_warnings(self) -> list[str]:
        return list(self._warnings)


def order_limit(what: str, n: int) -> None:
    """A LimitError for an order past MAX_ORDER (the CLI checks its options
    before: these are the REPL's words)."""
    if not 0 <= n <= MAX_ORDER:
        raise LimitError(f"the {what} {n} is outside 0..{MAX_ORDER}")


def _taylor_module() -> Any:
    """core.taylor, imported on first use (most statements need no derivatives)."""
    from .core import taylor  # noqa: PLC0415

    return taylor


def _builtin(name: str) -> bool:
    return name in REGISTRY or name in SPECIAL_FORMS


def _taylor(y: Variable, x: Variable, order: int) -> list[Any] | None:
    return _taylor_module().taylor_derivatives(y, x, order)


def _undefined_where_nan(ds: list[Any]) -> list[Any]:
    """Derivatives nan where the value is nan: outside a function's domain (log of
    a negative number) its derivatives are undefined too, though the formula
    for them (1/x) may give a number. A derivative of another shape than the
    value (by a scalar, of an array: the derivative of its sum) is nan whole."""
    y = ds[0]
    xp = backend.get_array_module(y)
    bad = xp.isnan(y)
    if not bool(bad.any()):
        return ds
    return [y] + [xp.where(bad, xp.nan, d) if d.shape == y.shape else xp.full_like(d, xp.nan)
                  for d in ds[1:]]


def _shown(messages: list[str], res: Result) -> list[str]:
    """The floating-point warnings about a kind of number the statement's results
    hold: a nan or an infinity met midway and gone by the end (backprop's
    inf - inf in a third derivative of sqrt at 0, which is inf) is no result's.
    A failed statement keeps them all."""
    if res.error is not None or not messages:
        return messages
    values = [a for a in _result_arrays(res) if a.dtype.kind in "fc"]
    has_nan = any(bool(np.isnan(a).any()) for a in values)
    has_inf = any(bool(np.isinf(a).any()) for a in values)
    return [m for m in messages
            if (has_nan or not m.endswith(NAN_RESULT)) and (has_inf or not m.endswith(INF_RESULT))]


def _result_arrays(res: Result) -> list[np.ndarray]:
    """Every number a statement's result holds, as NumPy arrays."""
    arrays = [res.value, res.derivatives, res.series, res.gradient,
              [c.autodiff for c in res.check or ()]]
    flat = []
    for a in arrays:
        if isinstance(a, dict):
            flat.extend(a.values())
        elif isinstance(a, list):
            flat.extend(a)
        elif a is not None:
            flat.append(a)
    return [np.asarray(a) for a in flat]


def _non_finite(arrays: list[Any]) -> bool:
    return any(a.dtype.kind in "fc" and not bool(np.isfinite(a).all())
               for a in map(_host, arrays))


def _factorial(k: int) -> float:
    """k! as a float; inf past 170! (a coefficient f^(k)/k! then underflows to 0)."""
    return float(math.factorial(k)) if k <= 170 else math.inf


def _host(a: Any) -> np.ndarray:
    return np.asarray(backend.as_numpy(a))


def _max(a: np.ndarray) -> float:
    if a.size == 0:
        return 0.0
    if np.isnan(a).any():
        return math.nan
    return float(np.max(a))


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


__all__ = ["DTYPES", "METHODS", "EvalOptions", "GraphResult", "Session"]
