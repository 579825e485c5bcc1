"""The CSV format: a header row, then one row per statement.

Columns, in order (those in brackets only when asked for):

    input, [wrt], value, [d1 .. dN], [gradient], [c0 .. cN],
    [check1_autodiff, check1_numerical, check1_abs_error, check1_rel_error, check1_ok, check2_...],
    error

``d1..dN`` are the derivatives of ``--order N``, ``c0..cN`` the coefficients
of ``--series N``. Numbers are at full precision (``--digits`` does not apply,
as for JSON); non-finite ones are ``nan``, ``inf``, ``-inf``; arrays are their
one-line text ``[1, 2.5]``; a gradient (and the value of ``grad(...)``) is
``x: 3; y: 2``. A definition has an empty value; a failed statement has its
message in ``error`` and nothing else but its input. Rows end in ``\\n``.
"""

from __future__ import annotations

import re
from typing import Any

from ..results import Result
from .numbers import format_value
from .plain import RenderOptions

CHECK_FIELDS = ("autodiff", "numerical", "abs_error", "rel_error", "ok")


def header(opts: RenderOptions) -> list[str]:
    cols = ["input"]
    if opts.wants_wrt:
        cols.append("wrt")
    cols.append("value")
    cols.extend(f"d{k}" for k in range(1, opts.order + 1))
    if opts.grad:
        cols.append("gradient")
    if opts.series is not None:
        cols.extend(f"c{k}" for k in range(opts.series + 1))
    if opts.check:
        cols.extend(f"check{k}_{f}" for k in (1, 2) for f in CHECK_FIELDS)
    cols.append("error")
    return cols


def _mapping(values: dict[str, Any]) -> str:
    return "; ".join(f"{k}: {format_value(v)}" for k, v in values.items())


def row(res: Result, opts: RenderOptions, columns: list[str] | None = None) -> list[str]:
    cells: dict[str, str] = {"input": res.input}
    if res.error is not None:
        cells["error"] = res.error.message
    elif res.kind == "grad":
        cells["value"] = _mapping(res.value)
    elif res.kind != "define":
        cells["value"] = format_value(res.value)
        cells["wrt"] = res.wrt or ""
        for k, d in enumerate(res.derivatives or (), start=1):
            cells[f"d{k}"] = format_value(d)
        if res.gradient is not None:
            cells["gradient"] = _mapping(res.gradient)
        for k, c in enumerate(res.series or ()):
            cells[f"c{k}"] = format_value(c)
        for entry in res.check or ():
            prefix = f"check{entry.order}_"
            cells[prefix + "autodiff"] = format_value(entry.autodiff)
            cells[prefix + "numerical"] = format_value(entry.numerical)
            cells[prefix + "abs_error"] = format_value(entry.abs_error)
            cells[prefix + "rel_error"] = format_value(entry.rel_error)
            cells[prefix + "ok"] = "true" if entry.ok else "false"
    return [cells.get(col, "") for col in columns or header(opts)]


_NEEDS_QUOTES = re.compile(r'[",\r\n]')


def _cell(text: str) -> str:
    if _NEEDS_QUOTES.search(text) is None:
        return text
    return '"' + text.replace('"', '""') + '"'


def format_row(cells: list[str]) -> str:
    """One CSV record with its ``\\n``, quoted as the csv module's minimal quoting
    does (a test holds them equal), and a lone ``\\r`` quoted too (the module,
    told rows end in ``\\n``, leaves it bare and its reader then splits there).
    That module copies a cell character by character: 2 s for the 80 MB of a
    million-point array with its derivatives."""
    if len(cells) == 1 and not cells[0]:
        return '""\n'
    return ",".join(map(_cell, cells)) + "\n"


class CsvRenderer:
    """Writes the header once, then a row per result."""

    def __init__(self, opts: RenderOptions) -> None:
        self.opts = opts
        self.columns = header(opts)

    def header(self) -> str:
        return format_row(self.columns)

    def row(self, res: Result) -> str:
        return format_row(row(res, self.opts, self.columns))


__all__ = ["CsvRenderer", "format_row", "header", "row"]
