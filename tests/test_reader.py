"""gradcli.lang.reader: the statement reader of `gradcli eval -` and the piped REPL.

Its grouping is checked against a plain reference that does what the docs say
(join lines while a bracket is open; a bracket never closed costs the lines
up to its own, and the lines after it are read again from scratch), which
rescans the text and so is quadratic; the reader must give the same inputs
without rescanning.
"""

from __future__ import annotations

import io
import os
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.lang import reader
from gradcli.lang.parser import MAX_INPUT, ParseLimitError
from gradcli.lang.reader import Input, bracket_summary, read_inputs


def _depth(line: str, depth: int) -> int:
    for ch in line.partition("#")[0]:
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
    return depth


def _first_unclosed(lines: list[str]) -> int:
    stack = []
    for i, line in enumerate(lines):
        for ch in line.partition("#")[0]:
            if ch in "([":
                stack.append(i)
            elif ch in ")]" and stack:
                stack.pop()
    return stack[0]


def reference(lines: list[str], cap: int) -> list[tuple[str, int, bool]]:
    """The inputs the docs promise, found the slow way."""
    out: list[tuple[str, int, bool]] = []
    held: list[str] = []
    start = 1

    def regroup() -> None:
        nonlocal held, start
        while True:
            depth = 0
            for j, line in enumerate(held):
                depth = _depth(line, depth)
                if depth == 0:
                    out.append(("\n".join(held[:j + 1]), start, True))
                    start += j + 1
                    held = held[j + 1:]
                    break
            else:
                return

    def cut() -> None:
        nonlocal held, start
        u = _first_unclosed(held)
        out.append(("\n".join(held[:u + 1]), start, False))
        start += u + 1
        held = held[u + 1:]
        regroup()

    for number, line in enumerate(lines, 1):
        if not held:
            start = number
        held.append(line)
        regroup()
        while held and sum(len(h) + 1 for h in held) > cap:
            cut()
    while held:
        cut()
    return out


def inputs_of(text: str) -> list[Input]:
    return [item for batch in read_inputs(io.StringIO(text)) for item in batch]


LINE = st.text(alphabet="()[]x# ", max_size=6)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=10), st.integers(min_value=1, max_value=14))
def test_inputs_are_those_of_the_rescanning_reference(lines, cap):
    lines = [line[:cap] for line in lines]  # no line past the limit here
    saved = reader.MAX_INPUT
    reader.MAX_INPUT = cap
    try:
        got = [(i.text, i.line, i.closed) for i in inputs_of("\n".join(lines) + "\n")]
    finally:
        reader.MAX_INPUT = saved
    assert got == reference(lines, cap)


@pytest.mark.parametrize(("line", "summary"), [
    ("", (0, 0)), ("f(x, [1, 2])", (0, 0)), ("((", (0, 2)), (")) (", (2, 1)),
    (") ( ) ]", (2, 0)), ("(] # ((", (0, 0)), ("x) + (y", (1, 1)),
])
def test_bracket_summary(line, summary):
    assert bracket_summary(line) == summary


def test_a_bracket_never_closed_costs_only_the_lines_up_to_it():
    items = inputs_of("k = 42\n(1 +* 2\nk = 43\n[\n  [1,\n   2]\nk\n")
    assert [(i.text, i.line, i.closed) for i in items] == [
        ("k = 42", 1, True), ("(1 +* 2", 2, False), ("k = 43", 3, True), ("[", 4, False),
        ("  [1,\n   2]", 5, True), ("k", 7, True)]


def test_lines_keep_their_numbers_and_lose_a_carriage_return():
    items = inputs_of("a\r\n\n(b,\r\n c)\r\nd")  # no newline at the end
    assert [(i.text, i.line) for i in items] == [("a", 1), ("", 2), ("(b,\n c)", 3), ("d", 5)]
    assert inputs_of("") == [] and inputs_of("\n") == [Input("", 1)]


def test_a_line_past_the_limit_is_an_error_at_its_own_line_and_the_rest_run():
    long_line = "x+" * (MAX_INPUT // 2) + "x"  # MAX_INPUT + 1 characters
    items = inputs_of(f"k = 42\n(\n{long_line}\nk\n")
    assert [(i.line, i.closed, i.error is None) for i in items] == [
        (1, True, True), (2, False, True), (3, True, False), (4, True, True)]
    bad = items[2]
    assert isinstance(bad.error, ParseLimitError) and bad.error.exit_status == 2
    assert (bad.error.line, bad.error.column) == (3, MAX_INPUT + 1)
    assert bad.error.message == f"line longer than {MAX_INPUT:,} characters"
    assert len(bad.text) == MAX_INPUT  # what is kept of it


def _pipe_read(data: bytes) -> tuple[float, list[Input]]:
    read_fd, write_fd = os.pipe()

    def write() -> None:
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    start = time.perf_counter()
    with os.fdopen(read_fd, "r", encoding="utf-8") as stream:
        items = [item for batch in read_inputs(stream) for item in batch]
    elapsed = time.perf_counter() - start
    writer.join()
    return elapsed, items


def test_reading_one_long_line_is_linear_and_stops_at_the_cap():
    # `pending += data` and a search of all of it on every 64 KiB read took
    # 20.9 s for 64M characters; one pass takes well under a second
    elapsed, items = _pipe_read(b"k = 42\n" + b"x+" * 24_000_000 + b"x\nk\n")
    assert [i.line for i in items] == [1, 2, 3]
    assert items[1].error is not None and len(items[1].text) == MAX_INPUT
    assert elapsed < 5, elapsed


def test_many_stray_brackets_are_read_in_linear_time():
    # each one regrouped the lines after it again (3,000 took minutes once); 120 KB
    # arrive in at least two reads of a pipe
    elapsed, items = _pipe_read(b"(\n" * 60_000 + b"7\n")
    assert len(items) == 60_001 and not any(i.closed for i in items[:-1])
    assert items[-1] == Input("7", 60_001)
    assert elapsed < 10, elapsed
