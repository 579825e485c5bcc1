"""Errors, warnings and notes as text: one message, and the offending line with a
caret under the column.

This is the one way user text reaches the terminal in a message: each piece
goes through ``errors.visible``, which shows a control or format character
(an escape sequence, a bidi override) as U+FFFD.
"""

from __future__ import annotations

import unicodedata

from ..errors import GradcliError, visible


def format_error(err: GradcliError, line_text: str | None = None, prefix: str = "error") -> str:
    """``error: message`` and, when the position is known, the line and a caret.

    ``line_text`` is the whole physical line the error's column counts in.
    """
    where = ""
    if err.line is not None and err.column is not None:
        where = f" (line {err.line}, column {err.column})"
    elif err.line is not None:
        where = f" (line {err.line})"
    lines = [f"{prefix}: {visible(err.message)}{where}"]
    if line_text is not None and err.column is not None:
        shown = line_text.expandtabs(1).rstrip("\n")
        column = max(1, min(err.column, len(shown) + 1))
        shown, column = _window(shown, column)
        lines.append("  " + visible(shown))
        lines.append("  " + " " * _cells(shown[: column - 1]) + "^")
    return "\n".join(lines)


WINDOW = 100
"""Characters of a long line shown around the error's column: a 200,000-character
statement is not echoed whole."""


def _window(text: str, column: int) -> tuple[str, int]:
    """At most about WINDOW characters of ``text`` around ``column``, with '...'
    where it was cut, and the column in what is shown."""
    if len(text) <= WINDOW + 20:
        return text, column
    start = max(0, min(column - 1 - WINDOW // 2, len(text) - WINDOW))
    end = start + WINDOW
    head = "..." if start > 0 else ""
    tail = "..." if end < len(text) else ""
    return head + text[start:end] + tail, column - start + len(head)


def _cells(text: str) -> int:
    """Terminal cells ``text`` takes: two for a wide character (CJK), none for a
    combining mark, so the caret stands under the character it points at."""
    cells = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        cells += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return cells


def format_warning(message: str) -> str:
    """``warning: message``, its user text made visible."""
    return f"warning: {visible(message)}"


def format_note(text: str) -> str:
    """A line of information (``written to FILE``), its user text made visible."""
    return visible(text)
