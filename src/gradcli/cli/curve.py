"""``gradcli curve``: expressions and their derivatives over an interval.

With ``-o FILE`` the figure is written by matplotlib (imported here only);
without it, on a terminal, the curves are drawn in braille; piped, a usage
error asks for ``-o``. The curves are ``Session.curve``'s data, sampled
through the same session and Taylor mode as ``eval``.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from ..render.output import Output, colour_enabled, isatty
from .commands import session_over
from .input import UsageProblem, line_of, split_over

EXAMPLE = "gradcli curve 'f(t) = t^3 - t; f(x)'"
MANY = "give each expression its own EXPR argument, as in: gradcli curve 'sin(x)' 'cos(x)'"


def run_curve(args: Any, after_dashes: list[str]) -> int:
    """``gradcli curve`` with parsed ``args``; the exit status."""
    from ..errors import GradcliError
    from ..render.plain import RenderOptions
    from ..session.curves import drawn, not_assigned

    exprs = [*args.exprs, *after_dashes]
    if not exprs:
        raise UsageProblem("Missing argument 'EXPR'.")
    var = split_over(args.over)[0]  # a bad --over: a usage error before any work
    terminal = isatty(sys.stdout)
    if args.output is None and not terminal:
        raise UsageProblem("standard output is not a terminal: give a file to write, "
                           "as in -o curve.png (.png, .svg or .pdf)", "--output")
    out = Output("plain", RenderOptions(), "auto", line_hints=False)
    if args.output is not None:
        from ..atomic import writable_target
        from ..render.curve import curve_format

        try:
            # a file name of no image format is a usage error (2), as plot's is; one
            # that names a directory cannot be written (1): both before any work
            curve_format(args.output)
            writable_target(args.output)
        except GradcliError as err:
            out.error(err, None, args.output)
            return out.status
    items = []
    for text in exprs:  # every argument's shape is checked before anything runs
        try:
            items.append(drawn(text, EXAMPLE, MANY))
            not_assigned(items[-1], var)
        except GradcliError as err:
            out.error(err, line_of(text, 1, err.line), text)
            return out.status
    over = session_over(args, out, exprs[0], dtype=args.dtype, device=args.device,
                        method=args.method)
    if over is None:
        return out.status
    session, var, a, b = over
    text = exprs[0]  # the argument an error is shown in
    try:
        with warnings.catch_warnings():  # an interval near the float range's edge
            warnings.simplefilter("ignore", RuntimeWarning)
            data = session.curve(items, var, a, b, args.points, args.order, var_given=True)
        marks = _marks(session, items, var, a, b) if args.mark else []
        text = exprs[-1]
        for note in data.notes:
            out.warning(note)
        if args.output is not None:
            from ..render.curve import write_curve

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                lines = write_curve(data, args.output, marks) if marks else \
                    write_curve(data, args.output)
            for line in lines:
                out.note(line)
        else:
            from ..pipes import write_whole
            from ..render.termplot import render_terminal, terminal_size

            colour = colour_enabled(args.color, sys.stdout)
            write_whole(sys.stdout, render_terminal(data, *terminal_size(), colour=colour,
                                                    marks=marks))
    except GradcliError as err:
        text = getattr(err, "source", text)  # sampling's: the argument at fault
        out.error(err, line_of(text, 1, err.line), text)
    except (ArithmeticError, ValueError) as exc:  # an interval too wide to draw (1e308)
        out.error(GradcliError(f"cannot draw {var} = {a:g}..{b:g} ({exc}); choose a "
                               "narrower interval"), None, exprs[0])
    return out.status



def _marks(session: Any, items: list[Any], var: str, a: float, b: float) -> list[Any]:
    """--mark: the extrema of each drawn expression (session.extrema), an error
    named by the argument at fault, as sampling's are."""
    from ..errors import GradcliError
    from ..session.extrema import find_extrema

    marks = []
    for item in items:
        try:
            marks += find_extrema(session, item, var, a, b).points
        except GradcliError as err:
            err.source = item.text
            raise
    return marks
