"""``:extrema EXPR [A B]``: the REPL's ``gradcli extrema``, on the session's
bindings and definitions, shown as plain lines."""

from __future__ import annotations

import copy
from typing import Any

from ..errors import GradcliError, UsageError

USAGE = "usage: :extrema EXPR [A B], as in :extrema x^3 - 3*x -3 3"


def run_extrema(shell: Any, args: str, text: str, first_line: int, offset: int) -> None:
    """Run ``:extrema`` with ``args`` in ``shell`` (a commands.Shell)."""
    from ..lang.ranges import over_range
    from ..render.extrema import extrema_lines
    from ..session.curves import drawn
    from ..session.extrema import find_extrema
    from .arguments import split_curve

    parts = split_curve(args, first_line, offset)
    if not parts.expr.strip() or parts.order:
        raise UsageError(USAGE)
    session = shell.session
    try:
        item = drawn(parts.expr, ":extrema f(t) = t^3 - t; f(x) -2 2",
                     "run :extrema once for each expression")
        var, item = session.curve_variable(item)
        try:
            a, b = over_range(var, ":".join(parts.ends), session.number)
        except UsageError as err:  # over_range's own (empty, not finite): at A
            raise err.at(1, parts.columns[0] if parts.columns else None) from None
        data = find_extrema(session, item, var, a, b)
    except GradcliError as err:
        if err.line is not None:  # counted in the arguments: in the input's lines
            err = copy.copy(err)
            err.line += first_line - 1
        shell.show_error(err, text, first_line, offset)
        return
    for note in data.notes:
        shell.display.warning(note)
    lines = extrema_lines(data)
    if not lines:
        shell.display.info(f"{data.input} has no extremum or inflection point on "
                           f"{var} = {a:g}..{b:g}")
    for line in lines:  # results: standard output, as a formula's line
        shell.display.formula_line(line)
