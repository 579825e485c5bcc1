"""Where brackets open and close: the one scanner of ``(`` and ``[``.

Every reader of statements asks it: the parser (a bracket never closed), the
stdin reader (whether a line ends its statement), the REPL's Enter key (a new
line or run). Brackets inside a ``#`` comment do not count, as the parser
drops comments before it matches brackets; a stray closer never opens
anything and closes nothing. Pure Python, no imports: the REPL's keys load it
at no start-up cost.
"""

from __future__ import annotations

from collections.abc import Iterator

OPENING = "(["
CLOSING = ")]"


def brackets(line: str) -> Iterator[tuple[int, str]]:
    """(index, bracket) of each bracket of one line, up to its comment."""
    code = line.split("#", 1)[0]
    if not any(c in code for c in "()[]"):
        return
    for i, char in enumerate(code):
        if char in "()[]":
            yield i, char


def open_depth(text: str, depth: int = 0) -> int:
    """How many ``(`` and ``[`` are still open at the end of ``text`` (never < 0),
    ``depth`` of them open before it."""
    for line in text.split("\n"):
        for _, char in brackets(line):
            if char in OPENING:
                depth += 1
            elif depth:
                depth -= 1
    return depth


def needs_more(text: str) -> bool:
    """True while ``text`` has an unclosed bracket: Enter should start a new line."""
    return open_depth(text) > 0


def first_unclosed(lines: list[str]) -> tuple[int, int, str] | None:
    """(line index, 1-based column, bracket) of the first '(' or '[' that
    ``lines`` leave open; None if every one is closed."""
    stack: list[tuple[int, int, str]] = []
    for i, text in enumerate(lines):
        for j, char in brackets(text):
            if char in OPENING:
                stack.append((i, j + 1, char))
            elif stack:
                stack.pop()
    return stack[0] if stack else None


def summary(line: str) -> tuple[int, int]:
    """``(drop, rise)`` of one line: walking it, the depth first falls ``drop``
    below where it started, then ends ``rise`` above that lowest point. The
    line closes min(drop, depth) brackets open before it and leaves ``rise``
    of its own open."""
    depth = low = 0
    for _, char in brackets(line):
        if char in OPENING:
            depth += 1
        else:
            depth -= 1
            low = min(low, depth)
    return -low, depth - low


__all__ = ["CLOSING", "OPENING", "brackets", "first_unclosed", "needs_more", "open_depth",
           "summary"]
