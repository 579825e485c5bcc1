"""The table format: rich tables, the default on a terminal.

Imported only when the table format is used (rich costs tens of
milliseconds to import; JSON, plain and CSV never load it).

- An expression with no derivatives asked for prints ``input = value``.
- With ``--order``, ``--check`` or ``--series``: a table titled with the
  input and the point, one row per order (0..N, plus orders 1 and 2 when
  ``--check`` asks for them) with the value, and with ``--check`` the
  central-difference estimate, absolute and relative error and pass/FAIL.
  A series adds its coefficients as a column (in place of the value column
  when no derivatives were asked for), and its polynomial under the table.
- ``--grad`` and ``grad(...)``: a table of partial derivatives.
- ``hessian(...)`` and ``jacobian(...)``: the matrix, its rows and columns
  labelled by variable (a Jacobian's rows by component).
- Assignments print ``x = 2``, definitions ``defined f(x)``.

On a terminal, arrays of more than 1,000 elements are summarised as NumPy
prints them (first and last three along each axis). Off a terminal the boxes
are ASCII, every number is written, and nothing is wrapped or cropped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from itertools import chain
from typing import IO, Any

import numpy as np
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..results import CheckEntry, Result
from .numbers import (
    LARGE,
    SUMMARY_SIZE,
    format_number,
    format_summary,
    format_value,
    value_pieces,
)
from .plain import RenderOptions, series_text, verdict_word


def _colour_system() -> str:
    """Rich's own pick, except that it picks none for TERM=dumb, which
    ``--color always`` overrides (SPEC: dumb turns colour off in auto only)."""
    return "standard" if os.environ.get("TERM") in ("dumb", "unknown") else "auto"


class TableRenderer:
    def __init__(self, file: IO[str], opts: RenderOptions, *, colour: bool,
                 terminal: bool, console: Console | None = None,
                 table_box: box.Box | None = None) -> None:
        """``console`` and ``table_box``: draw on that console (the REPL's) in
        that style, rather than on a new one on ``file``."""
        self.opts = opts
        self.terminal = terminal
        self.console = console or Console(
            file=file,
            color_system=_colour_system() if colour else None,
            no_color=not colour,
            force_terminal=colour,
            highlight=False,
            emoji=False,
            markup=False,
            soft_wrap=not terminal,
            width=None if terminal else 10**9,
            safe_box=True,
        )
        self.box = table_box or (box.ROUNDED if terminal else box.ASCII)
        self.large = False  # the result being drawn: large, off a terminal (see _num)

    def _num(self, value: Any) -> Any:
        """A number's cell: on a terminal large arrays summarised; in a file every
        number, and in a large result (``self.large``) an array's text as pieces,
        made only as they are written."""
        if self.terminal:
            return format_summary(value, self.opts.digits)
        if self.large and np.size(value) > SUMMARY_SIZE:
            return value_pieces(value, self.opts.digits)
        return format_value(value, self.opts.digits)

    def _write(self, pieces: Any) -> None:
        """Text (or an iterable of its pieces) straight to the console's file."""
        file = self.console.file
        for piece in [pieces] if isinstance(pieces, (str, Text)) else pieces:
            file.write(str(piece))

    def _show(self, title: str, columns: list[str], rows: list[list[Any]]) -> None:
        """A titled table; on a terminal too narrow for its longest numbers, the
        same cells as labelled lines, so that no number is split across lines."""
        if self.large:
            self._stream_lines(title, columns, rows)
            return
        out = self.console
        table = Table(box=self.box, header_style="bold")
        for i, name in enumerate(columns):
            table.add_column(name, justify="left" if i == 0 else "right",
                             overflow="fold" if self.terminal else "ignore",
                             no_wrap=not self.terminal)
        for row in rows:
            table.add_row(*row)
        # the title on a line of its own wraps at the terminal's width, not the table's
        out.print(Text(title, style="bold"))
        if not self.terminal or _unbroken_width(columns, rows) <= out.width:
            out.print(table)
            return
        label = max(len(name) for name in columns[1:])
        for row in rows:
            out.print(Text(f"{columns[0]} {row[0]}", style="bold"))
            for name, cell in zip(columns[1:], row[1:]):
                if str(cell):
                    line = Text(f"  {name:<{label}}  ")
                    line.append(cell if isinstance(cell, Text) else Text(str(cell)))
                    out.print(line)

    def _stream_lines(self, title: Any, columns: list[str], rows: list[list[Any]]) -> None:
        """The table's cells as labelled lines, each number written as it is made:
        a large result off a terminal, whose table would hold all its text (and
        rich several times that) at once."""
        self._write(title)
        self._write("\n")
        label = max(len(name) for name in columns[1:])
        for row in rows:
            self._write(f"{columns[0]} {row[0]}\n")
            for name, cell in zip(columns[1:], row[1:]):
                if not isinstance(cell, (str, Text)) or str(cell):
                    self._write(f"  {name:<{label}}  ")
                    self._write(cell)
                    self._write("\n")

    def _title(self, res: Result) -> Any:
        at = dict(res.at)
        if res.wrt and res.wrt not in at and res.point is not None:
            # bound by a statement (x = 2), not --at: the derivatives' point all the same
            at = {res.wrt: res.point, **at}
        if not at:
            return res.input
        if self.large:
            return self._title_pieces(res.input, at)
        text = ", ".join(f"{k} = {self._num(v)}" for k, v in at.items())
        return f"{res.input}  at {text}"

    def _title_pieces(self, text: str, at: dict[str, Any]) -> Iterator[Any]:
        yield f"{text}  at "
        for i, (k, v) in enumerate(at.items()):
            yield f"{', ' if i else ''}{k} = "
            text = self._num(v)
            yield from [text] if isinstance(text, str) else text

    def render(self, res: Result, point: Any = None) -> None:
        if res.error is not None:
            return
        self.large = not self.terminal and _count(res) > LARGE
        out = self.console
        if res.kind == "assign":
            out.print(Text(f"{res.name} = {self._num(res.value)}", style="dim"))
            return
        if res.kind == "define":
            out.print(Text(f"defined {res.name}", style="dim"))
            return
        if res.kind == "grad":
            self._gradient(res.input, res.value)
            return
        if res.steps is not None:
            self._steps(res)
            return
        if res.kind == "formula":
            self._formulas(res)
            return
        if res.kind == "matrix":
            self._matrix(res)
            return
        checks = [c for c in res.check or () if c.variable is None]
        if not (res.derivatives or checks or res.series is not None or res.formulas) \
                and self.large:
            self._write(_title_text(res.input, self._num(res.value)))
        elif not (res.derivatives or checks or res.series is not None or res.formulas):
            line = Text(f"{res.input} = ")
            line.append(self._num(res.value), style="bold")
            out.print(line)
        else:
            self._orders(res)
        if res.gradient is not None:
            partials = {c.variable: c for c in res.check or () if c.variable is not None}
            self._gradient(f"gradient of {res.input}", res.gradient, partials)
        if res.series is not None:
            poly = series_text(res.series, res.wrt or "x", point, self.opts.digits,
                               res.point_text)
            out.print(Text("series: ", style="bold") + Text(poly))

    def _orders(self, res: Result) -> None:
        checks = {c.order: c for c in res.check or () if c.variable is None}
        columns = ["order", "value"]
        if checks:
            columns += ["numerical", "abs error", "rel error", "est. error", "check"]
        title = self._title(res)
        suffix = f"  (d/d{res.wrt})" if res.wrt else ""
        title = title + suffix if isinstance(title, str) else chain(title, [suffix])
        values = {0: res.value}
        values.update({k: d for k, d in enumerate(res.derivatives or (), start=1)})
        for k, c in checks.items():
            values.setdefault(k, c.autodiff)
        series = dict(enumerate(res.series or ()))
        if series:
            # the coefficients f^(k)(a)/k! beside the derivatives; the value
            # column only where derivatives were asked for (its c0 is the value)
            columns.insert(2, "coefficient")
            if len(values) == 1:
                columns.pop(1)
        formulas = dict(enumerate(res.formulas or ()))
        if formulas:
            from ..formula import plain

            columns.append("formula")
        rows = []
        for k in sorted(values.keys() | series.keys()):
            row: list[Any] = [str(k)]
            if "value" in columns:
                row.append(self._num(values[k]) if k in values else "")
            if series:
                row.append(self._num(series[k]) if k in series else "")
            if checks:
                c = checks.get(k)
                if c is None:
                    row += ["", "", "", "", ""]
                else:
                    row += self._check_cells(c)
            if formulas:
                row.append(plain(formulas[k]) if k in formulas else "")
            rows.append(row)
        self._show(title, columns, rows)

    def _formulas(self, res: Result) -> None:
        from ..formula import plain

        if res.gradient_formulas is not None:
            self._show(res.input, ["variable", "partial derivative"],
                       [[f"d/d{n}", plain(f)] for n, f in res.gradient_formulas.items()])
            return
        if res.wrt is None:  # a statement that is a formula: diff(x^3, x)
            self.console.print(Text(f"{res.input} = {plain(res.formulas[0])}"))
            return
        if res.series_formulas is not None:
            self._series_formulas(res)
            return
        title = f"{res.input}  (d/d{res.wrt})"
        self._show(title, ["order", "formula"],
                   [[str(k), plain(f)] for k, f in enumerate(res.formulas or ())])

    def _series_formulas(self, res: Result) -> None:
        """As a numeric series: the coefficients a column (the formulas of the
        orders beside them where --order asked for them), the polynomial after."""
        from ..formula import plain
        from ..formula.series_text import formula_series_text

        title = self._title(res)
        title = title + f"  (d/d{res.wrt})" if isinstance(title, str) else chain(
            title, [f"  (d/d{res.wrt})"])
        formulas = res.formulas or []
        cs = res.series_formulas or []
        columns = ["order", "formula", "coefficient"] if len(formulas) > 1 else \
            ["order", "coefficient"]
        rows = []
        for k in range(max(len(formulas), len(cs))):
            row = [str(k)]
            if len(formulas) > 1:
                row.append(plain(formulas[k]) if k < len(formulas) else "")
            row.append(plain(cs[k]) if k < len(cs) else "")
            rows.append(row)
        self._show(title, columns, rows)
        poly = formula_series_text(cs, res.wrt or "x", res.point_text)
        self.console.print(Text("series: ", style="bold") + Text(poly))

    def _matrix(self, res: Result) -> None:
        """Rows and columns labelled: by variable (a Jacobian's rows by component)."""
        from .matrix import TABLE_COLUMNS, cells, matrix_line

        m = res.matrix
        title = self._title(res) if m.formulas is None else res.input
        if len(m.columns) > TABLE_COLUMNS:
            self.console.print(Text(title, style="bold"))
            self.console.print(Text(self._num(res.value) if m.formulas is None
                                    else matrix_line(res, self.opts.digits)))
            return
        text = cells(res, self.opts.digits)
        self._show(title, [m.form, *m.columns],
                   [[label, *row] for label, row in zip(m.rows, text)])

    def _steps(self, res: Result) -> None:
        from ..formula.steps import table_rows

        rows = table_rows(res.steps or [])
        columns = ["order", "rule", "of", "result"]
        if len(res.steps or ()) == 1:  # one order: no column for it
            columns, rows = columns[1:], [row[1:] for row in rows]
        self._show(res.input, columns, rows)

    def _check_cells(self, c: CheckEntry) -> list[Any]:
        mark = Text(verdict_word(c.ok), style=_VERDICT_STYLE[c.ok])
        return [self._num(c.numerical), format_number(c.abs_error, self.opts.digits or 3),
                format_number(c.rel_error, self.opts.digits or 3),
                format_number(c.est_error, self.opts.digits or 3), mark]

    def _gradient(self, title: str, values: dict[str, Any],
                  checks: dict[str | None, CheckEntry] | None = None) -> None:
        columns = ["variable", "partial derivative"]
        if checks:
            columns += ["numerical", "abs error", "rel error", "est. error", "check"]
        rows = []
        for name, v in values.items():
            row: list[Any] = [f"d/d{name}", self._num(v)]
            if checks:
                c = checks.get(name)
                row += self._check_cells(c) if c is not None else ["", "", "", "", ""]
            rows.append(row)
        self._show(title, columns, rows)


_VERDICT_STYLE = {True: "green", False: "bold red", None: "yellow"}


def _title_text(text: str, value: Any) -> Iterator[Any]:
    """``input = value`` and its newline, the value in pieces."""
    yield f"{text} = "
    yield from [value] if isinstance(value, str) else value
    yield "\n"


def _count(res: Result) -> int:
    """The numbers a result holds (that its table would write)."""
    values = [res.value if not isinstance(res.value, dict) else 0, *res.at.values(),
              *(res.derivatives or ()), *(res.gradient or {}).values(), *(res.series or ())]
    for c in res.check or ():
        values += [c.autodiff, c.numerical]
    return sum(int(np.size(v)) for v in values)


def _unbroken_width(columns: list[str], rows: list[list[Any]]) -> int:
    """The narrowest the table can be with no word (number) broken: each
    column's longest word, its padding, and the borders between."""
    widths = [len(name) for name in columns]
    for row in rows:
        for i, cell in enumerate(row):
            text = cell.plain if isinstance(cell, Text) else str(cell)
            widths[i] = max([widths[i], *(len(word) for word in text.split())])
    return sum(widths) + 3 * len(columns) + 1


__all__ = ["TableRenderer"]
