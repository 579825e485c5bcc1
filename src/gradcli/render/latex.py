"""The LaTeX format: formulas as LaTeX (``4 x^{3} - 4 x``), one a line.

A formula result prints its orders 0..N (or a gradient's partial derivatives,
``\\frac{\\partial f}{\\partial x} = ...``) as LaTeX; with ``--formula`` the
formulas follow the numbers; numbers print as the plain format prints them,
and a Taylor polynomial as LaTeX; a Hessian or Jacobian as a ``pmatrix``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from ..results import Result
from .plain import RenderOptions, formula_lines, plain_lines


def render_latex(res: Result, opts: RenderOptions, point: Any = None) -> list[str]:
    """The lines ``res`` prints in LaTeX format."""
    return ["".join(line) for line in latex_lines(res, opts, point)]


def latex_pieces(res: Result, opts: RenderOptions, point: Any = None) -> Iterator[str]:
    """``render_latex``'s lines, each ended by a newline, as pieces to write one
    at a time (see plain_pieces)."""
    for line in latex_lines(res, opts, point):
        yield from line
        yield "\n"


def latex_lines(res: Result, opts: RenderOptions, point: Any = None) -> Iterator[Iterable[str]]:
    """The lines of ``render_latex``, each as its pieces."""
    if res.error is None and res.steps is not None:  # --steps: an align* block
        from ..formula.steps import latex_lines as derivation_latex

        yield from ([line] for line in derivation_latex(res.steps))
        return
    if res.error is not None or res.kind == "matrix" or not (
            res.formulas or res.gradient_formulas):
        yield from plain_lines(res, opts, point, latex=True)
        return
    from ..formula import latex

    if res.kind != "formula":
        for line in plain_lines(res, opts, point, latex=True):
            pieces = iter(line)
            first = next(pieces, "")
            if not first.startswith("formula "):
                yield chain([first], pieces)
    if res.series_formulas is not None:  # the orders asked for, then the polynomial
        yield from ([line] for line in formula_lines(res, write=latex))
        return
    yield from ([latex(f)] for f in res.formulas or ())
    yield from ([f"\\frac{{\\partial f}}{{\\partial {name}}} = {latex(f)}"]
                for name, f in (res.gradient_formulas or {}).items())


__all__ = ["formula_lines", "latex_lines", "latex_pieces", "render_latex"]
