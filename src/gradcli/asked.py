"""What the user asked for beyond a statement's value: the one list of flags.

The session computes from ``EvalOptions``; the renderers lay out columns and
lines from ``render.plain.RenderOptions``, which is the same record with the
number of digits added. "Derivatives wanted" is worked out here only.
"""

from __future__ import annotations

from .record import Record

__all__ = ["EvalOptions"]


class EvalOptions(Record, mutable=True):
    """What to compute for each expression statement, beyond its value."""

    wrt: str | None = None
    # --order N or :d N; None where not asked. 0 is asked: by a variable with no
    # value it gives the formula of order 0, where no order gives a name error
    order: int | None = None
    grad: bool = False
    check: bool = False
    series: int | None = None
    formula: bool = False  # the formulas beside the numbers
    steps: bool = False  # how the formula was obtained (session/steps.py)

    @property
    def wants_derivatives(self) -> bool:
        """Derivatives by one variable are asked for: an order, a check or a series
        (and so a variable to take them by, and its column)."""
        return bool(self.order) or self.check or self.series is not None
