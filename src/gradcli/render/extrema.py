"""``Extrema`` as text: plain lines (``min  x = 1  f = -2``) or one JSON object."""

from __future__ import annotations

import json

from ..extrema import Extrema
from .json import strict
from .numbers import format_number

__all__ = ["extrema_json", "extrema_lines"]


def extrema_lines(data: Extrema, digits: int | None = None) -> list[str]:
    """One line a point: its kind (padded to the longest shown), x and f(x)."""
    width = max((len(p.kind) for p in data.points), default=0)
    return [f"{p.kind:<{width}}  {data.var} = {format_number(p.x, digits)}  "
            f"f = {format_number(p.value, digits)}" for p in data.points]


def extrema_json(data: Extrema) -> str:
    """One line of JSON: {"input", "over": {var: [a, b]}, "extrema": [{kind, x, value}]}."""
    return json.dumps(strict(data.to_dict()), allow_nan=False)
