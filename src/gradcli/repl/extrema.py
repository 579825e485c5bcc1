"""``:extrema EXPR [A B]``: the REPL's ``gradcli extrema``, on the session's
bindings and definitions, shown as plain lines."""

from __future__ import annotations

from typing import Any

from ..errors import GradcliError, UsageError

USAGE = "usage: :extrema EXPR [A B], as in :extrema x^3 - 3*x -3 3"


def run_extrema(shell: Any, args: str, text: str, first_line: int, offset: int) -> None:
    """Run ``:extrema`` with ``args`` in ``shell`` (a commands.Shell)."""
    from ..render.extrema import extrema_lines
    from ..session.extrema import find_extrema
    from .arguments import interval_item, split_curve

    parts = split_curve(args, first_line, offset)
    if not parts.expr.strip() or parts.order:
        raise UsageError(USAGE)
    try:
        var, item, a, b = interval_item(shell.session, parts,
                                        ":extrema f(t) = t^3 - t; f(x) -2 2",
                                        "run :extrema once for each expression")
        data = find_extrema(shell.session, item, var, a, b)
    except GradcliError as err:
        shell.show_argument_error(err, text, first_line, offset)
        return
    for note in data.notes:
        shell.display.warning(note)
    lines = extrema_lines(data)
    if not lines:
        shell.display.info(f"{data.input} has no extremum or inflection point on "
                           f"{var} = {a:g}..{b:g}")
    for line in lines:  # results: standard output, as a formula's line
        shell.display.formula_line(line)
