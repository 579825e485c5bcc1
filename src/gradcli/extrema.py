"""The data ``gradcli extrema`` and ``:extrema`` show: each local minimum,
maximum and inflection point of an expression on an interval, and the ends
where it is extreme.

Made by the session (``session.extrema``), shown by ``render.extrema``: it sits
below both, beside ``results``, so that renderers read results and never the
session.
"""

from __future__ import annotations

from typing import Any

from .record import Record, factory

__all__ = ["KINDS", "Extrema", "Extremum"]

KINDS = ("min", "max", "inflection", "end")
"""What a point of ``Extrema`` is: a local minimum or maximum inside the
interval (where f' changes sign: at a root of f', or at a kink, where f' does
not exist), an inflection point, or an end of the interval where f takes its
smallest or largest value there."""


class Extremum(Record):
    kind: str  # one of KINDS
    x: float
    value: float  # f(x)


class Extrema(Record):
    """The points of ``input`` over ``var`` = a..b, sorted by x."""

    input: str
    var: str
    a: float
    b: float
    points: list[Extremum]
    notes: list[str] = factory(list)

    def to_dict(self) -> dict[str, Any]:
        return {"input": self.input, "over": {self.var: [self.a, self.b]},
                "extrema": [{"kind": p.kind, "x": p.x, "value": p.value} for p in self.points]}
