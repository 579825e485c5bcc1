"""Where results, errors and warnings go: one renderer per format, chosen once.

``Output`` takes Results (and errors found before any statement ran) and
writes them in table, plain, JSON or CSV: results to standard output, errors
and warnings to standard error (in JSON also an error object on standard
output, in CSV an error row). It keeps the highest exit status seen.

Each format's renderer is imported on its first use: the table's rich only
when a table is printed.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from ..pipes import WholeWriter, write_whole

if TYPE_CHECKING:
    from ..errors import GradcliError
    from ..results import Result
    from .plain import RenderOptions

__all__ = ["Output", "colour_enabled", "isatty"]

_RED, _YELLOW, _RESET = "\033[1;31m", "\033[1;33m", "\033[0m"


def isatty(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (False for a closed or odd stream)."""
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
    return isatty(sys.stdout) and isatty(stream)


class Output:
    """Where results, errors and warnings go, in the chosen format."""

    def __init__(self, fmt: str, opts: RenderOptions, colour: str, *,
                 line_hints: bool, rows: bool = False) -> None:
        self.fmt = fmt
        self.opts = opts
        self.out = sys.stdout
        self.err = sys.stderr
        self.err_colour = colour_enabled(colour, self.err)
        self.out_colour = colour_enabled(colour, self.out)
        self.line_hints = line_hints
        self.rows = rows  # JSON: an object a point of a sweep
        self.sweep: list[str] = []  # the array --at names: CSV (and --rows) a row a point
        self.status = 0
        self._table: Any = None
        self._csv: Any = None
        # CSV: the results held until the header is written (``settle``), so
        # that it is built from every one of their kinds
        self._held: list[Result] = []
        self._render_json: Any = None
        self._render_plain: Any = None

    def _write(self, text: str) -> None:
        write_whole(self.out, text)  # a reader that leaves mid-write: status 1

    # errors and warnings ------------------------------------------------------

    def note(self, text: str) -> None:
        """A line on standard error, after the results already written (so that
        `2>&1` keeps the order)."""
        from .errors import format_note

        self._say(format_note(text))

    def _say(self, text: str) -> None:
        """``text``, whose user text is already made visible, on stderr."""
        self.out.flush()
        self.err.write(text + "\n")

    def error(self, err: GradcliError, line_text: str | None, input_text: str,
              *, json_object: bool = True) -> None:
        """``error: ...`` and a caret on stderr; in JSON also an object on stdout,
        in CSV a row (an error before any statement ran: a bad --at, no GPU)."""
        from .errors import format_error

        text = format_error(err, line_text)
        if self.err_colour:
            text = _RED + "error:" + _RESET + text[len("error:"):]
        self._say(text)
        self.status = max(self.status, int(err.exit_status))
        if json_object:
            self.error_record(err, input_text)

    def error_record(self, err: GradcliError, input_text: str) -> None:
        """The error as JSON's object or CSV's row for ``input_text`` (stdout)."""
        if self.fmt == "json":
            from .json import error_json

            self._write(error_json(input_text, err.kind, err.message, err.line,
                                   err.column) + "\n")
        elif self.fmt == "csv":
            from ..results import Result

            if self._csv is None:
                self.settle()
            if self._csv is None:
                self._start_csv()
            self._write(self._csv.row(Result(input=input_text, kind="error", error=err)))

    def warning(self, message: str, line: int | None = None) -> None:
        from .errors import format_warning

        text = format_warning(message)
        if line is not None and self.line_hints:
            text += f" (line {line})"
        if self.err_colour:
            text = _YELLOW + "warning:" + _RESET + text[len("warning:"):]
        self._say(text)

    def sweep_over(self, at: dict[str, Any]) -> None:
        """Results over the points of the array --at values in ``at`` are tidy
        tables: a CSV row (and with --rows a JSON object) a point."""
        if any(getattr(value, "ndim", 1) for value in at.values()):  # any not 0-d
            from .sweep import sweep_names

            self.sweep = sweep_names(at)

    # results -------------------------------------------------------------------

    def result(self, res: Result, line_text: str | None, point: Any = None) -> None:
        """Print one result (``point``: where a series was expanded); out of
        memory on the way, the error computing would have given."""
        self._guarded(res, lambda: self._result(res, line_text, point))

    def _guarded(self, res: Result, write: Any) -> None:
        """``write()`` the text of ``res``; a failure on the way is its error."""
        try:
            write()
        except MemoryError:
            from ..errors import LimitError

            self.out.flush()
            err = LimitError("not enough memory for this computation")
            self.error(err.at(res.line, None), None, res.input, json_object=False)
        except OSError:  # the output itself failed: the run ends (pipes.cannot_write)
            raise
        except Exception as exc:  # a renderer's bug loses this result, not the next ones
            from ..errors import internal_error

            self.out.flush()
            self.error(internal_error(exc, res.line, None), None, res.input)

    def _result(self, res: Result, line_text: str | None, point: Any = None) -> None:
        for message in res.warnings:
            self.warning(message, res.line)
        self.status = max(self.status, int(res.exit_status))
        # an error follows what its result has (the orders that fit), as a
        # warning precedes it; a result of nothing but its error has it first
        partial = res.value is not None or bool(res.formulas)
        if res.error is not None and not partial:
            self.error(res.error, line_text, res.input, json_object=False)
        self._result_text(res, point)
        if res.error is not None and partial:
            self.error(res.error, line_text, res.input, json_object=False)

    def _result_text(self, res: Result, point: Any) -> None:
        fmt = self.fmt
        if fmt == "json" and self.rows:
            from .json import render_json_rows

            self._write(render_json_rows(res, self.sweep) + "\n")
        elif fmt == "json":
            if self._render_json is None:
                from .json import json_pieces

                self._render_json = json_pieces
            for piece in self._render_json(res):
                self._write(piece)
            self._write("\n")
        elif fmt in ("latex", "plain"):
            if self._render_plain is None:  # each line's text in pieces, as it is made
                if fmt == "latex":
                    from .latex import latex_pieces as pieces
                else:
                    from .plain import plain_pieces as pieces
                self._render_plain = pieces
            for piece in self._render_plain(res, self.opts, point):
                self._write(piece)
        elif fmt == "csv":
            if self._csv is None:  # the header waits for the statements run with this one
                self._held.append(res)
            else:
                self._csv_rows(res)
        else:
            if self._table is None:
                from .table import TableRenderer

                self._table = TableRenderer(WholeWriter(self.out), self.opts,
                                            colour=self.out_colour,
                                            terminal=isatty(self.out))
            self._table.render(res, point)

    def _csv_rows(self, res: Result) -> None:
        for piece in self._csv.pieces(res):
            self._write(piece)

    def _start_csv(self, table: str = "numbers") -> None:
        from .csv import CsvRenderer

        self._csv = CsvRenderer(self.opts, self.sweep, formulas=table == "formulas",
                                mixed=table == "mixed")
        self.out.write(self._csv.header())

    def settle(self) -> None:
        """CSV: write the header, made for the kinds of the results held (the
        statements of the command line, or the first lines of standard input
        that came together), then their rows. Later results take that header."""
        if self._csv is not None or not self._held:
            return
        from .csv import table_of

        held, self._held = self._held, []
        self._start_csv(table_of([res.kind for res in held]))
        for res in held:  # (its warnings and errors were said when it came)
            self._guarded(res, lambda res=res: self._csv_rows(res))

    def finish(self) -> None:
        if self.fmt == "csv":
            self.settle()
            if self._csv is None:
                self._start_csv()  # a header even when nothing ran
        self.out.flush()
