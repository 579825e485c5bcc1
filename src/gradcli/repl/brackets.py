"""Bracket depth of an input, to know when a statement goes on to the next line.

Pure Python with no imports, so the plain (piped) loop and the prompt_toolkit
key bindings share it at no startup cost. Brackets inside a ``#`` comment do
not count, as the parser drops comments before it matches brackets.
"""

from __future__ import annotations

OPENING = "(["
CLOSING = ")]"


def open_depth(text: str, depth: int = 0) -> int:
    """How many ``(`` and ``[`` are still open at the end of ``text`` (never < 0),
    ``depth`` of them open before it (the lines so far of an input, one at a time)."""
    in_comment = False
    for ch in text:
        if in_comment:
            in_comment = ch != "\n"
        elif ch == "#":
            in_comment = True
        elif ch in OPENING:
            depth += 1
        elif ch in CLOSING and depth:
            # A stray closer is the parser's to report; it never opens anything.
            depth -= 1
    return depth


def needs_more(text: str) -> bool:
    """True while ``text`` has an unclosed bracket: Enter should start a new line."""
    return open_depth(text) > 0
