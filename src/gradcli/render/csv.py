"""The CSV format: a header row, then one row per statement (per point of a sweep).

Columns, in order (those in brackets only when asked for):

    input, [wrt], value, [d1 .. dN], [gradient], [c0 .. cN],
    [check1_autodiff, check1_numerical, check1_abs_error, check1_rel_error,
     check1_est_error, check1_ok, check2_...],
    [formula, formula_d1 .. formula_dN, gradient_formula],
    error

``d1..dN`` are the derivatives of ``--order N``, ``c0..cN`` the coefficients
of ``--series N``. Numbers are at full precision (``--digits`` does not apply,
as for JSON); non-finite ones are ``nan``, ``inf``, ``-inf``; arrays are their
one-line text ``[1, 2.5]``; a gradient (and the value of ``grad(...)``) is
``x: 3; y: 2``. ``--formula`` adds the formulas beside the numbers: of the
value, of each derivative, and of the gradient (``x: y; y: x``). A
definition has an empty value; a failed statement has its message in
``error`` and nothing else but its input. Rows end in ``\\n``.
With ``--grad --check`` over several variables a statement has one row a
variable (``check_groups``): the variable under ``wrt``, its partial
derivative's check in the ``check1_`` columns, every other cell repeated; so
each cell stays one value a script can read.

Where formulas and numbers mix (``CsvRenderer(opts, mixed=True)``; Output
chooses the table from the kinds of the results it holds, ``table_of``) the
formula columns are there without --formula, with ``formula_c0 .. cN`` for a
series, and a formula's cells go there: a column holds one kind.

A sweep (``--at`` gives an array: ``CsvRenderer(opts, sweep=["x"])``) is a
tidy table instead: the columns are

    input, x (one for each --at variable), [wrt (--grad --check)], value, [d1 .. dN],
    [gradient], [c0 .. cN], [check...], error

and a result over the points has one row a point (render/sweep.py says
which results do); every other result is one row, as above, with its
``--at`` values in their columns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..results import CheckEntry, Result
from .numbers import CHUNK, format_value, number_texts
from .plain import RenderOptions
from .sweep import flat, point_errors, point_shape

CHECK_FIELDS = ("autodiff", "numerical", "abs_error", "rel_error", "est_error", "ok")


def header(opts: RenderOptions, sweep: Sequence[str] = (), formulas: bool = False
           ) -> list[str]:
    """The columns; with ``sweep`` (the --at names of a sweep) the tidy ones;
    ``formulas``: some statements are formulas among numbers, so the formula
    columns are there whether --formula asked or not (and ``formula_c0..cN``
    with --series)."""
    cols = ["input", *sweep]
    if opts.wants_wrt and (not sweep or opts.grad and opts.check):
        cols.append("wrt")  # a sweep's rows need it only to tell --grad --check's apart
    cols.append("value")
    cols.extend(f"d{k}" for k in range(1, opts.order + 1))
    if opts.grad:
        cols.append("gradient")
    if opts.series is not None:
        cols.extend(f"c{k}" for k in range(opts.series + 1))
    if opts.check:
        cols.extend(f"check{k}_{f}" for k in (1, 2) for f in CHECK_FIELDS)
    if opts.formula or formulas:
        cols.append("formula")
        cols.extend(f"formula_d{k}" for k in range(1, opts.order + 1))
        if opts.grad:
            cols.append("gradient_formula")
        if formulas and opts.series is not None:
            cols.extend(f"formula_c{k}" for k in range(opts.series + 1))
    cols.append("error")
    return cols


def _mapping(values: dict[str, Any]) -> str:
    return "; ".join(f"{k}: {format_value(v)}" for k, v in values.items())


def _formula_cells(res: Result) -> dict[str, str]:
    """The --formula cells of a numeric result; none where it has no formulas."""
    if not (res.formulas or res.gradient_formulas):
        return {}
    from ..formula import plain  # only results with formulas

    cells = {"formula" if k == 0 else f"formula_d{k}": plain(f)
             for k, f in enumerate(res.formulas or ())}
    if res.gradient_formulas is not None:
        cells["gradient_formula"] = "; ".join(
            f"{k}: {plain(f)}" for k, f in res.gradient_formulas.items())
    return cells


def rows(res: Result, opts: RenderOptions, columns: list[str] | None = None
         ) -> list[list[str]]:
    """The cells of ``res``: one row, or with ``--grad --check`` over several
    variables one row a variable, its name under ``wrt`` and its partial's
    check in the check columns (the other cells repeated)."""
    cells: dict[str, str] = {"input": res.input}
    if res.error is not None:
        cells["error"] = res.error.message
    elif res.kind == "grad":
        cells["value"] = _mapping(res.value)
    elif res.kind == "matrix":
        from .matrix import matrix_line

        cells["value"] = matrix_line(res)
    elif res.kind != "define":
        cells["value"] = format_value(res.value)
        cells["wrt"] = res.wrt or ""
        for k, d in enumerate(res.derivatives or (), start=1):
            cells[f"d{k}"] = format_value(d)
        if res.gradient is not None:
            cells["gradient"] = _mapping(res.gradient)
        for k, c in enumerate(res.series or ()):
            cells[f"c{k}"] = format_value(c)
        cells.update(_formula_cells(res))
    cols = columns or header(opts)
    out = []
    for variable, entries in check_groups(res):
        own = dict(cells)
        if variable is not None:
            own["wrt"] = variable
        for entry in entries:
            prefix = f"check{entry.order}_"
            own[prefix + "autodiff"] = format_value(entry.autodiff)
            own[prefix + "numerical"] = format_value(entry.numerical)
            own[prefix + "abs_error"] = format_value(entry.abs_error)
            own[prefix + "rel_error"] = format_value(entry.rel_error)
            own[prefix + "est_error"] = format_value(entry.est_error)
            own[prefix + "ok"] = ok_text(entry.ok)
        out.append([own.get(col, "") for col in cols])
    return out


def ok_text(ok: bool | None) -> str:
    """A check's ok cell: true, false, or empty where it is inconclusive."""
    return "" if ok is None else "true" if ok else "false"


