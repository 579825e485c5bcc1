"""The ``gradcli`` command line (SPEC section 2): a thin shell over Session.

``gradcli eval`` runs statements through one Session and hands each Result to
a renderer; it computes nothing itself.

The commands are a Typer app (``app``, built on first use): it owns the
options, ``--help``, usage errors and the ``plot`` and ``repl`` commands.
Start-up is a feature for shell scripts, and Typer is costly to start: the
installed Typer validates every non-flag option with a pydantic TypeAdapter,
which imports pydantic (about 100 ms) on every run. So ``run`` first tries a
small parser of its own (``fast_eval_args``) that understands only plain
``gradcli eval`` command lines (known options, valid values); whatever it is
not sure of (``--help``, a bad value, an unknown option) goes to Typer, which
gives the usual help and messages. A test checks that both parse every
command line the fast parser accepts to the same values.

Otherwise this module imports only the standard library: the session, NumPy
and Lark load when statements run, rich only for the table format,
prompt_toolkit only for the REPL, Graphviz only for ``plot``.

Exit status: 0 ok, 1 math or evaluation error, 2 usage or parse error,
3 ``--check`` failed; with several statements the highest wins. No input
ever shows a Python traceback: ``run`` is the one top-level handler.
"""

import errno
import io
import os
import re
import sys
from collections.abc import Iterator
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

from . import __version__
from .lang.names import NAME, is_name
from .pipes import WholeWriter, silence_stdout, write_whole

if TYPE_CHECKING:
    import typer

    from .errors import GradcliError
    from .render.plain import RenderOptions
    from .results import Result

# The highest derivative order gradcli computes; equal to
# gradcli.lang.evaluate.MAX_ORDER (a test keeps the two in step), repeated here
# so that option checking need not import the evaluator.
MAX_ORDER = 1000
MAX_DIGITS = 17

CHECK_HELP = (
    "Compare the derivatives of order 1 and 2 with central differences: "
    "step h = eps^(1/3)*max(1,|a|) for order 1 and eps^(1/4)*max(1,|a|) for order 2 "
    "(eps the dtype's machine epsilon, a the point); a derivative passes when "
    "|autodiff - estimate| <= 1e-5 + 1e-4*|autodiff|. Exit status 3 when one fails."
)


CLI_WORDS: dict[str, str] = {
    "value": "give one with --at {name}=... or {name} = ...",
    "wrt": "choose one with --wrt",
    "wrt_named": "--wrt {name}: ",
    "method_paren": " (--method taylor)",
    "method_use": ": use --method taylor",
    "order": "--order",
    "series": "--series",
    "check": "--check",
    "grad": "--grad",
}
"""How the command line words the hints in errors and warnings (errors.worded)."""


class Format(str, Enum):
    table = "table"
    json = "json"
    plain = "plain"
    csv = "csv"


class Method(str, Enum):
    auto = "auto"
    taylor = "taylor"
    backprop = "backprop"


