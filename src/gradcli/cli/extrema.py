"""``gradcli extrema``: each local minimum, maximum and inflection point of an
expression on an interval, and the ends where it is extreme (see core/roots.py
for how they are found). Plain lines or one JSON object."""

from __future__ import annotations

import sys
import warnings
from typing import Any

from ..render.output import Output
from .commands import session_over
from .input import UsageProblem, line_of, split_over

EXAMPLE = "gradcli extrema 'f(t) = t^3 - t; f(x)'"
MANY = "give it one expression; run gradcli extrema once for each"


def run_extrema(args: Any, after_dashes: list[str]) -> int:
    """``gradcli extrema`` with parsed ``args``; the exit status."""
    from ..errors import GradcliError
    from ..render.extrema import extrema_json, extrema_lines
    from ..render.plain import RenderOptions
    from ..session.curves import drawn, not_assigned
    from ..session.extrema import find_extrema

    exprs = [*args.exprs, *after_dashes]
    if not exprs:
        raise UsageProblem("Missing argument 'EXPR'.")
    if len(exprs) > 1:
        raise UsageProblem(f"extrema takes one EXPR; got {len(exprs)}: {MANY}")
    var = split_over(args.over)[0]  # a bad --over: a usage error before any work
    text = exprs[0]
    out = Output(args.format, RenderOptions(digits=args.digits), args.color, line_hints=False)
    try:
        item = drawn(text, EXAMPLE, MANY)
        not_assigned(item, var)
    except GradcliError as err:
        out.error(err, line_of(text, 1, err.line), text)
        return out.status
    over = session_over(args, out, text)
    if over is None:
        return out.status
    session, var, a, b = over
    try:
        with warnings.catch_warnings():  # nan and inf outside the domain: no roots there
            warnings.simplefilter("ignore", RuntimeWarning)
            data = find_extrema(session, item, var, a, b, args.points)
    except GradcliError as err:
        out.error(err, line_of(text, 1, err.line), text)
        return out.status
    for note in data.notes:
        out.warning(note)
    from ..pipes import write_whole

    if args.format == "json":
        write_whole(sys.stdout, extrema_json(data) + "\n")
    else:
        lines = extrema_lines(data, args.digits)
        if lines:
            write_whole(sys.stdout, "\n".join(lines) + "\n")
        else:
            out.note(f"{data.input} has no extremum or inflection point on "
                     f"{var} = {a:g}..{b:g}")
    return out.status
