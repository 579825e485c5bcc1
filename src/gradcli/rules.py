"""Rules the help texts state, beside nothing heavy: the code that applies each
rule reads it from here (``core.check.agrees``, ``session.expression``), and
so do the options' help texts (``cli.options``), which must not load NumPy
to print themselves. A rule changed here changes both, so the help cannot
go stale."""

from __future__ import annotations

AUTODIFF_ULPS = 32
"""Autodiff's own rounding, in machine epsilons of its value, in the --check rule."""

CHECK_ESTIMATE = "Ridders' extrapolation of central differences"
"""How --check's numerical estimate is made (``core.check.ridders``)."""

CHECK_PASS_RULE = f"|autodiff - estimate| <= est_error + {AUTODIFF_ULPS}*eps*|autodiff|"
"""The --check rule ``core.check.agrees`` applies, as help texts print it."""

SERIES_CENTRE = 0.0
"""Where --series expands by a variable that has no value (as SymPy's series does)."""

SERIES_ABOUT = "about the variable's value, or about 0 when it has no value"
"""Where --series expands, as help texts say it (SERIES_CENTRE)."""

__all__ = ["AUTODIFF_ULPS", "CHECK_ESTIMATE", "CHECK_PASS_RULE", "SERIES_ABOUT", "SERIES_CENTRE"]