class Colour(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


class Device(str, Enum):
    cpu = "cpu"
    gpu = "gpu"


class DType(str, Enum):
    float64 = "float64"
    float32 = "float32"


class UsageProblem(ValueError):
    """A bad option value found after parsing; Typer shows it as a usage error."""

    def __init__(self, message: str, option: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.option = option


# --------------------------------------------------------------------------
# Terminal facts and colour


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def colour_enabled(choice: str, stream: Any) -> bool:
    """Whether to colour ``stream``: `always`, or in `auto` a terminal on both
    standard output and ``stream``, with neither NO_COLOR set nor TERM=dumb."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    return _isatty(sys.stdout) and _isatty(stream)


_RED, _YELLOW, _RESET = "\033[1;31m", "\033[1;33m", "\033[0m"


# --------------------------------------------------------------------------
# --at


_AT_SPLIT = re.compile(r"[()\[\]]|,(?=\s*" + NAME.pattern + r"\s*=(?!=))")


def split_at(text: str) -> list[tuple[str, str]]:
    """``x=2,y=3`` as [("x", "2"), ("y", "3")]; UsageProblem if malformed.

    Values are expressions and may hold commas (``x=linspace(0,1,5)``), so
    the text splits only at a comma outside brackets followed by ``name=``.
    """
    parts, depth, start = [], 0, 0
    for m in _AT_SPLIT.finditer(text):
        char = m.group()
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(text[start : m.start()])
            start = m.end()
    parts.append(text[start:])
    out = []
    for part in parts:
        name, eq, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not is_name(name) or not value:
            raise UsageProblem(
                f"expected NAME=VALUE (as in x=2 or x=2,y=3), got {part.strip()!r}", "--at"
            )
        out.append((name, value))
    return out


# --------------------------------------------------------------------------
# Reading statements


_BRACKETS = re.compile(r"[(\[]|[)\]]|#[^\n]*")


def _depth_after(line: str, depth: int) -> int:
    for m in _BRACKETS.finditer(line):
        char = m.group()[0]
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
    return depth


def _line_batches(stream: Any) -> Iterator[list[str]]:
    """Lines of ``stream`` in batches: each batch is what had arrived together.

    On a real file descriptor this reads with os.read, which returns whatever
    is there (up to 64 KiB) without waiting for more: a file or a fast pipe
    comes in batches of thousands of lines (one Session.run each, much less
    overhead per statement), while a slow producer's lines come one at a
    time and each result is printed at once. Other streams go line by line.
    Undecodable bytes become U+FFFD (the parser then reports them).
    """
    if stream is None:  # standard input closed (`<&-`): no statements
        return
    try:
        fd = stream.fileno()
        encoding = getattr(stream, "encoding", None) or "utf-8"
        if "\n".encode(encoding) != b"\n":  # not ASCII-compatible (or LookupError)
            raise LookupError(encoding)
    except (AttributeError, OSError, ValueError, LookupError):
        for line in stream:
            yield [line]
        return
    pending = b""
    while True:
        data = os.read(fd, 1 << 16)
        if not data:
            break
        pending += data
        end = pending.rfind(b"\n") + 1
        if end:
            lines = pending[:end].decode(encoding, errors="replace").splitlines(keepends=True)
            pending = pending[end:]
            yield lines
    if pending:
        yield [pending.decode(encoding, errors="replace")]


def stdin_chunks(stream: Any, first_line: int = 1) -> Iterator[tuple[str, int]]:
    """Standard input as (text, first line) pieces, a statement never split.

    Each piece holds the lines that arrived together (see _line_batches), so
    results stream out as a slow producer writes; a line that leaves a
    bracket open is joined with the following ones, as the language lets a
    bracketed expression span lines.
    """
    held: list[str] = []  # lines of a statement whose bracket is still open
    depth = 0
    start = line_no = first_line
    for batch in _line_batches(stream):
        ready: list[str] = []  # complete statements, ready to run
        ready_start = start
        for line in batch:
            held.append(line)
            line_no += 1
            depth = _depth_after(line, depth)
            if depth == 0:
                ready.extend(held)
                held = []
                start = line_no
        if ready:
            yield "".join(ready), ready_start
    if held:
        yield "".join(held), start


# --------------------------------------------------------------------------
# Output


class Output:
    """Where results, errors and warnings go, in the chosen format."""

    def __init__(self, fmt: str, opts: "RenderOptions", colour: str, *,
                 line_hints: bool) -> None:
        self.fmt = fmt
        self.opts = opts
        self.out = sys.stdout
        self.err = sys.stderr
        self.err_colour = colour_enabled(colour, self.err)
        self.out_colour = colour_enabled(colour, self.out)
        self.line_hints = line_hints
        self.status = 0
        self._table: Any = None
        self._csv: Any = None
        self._render_json: Any = None
        self._render_plain: Any = None

    def _write(self, text: str) -> None:
        write_whole(self.out, text)  # a reader that leaves mid-write: status 1

    # errors and warnings ------------------------------------------------------

    def _to_stderr(self, text: str) -> None:
        # Results already written go out first, so that `2>&1` keeps the order.
        self.out.flush()
        self.err.write(text + "\n")

    def error(self, err: "GradcliError", line_text: str | None, input_text: str,
              *, json_object: bool = True) -> None:
        """``error: ...`` and a caret on stderr; in JSON also an object on stdout,
        in CSV a row (an error before any statement ran: a bad --at, no GPU)."""
        from .render.errors import format_error

        text = format_error(err, line_text)
        if self.err_colour:
            text = _RED + "error:" + _RESET + text[len("error:"):]
        self._to_stderr(text)
        self.status = max(self.status, int(err.exit_status))
        if json_object:
            self.error_record(err, input_text)

    def error_record(self, err: "GradcliError", input_text: str) -> None:
        """The error as JSON's object or CSV's row for ``input_text`` (stdout)."""
        if self.fmt == "json":
            from .render.json import error_json

            self._write(error_json(input_text, err.kind, err.message, err.line,
                                   err.column) + "\n")
        elif self.fmt == "csv":
            from .results import Result

            if self._csv is None:
                self._start_csv()
            self._write(self._csv.row(Result(input=input_text, kind="error", error=err)))

    def warning(self, message: str, line: int | None = None) -> None:
        from .render.errors import format_warning

        text = format_warning(message)
        if line is not None and self.line_hints:
            text += f" (line {line})"
        if self.err_colour:
            text = _YELLOW + "warning:" + _RESET + text[len("warning:"):]
        self._to_stderr(text)

    # results -------------------------------------------------------------------

    def result(self, res: "Result", line_text: str | None, point: Any = None) -> None:
        """Print one result (``point``: where a series was expanded)."""
        for message in res.warnings:
            self.warning(message, res.line)
        if res.error is not None:
            self.error(res.error, line_text, res.input, json_object=False)
        self.status = max(self.status, int(res.exit_status))
        fmt = self.fmt
        if fmt == "json":
            if self._render_json is None:
                from .render.json import render_json

                self._render_json = render_json
            self._write(self._render_json(res) + "\n")
        elif fmt == "plain":
            if self._render_plain is None:
                from .render.plain import render_plain

                self._render_plain = render_plain
            lines = self._render_plain(res, self.opts, point)
            if lines:
                self._write("\n".join(lines) + "\n")
        elif fmt == "csv":
            if self._csv is None:
                self._start_csv()
            self._write(self._csv.row(res))
        else:
            if self._table is None:
                from .render.table import TableRenderer

                self._table = TableRenderer(WholeWriter(self.out), self.opts,
                                            colour=self.out_colour,
                                            terminal=_isatty(self.out))
            self._table.render(res, point)

    def _start_csv(self) -> None:
        from .render.csv import CsvRenderer

        self._csv = CsvRenderer(self.opts)
        self.out.write(self._csv.header())

    def finish(self) -> None:
        if self.fmt == "csv" and self._csv is None:
            self._start_csv()  # a header even when nothing ran
        self.out.flush()


def _line_of(text: str, first_line: int, line: int | None) -> str | None:
    if line is None:
        return None
    lines = text.split("\n")
    index = line - first_line
    return lines[index] if 0 <= index < len(lines) else None


# --------------------------------------------------------------------------
# gradcli eval


def run_statements(
    sources: list[str],
    *,
    at: list[str] | tuple[str, ...] = (),
    wrt: str | None = None,
    order: int = 0,
    grad: bool = False,
    check: bool = False,
    method: str = "auto",
    series: int | None = None,
    fmt: str | None = None,
    digits: int | None = None,
    colour: str = "auto",
    device: str = "cpu",
    dtype: str = "float64",
) -> int:
    """Run ``sources`` (statement texts; "-" is standard input) and print the
    results; returns the exit status. Raises UsageProblem for a bad --at/--wrt."""
    for text in sources:
        option = text.split("=", 1)[0]
        if option in _FLAGS or option in _VALUED:
            # only '--' lets an option through as a statement: it was meant as one
            raise UsageProblem(f"{option} came after '--', so it was read as an expression; "
                               f"put options before '--'", None)
    bindings = [pair for text in at for pair in split_at(text)]
    if wrt is not None and not is_name(wrt):
        raise UsageProblem(f"{wrt!r} is not a variable name", "--wrt")

    from .errors import GradcliError
    from .render.plain import RenderOptions
    from .session import EvalOptions, Session

    if fmt is None:
        fmt = "table" if _isatty(sys.stdout) else "plain"
    opts = RenderOptions(order=order, grad=grad, check=check, series=series, digits=digits)
    output = Output(fmt, opts, colour, line_hints=len(sources) > 1 or "-" in sources)
    try:
        session = Session(dtype=dtype, device=device, method=method, words=CLI_WORDS)
    except GradcliError as err:
        # One error, and in JSON and CSV one object or row per statement argument.
        output.error(err, None, sources[0] if sources else "-")
        for text in sources[1:]:
            output.error_record(err, text)
        output.finish()
        return output.status

    if not bind_all_at(session, bindings, output):
        output.finish()
        return output.status

    options = EvalOptions(wrt=wrt, order=order, grad=grad, check=check, series=series)
    if wrt is not None and not options.wants_derivatives:
        # PyTorch and qalc would not say, but a silently ignored option reads as
        # "this printed the derivative by wrt" to a script's author
        output.warning(f"--wrt {wrt} has no effect without --order, --series or --check")
    line = 1
    stdin_read = False
    for source in sources:
        if source == "-":
            if stdin_read:
                continue
            stdin_read = True
            chunks: Any = stdin_chunks(sys.stdin, line)
        else:
            chunks = [(source, line)]
        for text, first in chunks:
            for res in session.run(text, options, first_line=first):
                error_line = res.error.line if res.error is not None else None
                output.result(res, _line_of(text, first, error_line), res.point)
            line = first + text.count("\n") + (0 if text.endswith("\n") else 1)
            if source == "-":
                output.out.flush()
    output.finish()
    return output.status


# --------------------------------------------------------------------------
# The fast path: plain `gradcli eval` command lines without Typer


_FLAGS = {"--grad": "grad", "--check": "check"}
_VALUED = {
    "--at": "at", "--wrt": "wrt", "--order": "order", "--method": "method",
    "--series": "series", "--format": "fmt", "--digits": "digits", "--color": "colour",
    "--device": "device", "--dtype": "dtype",
}
_CHOICES: dict[str, type[Enum]] = {
    "method": Method, "fmt": Format, "colour": Colour, "device": Device, "dtype": DType,
}
_RANGES = {"order": (0, MAX_ORDER), "series": (0, MAX_ORDER), "digits": (1, MAX_DIGITS)}
_DIGITS = re.compile(r"[0-9]{1,6}")


def eval_defaults() -> dict[str, Any]:
    return {
        "sources": [], "at": [], "wrt": None, "order": 0, "grad": False, "check": False,
        "method": "auto", "series": None, "fmt": None, "digits": None, "colour": "auto",
        "device": "cpu", "dtype": "float64",
    }


def _fast_value(key: str, text: str) -> Any:
    """The option's value, or None when Typer should judge it."""
    if key in _CHOICES:
        return text if text in {m.value for m in _CHOICES[key]} else None
    if key in _RANGES:
        low, high = _RANGES[key]
        if _DIGITS.fullmatch(text) and low <= int(text) <= high:
            return int(text)
        return None
    if key == "at":
        try:
            split_at(text)
        except UsageProblem:
            return None
        return text
    return text if is_name(text) else None  # --wrt


def fast_eval_args(args: list[str], stdin_is_terminal: bool) -> dict[str, Any] | None:
    """The keyword arguments of ``run_statements`` for a plain ``eval`` command
    line (or a bare ``gradcli`` reading a pipe); None for anything else."""
    values = eval_defaults()
    if not args:
        if stdin_is_terminal:
            return None  # the REPL
        values["sources"] = ["-"]
        return values
    if args[0] != "eval":
        return None
    only_arguments = False
    i = 1
    while i < len(args):
        token = args[i]
        i += 1
        if only_arguments or token == "-" or not token.startswith("-"):
            values["sources"].append(token)
            continue
        if token == "--":
            only_arguments = True
            continue
        name, eq, inline = token.partition("=")
        if name in _FLAGS and not eq:
            values[_FLAGS[name]] = True
            continue
        key = _VALUED.get(name)
        if key is None:
            return None
        if eq:
            text = inline
        elif i < len(args):
            text = args[i]
            i += 1
        else:
            return None
        value = _fast_value(key, text)
        if value is None:
            return None
        if key == "at":
            values["at"].append(value)
        else:
            values[key] = value
    if not values["sources"]:
        if stdin_is_terminal:
            return None  # Typer says what is missing
        values["sources"] = ["-"]
    return values


# --------------------------------------------------------------------------
# The Typer app


def build_app() -> "typer.Typer":
    """The Typer app: every command, option and help text."""
    import typer

    app = typer.Typer(
        name="gradcli",
        help="gradcli: a differentiation calculator. Values, derivatives of any order, "
        "numerical checks and computational graphs of formulas such as x**4 - 2*x**2. "
        "`gradcli help COMMAND` is `gradcli COMMAND --help`.",
        add_completion=False,
        rich_markup_mode=None,  # Typer would import rich for every usage error
        pretty_exceptions_enable=False,
        no_args_is_help=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    def run_or_usage(**kwargs: Any) -> NoReturn:
        try:
            code = run_statements(**kwargs)
        except UsageProblem as problem:
            if problem.option is None:  # the command line as a whole
                from typer import _click  # noqa: PLC0415

                raise _click.exceptions.UsageError(
                    problem.message, ctx=_click.globals.get_current_context(silent=True)
                ) from None
            raise typer.BadParameter(problem.message,
                                     param_hint=f"'{problem.option}'") from None
        raise typer.Exit(code)

    @app.callback(invoke_without_command=True)
    def main(
        ctx: typer.Context,
        version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")]
        = False,
    ) -> None:
        """With no command: the REPL on a terminal, else statements from standard input."""
        if version:
            typer.echo(f"gradcli {__version__}")
            raise typer.Exit(0)
        if ctx.invoked_subcommand is not None:
            return
        if _isatty(sys.stdin):
            raise typer.Exit(_start_repl("float64", "cpu", "auto"))
        run_or_usage(sources=["-"])

    @app.command("eval")
    def eval_command(
        exprs: Annotated[Optional[list[str]], typer.Argument(  # noqa: UP045 - Typer reads it
            metavar="EXPR",
            help="Statements to run, each on its own (never joined). '-' or none with "
            "standard input not a terminal: read statements from standard input. "
            "Put an expression that starts with '-' after '--'.",
            show_default=False,
        )] = None,
        at: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
            "--at", metavar="NAME=EXPR[,NAME=EXPR]",
            help="Bind variables before running, e.g. --at x=2,y=3 or "
            "--at \"x=linspace(0,1,5)\"; may be repeated.",
            show_default=False,
        )] = None,
        wrt: Annotated[Optional[str], typer.Option(  # noqa: UP045
            "--wrt", metavar="NAME",
            help="The variable to differentiate by (default: the only variable in EXPR).",
            show_default=False,
        )] = None,
        order: Annotated[int, typer.Option(
            "--order", min=0, max=MAX_ORDER, metavar="N",
            help="Print the derivatives of orders 0..N.",
        )] = 0,
        grad: Annotated[bool, typer.Option(
            "--grad",
            help="The gradient: the partial derivatives by each variable the expression uses.",
        )] = False,
        check: Annotated[bool, typer.Option("--check", help=CHECK_HELP)] = False,
        method: Annotated[Method, typer.Option(
            "--method", help="Taylor-mode propagation, repeated backprop, or auto "
            "(both give the same numbers).",
        )] = Method.auto,
        series: Annotated[Optional[int], typer.Option(  # noqa: UP045
            "--series", min=0, max=MAX_ORDER, metavar="N",
            help="The Taylor polynomial of degree N about the point.",
            show_default=False,
        )] = None,
        fmt: Annotated[Optional[Format], typer.Option(  # noqa: UP045
            "--format",
            help="Output format (default: table on a terminal, plain when piped).",
            show_default=False,
        )] = None,
        digits: Annotated[Optional[int], typer.Option(  # noqa: UP045
            "--digits", min=1, max=MAX_DIGITS, metavar="D",
            help="Round what table and plain show to D significant digits "
            "(JSON and CSV always carry full precision).",
            show_default=False,
        )] = None,
        color: Annotated[Colour, typer.Option(
            "--color", help="Colour (auto: off under NO_COLOR, TERM=dumb "
            "or when standard output is not a terminal).",
        )] = Colour.auto,
        device: Annotated[Device, typer.Option("--device", help="Where arrays live.")]
        = Device.cpu,
        dtype: Annotated[DType, typer.Option("--dtype", help="Floating-point type.")]
        = DType.float64,
    ) -> None:
        """Evaluate statements: values, derivatives, checks and series."""
        sources = list(exprs or [])
        if not sources:
            if _isatty(sys.stdin):
                raise typer.BadParameter(
                    "give an expression, or '-' to read statements from standard input",
                    param_hint="'EXPR'",
                )
            sources = ["-"]
        run_or_usage(
            sources=sources, at=list(at or []), wrt=wrt, order=order, grad=grad,
            check=check, method=method.value, series=series,
            fmt=fmt.value if fmt else None, digits=digits, colour=color.value,
            device=device.value, dtype=dtype.value,
        )

    @app.command("plot")
    def plot_command(
        expr: Annotated[str, typer.Argument(metavar="EXPR", help="The expression to draw.")],
        output: Annotated[str, typer.Option(
            "-o", "--output", metavar="FILE",
            help="The file to write: .png, .svg, .pdf or .dot.",
        )],
        at: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
            "--at", metavar="NAME=EXPR[,NAME=EXPR]",
            help="Bind variables first, as for eval.", show_default=False,
        )] = None,
        order: Annotated[int, typer.Option(
            "--order", min=0, max=MAX_ORDER, metavar="N",
            help="Draw the graph that computes the N-th derivative.",
        )] = 0,
        wrt: Annotated[Optional[str], typer.Option(  # noqa: UP045
            "--wrt", metavar="NAME",
            help="The variable of --order (default: the only one in EXPR).",
        )] = None,
        verbose: Annotated[bool, typer.Option(
            "--verbose", help="Show shapes, dtypes and values in the nodes.",
        )] = False,
    ) -> None:
        """Write the computational graph of EXPR (Graphviz)."""
        try:
            code = run_plot(expr, output, list(at or []), order, verbose, wrt)
        except UsageProblem as problem:
            raise typer.BadParameter(problem.message,
                                     param_hint=f"'{problem.option}'") from None
        raise typer.Exit(code)

    @app.command("repl")
    def repl_command(
        method: Annotated[Method, typer.Option("--method", help="Derivative engine.")]
        = Method.auto,
        device: Annotated[Device, typer.Option("--device", help="Where arrays live.")]
        = Device.cpu,
        dtype: Annotated[DType, typer.Option("--dtype", help="Floating-point type.")]
        = DType.float64,
    ) -> None:
        """The interactive calculator (also plain `gradcli` on a terminal)."""
        raise typer.Exit(_start_repl(dtype.value, device.value, method.value))

    return app


