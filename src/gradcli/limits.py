"""Every limit and every list of choices gradcli has, each written once.

The bottom layer: it imports nothing, so the core, the language, the session,
the renderers and both shells read these from here, and the options' help,
the REPL's messages and the docs' tables (a test compares them) cannot drift
apart. A module that enforces a limit imports its name.
"""

from __future__ import annotations

__all__ = [
    "BACKPROP_MAX_NODES", "COMMANDS", "CURVE_MAX_ORDER", "CURVE_POINTS", "DTYPES",
    "EXTREMA_FORMATS",
    "FACTORIAL_ORDER", "FORMATS", "MAX_CURVE_POINTS", "MAX_DEPTH", "MAX_DIMS", "MAX_ELEMENTS",
    "MAX_INPUT", "MAX_ORDER", "MAX_STATEMENT", "MATRIX_MAX_NODES", "MATRIX_MAX_VARIABLES",
    "METHODS", "PLOT_MAX_NODES", "ROOT_POINTS",
    "SUPERSCRIPT_DIGITS",
]

# --- orders ---------------------------------------------------------------------------

MAX_ORDER = 1000
"""The highest derivative or series order: of Taylor mode, the language's
``diff``, ``--order`` and ``--series``, ``:d``."""

FACTORIAL_ORDER = 170
"""The highest k whose k! float64 holds (170! ~ 7.3e306): past it a Taylor
coefficient f^(k)/k! is taken another way (or underflows to 0)."""

SERIES_LIMIT_ORDER = 24
"""The highest order of a series of formulas taken through a limit (0/0 at
its point, as y*sin(x)/x at 0): the power series of the formula's parts cost
order^3 operations on formulas, about a second at this order."""

CURVE_MAX_ORDER = 20
"""The highest derivative a curve draws (``gradcli curve --order``, ``:curve``'s N)."""

# --- sizes ----------------------------------------------------------------------------

MAX_INPUT = 10_000_000
"""Characters of input read at once: a text given to the parser, a line of
standard input, what an open bracket holds."""

MAX_STATEMENT = 200_000
"""Characters of one statement: it bounds the time one parse takes."""

MAX_DEPTH = 256
"""Brackets nested in one statement, and the depth of its tree of operations:
the evaluator recurses over the tree, far from Python's recursion limit."""

MAX_ELEMENTS = 10_000_000
"""Elements of one array (80 MB of float64); a ``--at`` range makes one array."""

MAX_DIMS = 64
"""Dimensions of one array: NumPy's own limit."""

CURVE_POINTS = 400
"""The points a curve samples across its interval unless told (``--points``)."""

MAX_CURVE_POINTS = 10_000_000
"""The most points a curve samples."""

BACKPROP_MAX_NODES = 100_000
"""Repeated backprop stops once its graphs add up to more nodes than this (under
1 s of work), or refuses at once where their growth predicts they will."""

MATRIX_MAX_VARIABLES = 1000
"""Variables (elements of them, for arrays) a Hessian or Jacobian is taken by, and
a Jacobian's components: one backprop pass each and n^2 numbers."""

MATRIX_MAX_NODES = 1_500_000
"""Graph nodes the backprop passes of one Hessian or Jacobian may walk in all (a
pass walks what its row depends on: about 1 s at this count)."""

PLOT_MAX_NODES = 20_000
"""A derivative's graph is drawn up to this many nodes (all orders' graphs
together): a larger picture is unreadable, and Graphviz takes minutes on it."""

# --- choices --------------------------------------------------------------------------

DTYPES = ("float64", "float32")
"""Floating-point types, the default first."""

METHODS = ("auto", "taylor", "backprop")
"""Derivative methods, the default first."""

FORMATS = ("table", "json", "plain", "csv", "latex")
"""Output formats of ``gradcli eval``."""

COMMANDS = ("eval", "plot", "curve", "extrema", "repl")
"""gradcli's commands, in the order help lists them (the REPL's are in repl/catalog.py)."""

ROOT_POINTS = 2001
"""Points of the first sampling of an interval by the root finder (core/roots.py):
``roots()``, ``gradcli extrema --points``."""

EXTREMA_FORMATS = ("plain", "json")
"""Output formats of ``gradcli extrema``."""

SUPERSCRIPT_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
"""⁰ to ⁹: typed powers (x²) are read with them, derivative labels (f⁽⁴⁾) written."""
