"""Tab completion: the user's names, the built-ins with their one-line docs, and :commands.

Names come from the Session (variables, defined functions) and from the core's
registry, never from a list kept here. A ``:`` at the start of the input
completes the commands instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from ..lang import namespace
from .catalog import COMMANDS

if TYPE_CHECKING:
    from .loader import SessionLoader

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*$")
_COMMAND = re.compile(r"^\s*(:[A-Za-z?]*)$")


class GradcliCompleter(Completer):
    def __init__(self, loader: SessionLoader) -> None:
        self.loader = loader

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        before = document.text_before_cursor
        command = _COMMAND.match(before)
        if command is not None:
            yield from _commands(command.group(1))
            return
        word = _WORD.search(before)
        prefix = word.group(0) if word else ""
        if not prefix and not complete_event.completion_requested:
            return
        if prefix and len(before) > len(prefix) and before[-len(prefix) - 1] == "'":
            return  # after a prime, f'x is not a name
        seen: set[str] = set()
        for name, display, meta in self.candidates():
            if name.startswith(prefix) and name not in seen:
                seen.add(name)
                yield Completion(name, start_position=-len(prefix), display=display,
                                 display_meta=meta)

    def candidates(self) -> Iterable[tuple[str, str, str]]:
        """(name, what the menu shows, its description), the user's own names first."""
        from .arguments import body_of
        from .display import short_value

        session = self.loader.get()
        for name, value in session.variables():
            yield name, name, f"= {short_value(value, limit=4)}"
        for name, d in sorted(session.functions.items()):
            yield name, d.signature, f"= {body_of(d.source)}"
        for name, (signature, doc) in sorted(namespace.special_forms().items()):
            yield name, signature, doc
        registry = namespace.builtins()
        for name in sorted(registry):
            entry = registry[name]
            yield name, entry.signature, entry.doc
        for name, value in namespace.CONSTANTS.items():
            yield name, name, f"constant = {short_value(value)}"


def _commands(prefix: str) -> Iterator[Completion]:
    for name, (usage, doc) in COMMANDS.items():
        if name.startswith(prefix):
            yield Completion(name, start_position=-len(prefix), display=usage, display_meta=doc)
