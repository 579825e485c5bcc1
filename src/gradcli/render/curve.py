"""Curves to image files with matplotlib: ``gradcli curve ... -o FILE``.

matplotlib is imported inside the functions that draw (importing this module
costs nothing), and without pyplot: a ``Figure`` on the Agg canvas, no global
state and no GUI backend. The format comes from the extension (.png .svg
.pdf). The file is written through ``atomic.replacing``: a failed render
leaves an existing file as it was.

The figure: one solid line per curve in distinct saturated colours, a legend
in mathematical names (f, f', f''; or the expressions themselves), the
expression as title, the variable as x label, a zero line, and a note when
the y range was clipped to keep poles from flattening the rest.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..atomic import replacing
from ..errors import GradcliError, ToolMissingError, UsageError
from ..extrema import Extremum
from ..figures import Curves, decimate

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".pdf")
COLOURS = ("#0057e7", "#e8000b", "#00a000", "#ff8c00", "#9b00d9", "#00b3c4",
           "#d4007f", "#7a4b00")
"""Saturated and far apart (blue, red, green, orange, violet, cyan, magenta,
brown), each its own: a test counts each one's pixels in the PNG."""
SIZE = (8.0, 5.0)  # inches
DPI = 100
COLUMNS = 2 * int(SIZE[0] * DPI)
"""Decimation columns: two per pixel of the figure's width, more than the axes have."""
LINE_WIDTH = 2.0
OFF_CHART = 10.0
"""Values further than this many y ranges beyond it are drawn at that distance:
the line leaves the chart all the same, and the transforms see no 1e300."""


def curve_format(path: str) -> str:
    """The extension of ``path`` (".png"), or a UsageError (exit status 2, as
    plot's graph_format) naming the formats. Call it before sampling: a
    wrong name fails fast."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        what = f"'{ext}'" if ext else "no extension"
        base = os.path.basename(path)
        if not ext and base.lower() in FORMATS:  # '.png': a hidden file of no format
            raise UsageError(f"'{path}' has an extension but no name before it; "
                             f"name the file, as in curve{base}")
        raise UsageError(f"cannot tell the image format of '{path}' ({what}); "
                         f"the file name must end in one of {' '.join(FORMATS)}")
    return ext


def y_limits(data: Curves) -> tuple[float, float]:
    """The y axis limits: the data's y range with a margin of 5% each side."""
    if data.y_range is None:
        return -1.0, 1.0
    lo, hi = data.y_range
    pad = 0.05 * hi - 0.05 * lo if hi > lo else max(abs(lo) * 0.1, 1.0)  # no overflow
    big = float(np.finfo(np.float64).max) / 4
    return max(lo - pad, -big), min(hi + pad, big)


def lines(data: Curves, columns: int = COLUMNS) -> list[tuple[np.ndarray, np.ndarray, str, str]]:
    """(x, y, colour, label) for each curve as handed to matplotlib: decimated
    to ``columns``, gaps as nan, values far off the chart brought nearer."""
    lo, hi = y_limits(data)
    reach = OFF_CHART * (hi - lo)
    out = []
    for i, curve in enumerate(data.curves):
        x, y = decimate(curve.x, curve.y, columns, (data.a, data.b))
        with np.errstate(invalid="ignore"):
            y = np.clip(y, lo - reach, hi + reach)
        out.append((x, y, COLOURS[i % len(COLOURS)], curve.label))
    return out


def clip_note(data: Curves) -> str:
    lo, hi = data.y_range or (0.0, 0.0)
    return f"y range clipped to {lo:.3g}..{hi:.3g}: values near poles run off the chart"


MARKERS = {"min": "v", "max": "^", "inflection": "D", "end": "s"}
"""How ``--mark`` draws each kind of point (gradcli.extrema.KINDS) in a file."""


def figure(data: Curves, marks: Sequence[Extremum] = ()) -> Figure:
    """The matplotlib Figure of ``data`` (on the Agg canvas, not shown anywhere),
    with ``marks`` (extrema, inflection points) drawn on it."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ToolMissingError("drawing a curve to a file needs matplotlib; "
                               "install it with: pip install matplotlib") from None
    fig = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    lo, hi = y_limits(data)
    ax.set_xlim(data.a, data.b)
    ax.set_ylim(lo, hi)
    if lo <= 0 <= hi:
        ax.axhline(0.0, color="0.35", linewidth=0.9, zorder=1)
    ax.grid(True, color="0.9", linewidth=0.6, zorder=0)
    for x, y, colour, name in lines(data):
        ax.plot(x, y, color=colour, linewidth=LINE_WIDTH, linestyle="-", label=name,
                solid_joinstyle="round", zorder=2)
    for kind, marker in MARKERS.items():
        shown = [p for p in marks if p.kind == kind]
        if shown:
            ax.scatter([p.x for p in shown], [p.value for p in shown], marker=marker, s=36,
                       color="black", zorder=3, label=kind, clip_on=True)
    ax.set_title(data.title, fontsize=11)
    ax.set_xlabel(data.var)
    ax.set_ylabel(_y_label(data))
    if data.curves:
        ax.legend(loc="best", frameon=True, framealpha=0.9)
    if data.clipped:
        ax.text(0.01, 0.01, clip_note(data), transform=ax.transAxes, fontsize=8,
                color="0.3", ha="left", va="bottom")
    return fig


def write_curve(data: Curves, path: str, marks: Sequence[Extremum] = ()) -> list[str]:
    """Write the figure of ``data`` (with ``marks``) to ``path`` atomically;
    returns lines to show the user. A UsageError for an unknown extension, a
    GradcliError (exit status 1) for a path that cannot be written."""
    ext = curve_format(path)
    fig = figure(data, marks)
    with replacing(path) as tmp:
        try:
            _save(fig, tmp, ext[1:])
        except (ArithmeticError, ValueError):  # matplotlib's axis, near the largest float
            raise GradcliError(f"cannot draw {data.var} = {data.a:g}..{data.b:g} to a file: "
                               "the interval is too near the largest float for the "
                               "chart's axis; choose a narrower interval") from None
    n = len(data.curves)
    return [f"curve: {n} line{'s' if n != 1 else ''} "
            f"({data.var} = {data.a:g}..{data.b:g}, written to {path})"]


def _save(fig: Any, path: str, fmt: str) -> None:
    # metadata without dates: the same curve gives the same bytes
    metadata: dict[str, Any] = {"Software": None} if fmt == "png" else \
        {"Date": None} if fmt == "svg" else {"CreationDate": None}
    fig.savefig(path, format=fmt, metadata=metadata)


def _y_label(data: Curves) -> str:
    if len(data.exprs) == 1:
        return ", ".join(c.label + f"({data.var})" for c in data.curves)
    return "value"


__all__ = ["COLOURS", "FORMATS", "MARKERS", "clip_note", "curve_format", "figure", "lines",
           "write_curve", "y_limits"]
