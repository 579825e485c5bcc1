"""The LaTeX format: formulas as LaTeX (``4 x^{3} - 4 x``), one a line.

A formula result prints its orders 0..N (or a gradient's partial derivatives,
``\\frac{\\partial f}{\\partial x} = ...``) as LaTeX; with ``--formula`` the
formulas follow the numbers; numbers print as the plain format prints them,
and a Taylor polynomial as LaTeX; a Hessian or Jacobian as a ``pmatrix``.
"""

from __future__ import annotations

from typing import Any

from ..results import Result
from .plain import RenderOptions, formula_lines, render_plain


def render_latex(res: Result, opts: RenderOptions, point: Any = None) -> list[str]:
    """The lines ``res`` prints in LaTeX format."""
    from ..formula import latex

    if res.error is not None or res.kind == "matrix" or not (
            res.formulas or res.gradient_formulas):
        return render_plain(res, opts, point, latex=True)
    lines = [] if res.kind == "formula" else [
        line for line in render_plain(res, opts, point, latex=True)
        if not line.startswith("formula ")]
    lines.extend(latex(f) for f in res.formulas or ())
    lines.extend(f"\\frac{{\\partial f}}{{\\partial {name}}} = {latex(f)}"
                 for name, f in (res.gradient_formulas or {}).items())
    return lines


__all__ = ["formula_lines", "render_latex"]
