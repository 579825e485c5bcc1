"""What the REPL shows: rich tables on a terminal, plain lines when piped.

Both displays take data (NumPy arrays, names, messages) and print it; neither
computes anything. ``RichDisplay`` imports rich only when it first prints, so
the banner and the first prompt never wait for it, and summarises arrays of
more than 1,000 elements as NumPy prints them. ``PlainDisplay`` writes no
escape codes and no box characters: results to standard output, errors,
warnings and notes to standard error, like ``gradcli eval --format plain``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from ..pipes import write_whole
from ..render.errors import format_note, format_warning

if TYPE_CHECKING:
    from ..figures import Curves
    from ..results import Result


def format_value(value: Any, digits: int | None = None) -> str:
    # render.numbers imports NumPy: load it with the first value, not at startup.
    from ..render.numbers import format_value as fv

    return fv(value, digits)


def format_summary(value: Any) -> str:
    from ..render.numbers import format_summary as fs

    return fs(value)


def format_number(x: float, digits: int | None = None) -> str:
    from ..render.numbers import format_number as fn

    return fn(x, digits)


def short_value(value: Any, limit: int = 8) -> str:
    """A value on one short line: large arrays show their first elements and shape."""
    import numpy as np  # loaded by the session anyway

    arr = np.asarray(value)
    if arr.size <= limit:
        return format_value(arr)
    head = ", ".join(format_number(v) for v in arr.reshape(-1)[:3])
    shape = "x".join(str(n) for n in arr.shape)
    return f"[{head}, ...] ({shape} values)"


def _err(x: float) -> str:
    return format_number(x, 3)


def _order_label(k: int, wrt: str) -> str:
    """0 value, 1 d/dx, 2 d^2/dx^2, ..."""
    if k == 0:
        return "0  value"
    if not wrt:  # a constant: no variable to name
        return str(k)
    if k == 1:
        return f"1  d/d{wrt}"
    return f"{k}  d^{k}/d{wrt}^{k}"


class PlainDisplay:
    """Plain text for pipes and files: one value per line, as ``eval --format plain``."""

    def __init__(self, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    def _print(self, text: str, stream: IO[str] | None = None) -> None:
        stream = stream or self.out
        write_whole(stream, text + "\n")  # a reader that leaves mid-write: status 1
        stream.flush()

    def banner(self, text: str) -> None:  # a pipe gets no banner
        pass

    def value(self, value: Any) -> None:
        self._print(format_value(value))

    def assigned(self, name: str, value: Any) -> None:  # silent, as bc
        pass

    def defined(self, signature: str) -> None:
        pass

    def grad(self, partials: dict[str, Any]) -> None:
        for name, g in partials.items():
            self._print(f"d/d{name}: {format_value(g)}")

    def derivatives(self, expr: str, wrt: str, at: Any, values: Sequence[Any]) -> None:
        for v in values:
            self._print(format_value(v))

    def formulas(self, res: Result) -> None:
        from ..render.plain import formula_lines

        for line in formula_lines(res):
            self._print(line)

    def formula_line(self, text: str) -> None:
        self._print(text)

    def matrix(self, res: Result) -> None:
        from ..render.matrix import matrix_line

        self._print(matrix_line(res))

    def steps(self, res: Result) -> None:
        from ..formula.steps import plain_lines

        for line in plain_lines(res.steps or []):
            self._print(line)

    def check(self, res: Result) -> None:
        from ..render.plain import RenderOptions, render_plain

        for line in render_plain(res, RenderOptions(check=True)):  # as gradcli eval prints
            self._print(line)

    def curve(self, data: Curves) -> None:
        from ..render.termplot import FALLBACK, render_terminal

        # no box characters, as the rest of the piped output has none
        self._print(render_terminal(data, *FALLBACK, colour=False, box=False).rstrip("\n"))

    def variables(self, items: Sequence[tuple[str, Any]]) -> None:
        for name, v in items:
            self._print(f"{name} = {format_value(v)}")

    def functions(self, items: Sequence[tuple[str, str]]) -> None:
        for signature, body in items:
            self._print(f"{signature} = {body}")

    def help(self, sections: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> None:
        for title, rows in sections:
            self._print(f"{title}:")
            width = max((len(a) for a, _ in rows), default=0)
            for a, b in rows:
                self._print(f"  {a.ljust(width)}  {b}".rstrip())

    def info(self, text: str) -> None:
        self._print(format_note(text), self.err)

    def warning(self, text: str) -> None:
        self._print(format_warning(text), self.err)

    def error(self, text: str) -> None:
        self._print(format_note(text), self.err)


class RichDisplay:
    """Tables and colour for a terminal (rich honours NO_COLOR and TERM=dumb)."""

    def __init__(self, console: Any = None) -> None:
        self._console = console

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console  # off the startup path

            self._console = Console(highlight=False)
        return self._console

    def _table(self, *columns: str, title: str | None = None) -> Any:
        from rich.table import Table

        table = Table(title=title, title_justify="left", title_style="bold")
        for i, c in enumerate(columns):
            # a cell too wide for the terminal folds onto more lines: rich's "…"
            # would cut a number's digits (and an exponent) away
            table.add_column(c, justify="right" if i and c != "ok" else "left",
                             overflow="fold")
        return table

    def _print(self, obj: Any, style: str | None = None) -> None:
        # Text never wraps (a long array stays one line to copy); tables fit the width.
        self.console.print(obj, style=style, markup=False, soft_wrap=isinstance(obj, str))

    def banner(self, text: str) -> None:
        if self._console is not None:
            self._print(text, style="dim")
            return
        # A plain write: the banner is on screen before rich is even imported.
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def value(self, value: Any) -> None:
        self._print(format_summary(value), style="bold")

    def assigned(self, name: str, value: Any) -> None:
        self._print(f"{name} = {short_value(value)}", style="dim")

    def defined(self, signature: str) -> None:
        self._print(f"defined {signature}", style="dim")

    def grad(self, partials: dict[str, Any]) -> None:
        table = self._table("variable", "partial derivative", title="gradient")
        for name, g in partials.items():
            table.add_row(f"d/d{name}", format_summary(g))
        self._print(table)

    def derivatives(self, expr: str, wrt: str, at: Any, values: Sequence[Any]) -> None:
        where = f" at {wrt} = {short_value(at)}" if at is not None else ""
        table = self._table("order", "value", title=f"{expr}{where}")
        for k, v in enumerate(values):
            table.add_row(_order_label(k, wrt), format_summary(v))
        self._print(table)

    def formulas(self, res: Result) -> None:
        """A formula result: a gradient's table, :d's orders, or one formula."""
        from ..formula import plain

        if res.gradient_formulas is not None:
            table = self._table("variable", "partial derivative", title="gradient")
            for name, f in res.gradient_formulas.items():
                table.add_row(f"d/d{name}", plain(f))
            self._print(table)
        elif res.wrt is not None and res.formulas:
            table = self._table("order", "formula", title=res.input)
            for k, f in enumerate(res.formulas):
                table.add_row(_order_label(k, res.wrt), plain(f))
            self._print(table)
        else:
            self._print(plain(res.formulas[0]) if res.formulas else "", style="bold")

    def formula_line(self, text: str) -> None:
        self._print(text, style="bold")

    def matrix(self, res: Result) -> None:
        """A Hessian or Jacobian: rows and columns labelled by variable."""
        from ..render.matrix import TABLE_COLUMNS, cells, matrix_line

        m = res.matrix
        if len(m.columns) > TABLE_COLUMNS:
            self._print(res.input, style="bold")
            self._print(format_summary(res.value) if m.formulas is None else matrix_line(res))
            return
        table = self._table(m.form, *m.columns, title=res.input)
        for label, row in zip(m.rows, cells(res)):
            table.add_row(label, *row)
        self._print(table)

    def steps(self, res: Result) -> None:
        """How a formula was made: the lines ``gradcli eval --steps`` prints."""
        from ..formula.steps import plain_lines

        for line in plain_lines(res.steps or []):
            self._print(line)

    def check(self, res: Result) -> None:
        """The table ``gradcli eval --check`` prints, on the REPL's console."""
        from rich import box

        from ..render.plain import RenderOptions
        from ..render.table import TableRenderer

        console = self.console
        TableRenderer(console.file, RenderOptions(), colour=console.color_system is not None,
                      terminal=True, console=console, table_box=box.HEAVY_HEAD).render(res)

    def curve(self, data: Curves) -> None:
        """The curves in braille, as wide and high as the terminal; coloured
        unless the console is not (NO_COLOR, TERM=dumb)."""
        from rich.text import Text

        from ..render.termplot import FALLBACK, render_terminal

        console = self.console
        size = console.size
        columns, rows = (size.width, size.height) if size.width and size.height else FALLBACK
        plot = render_terminal(data, columns, rows, colour=console.color_system is not None)
        console.print(Text.from_ansi(plot.rstrip("\n")), soft_wrap=True)

    def variables(self, items: Sequence[tuple[str, Any]]) -> None:
        table = self._table("name", "value", "shape")
        for name, v in items:
            shape = getattr(v, "shape", ())
            table.add_row(name, short_value(v), "scalar" if shape == () else str(shape))
        self._print(table)

    def functions(self, items: Sequence[tuple[str, str]]) -> None:
        table = self._table("function", "definition")
        for signature, body in items:
            table.add_row(signature, body)
        table.columns[1].justify = "left"
        self._print(table)

    def help(self, sections: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> None:
        from rich.table import Table

        for title, rows in sections:
            # a title of its own: as the table's, it wrapped to a narrow table's width
            self._print(title, style="bold")
            table = Table(show_header=False, box=None, padding=(0, 2))
            table.add_column(style="cyan", no_wrap=True)
            table.add_column()
            for a, b in rows:
                table.add_row(a, b)
            self._print(table)

    def info(self, text: str) -> None:
        self._print(format_note(text), style="dim")

    def warning(self, text: str) -> None:
        self._print(format_warning(text), style="yellow")

    def error(self, text: str) -> None:
        self._print(format_note(text), style="red")
