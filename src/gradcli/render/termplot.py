"""Curves drawn in the terminal with braille characters (uniplot).

uniplot draws lines in braille (2x4 dots a character), leaves nan as gaps,
takes explicit y limits (so the robust y range of curves.py applies), draws
the zero lines, labels the axes, writes a legend and returns the plot as a
string: nothing is printed, and a fixed size gives fixed text. It is small
(NumPy and readchar; 50 ms to import here) where plotext took 160 ms and
keeps its figure in global state.

Colour is the caller's choice (``NO_COLOR``, ``--color never``): without it
the text has no escape codes at all. The size is the caller's too;
``terminal_size`` gives the terminal's, 80x24 where it reports 0x0.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from ..errors import GradcliError
from ..extrema import Extremum
from ..figures import Curves, decimate
from .curve import y_limits

COLOURS = ("blue", "red", "green", "yellow", "magenta", "cyan")
"""The figure's colours as the 8-colour terminal has them (orange: yellow)."""
FALLBACK = (80, 24)
CHROME_ROWS = 6
"""Rows that are not plot: title, two borders, x labels, legend, the prompt after."""
CHROME_COLUMNS = 2
"""Columns that are not plot: the two borders (uniplot narrows the plot for the
y labels to keep within ``line_length_hard_cap``)."""


def terminal_size(stream: TextIO | None = None) -> tuple[int, int]:
    """(columns, rows) of the terminal ``stream`` is on (stdout by default), or
    80x24 where it is no terminal or reports 0x0 (some CI consoles, serial
    lines). ``COLUMNS`` and ``LINES`` override, as in shutil."""
    fallback_columns, fallback_rows = FALLBACK
    try:
        size = os.get_terminal_size((stream or sys.stdout).fileno())
        columns, rows = size.columns, size.lines
    except (AttributeError, OSError, ValueError):
        columns = rows = 0
    columns = _env_int("COLUMNS") or columns or fallback_columns
    rows = _env_int("LINES") or rows or fallback_rows
    return columns, rows


def render_terminal(data: Curves, columns: int = 80, rows: int = 24,
                    colour: bool = True, box: bool = True,
                    marks: Sequence[Extremum] = ()) -> str:
    """The curves as text ``columns`` wide (at most) and ``rows`` - 1 high (one
    row left for the prompt), with a title and a legend; ANSI colours only
    with ``colour``; without ``box`` no box-drawing characters (the frame's
    rows dropped, its sides blank), for output that promises none. ``marks``
    (extrema, inflection points) are small crosses, one more legend entry."""
    width = max(10, columns - CHROME_COLUMNS)
    height = max(3, rows - CHROME_ROWS - int(data.clipped))
    lo, hi = y_limits(data)
    # uniplot squares the range to place its labels: past 1e150 that overflows,
    # below 1e-150 it underflows. Such values are drawn in units of a power of
    # ten, which the title gives.
    title, unit = data.title, 1.0
    top = max(abs(lo), abs(hi))
    if top > 1e100 or 0 < top < 1e-100:
        power = int(np.floor(np.log10(top)))
        unit, title = 10.0**power, f"{data.title}   (y in units of 1e{power})"
        lo, hi = lo / unit, hi / unit
    xs, ys, names = [], [], []
    for curve in data.curves:
        x, y = decimate(curve.x, curve.y, 2 * width, (data.a, data.b))
        xs.append(x)
        # uniplot rasterises a segment's whole length, off the chart too: 1e300 was
        # gigabytes. A line is drawn the same when cut at a range above or below.
        with np.errstate(invalid="ignore"):
            ys.append(np.clip(y / unit, lo - (hi - lo), hi + (hi - lo)))
        names.append(curve.label)
    shown = [p for p in marks if lo <= p.value / unit <= hi]
    if shown:
        x, y = _crosses(shown, unit, (data.b - data.a) / (2 * width), (hi - lo) / (4 * height))
        xs.append(x)
        ys.append(y)
        names.append("extrema")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # its label search's, not ours
        try:
            text = _plot(xs, ys, names, title, data, lo, hi, width, height, columns, colour,
                         len(xs) - len(data.curves))
        except (OverflowError, ZeroDivisionError, ValueError):  # extreme x ranges
            raise GradcliError(f"cannot draw {data.var} = {data.a:g}..{data.b:g} in the "
                               "terminal: the interval is too wide for its chart; choose "
                               "a narrower one, or write it to a file with -o") from None
    lines = text.rstrip("\n").split("\n")
    if not box:
        lines = _unboxed(lines)
    if data.clipped:
        lines.append(_clip_line(data, columns))
    return "\n".join(lines) + "\n"


def _crosses(marks: Sequence[Extremum], unit: float, dx: float, dy: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """A cross of braille dots (``dx``, ``dy``: one dot) around each mark, as points."""
    steps = np.arange(-2, 3)
    x = np.concatenate([np.concatenate([p.x + steps * dx, np.full(5, p.x)]) for p in marks])
    y = np.concatenate([np.concatenate([np.full(5, p.value / unit), p.value / unit + steps * dy])
                        for p in marks])
    return x, y


def _plot(xs: list[np.ndarray], ys: list[np.ndarray], names: list[str], title: str,
          data: Curves, lo: float, hi: float, width: int, height: int, columns: int,
          colour: bool, points: int = 0) -> str:
    from uniplot import plot_to_string  # only a terminal plot needs it

    # the last ``points`` series are dots (marks), not lines
    return plot_to_string(
        ys, xs, lines=[True] * (len(ys) - points) + [False] * points, width=width,
        height=height, character_set="braille",
        color=[COLOURS[i % len(COLOURS)] for i in range(len(ys))] if colour else False,
        legend_labels=names, title=title, x_min=data.a, x_max=data.b,
        y_min=lo, y_max=hi, line_length_hard_cap=columns,
        x_gridlines=[0.0] if data.a < 0 < data.b else [],  # none over a border
        y_gridlines=[0.0] if lo < 0 < hi else [],
    )


_BOX = {code: " " for code in range(0x2500, 0x2580)}  # the Box Drawing block
_SIDE = "\u2502"  # the frame's sides, and uniplot's vertical zero line


def _unboxed(lines: list[str]) -> list[str]:
    """``lines`` without the frame: a row of frame alone is dropped, its sides
    become blanks (the labels stay where they were), and the vertical zero
    line inside it a thin block (U+258F), as the horizontal one is (U+2594)."""
    out = []
    for line in lines:
        right = line.rfind(_SIDE)
        if line.startswith(_SIDE) and right > 0:
            line = " " + line[1:right].replace(_SIDE, "\u258f") + " " + line[right + 1:]
        bare = line.translate(_BOX)
        if bare.strip() or not line.strip():
            out.append(bare.rstrip())
    return out


def _clip_line(data: Curves, columns: int) -> str:
    from .curve import clip_note

    note = "  " + clip_note(data)
    if len(note) > columns:
        note = note.split(":")[0]  # without the reason
    return note[:columns]


def _env_int(name: str) -> int:
    try:
        return max(0, int(os.environ.get(name, "")))
    except ValueError:
        return 0


__all__ = ["FALLBACK", "render_terminal", "terminal_size"]
