"""Statements from a stream: the one reader of ``gradcli eval -`` and the piped REPL.

Lines are grouped into *inputs*: a line that leaves a bracket open takes the
following lines with it until the bracket closes, as the language lets a
bracketed expression span lines. Each input is then parsed (and run) on its own.

A bracket that never closes costs only its own input. At the end of the
stream, or when the open input grows past ``MAX_INPUT`` characters, the lines
up to the first unclosed bracket's line become one input that fails there
(``closed`` False), and the lines after it are grouped again as if the input
had started there: they run as they would have without that bracket.

Limits, and what they cost:
- one line holds at most ``MAX_INPUT`` (10,000,000) characters; a longer line
  is an error of its own (at its own line number), its excess is read and
  dropped, and the other lines run;
- an input held open by a bracket holds at most ``MAX_INPUT`` characters.
Reading is linear in the input: each byte is decoded and looked at once, and
regrouping after an unclosed bracket visits each held line a bounded number
of times (see ``_Grouper``).

Standard library only, and nothing imported until it is needed, so that the
REPL's start-up does not pay for it.
"""

from __future__ import annotations

import codecs
import os
from collections import deque, namedtuple
from collections.abc import Iterator
from typing import IO, Any

from ..errors import GradcliError
from .brackets import summary as bracket_summary
from .parser import MAX_INPUT, ParseLimitError

__all__ = ["READ_SIZE", "Input", "bracket_summary", "read_inputs"]

READ_SIZE = 1 << 16
"""Bytes asked of the operating system per read. A read returns what is there
without waiting for more, so a file comes in large batches and a slow
producer's lines one at a time, each run as soon as it arrives."""


class Input(namedtuple("Input", ["text", "line", "closed", "error"], defaults=(True, None))):
    """One input: whole lines that belong together, to be parsed on their own.

    text: its lines joined with "\\n" (no final newline); line: the 1-based
    number of its first line in the stream; closed: False when it leaves a
    bracket open, and fails there; error: a GradcliError when the reader
    itself refused it (a line too long), else None. (collections.namedtuple,
    not typing.NamedTuple, whose string annotations cost a compile each.)"""

    __slots__ = ()

    text: str
    line: int
    closed: bool
    error: GradcliError | None




class _Grouper:
    """Lines in, inputs out.

    The state is the held lines of the open input (``lines[head:]``), the
    stack of its open brackets as (line number, count) pairs, and for each
    held line the line number of the top of that stack after it (``tops``).

    Cutting the input at its first unclosed bracket (line u) regroups the held
    lines after u without scanning them again: from line r = u + 1 the new
    walk's stack is the old one's brackets opened on lines >= r (the old walk
    never went below u's bracket, so every closer it matched against a bracket
    of line >= r is matched the same way, and one it matched against an older
    bracket finds the new stack empty and is ignored, as a stray closer is).
    So the new input closes at the first held line whose top is older than r,
    and it cannot close at or after the next line that still holds an open
    bracket: each cut looks only at the lines up to there.
    """

    def __init__(self, first_line: int) -> None:
        self.lines: list[str] = []
        self.tops: list[int] = []
        self.head = 0  # lines[:head] are done with
        self.base = first_line  # the line number of lines[0]
        self.next_line = first_line
        self.stack: deque[list[int]] = deque()
        self.held = 0  # characters in lines[head:]

    def add(self, line: str) -> list[Input]:
        number = self.next_line
        self.next_line += 1
        drop, rise = bracket_summary(line)
        stack = self.stack
        while drop and stack:
            top = stack[-1]
            taken = min(drop, top[1])
            top[1] -= taken
            drop -= taken
            if not top[1]:
                stack.pop()
        if rise:
            stack.append([number, rise])
        if self.head == len(self.lines):
            if not stack:  # the usual case: a line on its own
                return [Input(line, number)]
            self._reset(number)
        self.lines.append(line)
        self.tops.append(stack[-1][0] if stack else number)
        self.held += len(line) + 1
        if not stack:
            return [self._take(len(self.lines), True)]
        out: list[Input] = []
        while self.held > MAX_INPUT:
            out.extend(self._cut())
        return out

    def too_long(self, prefix: str) -> list[Input]:
        """A line past MAX_INPUT (``prefix``: its first MAX_INPUT characters): an
        error of its own, after whatever it interrupted was ended as at the end
        of input; the lines after it start afresh."""
        out = self.finish()
        self.stack.clear()
        number = self.next_line
        self.next_line += 1
        self._reset(self.next_line)
        error = ParseLimitError(f"line longer than {MAX_INPUT:,} characters",
                                line=number, column=MAX_INPUT + 1)
        return [*out, Input(prefix, number, True, error)]

    def finish(self) -> list[Input]:
        """The end of input: every held line, in inputs."""
        out: list[Input] = []
        while self.head < len(self.lines):
            out.extend(self._cut())
        return out

    # ---------------------------------------------------------------------------

    def _reset(self, first_line: int) -> None:
        self.lines.clear()
        self.tops.clear()
        self.head = self.held = 0
        self.base = first_line

    def _take(self, end: int, closed: bool) -> Input:
        """lines[head:end] as one input."""
        chunk = self.lines[self.head:end]
        done = Input("\n".join(chunk), self.base + self.head, closed)
        self.held -= sum(map(len, chunk)) + len(chunk)
        self.head = end
        if self.head > 1024 and self.head * 2 > len(self.lines):
            del self.lines[:self.head], self.tops[:self.head]
            self.base += self.head
            self.head = 0
        return done

    def _cut(self) -> list[Input]:
        """The held input up to its first unclosed bracket's line, which fails
        there, then the inputs that close among the lines after it."""
        stack = self.stack
        if not stack:  # nothing open: the rest is one input (cannot happen)
            return [self._take(len(self.lines), True)]
        out = [self._take(stack[0][0] - self.base + 1, False)]
        start = self.base + self.head
        while stack and stack[0][0] < start:
            stack.popleft()
        bound = stack[0][0] if stack else self.next_line
        i = self.head
        while i < len(self.lines) and self.base + i < bound:
            if self.tops[i] < start:
                out.append(self._take(i + 1, True))  # may renumber the held lines
                start = self.base + self.head
                i = self.head
            else:
                i += 1
        return out