def _per_point(values: Any, overall: Any) -> Any:
    """A check entry's per-point array, or its one value where it has none."""
    return overall if values is None else values


def row(res: Result, opts: RenderOptions, columns: list[str] | None = None) -> list[str]:
    """The first row of ``rows``: a statement's one row, but with --grad --check."""
    return rows(res, opts, columns)[0]


def check_groups(res: Result) -> list[tuple[str | None, list[CheckEntry]]]:
    """``res``'s check entries by the row they go to: (None, every entry) but
    for the partial derivatives of --grad --check, (variable, its entries)
    for each variable in order."""
    partials = [e for e in res.check or () if e.variable is not None]
    if not partials:
        return [(None, [e for e in res.check or () if e.variable is None])]
    names = dict.fromkeys(str(e.variable) for e in partials)
    return [(name, [e for e in partials if e.variable == name]) for name in names]


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


def sweep_rows(res: Result, opts: RenderOptions, columns: list[str],
               sweep: Sequence[str]) -> str:
    """The CSV text of ``res`` in a sweep's table: a row a point where it is
    over the points (for each variable's partial of --grad --check), else
    its rows with the --at values in their columns."""
    return "".join(sweep_pieces(res, opts, columns, sweep))


def sweep_pieces(res: Result, opts: RenderOptions, columns: list[str],
                 sweep: Sequence[str]) -> Iterator[str]:
    """``sweep_rows``'s text in pieces of about CHUNK cells each, to write one
    at a time: the text of a million points never exists whole."""
    shape = point_shape(res, sweep)
    if shape is None:
        out = []
        for cells_list in rows(res, opts, columns):
            cells = dict(zip(columns, cells_list))
            if res.error is None:  # a scalar statement: the scalar --at values only
                for name in sweep:
                    if name in res.at and np.ndim(res.at[name]) == 0:
                        cells[name] = format_value(res.at[name])
            out.append(format_row([cells[c] for c in columns]))
        yield "".join(out)
        return
    arrays: dict[str, Any] = {name: res.at[name] for name in sweep if name in res.at}
    arrays["value"] = res.value
    for k, d in enumerate(res.derivatives or (), start=1):
        arrays[f"d{k}"] = d
    for k, c in enumerate(res.series or ()):
        arrays[f"c{k}"] = c
    constant: dict[str, str] = {"input": _cell(res.input), "wrt": _cell(res.wrt or "")}
    constant.update({k: _cell(v) for k, v in _formula_cells(res).items()})
    for variable, entries in check_groups(res):
        own_arrays, own = dict(arrays), dict(constant)
        if variable is not None:
            own["wrt"] = _cell(variable)
        for entry in entries:
            prefix = f"check{entry.order}_"
            own_arrays[prefix + "autodiff"] = entry.autodiff
            own_arrays[prefix + "numerical"] = entry.numerical
            # each point's own errors, not the worst of all
            own_arrays[prefix + "abs_error"], own_arrays[prefix + "rel_error"] = \
                point_errors(entry)
            own_arrays[prefix + "est_error"] = _per_point(entry.est_errors, entry.est_error)
            own_arrays[prefix + "ok"] = _per_point(entry.point_ok, entry.ok)
        yield from _point_rows(res, columns, shape, own_arrays, own)


