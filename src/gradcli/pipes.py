"""Standard output when its reader may leave (`gradcli ... | head`).

A pipe whose reader leaves mid-write takes part of a large write, and
BufferedWriter reports that as a shorter count, which TextIOWrapper drops:
the rest was lost without an error (`gradcli eval "linspace(0,1,1000000)" |
head -c 10` exited 0). ``write_whole`` writes a large text to the binary
buffer until all of it is taken, so a reader that left gives BrokenPipeError,
which the CLI and the REPL turn into status 1.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

WHOLE = 1 << 15
"""Texts at least this long go through write_whole's loop; shorter ones fit
the text layer's buffer, whose flush raises BrokenPipeError itself."""


def write_whole(stream: IO[str], text: str) -> None:
    """Write ``text`` to ``stream`` whole, or raise (BrokenPipeError, OSError)."""
    buffer = getattr(stream, "buffer", None)
    if len(text) < WHOLE or buffer is None:
        stream.write(text)
        return
    stream.flush()
    data = memoryview(text.encode(stream.encoding, stream.errors or "strict"))
    while data:
        data = data[buffer.write(data):]
    buffer.flush()


class WholeWriter:
    """``stream`` with write_whole as its write, for writers that take a file
    (rich's Console); every other attribute is the stream's."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        write_whole(self._stream, text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def cannot_write(exc: OSError) -> int:
    """Say that the output could not be written (a full disk, an I/O error) and
    drop what is left of it; the exit status, 1."""
    silence_stdout()
    sys.stderr.write(f"error: cannot write the output: {exc.strerror or exc}\n")
    return 1


def silence_stdout() -> None:
    """After a broken pipe, send what is left to /dev/null, so that exiting
    (which flushes stdout) prints no second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