def bind_all_at(session: Any, bindings: list[tuple[str, str]], output: Output) -> bool:
    """Bind every --at value in order, reporting each failure; True if all bound."""
    from .errors import GradcliError

    ok = True
    for name, value in bindings:
        try:
            session.bind_at(name, value)
        except GradcliError as err:
            err.message = f"--at {name}={value}: {err.message}"
            if err.column is not None and (err.line or 1) == 1:
                err.column += len(name) + 1  # counted in "name=value", the input shown
            output.error(err, f"{name}={value}", f"{name}={value}")
            ok = False
        for message in session.pending_warnings():
            output.warning(f"--at {name}: {message}")
    return ok


def run_plot(expr: str, path: str, at: list[str], order: int, verbose: bool,
             wrt: str | None = None) -> int:
    """``gradcli plot``: the graph of ``expr`` written to ``path``; the exit status."""
    bindings = [pair for text in at for pair in split_at(text)]

    from .errors import GradcliError
    from .graphs import graph as draw
    from .render.plain import RenderOptions
    from .session import Session

    out = Output("plain", RenderOptions(), "auto", line_hints=False)
    try:
        session = Session(words=CLI_WORDS)
    except GradcliError as err:
        out.error(err, None, expr)
        return out.status
    if not bind_all_at(session, bindings, out):
        return out.status
    try:
        graph = draw(session, expr, order, wrt, verbose, stand_ins=True)
        for message in session.pending_warnings():
            out.warning(message)
        from .render.graph import write_graph

        for info in write_graph(graph, path):
            out._to_stderr(info)
    except GradcliError as err:
        out.error(err, _line_of(expr, 1, err.line), expr)
    return out.status


