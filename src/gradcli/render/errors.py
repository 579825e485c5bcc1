"""Errors as text: one message, and the offending line with a caret under the column."""

from __future__ import annotations

from ..errors import GradcliError


def format_error(err: GradcliError, line_text: str | None = None, prefix: str = "error") -> str:
    """``error: message`` and, when the position is known, the line and a caret.

    ``line_text`` is the whole physical line the error's column counts in.
    """
    where = ""
    if err.line is not None and err.column is not None:
        where = f" (line {err.line}, column {err.column})"
    elif err.line is not None:
        where = f" (line {err.line})"
    lines = [f"{prefix}: {err.message}{where}"]
    if line_text is not None and err.column is not None:
        shown = line_text.expandtabs(1).rstrip("\n")
        column = max(1, min(err.column, len(shown) + 1))
        lines.append("  " + shown)
        lines.append("  " + " " * (column - 1) + "^")
    return "\n".join(lines)


def format_warning(message: str) -> str:
    return f"warning: {message}"
