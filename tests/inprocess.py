"""A gradcli command line run in the test's own process.

A gradcli process costs about 0.2 s of start-up (Python and NumPy) before it
reads its first argument, and the suite started about 450. The tests of what a
command prints and its exit status run the command line here instead, through
the console script's own handler (``gradcli.cli.main.run``), with standard
input, output and error as UTF-8 streams that are no terminal, as a pipe's
are. What only a process shows (signals, closed or broken pipes, undecodable
bytes, start-up imports, the installed script) is still tested by starting
one: tests/test_cli.py, tests/test_cancel.py, and every example of the docs
(tests/test_readme.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from gradcli.cli.main import run

LOCK = threading.Lock()
"""The standard streams, the environment and the working directory are the
process's: one command line at a time (a test's threads wait their turn)."""

PIPE_ENV = {"TERM": "xterm-256color"}
"""What the subprocess tests gave each gradcli: a terminal type, and no NO_COLOR."""


@contextlib.contextmanager
def environment(changes: dict[str, str], cwd: str | Path | None = None) -> Iterator[None]:
    """os.environ with ``changes`` (and NO_COLOR unset), and the working
    directory ``cwd``, until the block ends."""
    saved = dict(os.environ)
    here = os.getcwd()
    os.environ.pop("NO_COLOR", None)
    os.environ.update(PIPE_ENV)
    os.environ.update(changes)
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(saved)


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    # what subprocess.run(text=True) reads: universal newlines
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def gradcli(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
            cwd: str | Path | None = None,
            merged: bool = False) -> subprocess.CompletedProcess[str]:
    """``gradcli ARGS...`` with ``stdin`` piped in; what subprocess.run with
    captured text output would return. ``merged``: standard error goes where
    standard output goes (``2>&1``), and ``stderr`` is empty."""
    with LOCK:
        streams = (sys.stdin, sys.stdout, sys.stderr)
        sys.stdin = _stream((stdin or "").encode("utf-8"))
        out, err = _stream(), _stream()
        sys.stdout, sys.stderr = out, out if merged else err
        code: int | str | None
        try:
            with environment(env or {}, cwd):
                try:
                    run(list(args))
                except SystemExit as exited:
                    code = exited.code
                else:  # run always exits
                    raise AssertionError("gradcli.cli.main.run returned")
        finally:
            sys.stdin, sys.stdout, sys.stderr = streams
    assert isinstance(code, int), code
    return subprocess.CompletedProcess(["gradcli", *args], code, _text(out), _text(err))


def gradcli_all(*calls: tuple[str, ...] | dict) -> list[subprocess.CompletedProcess[str]]:
    """Several command lines, each a tuple of arguments or a dict with "args"
    and gradcli's keywords; their results in order."""
    results = []
    for call in calls:
        if isinstance(call, dict):
            call = dict(call)
            results.append(gradcli(*call.pop("args"), **call))
        else:
            results.append(gradcli(*call))
    return results


Row = tuple[tuple[str, ...], int, list[str], str]
"""A command line, its exit status, its standard output's lines, and a part
of its standard error ("": none at all)."""


def check_rows(rows: list[Row]) -> None:
    """Run each row's command line and assert what the row says of it."""
    for (args, status, lines, err), proc in zip(rows, gradcli_all(*(r[0] for r in rows))):
        assert proc.returncode == status, (args, proc.stderr)
        assert proc.stdout.splitlines() == lines, args
        assert err in proc.stderr, (args, proc.stderr)
        if not err:
            assert proc.stderr == "", (args, proc.stderr)