def _start_repl(dtype: str, device: str, method: str) -> int:
    from .repl import main as repl_main

    return int(repl_main(dtype=dtype, device=device, method=method) or 0)


_app: Any = None


def __getattr__(name: str) -> Any:
    # `app` is built on first use, so that importing this module stays cheap.
    global _app
    if name == "app":
        if _app is None:
            _app = build_app()
        return _app
    raise AttributeError(name)


# --------------------------------------------------------------------------
# The entry point: one handler for everything


class _ClosedOutput(io.TextIOBase):
    """Standard output that the shell closed: a write fails as on any closed
    file descriptor (and is reported by _cannot_write)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


def _cannot_write(exc: OSError) -> int:
    """Say that the output could not be written (and drop what is left of it): 1."""
    silence_stdout()
    sys.stderr.write(f"error: cannot write the output: {exc.strerror or exc}\n")
    return 1


def _plain_help(command: Any) -> None:
    """--help in a user's words, not Python's: an argument is EXPR, not
    ``EXPR <list[str]>`` (usage ``{EXPR}``), and a range reads ``0 to 1000``,
    not ``0<=x<=1000``. Recent Typers word these in methods of each parameter,
    overridden here per parameter; a Typer without them keeps its own words."""
    for sub in getattr(command, "commands", {}).values():
        for param in sub.params:
            if hasattr(param, "display_type_rich") and param.param_type_name == "argument":
                param.display_type_rich = lambda ctx: None
                name = param.metavar or param.name.upper()
                many = "..." if param.nargs != 1 else ""
                param._usage_display_name = (
                    (lambda n=name, m=many: f"{n}{m}") if param.required
                    else (lambda n=name, m=many: f"[{n}]{m}"))
            low, high = getattr(param, "min", None), getattr(param, "max", None)
            if hasattr(param, "_get_number_range_help_str") and None not in (low, high):
                param._get_number_range_help_str = lambda lo=low, hi=high: f"{lo} to {hi}"


def _run_typer(args: list[str]) -> int:
    import typer

    command = typer.main.get_command(__getattr__("app"))
    _plain_help(command)
    try:
        result = command.main(args=args, prog_name="gradcli", standalone_mode=False)
    except typer.Exit as exc:  # pragma: no cover - standalone_mode=False returns it
        return int(exc.exit_code)
    except Exception as exc:
        return _report_click(exc, args)
    return int(result) if isinstance(result, int) else 0


_VALIDATION_WORDS = [  # Typer's (pydantic's) phrasing -> ours
    (re.compile(r"^Value error, "), ""),
    (re.compile(r"^Input should be a valid integer.*"), "expected a whole number"),
    (re.compile(r"^Input should be less than or equal to "), "expected at most "),
    (re.compile(r"^Input should be greater than or equal to "), "expected at least "),
    (re.compile(r"^Input should be "), "expected "),
]


def _report_click(exc: Exception, args: list[str] | None = None) -> int:
    """A Click usage error or abort as Click prints it; anything else re-raised.
    ``args``: the command line, for the hint after an unknown command."""
    import typer
    from typer import _click

    if isinstance(exc, _click.exceptions.ClickException):
        # Typer's validation speaks its library's words; a user reads these
        for pattern, words in _VALIDATION_WORDS:
            exc.message = pattern.sub(words, exc.message, count=1)
        top = isinstance(exc, _click.exceptions.UsageError) and exc.ctx is not None \
            and exc.ctx.parent is None and bool(args)
        if top and exc.message.startswith("No such command") \
                and "Did you mean" not in exc.message and not args[0].startswith("-"):
            # qalc's users type the formula straight after the program's name
            import shlex  # noqa: PLC0415

            exc.message += f" To evaluate an expression: gradcli eval {shlex.join(args)}"
        elif isinstance(exc, _click.exceptions.NoSuchOption) and exc.ctx is not None \
                and args and not exc.option_name.startswith("--"):
            # `gradcli -x^2`, `gradcli eval -x^2` or `gradcli -- -x`: a formula that
            # starts with a minus (Click names only its first letter, -x)
            import shlex  # noqa: PLC0415

            command = "eval" if exc.ctx.parent is None else exc.ctx.info_name
            word = next((a for a in args if a.startswith(exc.option_name)), exc.option_name)
            exc.message += (". An expression that starts with '-' goes after '--': "
                            f"gradcli {command} [OPTIONS] -- {shlex.quote(word)}")
        exc.show()
        return int(exc.exit_code)
    if isinstance(exc, typer.Abort):
        sys.stderr.write("Aborted!\n")
        return 1
    raise exc


def run(argv: list[str] | None = None) -> NoReturn:
    """``gradcli``: run a command line; never a traceback, whatever happens."""
    args = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is None:  # closed (`>&-`): the output cannot be written, as with echo
        sys.stdout = _ClosedOutput()
    if sys.stderr is None:  # nowhere to say anything: say nothing
        sys.stderr = open(os.devnull, "w")
    if args[:1] == ["help"]:  # as git's and pip's `help [COMMAND]`
        if args[1:] not in ([], ["eval"], ["plot"], ["repl"]):
            sys.stderr.write("Usage: gradcli help [COMMAND]\nTry 'gradcli -h' for help.\n\n"
                             f"Error: no help for '{' '.join(args[1:])}'; the commands are "
                             "eval, plot and repl\n")
            sys.exit(2)
        args = [*args[1:], "--help"]
    code: int
    try:
        fast = fast_eval_args(args, _isatty(sys.stdin))
        if args == ["--version"]:  # scripts ask it: no reason to wait for Typer
            sys.stdout.write(f"gradcli {__version__}\n")
            code = 0
        elif args == ["repl"] or (not args and _isatty(sys.stdin)):
            # The REPL with default settings needs none of Typer's ~0.4 s start.
            code = _start_repl("float64", "cpu", "auto")
        elif fast is not None:
            try:
                code = run_statements(**fast)
            except UsageProblem:
                code = _run_typer(args)  # Typer words the usage error
        else:
            code = _run_typer(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        silence_stdout()
        code = 1
    except OSError as exc:  # a full disk (> /dev/full), an I/O error: ours to word
        code = _cannot_write(exc)
    except Exception as exc:  # noqa: BLE001 - the one place that catches everything
        sys.stderr.write(
            f"error: internal error ({type(exc).__name__}: {exc}); please report it\n"
        )
        code = 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        code = code or 1
    except OSError as exc:  # the last of the output did not fit either
        failed = _cannot_write(exc)
        code = code or failed
    except ValueError:  # stdout closed under us
        pass
    sys.exit(code)


__all__ = ["MAX_ORDER", "build_app", "colour_enabled", "fast_eval_args", "run",
           "run_plot", "run_statements", "split_at", "stdin_chunks"]
