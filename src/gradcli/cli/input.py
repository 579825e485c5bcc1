"""What the command line reads: ``--at`` bindings, and statements from
arguments or standard input (through the reader the piped REPL shares)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..lang.names import NAME, is_name

if TYPE_CHECKING:
    from ..lang.reader import Input


class UsageProblem(Exception):
    """A command line that cannot run, in the user's words; ``option`` is the
    option (or argument, 'EXPR') at fault, None for the command line as a whole.
    Raised while the options are read and shown as a usage error (status 2)."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.option = option


_AT_SPLIT = re.compile(r"[()\[\]]|,(?=\s*" + NAME.pattern + r"\s*=(?!=))")


def split_over(text: str) -> tuple[str, str]:
    """``--over NAME=A:B`` as (NAME, "A:B"); the interval is read by the session."""
    var, sep, interval = text.partition("=")
    if not sep or not NAME.fullmatch(var.strip()):
        raise UsageProblem(f"expected NAME=A:B, as in x=0:2pi; got {text!r}", "--over")
    return var.strip(), interval


def split_at(text: str) -> list[tuple[str, str]]:
    """``x=2,y=3`` as [("x", "2"), ("y", "3")]; UsageProblem if malformed.

    Values are expressions and may hold commas (``x=linspace(0,1,5)``), so
    the text splits only at a comma outside brackets followed by ``name=``.
    """
    parts, depth, start = [], 0, 0
    for m in _AT_SPLIT.finditer(text):
        char = m.group()
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(text[start : m.start()])
            start = m.end()
    parts.append(text[start:])
    out = []
    for part in parts:
        name, eq, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not is_name(name) or not value:
            raise UsageProblem(
                f"expected NAME=VALUE (as in x=2 or x=2,y=3), got {part.strip()!r}", "--at"
            )
        out.append((name, value))
    return out


JOIN_LIMIT = 1 << 20
"""Characters of whole inputs that arrived together and run as one text (one
Session.run, much less overhead per statement than one each)."""


def stdin_texts(stream: Any, first_line: int) -> Iterator[list[Input]]:
    """Standard input as batches of texts to run, each batch what arrived
    together: runs of whole inputs joined (each still parses on its own, as
    none leaves a bracket open), an input that leaves a bracket open alone, and
    a line the reader refused as an Input with its error."""
    from ..lang.reader import read_inputs  # only when standard input is read

    for batch in read_inputs(stream, first_line):
        texts: list[Input] = []
        run: list[Input] = []
        size = 0
        for item in batch:
            if item.closed and item.error is None and size + len(item.text) < JOIN_LIMIT:
                run.append(item)
                size += len(item.text) + 1
                continue
            if run:
                texts.append(_joined(run))
            run, size = [], 0
            if item.closed and item.error is None:
                run, size = [item], len(item.text) + 1
            else:
                texts.append(item)
        if run:
            texts.append(_joined(run))
        yield texts


def _joined(run: list[Input]) -> Input:
    if len(run) == 1:
        return run[0]
    return run[0]._replace(text="\n".join(item.text for item in run))


def lines_in(text: str) -> int:
    """How many lines a statement argument takes (a final newline ends its last)."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def line_of(text: str, first_line: int, line: int | None) -> str | None:
    """Line ``line`` of ``text``, whose first line is ``first_line``."""
    if line is None:
        return None
    lines = text.split("\n")
    index = line - first_line
    return lines[index] if 0 <= index < len(lines) else None
