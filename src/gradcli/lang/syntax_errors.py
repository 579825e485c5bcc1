"""The parser's failures as short ParseErrors that point at the offending place,
with hints for what another notation meant (sin x, x², |x|, 2 x, a × b)."""

from __future__ import annotations

import functools
import re

from gradcli.errors import GradcliError, ParseError, literal
from gradcli.lang.brackets import PAIRS, innermost_open, open_brackets
from gradcli.lang.lalr import SyntaxFailure, UnexpectedCharacters, UnexpectedToken
from gradcli.lang.names import NAME, SUPERSCRIPT, SUPERSCRIPT_DIGITS, exponent_meant
from gradcli.lang.namespace import builtin_function
from gradcli.record import Record


class Chunk(Record):
    """A statement's text, and where it starts in the whole text."""

    text: str  # stripped; starts at (line, column)
    line: int
    column: int
    error: GradcliError | None  # found by the scan (nesting), raised before parsing


_DIGITS = frozenset("0123456789.")

LOOKALIKES = {
    "\u00d7": "'*'", "\u00b7": "'*'", "\u22c5": "'*'", "\u2217": "'*'", "\u2219": "'*'",
    "\u00f7": "'/'", "\u2215": "'/'",
    "\u2212": "'-'", "\u2013": "'-'", "\u2014": "'-'",
    "\u221a": "sqrt(...)",
    "\u2032": "the prime ', as in f'(x)", "\u2019": "the prime ', as in f'(x)",
    "\u2033": "two primes, as in f''(x)", "\u2034": "three primes, as in f'''(x)",
    "\u221e": "inf",
    "\u207b": "a power with '^', as in x^-1",
}
"""Characters that typeset maths or word processors put for an operator (x × y,
a − b, √x), with gradcli's spelling of it, for hints."""


def quote(text: str) -> str:
    if len(text) > 20:
        text = text[:17] + "..."
    return f"'{text}'"


def _absolute(chunk: Chunk, line: int, column: int) -> tuple[int, int]:
    if line == 1:
        return chunk.line, chunk.column + column - 1
    return chunk.line + line - 1, column


def _end_of(chunk: Chunk) -> tuple[int, int]:
    newline = chunk.text.rfind("\n")
    line = chunk.text.count("\n") + 1
    return _absolute(chunk, line, len(chunk.text) - newline)


def _expectation(expected: set[str], chunk: Chunk, offset: int, found: str) -> str:
    # The parser's `expected` set is exact only about operands: LALR merges the
    # look-aheads of states shared by calls, arrays and parentheses, so it
    # offers ')' inside "[1, 2". Which bracket must close comes from the text.
    if chunk.text[:offset].rstrip().endswith("'"):
        # primes are only ever followed by the call's bracket
        return ", expected '(': a derivative is called, as in f'(x)"
    if "NAME" in expected:
        return ", expected an expression"
    if found in (")", "]"):
        opener = innermost_open(chunk.text, offset)
        if opener is not None and PAIRS[opener] != found:
            return f", expected '{PAIRS[opener]}'"
    return ""


_OPERAND_STARTS = frozenset({"NAME", "NUMBER", "IMPLICIT_NUMBER", "_LPAR", "LSQB"})


@functools.cache
def _pattern(which: str) -> re.Pattern[str]:
    """The patterns the hints search with, compiled on the first error (they
    cost a millisecond and a half of every start-up, which has none)."""
    return re.compile({
        "last name": r"(?<![\w.])[^\W\d]\w*$",
        "function power": r"(?<![\w.])([^\W\d]\w*)\s*(?:\^|\*\*)\s*(\d+)$",
        "superscripted": rf"(?<![\w.])({NAME.pattern})({SUPERSCRIPT.pattern})$",
    }[which])


