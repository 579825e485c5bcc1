"""What each command does with its options: the one place the CLI calls the Session.

``gradcli eval`` runs statements through one Session and hands each Result to
``render.output.Output``; ``plot`` asks the Session for a graph and writes it;
``repl`` starts the REPL. Nothing here computes anything itself.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..render.output import Output, isatty
from .input import UsageProblem, line_of, lines_in, stdin_texts
from .words import CLI_WORDS

if TYPE_CHECKING:
    from ..asked import EvalOptions


def run_eval(args: Any, after_dashes: list[str]) -> int:
    """``gradcli eval`` with parsed ``args``; ``after_dashes``: the statements
    given after '--'. Returns the exit status; UsageProblem for a command line
    that cannot run."""
    sources = [*args.exprs, *after_dashes]
    if not sources:
        if isatty(sys.stdin):
            raise UsageProblem(
                "give an expression, or '-' to read statements from standard input", "EXPR")
        sources = ["-"]
    from ..asked import EvalOptions
    from ..record import fields

    if args.steps and args.format == "csv":
        raise UsageProblem("steps are shown in table, plain, json and latex, not csv",
                           "--steps")
    # the options named as EvalOptions' fields are what each statement asks for
    options = EvalOptions(**{name: getattr(args, name) for name in fields(EvalOptions)})
    return run_statements(
        sources, options, bindings=[pair for pairs in args.at for pair in pairs],
        method=args.method, fmt=args.format, digits=args.digits, colour=args.color,
        device=args.device, dtype=args.dtype, rows=args.rows)


def run_statements(
    sources: list[str],
    options: EvalOptions,
    *,
    bindings: list[tuple[str, str]] = (),  # type: ignore[assignment]
    method: str = "auto",
    fmt: str | None = None,
    digits: int | None = None,
    colour: str = "auto",
    device: str = "cpu",
    dtype: str = "float64",
    rows: bool = False,
) -> int:
    """Run ``sources`` (statement texts; "-" is standard input) and print the
    results; returns the exit status."""
    from ..errors import GradcliError
    from ..render.plain import RenderOptions
    from ..results import Result
    from ..session import Session

    if fmt is None:
        fmt = "table" if isatty(sys.stdout) else "plain"
    opts = RenderOptions.of(options, digits)
    output = Output(fmt, opts, colour, line_hints=len(sources) > 1 or "-" in sources,
                    rows=rows)
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
    output.sweep_over(session.at)  # an array --at: a tidy table, a row a point

    wrt = options.wrt
    if wrt is not None and not (options.wants_derivatives or options.formula
                                or options.order is not None or options.steps):
        # PyTorch and qalc would not say, but a silently ignored option reads as
        # "this printed the derivative by wrt" to a script's author
        output.warning(
            f"--wrt {wrt} has no effect without --order, --series, --check or --formula")

    def run(text: str, first: int) -> None:
        try:
            results = session.run(text, options, first_line=first)
        except Exception as exc:  # a bug of ours loses this text, not the next ones
            from ..errors import internal_error

            results = [Result(input=text.strip()[:200], line=first, kind="error",
                              error=internal_error(exc, first))]
        for res in results:
            error_line = res.error.line if res.error is not None else None
            output.result(res, line_of(text, first, error_line), res.point)

    line = 1
    stdin_read = False
    for source in sources:
        if source != "-":
            run(source, line)
            line += lines_in(source)
            continue
        if stdin_read:
            continue
        stdin_read = True
        output.settle()  # the arguments' rows before waiting on standard input
        for batch in stdin_texts(sys.stdin, line):
            for item in batch:
                if item.error is not None:  # a line the reader refused
                    output.result(Result(input=item.text[:200], line=item.line, kind="error",
                                         error=item.error), item.text)
                else:
                    run(item.text, item.line)
                line = item.line + item.text.count("\n") + 1
            output.settle()
            output.out.flush()
    output.finish()
    return output.status


def session_over(args: Any, output: Output, text: str,
                 **settings: Any) -> tuple[Any, str, float, float] | None:
    """curve's and extrema's session: made with ``settings``, the --at values
    bound, and --over's variable and interval read in it; None (each failure
    said on ``output``, ``text`` the argument shown) where one fails."""
    from ..errors import GradcliError
    from ..lang.ranges import over_range
    from ..session import Session
    from .input import split_over
    from .words import CLI_WORDS

    var, interval = split_over(args.over)
    try:
        session = Session(words=CLI_WORDS, **settings)
    except GradcliError as err:
        output.error(err, None, text)
        return None
    if not bind_all_at(session, [pair for pairs in args.at for pair in pairs], output):
        return None
    try:
        a, b = over_range(var, interval, session.number)
    except GradcliError as err:
        output.error(err, None, args.over)
        return None
    return session, var, a, b


def bind_all_at(session: Any, bindings: list[tuple[str, str]], output: Output) -> bool:
    """Bind every --at value in order, reporting each failure; True if all bound."""
    from ..errors import GradcliError, internal_error

    ok = True
    for name, value in bindings:
        try:
            points = None
            if ":" in value:  # maybe a range, x=0:1:0.25
                from ..lang.ranges import at_range

                points = at_range(name, value, session.number)
            if points is None:
                session.bind_at(name, value)
            else:  # x=0:1:0.25
                session.bind_value(name, points)
        except Exception as exc:  # a bug of ours is said as any bad --at is
            err = exc if isinstance(exc, GradcliError) else internal_error(exc)
            err.message = f"--at {name}={value}: {err.message}"
            if err.column is not None and (err.line or 1) == 1:
                err.column += len(name) + 1  # counted in "name=value", the input shown
            output.error(err, f"{name}={value}", f"{name}={value}")
            ok = False
        for message in session.pending_warnings():
            output.warning(f"--at {name}: {message}")
    return ok


def run_plot(args: Any) -> int:
    """``gradcli plot``: the graph of ``args.expr`` written to ``args.output``."""
    from ..errors import GradcliError
    from ..render.plain import RenderOptions
    from ..session import Session

    expr, path = args.expr, args.output
    out = Output("plain", RenderOptions(), "auto", line_hints=False)
    try:
        session = Session(words=CLI_WORDS)
    except GradcliError as err:
        out.error(err, None, expr)
        return out.status
    if not bind_all_at(session, [pair for pairs in args.at for pair in pairs], out):
        return out.status
    try:
        graph = session.graph(expr, args.order, args.wrt, args.verbose, stand_ins=True)
        for message in session.pending_warnings():
            out.warning(message)
        from ..render.graph import write_graph

        for info in write_graph(graph, path):
            out.note(info)
    except GradcliError as err:
        out.error(err, line_of(expr, 1, err.line), expr)
    return out.status


def run_repl(dtype: str = "float64", device: str = "cpu", method: str = "auto") -> int:
    from ..repl import main as repl_main

    return int(repl_main(dtype=dtype, device=device, method=method) or 0)