def _point_rows(res: Result, columns: list[str], shape: tuple[int, ...],
                arrays: dict[str, Any], constant: dict[str, str]) -> Iterator[str]:
    size = int(np.prod(shape))
    step = max(1, CHUNK // len(columns))  # a chunk's strings at a time (see numbers.CHUNK)
    for start in range(0, size, step):
        stop = min(size, start + step)
        cols = []
        for col in columns:
            if col in arrays:
                cols.append(_point_texts(arrays[col], shape, start, stop,
                                         verdicts=col.endswith("_ok")))
            elif col == "gradient" and res.gradient is not None:
                # a partial derivative of the sum (by a scalar) is no point's own
                parts = [[f"{k}: {t}" for t in _point_texts(g, shape, start, stop)]
                         for k, g in res.gradient.items() if np.shape(g) == shape]
                cols.append(["; ".join(p) for p in zip(*parts)] if parts
                            else [""] * (stop - start))
            else:
                cols.append([constant.get(col, "")] * (stop - start))
        yield "".join(",".join(cells) + "\n" for cells in zip(*cols))


def _point_texts(a: Any, shape: tuple[int, ...], start: int, stop: int,
                 verdicts: bool = False) -> list[str]:
    """The cells of points start..stop; ``verdicts``: check verdicts (1, 0,
    nan: true, false, empty)."""
    arr = np.asarray(a)
    if verdicts:
        return [ok_text(None if v is None or v != v else bool(v))
                for v in flat(arr, shape)[start:stop].tolist()]
    if arr.dtype.kind == "b":
        return ["true" if v else "false" for v in flat(arr, shape)[start:stop].tolist()]
    if arr.dtype.kind == "c":
        return [format_value(v) for v in flat(arr, shape)[start:stop]]
    return number_texts(flat(arr.astype(np.float64, copy=False), shape)[start:stop], None)


FORMULA_COLUMNS = ["input", "order", "formula", "error"]
SERIES_FORMULA_COLUMNS = ["input", "order", "formula", "coefficient", "error"]
"""The formula table with --series: a series' coefficient beside each order's
formula (the formula empty past --order's orders)."""


def formula_rows(res: Result, series: bool = False) -> str:
    """A result in the formula table, ``input,order,formula,error``: a row an
    order (0..N), or ``d/dx`` a variable of a gradient. A numeric result (a
    later line of standard input) has its numbers in the formula column, a
    failed one its message under error. ``series``: the table has the
    ``coefficient`` column too (SERIES_FORMULA_COLUMNS)."""
    from ..formula import plain  # only results with formulas

    if res.error is not None:
        return format_row([res.input, "", "", *([""] if series else []), res.error.message])
    coefficients: list[str] = []
    if res.kind == "formula":
        rows = [[res.input, str(k), plain(f)] for k, f in enumerate(res.formulas or ())]
        rows += [[res.input, f"d/d{n}", plain(f)]
                 for n, f in (res.gradient_formulas or {}).items()]
        coefficients = [plain(c) for c in res.series_formulas or ()]
    elif res.kind in ("grad",):
        rows = [[res.input, f"d/d{n}", format_value(v)] for n, v in res.value.items()]
    elif res.kind == "define":
        rows = [[res.input, "", ""]]
    else:
        values = [res.value, *(res.derivatives or ())]
        rows = [[res.input, str(k), format_value(v)] for k, v in enumerate(values)]
        rows += [[res.input, f"d/d{n}", format_value(v)]
                 for n, v in (res.gradient or {}).items()]
        coefficients = [format_value(c) for c in res.series or ()]
    if series:
        orders = sum(row[1].isdigit() for row in rows)
        rows[orders:orders] = [[res.input, str(k), ""]
                               for k in range(orders, len(coefficients))]
        for row in rows:
            k = int(row[1]) if row[1].isdigit() else -1
            row.append(coefficients[k] if 0 <= k < len(coefficients) else "")
    return "".join(format_row([*r, ""]) for r in rows)


def table_of(kinds: Sequence[str]) -> str:
    """Which table the results of ``kinds`` (Result.kind, in order) make: "formulas"
    where every one that has an answer is a formula, "mixed" where formulas and
    numbers both are, else "numbers" (definitions and errors fit any)."""
    answers = {kind == "formula" for kind in kinds if kind not in ("define", "error")}
    return "mixed" if len(answers) == 2 else "formulas" if answers == {True} else "numbers"


class CsvRenderer:
    """Writes the header once, then a row per result (a row per point of a
    sweep with ``sweep``, the --at names: see render/sweep.py's sweep_names).
    With ``formulas`` (every statement is a formula) the table is
    ``input,order,formula``, a row an order; with ``mixed`` (formulas and
    numbers) the numbers' table with the formula columns, where the formulas go."""

    def __init__(self, opts: RenderOptions, sweep: Sequence[str] = (),
                 formulas: bool = False, mixed: bool = False) -> None:
        self.opts = opts
        self.sweep = list(sweep)
        self.formulas = formulas
        self.columns = (SERIES_FORMULA_COLUMNS if opts.series is not None else FORMULA_COLUMNS) \
            if formulas else header(opts, self.sweep, formulas=mixed)

    def header(self) -> str:
        return format_row(self.columns)

    def row(self, res: Result) -> str:
        return "".join(self.pieces(res))

    def pieces(self, res: Result) -> Iterator[str]:
        """``row(res)`` in pieces to write one at a time (a sweep's, of about
        CHUNK cells each)."""
        if self.sweep and not self.formulas and res.kind != "formula":
            yield from sweep_pieces(res, self.opts, self.columns, self.sweep)
        else:
            yield self._row(res)

    def _row(self, res: Result) -> str:
        if self.formulas:
            return formula_rows(res, "coefficient" in self.columns)
        if res.kind == "formula":  # among numbers: in the formula columns
            from ..formula import plain

            # a table begun before this statement was known to be a formula (a
            # later line of standard input) may lack them: then the number columns
            columns = ("formula", "formula_d", "gradient_formula", "formula_c") \
                if "formula" in self.columns else ("value", "d", "gradient", "c")
            value, d, gradient, c = columns
            cells = {"input": res.input, "wrt": res.wrt or "",
                     value: plain(res.formulas[0]) if res.formulas else ""}
            for k, f in enumerate((res.formulas or [])[1:], start=1):
                cells[f"{d}{k}"] = plain(f)
            if res.gradient_formulas is not None:
                cells[gradient] = "; ".join(f"{n}: {plain(f)}"
                                            for n, f in res.gradient_formulas.items())
            series = f"{c}0" in self.columns
            for k, coefficient in enumerate(res.series_formulas or ()):
                cells[f"{c}{k}" if series else f"c{k}"] = plain(coefficient)
            return format_row([cells.get(col, "") for col in self.columns])
        if self.sweep:
            return sweep_rows(res, self.opts, self.columns, self.sweep)
        return "".join(map(format_row, rows(res, self.opts, self.columns)))


__all__ = ["SERIES_FORMULA_COLUMNS", "CsvRenderer", "check_groups", "format_row", "formula_rows",
           "header", "ok_text", "row", "rows", "sweep_pieces", "sweep_rows", "table_of"]
