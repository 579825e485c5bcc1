"""The JSON format: one strict JSON object per statement (JSON Lines).

Each line is ``Result.to_dict()`` with the non-finite numbers NaN, +inf and
-inf written as the strings "nan", "inf" and "-inf", so ``json.dumps`` runs
with ``allow_nan=False`` and any JSON parser reads the output. Numbers keep
full precision (Python writes the shortest text that reads back to the same
float64) and the text is ASCII (``ensure_ascii``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..results import Result


def strict(obj: Any) -> Any:
    """``obj`` with every non-finite float replaced by "nan", "inf" or "-inf"."""
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        if math.isnan(obj):
            return "nan"
        return "inf" if obj > 0 else "-inf"
    if isinstance(obj, dict):
        return {k: strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        if obj and type(obj[0]) is float:
            try:  # one pass in C for a list of finite numbers, the common case
                if all(map(math.isfinite, obj)):
                    return obj
            except TypeError:  # not all numbers
                pass
        return [strict(v) for v in obj]
    return obj


def render_json(res: Result) -> str:
    """One line of JSON for one statement (its error object if it failed)."""
    return json.dumps(strict(res.to_dict()), allow_nan=False)


def error_json(input_text: str, kind: str, message: str,
               line: int | None = None, column: int | None = None) -> str:
    """A JSON error object for a failure that has no Result (``--at``, ``--device``)."""
    error: dict[str, Any] = {"kind": kind, "message": message}
    if line is not None:
        error["line"] = line
        error["column"] = column
    return json.dumps({"input": input_text, "error": error}, allow_nan=False)


__all__ = ["error_json", "render_json", "strict"]