def _called_argument(text: str, at: int) -> str:
    """The bracketed argument that starts at ``at`` ('('), as typed, or (...)."""
    depth = 0
    for i in range(at, min(len(text), at + 60)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[at:i + 1] if "\n" not in text[at:i] else "(...)"
    return "(...)"


def _superscript_call(name: str, exponent: str, argument: str) -> str:
    """sin²(x), as typeset: a superscript raises the name it follows, so this is
    no power of the call; what to write instead."""
    power = exponent_meant(exponent)
    typed = f"{name}{exponent}{argument}"
    called = f"{name}{argument}^{power}"
    inverse = f"a{name}" if power == "-1" and builtin_function(f"a{name}") else None
    if inverse is not None:
        meant, way = (f"{inverse}{argument} or {called}",
                      f"write {inverse}{argument} for the inverse, or {called} for the "
                      "reciprocal")
    elif builtin_function(name) is not None:
        meant, way = called, f"write {called}"
    else:  # a function of the session's (f²(2)), or a variable (x²(x+1))
        product = f"{name}{exponent}*{argument}"
        meant = f"{called} or {product}"
        way = f"write {called} for a power of the call, or {product} for a product"
    return (f"{typed} is not read as {meant}: a superscript raises the name it "
            f"follows; {way}")


def _builtin_named(match: re.Match[str] | None, group: int = 0) -> str | None:
    """The built-in function a regex match names, if it names one."""
    if match is None:
        return None
    # only to word an error: the namespace loads the built-ins' names then
    return match[group] if builtin_function(match[group]) is not None else None


def _absolute_value(text: str, at: int) -> str:
    """abs(...) for |...|, as typeset: what lies between this '|' and the next."""
    close = text.find("|", at + 1)
    inner = text[at + 1:close].strip() if close > at + 1 else ""
    if not inner or "\n" in inner or len(inner) > 40:
        inner = "x"
    return f"abs({inner})"


def _primed(err: ParseError, chunk: Chunk, offset: int) -> ParseError:
    """``err`` with ``primed``: the name of ``g'`` where the primes are not
    followed by the call's bracket (the session words it when g is a
    function of several variables: see lang.resolve.prime_without_call)."""
    before = chunk.text[:offset].rstrip()
    if before.endswith("'"):
        found = _pattern("last name").search(before.rstrip("'"))
        if found is not None:
            err.primed = found.group()  # type: ignore[attr-defined]
    return err


def syntax_error(exc: SyntaxFailure, chunk: Chunk) -> ParseError:
    """The parser's failure as a short ParseError at the offending position."""
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        expected = set(exc.expected or ())
        if token.type == "$END":
            unclosed = never_closed(chunk)
            if unclosed is not None:
                return unclosed
            # The parser gives $END the position of the last token; the input ends
            # right after it.
            if token.end_line is not None and token.end_column is not None:
                line, column = _absolute(chunk, token.end_line, token.end_column)
            else:
                line, column = _end_of(chunk)
            message = "unexpected end of input"
            message += _expectation(expected, chunk, len(chunk.text), "")
            return _primed(ParseError(message, line=line, column=column), chunk,
                           len(chunk.text))
        else:
            line, column = _absolute(chunk, token.line, token.column)
            message = f"unexpected {quote(str(token))}"
            start = token.start_pos or 0
            before = chunk.text[:start].rstrip()
            powered = _pattern("function power").search(before) if token.type == "_LPAR" else None
            raised = _pattern("superscripted").search(before) if token.type == "_LPAR" \
                and len(before) == start else None
            if raised is not None:
                message = _superscript_call(raised[1], raised[2],
                                            _called_argument(chunk.text, start))
            elif _builtin_named(powered, 1):
                # sin^2(x), as typeset: the power of the call
                message += (f"; a power of a function's value follows the call: "
                            f"{powered[1]}(...)^{powered[2]}")
            elif token.type in ("NAME", "_LPAR") and start and chunk.text[start - 1] in _DIGITS:
                # A number against a name where implicit products are not
                # allowed: only an exponent (x**2x).
                message += ": an exponent cannot be an implicit product, use parentheses"
            elif token.type in _OPERAND_STARTS and len(before) < start \
                    and (name := _builtin_named(_pattern("last name").search(before))):
                # sin x, as typeset: the argument goes in brackets
                message += f"; a function's argument goes in brackets: {name}({token})"
            elif token.type in _OPERAND_STARTS and len(before) < start and before \
                    and (before[-1].isalnum() or before[-1] in ")]_"):
                # two operands apart ("2 x", "x y"), as qalc would multiply
                message += "; a product needs '*' (2*x), or a number right against it (2x)"
            elif str(token) == ":" and not before:  # :vars where a statement goes
                return ParseError.hinted(literal(message) + "; {colon}").at(line, column)
            elif str(token)[0] in SUPERSCRIPT_DIGITS:
                # (x+1)², typeset: the power, not a product
                message += "; a power is written with '^'"
                if not str(token).strip(SUPERSCRIPT_DIGITS):
                    message += f": (a)^{exponent_meant(str(token))}"
            elif token.type in _OPERAND_STARTS and before and before[-1] in ")]":
                # "(1)(2)", "(a+b)x": only a number may stand right against a factor
                message += "; a product needs '*' after a bracket: (a)*(b)"
            else:
                message += _expectation(expected, chunk, start, str(token))
        return _primed(ParseError(message, line=line, column=column), chunk, token.start_pos or 0)
    if isinstance(exc, UnexpectedCharacters):
        char = chunk.text[exc.pos_in_stream]
        shown = f"'{char}'" if char.isprintable() else f"U+{ord(char):04X}"
        line, column = _absolute(chunk, exc.line, exc.column)
        meant = LOOKALIKES.get(char) or (_absolute_value(chunk.text, exc.pos_in_stream)
                                         if char == "|" else None)
        hint = f"; did you mean {meant}?" if meant else ""
        return ParseError(f"unexpected character {shown}{hint}", line=line, column=column)
    return ParseError("invalid syntax", line=chunk.line, column=chunk.column)


NEVER_CLOSED = " was never closed"


def never_closed(chunk: Chunk) -> ParseError | None:
    """At the end of a statement that leaves a bracket open, the bracket is the
    error, as Python says ("unexpected end of input" pointed past it)."""
    opener = first_unclosed(chunk.text.split("\n"))
    return None if opener is None else never_closed_at(chunk, opener)


def never_closed_at(chunk: Chunk, opener: tuple[int, int, str]) -> ParseError:
    i, column, char = opener
    if i == 0:
        column += chunk.column - 1
    return ParseError(f"'{char}'{NEVER_CLOSED}", line=chunk.line + i, column=column)


def first_unclosed(lines: list[str]) -> tuple[int, int, str] | None:
    """(line index, column, bracket) of the first '(' or '[' that ``lines`` leave
    open, comments skipped; None if every one is closed."""
    text = "\n".join(lines)
    stack = open_brackets(text)
    if not stack:
        return None
    offset, char = stack[0]
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset), offset - line_start + 1, char
