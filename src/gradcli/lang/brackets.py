"""The one bracket scanner: where brackets open and close, outside comments.

The parser splits a text into statements with it and finds the bracket a
statement leaves open; the REPL and the stdin reader ask it whether an input
goes on to the next line. Pure Python with no imports, so any shell may load
it at no start-up cost, and linear in the text: a line without a bracket or a
';' is skipped at the speed of ``str.find``.

A ``#`` starts a comment that runs to the end of its line; brackets in it do
not count. A closer with nothing open is the parser's to report: it never
makes the depth negative.
"""

OPENING = "(["
CLOSING = ")]"
PAIRS = {"(": ")", "[": "]"}
_MARKS = "()[];"


def marks(text: str, start: int = 0, end: int | None = None):  # -> Iterator[tuple[int, str]]
    """(offset, character) of each bracket, ';' and newline in ``text[start:end]``
    outside comments, in order. Offsets count from the start of ``text``."""
    end = len(text) if end is None else min(end, len(text))
    at = start
    while at < end:
        newline = text.find("\n", at, end)
        stop = end if newline < 0 else newline
        hash_at = text.find("#", at, stop)
        code_end = stop if hash_at < 0 else hash_at
        if any(text.find(char, at, code_end) >= 0 for char in _MARKS):
            for offset in range(at, code_end):
                char = text[offset]
                if char in _MARKS:
                    yield offset, char
        if newline < 0:
            return
        yield newline, "\n"
        at = newline + 1


def open_depth(text: str, depth: int = 0) -> int:
    """How many ``(`` and ``[`` are still open at the end of ``text`` (never < 0),
    ``depth`` of them open before it (the lines so far of an input, one at a time)."""
    for _, char in marks(text):
        if char in OPENING:
            depth += 1
        elif char in CLOSING and depth:
            depth -= 1
    return depth


def needs_more(text: str) -> bool:
    """True while ``text`` has an unclosed bracket: Enter should start a new line."""
    return open_depth(text) > 0


def open_brackets(text: str, end: int | None = None) -> list[tuple[int, str]]:
    """(offset, bracket) of each ``(`` and ``[`` still open at ``end`` (the end
    of ``text`` by default), outermost first."""
    stack: list[tuple[int, str]] = []
    for offset, char in marks(text, 0, end):
        if char in OPENING:
            stack.append((offset, char))
        elif char in CLOSING and stack:
            stack.pop()
    return stack


def first_unclosed(text: str) -> tuple[int, str] | None:
    """(offset, bracket) of the first bracket ``text`` leaves open, or None."""
    stack = open_brackets(text)
    return stack[0] if stack else None


def innermost_open(text: str, end: int | None = None) -> str | None:
    """The innermost bracket still open at ``end``, if any."""
    stack = open_brackets(text, end)
    return stack[-1][1] if stack else None


def summary(line: str) -> tuple[int, int]:
    """``(drop, rise)`` of one line (the stdin reader's question): walking it,
    the depth first falls ``drop`` below where it started, then ends ``rise``
    above that lowest point. The line closes min(drop, depth) brackets open
    before it and leaves ``rise`` of its own open."""
    depth = low = 0
    for _, char in marks(line):
        if char in OPENING:
            depth += 1
        elif char in CLOSING:
            depth -= 1
            low = min(low, depth)
    return -low, depth - low
