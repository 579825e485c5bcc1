"""gradcli's LALR(1) runtime: a contextual lexer and a shift-reduce loop over
the tables that ``python -m gradcli.lang.grammar`` computes with Lark when
gradcli is built (``gradcli/lang/_tables.py``).

It does what Lark's own runtime does with those tables, for the options the
grammar uses (LALR, contextual lexer, placeholders, an inline transformer),
and nothing else: Lark's standalone module costs a start-up about 15 ms to
define its classes, deserialize its tables and compile a regex per parser
state; this module and its tables cost under 1 ms. The equivalence is a
test: tests/test_grammar_build.py parses a corpus and random texts with both
and compares the trees and the errors.

What Lark's semantics come to here:
- Lexing is contextual: in each parser state only the terminals that state
  accepts (plus the ignored ones) may match, tried in Lark's order (priority,
  then longest possible match); the first that matches wins. One regex of all
  terminals serves nearly every token, because when its first match is one
  the state accepts, the state's own regex (the same alternatives, fewer of
  them, in the same order) would have matched exactly that; a state's regex
  is compiled only when the two could differ.
- A rule's children lose the filtered tokens (names starting with '_',
  anonymous strings); children made by rules whose names start with '_' are
  spliced in; an optional part that is missing is None; a '?rule' with one
  child left is that child. Then the transformer's method for the rule (or
  its alias) builds the node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Parser", "SyntaxFailure", "Token", "UnexpectedCharacters", "UnexpectedToken"]


class Token(str):
    """A matched terminal: its text, with its name (``type``) and where it is
    (1-based line and column, 0-based ``start_pos``; ``end_*`` just past it)."""

    __slots__ = ("type", "start_pos", "line", "column", "end_line", "end_column", "end_pos",
                 "after_blank")

    type: str
    start_pos: int
    line: int
    column: int
    end_line: int | None
    end_column: int | None
    end_pos: int | None
    after_blank: bool
    """Whether an ignored blank or comment comes just before (x² ² is refused)."""

    def __new__(cls, type_: str, value: str, start_pos: int, line: int, column: int,
                end_line: int | None = None, end_column: int | None = None,
                end_pos: int | None = None) -> Token:
        self = str.__new__(cls, value)
        self.type, self.start_pos, self.line, self.column = type_, start_pos, line, column
        self.end_line, self.end_column, self.end_pos = end_line, end_column, end_pos
        self.after_blank = False
        return self

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {str(self)!r})"


class SyntaxFailure(Exception):
    """The text is not in the grammar."""


class UnexpectedToken(SyntaxFailure):
    """``token`` cannot come here; ``expected`` names the terminals that could
    (as Lark says it: upper-case names, '$END' for the end of the text)."""

    def __init__(self, token: Token, expected: set[str]) -> None:
        super().__init__(f"unexpected {token.type} {str(token)!r} at {token.line}:{token.column}")
        self.token, self.expected = token, expected


class UnexpectedCharacters(SyntaxFailure):
    """No terminal at all matches at ``pos_in_stream`` (line, column)."""

    def __init__(self, pos_in_stream: int, line: int, column: int) -> None:
        super().__init__(f"no terminal matches at {line}:{column}")
        self.pos_in_stream, self.line, self.column = pos_in_stream, line, column


def _scanner(terminals: list[tuple[str, str]]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<{name}>{regexp})" for name, regexp in terminals))


class Parser:
    """The tables of one grammar (a generated module) with a transformer whose
    methods, named after rules and aliases, build the tree at each reduction."""

    def __init__(self, tables: Any, transformer: object) -> None:
        self._states: tuple[dict[str, int], ...] = tables.STATES
        self._start: int = tables.START
        self._end: int = tables.END
        self._ignore: frozenset[str] = frozenset(tables.IGNORE)
        self._terminals: tuple[tuple[str, str], ...] = tables.TERMINALS
        names = {name for name, _ in self._terminals}
        self._accepts = [frozenset(name for name in actions if name in names) | self._ignore
                         for actions in self._states]
        self._root: re.Pattern[str] | None = None
        self._by_state: dict[int, re.Pattern[str]] = {}
        self._rules = [self._reducer(rule, transformer) for rule in tables.RULES]

    @staticmethod
    def _reducer(rule: tuple, transformer: object) -> tuple[str, int, Callable[[list], Any]]:
        origin, size, name, expand1, include, trailing = rule
        method = None if name is None else getattr(transformer, name, None)

        def build(children: list) -> Any:
            if include is not None:
                kept: list = []
                for i, splice, nones in include:
                    if nones:
                        kept += [None] * nones
                    if not splice:
                        kept.append(children[i])
                    elif kept:
                        kept += children[i]
                    else:
                        kept = children[i]  # a '_' rule's own list, used once
                if trailing:
                    kept += [None] * trailing
                children = kept
            if name is None:  # a '_' rule: its children go to the rule using it
                return children
            if expand1 and len(children) == 1:
                return children[0]
            if method is None:
                # A grammar change that adds a rule without a method fails loudly.
                raise AssertionError(f"gradcli grammar rule {name!r} has no tree builder")
            return method(children)

        return origin, size, build

    def _state_scanner(self, state: int) -> re.Pattern[str]:
        scanner = self._by_state.get(state)
        if scanner is None:
            accepts = self._accepts[state]
            scanner = _scanner([t for t in self._terminals if t[0] in accepts])
            self._by_state[state] = scanner
        return scanner

    def parse(self, text: str) -> Any:
        """The transformer's tree for ``text``; raises UnexpectedToken or
        UnexpectedCharacters (a SyntaxFailure) where the text leaves the grammar."""
        if self._root is None:
            self._root = _scanner(list(self._terminals))
        root_match = self._root.match
        states, rules, accepts, ignore = self._states, self._rules, self._accepts, self._ignore
        stack = [self._start]
        values: list = []
        pos, line, line_start, end = 0, 1, 0, len(text)
        token: Token | None = None

        while pos < end:
            state = stack[-1]
            match = root_match(text, pos)
            if match is None:
                raise UnexpectedCharacters(pos, line, pos - line_start + 1)
            if match.lastgroup not in accepts[state]:
                found = self._state_scanner(state).match(text, pos)
                if found is None:  # a terminal, but not one this state accepts
                    wrong = self._token(match, pos, line, line_start)
                    raise UnexpectedToken(wrong, set(accepts[state] - ignore) or {"<END-OF-FILE>"})
                match = found
            if match.lastgroup in ignore:
                value = match.group()
                pos += len(value)
                if "\n" in value:
                    line += value.count("\n")
                    line_start = pos - len(value) + value.rindex("\n") + 1
                continue
            token = self._token(match, pos, line, line_start)
            token.after_blank = pos > 0 and text[pos - 1].isspace()
            pos, line = token.end_pos, token.end_line
            line_start = pos - token.end_column + 1
            self._feed(token, stack, values, states, rules)

        if token is None:
            last = Token("$END", "", 0, 1, 1)
        else:
            last = Token("$END", "", token.start_pos, token.line, token.column, token.end_line,
                         token.end_column, token.end_pos)
        return self._feed(last, stack, values, states, rules)

    @staticmethod
    def _token(match: re.Match[str], pos: int, line: int, line_start: int) -> Token:
        """The token ``match`` found at ``pos``, ``line`` (which starts at ``line_start``)."""
        value = match.group()
        column = pos - line_start + 1
        end = pos + len(value)
        if "\n" not in value:
            return Token(match.lastgroup or "", value, pos, line, column, line, column + len(value),
                         end)
        end_start = pos + value.rindex("\n") + 1
        return Token(match.lastgroup or "", value, pos, line, column, line + value.count("\n"),
                     end - end_start + 1, end)

    def _feed(self, token: Token, stack: list[int], values: list, states: tuple,
              rules: list) -> Any:
        kind = token.type
        while True:
            action = states[stack[-1]].get(kind)
            if action is None:
                raise UnexpectedToken(token, {s for s in states[stack[-1]] if s.isupper()})
            if action >= 0:  # shift
                stack.append(action)
                values.append(token)
                return None
            origin, size, build = rules[~action]
            if size:
                children = values[-size:]
                del stack[-size:]
                del values[-size:]
            else:
                children = []
            value = build(children)
            stack.append(states[stack[-1]][origin])
            values.append(value)
            if kind == "$END" and stack[-1] == self._end:
                return value
