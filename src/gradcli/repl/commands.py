"""The Shell: one input (statements or a ``:command``) in, text out.

Everything is computed by the Session; the Shell only picks what to ask for
and hands the results to a display. No input can end the loop with a
traceback: gradcli's own errors print with a caret under their column, and
anything else prints as a short internal error, with every binding kept.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import GradcliError, UsageError, internal_error
from ..render.errors import format_error
from .arguments import (
    NUMBER,
    PRIME,
    body_of,
    expressions_only,
    interval_item,
    one_line,
    split_curve,
    split_order,
    split_wrt,
    without_comments,
)
from .catalog import ALIASES, COMMANDS

if TYPE_CHECKING:
    from ..results import Result
    from ..session import Session
    from .loader import SessionLoader

# those whose usage is their bare name
_NO_ARGUMENTS = {name for name, (usage, _) in COMMANDS.items() if usage == name}
class Shell:
    """Runs inputs against one Session and shows the outcome on ``display``."""

    def __init__(self, loader: SessionLoader, display: Any, positions: bool = False) -> None:
        self.loader = loader
        self.display = display
        # Show "(line L, column C)" even for one-line input (piped input counts lines).
        self.positions = positions
        self.status = 0  # the highest exit status so far, for piped input

    @property
    def session(self) -> Session:
        return self.loader.get()

    def execute(self, text: str, first_line: int = 1) -> bool:
        """Run one input (possibly several lines); False when it asks to leave."""
        try:
            return self._execute(text, first_line)
        except GradcliError as err:
            self.show_error(err, text, first_line)
        except OSError:  # the output failed (its reader left, a full disk): the loop ends
            raise  # (a file a command writes fails as a GradcliError, see gradcli.atomic)
        except Exception as exc:  # a bug of ours: short, and the session goes on
            self.show_error(internal_error(exc, first_line), text, first_line)
        return True

    def _execute(self, text: str, first_line: int) -> bool:
        stripped = text.strip()
        if not stripped:
            return True
        if stripped.startswith(":"):
            return self._command(text, first_line)
        session = self.session
        if stripped in ("quit", "exit") and stripped not in session.values:
            return False
        prime = PRIME.fullmatch(stripped.split("#", 1)[0].rstrip())  # f' alone, # a comment
        if prime and self._prime_formula(prime.group(1), len(prime.group(2)), first_line):
            return True
        self.show(session.run(text, first_line=first_line, whole=True), text, first_line)
        return True

    def _prime_formula(self, name: str, order: int, line: int) -> bool:
        """``f'`` alone: ``f'(x) = 4*x^3 - 4*x`` for a function of one variable."""
        from ..session.formulas import prime_formula

        text = prime_formula(self.session, name, order)
        if text is None:
            from ..errors import UnknownNameError
            from ..lang.namespace import UNKNOWN, Namespace

            if Namespace(self.session.values, self.session.functions).kind(name) == UNKNOWN:
                raise UnknownNameError(f"unknown function '{name}'; define it first: "
                                       f"{name}(x) = ...", line=line, column=1)
            return False
        self.display.formula_line(text)
        return True

    # --- showing results ---------------------------------------------------------

    def show(self, results: list[Result], text: str, first_line: int, offset: int = 0) -> None:
        for r in results:
            try:
                self._show(r, text, first_line, offset)
            except OSError:  # the output failed: the loop ends
                raise
            except Exception as exc:  # a display's bug loses this result, not the next
                self.show_error(internal_error(exc, r.line), text, first_line, offset)

    def _show(self, r: Result, text: str, first_line: int, offset: int) -> None:
        if r.error is not None:
            self.show_error(r.error, text, first_line, offset)
            return
        self._before(r)
        if r.kind == "assign":
            self.display.assigned(r.name, r.value)
        elif r.kind == "define":
            self.display.defined(r.name)
        elif r.kind == "grad":
            self.display.grad(r.value)
        elif r.kind == "formula":
            self.display.formulas(r)
        elif r.kind == "matrix":
            self.display.matrix(r)
        else:
            self.display.value(r.value)

    def _before(self, r: Result) -> None:
        """A result's warnings, before the result, as ``gradcli eval`` prints them."""
        for w in r.warnings:
            self._warn(w, r.line)
        self._bump(int(r.exit_status))

    def _warn(self, message: str, line: int) -> None:
        self.display.warning(f"{message} (line {line})" if self.positions else message)

    def show_error(self, err: GradcliError, text: str, first_line: int = 1,
                   offset: int = 0) -> None:
        """One error, with the line it points into and a caret under its column.

        ``offset`` is where the statement text starts within the first line
        (after ``:d 2 ``), so the caret lands under the typed character.
        """
        lines = text.split("\n")
        shown = copy.copy(err)
        line_text = None
        if err.line is not None:
            index = err.line - first_line
            if 0 <= index < len(lines):
                line_text = lines[index]
                if index == 0 and shown.column is not None:
                    shown.column += offset
            if not self.positions and len(lines) == 1:
                shown.line = None  # one typed line: the caret says where
        elif self.positions:  # an error of the input as a whole (a command): its line
            shown.line = first_line
        self.display.error(format_error(shown, line_text))
        self._bump(int(err.exit_status))


    def show_argument_error(self, err: GradcliError, text: str, first_line: int,
                            offset: int) -> None:
        """An error whose line is counted from the command's own line (1): shown
        at the input's line."""
        if err.line is not None:
            err = copy.copy(err)
            err.line += first_line - 1
        self.show_error(err, text, first_line, offset)
    def _bump(self, status: int) -> None:
        self.status = max(self.status, status)

    # --- commands ------------------------------------------------------------------

    def _command(self, text: str, first_line: int) -> bool:
        m = re.match(r"\s*(:[^\s]*)\s*", text)
        assert m is not None
        name = ALIASES.get(m.group(1), m.group(1))
        handler: Callable[..., bool | None] | None = (
            getattr(self, "cmd_" + name[1:], None) if name in COMMANDS else None
        )
        if handler is None:
            match = difflib.get_close_matches(name, list(COMMANDS) + list(ALIASES), n=1)
            hint = f"; did you mean {match[0]}?" if match else ""
            raise UsageError(f"unknown command '{m.group(1)}'{hint} (:help lists them)")
        args = without_comments(text[m.end():])
        if args and name in _NO_ARGUMENTS:
            # ':quit now' must not quit, nor ':vars x' list everything, unremarked
            raise UsageError(f"{name} takes no arguments").at(first_line, m.end() + 1)
        return handler(args, text, first_line, m.end()) is not False

    def cmd_help(self, args: str, text: str, first_line: int, offset: int) -> None:
        from .helptext import help_for, overview

        if args.strip():
            self.display.help(help_for(args.strip(), self.session))
        else:
            self.display.help(overview())

    def cmd_vars(self, args: str, text: str, first_line: int, offset: int) -> None:
        items = list(self.session.variables())
        if items:
            self.display.variables(items)
        else:
            self.display.info("no variables yet; assign one: x = 2")

    def cmd_funcs(self, args: str, text: str, first_line: int, offset: int) -> None:
        defs = sorted(self.session.functions.values(), key=lambda d: d.name)
        if defs:
            from ..session.formulas import definition_text

            self.display.functions([(d.signature, definition_text(self.session, d) or
                                     one_line(body_of(d.source))) for d in defs])
        else:
            self.display.info("no functions yet; define one: f(x) = x**4 - 2*x**2")

    def cmd_d(self, args: str, text: str, first_line: int, offset: int) -> None:
        from ..session import EvalOptions

        args, wrt = split_wrt(args, first_line, offset)
        order, expr, skip = split_order(args, 1, first_line, offset)
        if not expr.strip() or not skip and NUMBER.fullmatch(expr.strip()):
            # `:d 2` alone is an order without its expression far more often than
            # the derivatives of the number 2 (`:d 1 2` still gives those)
            raise UsageError("usage: :d [N] EXPR, as in :d 2 sin(x)")
        expressions_only(expr, ":d")
        session = self.session
        results = session.run(expr, EvalOptions(order=order, wrt=wrt), first_line)
        for r in results:
            if r.error is None and r.kind == "formula":
                self._before(r)
                self.display.formulas(r)
            elif r.error is None and r.kind == "value" and r.derivatives is not None:
                # a constant has no variable, and derivatives of 0, as in gradcli eval
                at = _value_of(session, r.wrt) if r.wrt else None
                self._before(r)
                self.display.derivatives(r.input, r.wrt or "", at, [r.value, *r.derivatives])
            else:
                self.show([r], text, first_line, offset + skip)

    def cmd_steps(self, args: str, text: str, first_line: int, offset: int) -> None:
        from ..session import EvalOptions

        args, wrt = split_wrt(args, first_line, offset)
        order, expr, skip = split_order(args, 0, first_line, offset)
        if not expr.strip() or not skip and NUMBER.fullmatch(expr.strip()):
            raise UsageError("usage: :steps [N] EXPR [wrt X], as in :steps x^2*sin(3*x)")
        expressions_only(expr, ":steps")
        # without N: order 1 of EXPR, or a diff(...)'s own steps (session/steps.py)
        options = EvalOptions(steps=True, wrt=wrt, order=order if skip else None)
        for r in self.session.run(expr, options, first_line):
            if r.error is None and r.steps is not None:
                self._before(r)
                self.display.steps(r)
            else:
                self.show([r], text, first_line, offset + skip)

    def cmd_check(self, args: str, text: str, first_line: int, offset: int) -> None:
        from ..session import EvalOptions

        args, wrt = split_wrt(args, first_line, offset)
        if not args.strip():
            raise UsageError("usage: :check EXPR [wrt X], as in :check sin(x)**2")
        expressions_only(args, ":check")
        results = self.session.run(args, EvalOptions(check=True, wrt=wrt), first_line)
        for r in results:
            if r.error is None and r.kind == "value" and r.check is not None:
                self._before(r)
                if r.check:
                    self.display.check(r)
                else:
                    self.display.info("nothing to check: no derivative here has an estimate")
            else:
                self.show([r], text, first_line, offset)

    def cmd_plot(self, args: str, text: str, first_line: int, offset: int) -> None:
        from ..render.graph import graph_format, write_graph
        from .filenames import split_file_name

        # FILE is read as a shell reads a word: "my graph.png", ~/g.png
        spec, path = split_file_name(args) if args.strip() else ("", "")
        # `:plot 1 sum(v^2)`: an order and an expression, the FILE left out (as
        # for :d, a number alone is not taken for the expression: `:plot 0 2 g.dot`)
        if not spec.strip() or NUMBER.fullmatch(spec.strip()):
            raise UsageError(
                "usage: :plot [N] EXPR FILE, as in :plot 2 x**4 - 2*x**2 graph.png"
            )
        order, expr, skip = split_order(spec, 0, first_line, offset)
        graph_format(path)  # a bad extension fails before any work
        session = self.session
        try:
            g = session.graph(expr, order=order)
        except GradcliError as err:
            self.show_argument_error(err, text, first_line, offset + skip)
            return
        for w in session.pending_warnings():
            self._warn(w, first_line)
        for line in write_graph(g, path):
            if line.startswith("warning: "):
                self._warn(line[len("warning: "):], first_line)
            else:
                self.display.info(line)

    def cmd_curve(self, args: str, text: str, first_line: int, offset: int) -> None:
        parts = split_curve(args, first_line, offset)
        if not parts.expr.strip():
            raise UsageError("usage: :curve EXPR [A B] [N], as in :curve sin(x) 0 2pi 1")
        session = self.session
        try:
            var, item, a, b = interval_item(session, parts, ":curve f(t) = t^3 - t; f(x) 0 2",
                                            "draw the others with a :curve each")
            data = session.curve([item], var, a, b, order=parts.order)
        except GradcliError as err:
            self.show_argument_error(err, text, first_line, offset)
            return
        for w in data.notes:
            self._warn(w, first_line)
        self.display.curve(data)

    def cmd_extrema(self, args: str, text: str, first_line: int, offset: int) -> None:
        from .extrema import run_extrema

        run_extrema(self, args, text, first_line, offset)

    def cmd_clear(self, args: str, text: str, first_line: int, offset: int) -> None:
        names = args.replace(",", " ").split()
        if not names:
            self.session.clear()
            self.display.info("cleared every variable and function")
            return
        try:
            self.session.forget(names)
        except GradcliError as err:
            where = max(0, args.find(getattr(err, "name", "")))
            raise err.at(first_line, offset + 1 + where) from None
        self.display.info("forgot " + ", ".join(dict.fromkeys(names)))

    def cmd_quit(self, args: str, text: str, first_line: int, offset: int) -> bool:
        return False


def _value_of(session: Session, name: str) -> Any:
    for n, v in session.variables():
        if n == name:
            return v
    return None