def _decoded_lines(stream: Any) -> Iterator[list[str | tuple[str]]]:
    """Batches of lines, each batch what arrived together; a line longer than
    MAX_INPUT comes as a 1-tuple of its first MAX_INPUT characters. The last
    line need not end with a newline; a trailing "\\r" is dropped."""
    read = _reader(stream)
    if read is None:
        return
    parts: list[str] = []  # the line being read
    size = 0
    over = False  # the line being read is past MAX_INPUT: the rest is dropped
    while True:
        data = read()
        batch: list[str | tuple[str]] = []
        start = 0
        while True:
            end = data.find("\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            if not over:
                if size + len(piece) > MAX_INPUT:
                    piece = piece[:MAX_INPUT - size]
                    over = True
                parts.append(piece)
                size += len(piece)
            if end < 0:
                break
            batch.append(_line(parts, over))
            parts, size, over = [], 0, False
            start = end + 1
        if not data:
            if parts and (size or over):
                batch.append(_line(parts, over))
            yield batch
            return
        if batch:
            yield batch


def _line(parts: list[str], over: bool) -> str | tuple[str]:
    line = "".join(parts)
    if line.endswith("\r"):
        line = line[:-1]
    return (line,) if over else line


def _reader(stream: Any) -> Any:
    """A function that returns the next decoded piece of ``stream`` ("" at the
    end): os.read on a real file descriptor (bytes decoded with U+FFFD for
    what does not decode), else the stream's own reads; None for no stream."""
    if stream is None:  # standard input closed (`<&-`): nothing to read
        return None
    try:
        fd = stream.fileno()
        encoding = getattr(stream, "encoding", None) or "utf-8"
        if "\n".encode(encoding) != b"\n":  # not ASCII-compatible (or LookupError)
            raise LookupError(encoding)
        decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    except (AttributeError, OSError, ValueError, LookupError, TypeError):
        return lambda: stream.readline(READ_SIZE)

    def read() -> str:
        data = os.read(fd, READ_SIZE)
        return decoder.decode(data, final=not data)

    return read


def read_inputs(stream: IO[str] | None, first_line: int = 1) -> Iterator[list[Input]]:
    """The inputs of ``stream``, in batches of what arrived together (only the
    last batch may be empty). ``first_line``: the number of its first line."""
    grouper = _Grouper(first_line)
    for batch in _decoded_lines(stream):
        ready: list[Input] = []
        for line in batch:
            if isinstance(line, tuple):
                ready.extend(grouper.too_long(line[0]))
            else:
                ready.extend(grouper.add(line))
        if ready:
            yield ready
    yield grouper.finish()
