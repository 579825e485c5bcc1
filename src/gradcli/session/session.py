"""The session: bindings, definitions, and ``run(text) -> results``.

One Session sits under each shell: ``gradcli eval`` feeds it its arguments or
standard input, the REPL feeds it lines. It turns statements into Results and
never prints; everything a user sees comes from a renderer. It speaks no
shell's words: errors and warnings carry hint slots that the shell's ``words``
(given at construction) fill in.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..asked import EvalOptions
from ..core.backend import as_numpy, xp_for
from ..core.fpe import capture_fp_errors
from ..core.graph import Constant, Variable
from ..core.method import Derivatives, Note
from ..errors import (
    GradcliError,
    LimitError,
    MathError,
    UnknownNameError,
    UsageError,
    worded,
)
from ..lang import ast
from ..lang.evaluate import Definition, Evaluator
from ..lang.matrices import grad_of_grad, is_matrix_form
from ..lang.names import is_name
from ..lang.namespace import BUILTIN, CONSTANT, SPECIAL, Namespace, is_builtin
from ..lang.parser import BadStatement, Statement, parse, parse_each
from ..lang.resolve import prime_without_call
from ..limits import DTYPES as DTYPE_NAMES
from ..limits import METHODS
from ..results import Result
from . import shadow
from .expression import check_bindable, evaluate_expression, gradient_statement
from .formulas import applies
from .variables import order_limit

if TYPE_CHECKING:  # curves and graphs are loaded by the commands that draw
    from ..figures import Curves, GraphResult
    from .curves import Drawn

DTYPES = {name: np.dtype(name).type for name in DTYPE_NAMES}


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
        words: Mapping[str, str] | None = None,
    ) -> None:
        if dtype not in DTYPES:
            raise UsageError(f"unknown dtype {dtype!r}; expected {_either(DTYPE_NAMES)}")
        if method not in METHODS:
            raise UsageError(f"unknown method {method!r}; expected {_either(METHODS)}")
        self.dtype, self.device, self.method = dtype, device, method
        self.values: dict[str, Any] = {} if values is None else values
        self.functions: dict[str, Definition] = {} if functions is None else functions
        self.at: dict[str, np.ndarray] = {} if at is None else at
        self.at_text: dict[str, str] = {}  # an --at value as typed (a series' point: pi)
        # how hints read: the shell's own flags and commands (errors.NEUTRAL_WORDS if none)
        self.words: dict[str, str] = dict(words or {})
        self.xp = xp_for(device)  # a DeviceError when no GPU is there
        self._reports_fp_errors = self.xp is np  # see shadow.on_cpu
        self.dtype_type = DTYPES[dtype]
        self._warnings: list[str | Note] = []
        self.engine = Derivatives(method)
        self.no_ans: str | None = None  # why ans has no value, when a result left none

    # --- what the evaluator needs ---------------------------------------------

    def constant(self, value: float, text: str | None = None) -> Constant:
        """``value`` in the session's dtype; a warning names it as ``text`` (as typed)."""
        if type(value) is float and self.dtype_type is np.float64 and self.xp is np:
            return Constant(np.array(value))  # a Python float is a float64: nothing to warn of
        with np.errstate(over="ignore"):
            data = self.xp.asarray(value, dtype=self.dtype_type)
        shown = f"{value:g}" if text is None else text
        if math.isfinite(value) and not bool(self.xp.isfinite(data)):
            self._warnings.append(f"the number {shown} is too large for {self.dtype}; it is inf")
        elif value != 0.0 and not bool(data):
            self._warnings.append(f"the number {shown} is too small for {self.dtype}; it is 0")
        return Constant(data)

    def derivatives(self, y: Variable, x: Variable, order: int) -> list[Any]:
        """[y, dy/dx, ..., d^order y/dx^order] as arrays, by the session's method."""
        return self.engine.orders(y, x, order)

    def warn(self, message: str) -> None:
        """A warning for the statement being run (shown after its result)."""
        self._warnings.append(message)

    def on_cpu(self) -> Session:
        """A NumPy copy of this session: its bindings, definitions and settings."""
        return type(self)(dtype=self.dtype, method=self.method,
                          values={k: as_numpy(v) for k, v in self.values.items()},
                          functions=dict(self.functions), at=dict(self.at), words=self.words)

    def _capture_fp_errors(self) -> contextlib.AbstractContextManager[list[str]]:
        # NumPy's errors; a CuPy array's operations report none (tests that stand in
        # for a GPU override this)
        return capture_fp_errors()

    def _begin(self) -> None:
        self._warnings = []
        self.engine = Derivatives(self.method)
        self.engine.notes = self._warnings  # type: ignore[assignment] - one list, in order

    def replace_warnings(self, messages: list[str]) -> None:
        self._warnings = list(messages)

    def pending_warnings(self) -> list[str]:
        """The warnings of the last statement, worded for the shell."""
        return _unique([self._worded(w) for w in self._warnings])

    def _worded(self, warning: str | Note) -> str:
        if not isinstance(warning, Note):
            return warning
        if warning.template is None:
            return warning.message
        return worded(warning.template, "", self.words)

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
            return [Result(input=text.strip()[:200], line=first_line, kind="error",
                           error=err.reword(self.words))]
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
                self.at["ans"] = as_numpy(ans)
        res = Result(input=st.source, line=st.line, at=dict(self.at))
        if isinstance(st, BadStatement):  # g' of a function of two: why, not "expected '('"
            res.kind, res.error = "error", prime_without_call(st.error, self.functions)
            res.error.reword(self.words)
            return res
        self._begin()
        with self._capture_fp_errors() as fp_messages:
            try:
                self._execute(st, options, res)
            except GradcliError as err:
                res.kind, res.error = "error", err.at(st.line, st.column)
            except RecursionError:
                res.kind, res.error = "error", LimitError(
                    "expression too deeply nested to evaluate").at(st.line, st.column)
            except MemoryError:
                res.kind, res.error = "error", LimitError(
                    "not enough memory for this computation").at(st.line, st.column)
            except Exception as exc:  # a bug of ours: say so briefly, never a traceback
                res.kind, res.error = "error", MathError(
                    f"internal error ({type(exc).__name__}: {exc}); please report it"
                ).at(st.line, st.column)
        if not fp_messages and res.error is None and not self._reports_fp_errors \
                and shadow.non_finite(shadow.result_arrays(res)):
            fp_messages = shadow.on_cpu(self.on_cpu, lambda copy: copy._execute(st, options, Result(
                input=st.source, line=st.line, at=dict(copy.at))))
        if res.error is not None:
            res.error.reword(self.words)
        res.warnings = _unique(self.pending_warnings() + shadow.shown(fp_messages, res))
        res.method = self.engine.used
        return res

    def _shadows(self, warning: str | None) -> None:
        if warning is not None:  # ln(x) = ... hides the built-in ln
            self._warnings.append(warning)

    def _execute(self, st: Statement, options: EvalOptions, res: Result) -> None:
        node = st.node
        if isinstance(node, ast.Assign):
            self._shadows(check_bindable(node.name, node))
            ev = Evaluator(self)
            value = ev.eval(node.value)
            # its limit where it has one (y = sin(x)/x at x = 0 is 1), as the
            # expression's value is (evaluate_expression)
            ev.calculus.fill_limits(value, ev.statement_leaves())
            data = ev.calculus.limit(value, ev.statement_leaves())
            self.values[node.name] = data
            res.kind, res.name, res.value = "assign", node.name, as_numpy(data)
            if node.name in self.at:  # rebound: later results are not at the --at value
                self.at[node.name] = res.value
                self.at_text.pop(node.name, None)
            return
        if isinstance(node, ast.Define):
            self._shadows(check_bindable(node.name, node))
            self.functions[node.name] = Definition(node.name, node.params, node.body, st.source)
            res.kind, res.name = "define", f"{node.name}({', '.join(node.params)})"
            return
        node = grad_of_grad(node) or node  # the Hessian
        if isinstance(node, ast.Call) and node.func == "grad" and not applies(self, node, options):
            res.kind, res.value = "grad", gradient_statement(self, node)
            asked = [flag for flag, on in (
                ("order", options.order), ("series", options.series is not None),
                ("check", options.check), ("grad", options.grad)) if on]
            if asked:
                slots = ", ".join("{" + flag + "}" for flag in asked)
                self._warnings.append(worded(
                    "grad(...) gives the first partial derivatives only; "
                    f"{slots} did not apply to it", "", self.words))
            return
        if is_matrix_form(node) and _matrix_statement(self, node, options, res):
            return
        evaluate_expression(self, node, options, res)

    # --- --at and the REPL's views ----------------------------------------------------

    def bind_at(self, name: str, text: str) -> np.ndarray:
        """Evaluate ``text`` and bind it to ``name`` for every later statement."""
        try:
            return self._bind_at(name, text)
        except GradcliError as err:
            raise err.reword(self.words) from None

    def _bind_at(self, name: str, text: str) -> np.ndarray:
        if not is_name(name):
            raise UsageError(f"'{name}' is not a variable name")
        if is_builtin(name):  # as 'sin = 3' is refused
            raise UsageError(f"'{name}' is a built-in function; choose another name")
        statements = parse(text)
        if len(statements) != 1 or isinstance(statements[0].node, (ast.Assign, ast.Define)):
            raise UsageError(f"the value must be one expression, got {text!r}")
        self._begin()  # constant() adds its own (a number too large for float32)
        with self._capture_fp_errors() as fp_messages:
            value = Evaluator(self).eval(statements[0].node)
        if not fp_messages and not self._reports_fp_errors and shadow.non_finite([value.data]):
            fp_messages = shadow.on_cpu(self.on_cpu, lambda copy: Evaluator(copy).eval(
                statements[0].node))
        self._warnings = [*self.pending_warnings(), *fp_messages]
        self.values[name], self.at_text[name] = value.data, text.strip()
        self.at[name] = as_numpy(value.data)
        return self.at[name]

    def bind_value(self, name: str, value: Any) -> np.ndarray:
        """Bind an array made outside the language (a --at range) as bind_at binds."""
        self.values[name] = self.xp.asarray(value, dtype=self.dtype_type)
        self.at[name] = as_numpy(self.values[name])
        return self.at[name]

    @contextlib.contextmanager
    def scratch(self, name: str, value: Any) -> Iterator[None]:
        """``name`` bound to ``value`` while the block runs (a curve's grid); it,
        ``ans`` and why ans has no value are as they were after."""
        saved = {k: self.values[k] for k in (name, "ans") if k in self.values}
        no_ans = self.no_ans
        self.values[name] = self.xp.asarray(value, dtype=self.dtype_type)
        try:
            yield
        finally:
            for k in (name, "ans"):
                self.values.pop(k, None)
            self.values.update(saved)
            self.no_ans = no_ans

    def number(self, text: str) -> float:
        """``text`` evaluated as one real number (a range's end); nothing is bound."""
        from .curves import session_number

        return session_number(self)(text)

    def run_setup(self, setup: list[Statement]) -> None:
        """Run assignments and definitions; the first failure is raised."""
        from .curves import run_setup

        run_setup(self, setup)

    # --- figures: data, drawn by the shells' renderers ------------------------------

    def curve_variable(self, item: Drawn) -> tuple[str, Drawn]:
        """The variable to draw ``item`` over when the user names none (see
        ``curves.curve_variable``); ``item``'s setup has run."""
        from .curves import curve_variable

        return curve_variable(self, item)

    def curve(self, items: Sequence[Drawn], var: str, a: float, b: float,
              points: int | None = None, order: int = 0, var_given: bool = False) -> Curves:
        """The curves of ``items`` (each a ``curves.drawn`` argument) and their
        derivatives up to ``order`` over ``var`` = a..b: data for a renderer.
        An error is positioned within its item's text, named by its ``source``."""
        from .curves import DEFAULT_POINTS, draw_curves

        return draw_curves(self, items, var, a, b, points or DEFAULT_POINTS, order, var_given)

    def graph(self, text: str, order: int = 0, wrt: str | None = None,
              verbose: bool = False, stand_ins: bool = False) -> GraphResult:
        """The computational graph of the last expression of ``text`` (or of its
        ``order``-th derivative), as DOT: data for a renderer (``graphs.graph``)."""
        from .graphs import graph

        return graph(self, text, order, wrt, verbose, stand_ins)

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
                kind = Namespace(self.values, self.functions).kind(name)
                if kind in (BUILTIN, SPECIAL, CONSTANT):
                    what = "a constant" if kind == CONSTANT else "a built-in function"
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
            yield name, as_numpy(self.values[name])


def _either(choices: tuple[str, ...]) -> str:
    return ", ".join(choices[:-1]) + " or " + choices[-1]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _matrix_statement(session: Session, node: Any, options: EvalOptions, res: Result) -> bool:
    from .matrices import matrix_statement  # only statements that are matrix forms

    return matrix_statement(session, node, options, res)


__all__ = ["DTYPES", "METHODS", "EvalOptions", "Session", "order_limit"]
