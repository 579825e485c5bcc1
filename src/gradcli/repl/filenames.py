"""A file name at the end of a command's words, as the REPL's ``:plot`` takes it,
and the rule every file name a user types must pass (the CLI's ``-o`` too)."""

from __future__ import annotations

import os
import re

from ..errors import UsageError, visible

__all__ = ["check_file_name", "split_file_name"]

_BLANKS = r"\s+"
_SHELL = r"[\\'\"]"


def split_file_name(args: str) -> tuple[str, str]:
    """``args`` ending in a file name, as (the text before the name, the name).

    The name is the last word as a shell reads it: quotes group a name with
    spaces (``"my graph.png"``) and are removed, and a ``~`` that starts it
    unquoted is the home directory. The text before it is an expression,
    which may hold a quote of its own (``f'(x)``), so only the last word is
    read this way. UsageError for an unterminated quote or a control
    character (see check_file_name)."""
    import shlex

    body = args.rstrip()
    # where a word may start: after blanks that no backslash escapes
    starts = [0] + [m.end() for m in re.finditer(_BLANKS, body)
                    if body[m.start() - 1:m.start()] != "\\"]
    for start in starts[:-65:-1]:  # from the right: the last that reads as one word
        suffix = body[start:]
        try:
            words = shlex.split(suffix) if re.search(_SHELL, suffix) else suffix.split()
        except ValueError:  # a quote never closed
            continue
        if len(words) == 1:
            name = words[0]
            break
    else:
        raise UsageError("the file name has a quote that is never closed" if re.search(_SHELL, body)
                         else "no file name")
    check_file_name(name)
    if body[start:].startswith("~"):
        name = os.path.expanduser(name)
    return body[:start], name


def check_file_name(name: str) -> str:
    """``name``, or UsageError if it holds a control or format character (a NUL
    byte, an escape, a line break, a bidi override such as U+202E): no file
    should be named with one, and it would drive the terminal where the name
    is shown. The error names the character by its code point and shows the
    name as every message quotes user text (errors.visible)."""
    for index, ch in enumerate(name):
        if not ch.isprintable() and ch != " ":
            raise UsageError(f"the file name has a control or format character, "
                             f"U+{ord(ch):04X}, at position {index + 1}: {visible(name)}")
    return name
