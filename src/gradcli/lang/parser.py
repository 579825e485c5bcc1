"""Text to syntax trees: split into statements, parse each with Lark's LALR.

Timings, measured with time.perf_counter on the shared development box
(Python 3.11, lark 1.3.1, NumPy already imported; a plain Python loop runs
about 5x slower there than on a current laptop):
    import the generated parser module and build the parser:  15-17 ms
    first parse() in a process (Lark compiles its lexer):     2-4 ms
    one parse() of "x**4 - 2*x**2", parser already built:  0.16-0.30 ms
    one parse() of 100,000 characters "x+x+...+x":          0.9-1.9 s (load)
Parse time is linear in the number of tokens (~18 us each there, nearly all
inside Lark's LALR loop), so a text at MAX_INPUT made of one-character
tokens would take about 20 s there, so one statement is limited to
MAX_STATEMENT characters (about 4 s at worst); a whole text (a script on
standard input) may hold many statements, up to MAX_INPUT characters.

How a text becomes statements, and why:
- A hand-written scan (one regex over the bracket, ';', newline and '#'
  characters) splits the text at ';' and at newlines outside brackets, drops
  the comment that ends a statement and measures bracket nesting. Lark never
  sees a statement nested past MAX_DEPTH, and one bad statement cannot hide
  the others (``parse_each``). Newlines inside brackets do not split, so
  ``[[1, 2],\\n [3, 4]]`` is one statement, as the REPL's multi-line input needs.
- Each statement is then parsed by ONE Lark LALR parser, built once per
  process, whose inline transformer builds gradcli.lang.ast nodes during the
  parse: no Lark tree, and no recursion anywhere (Lark's LALR loop keeps its
  own stack), so 50,000 signs or 20,000 powers in a row cannot overflow.
- Lark numbers lines within the statement it was given; the callbacks add the
  statement's own line and column, kept in a thread-local because the one
  transformer serves every parse in the process.

Where the parser's code comes from, and why: see gradcli.lang.grammar.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from gradcli.errors import GradcliError, LimitError, ParseError
from gradcli.lang.ast import (
    Array,
    Assign,
    Call,
    Chain,
    Define,
    Implicit,
    Index,
    Name,
    Node,
    Num,
    Power,
    Prime,
    Slice,
    StatementNode,
    Unary,
    children,
)
from gradcli.lang.brackets import PAIRS, innermost_open, marks, open_brackets
from gradcli.lang.grammar import LarkRuntime, load_runtime
from gradcli.lang.names import SUPERSCRIPT_DIGITS, exponent_meant
from gradcli.lang.namespace import builtin_function
from gradcli.record import Record

__all__ = [
    "MAX_DEPTH",
    "MAX_INPUT",
    "MAX_STATEMENT",
    "BadStatement",
    "ParseLimitError",
    "Statement",
    "get_parser",
    "parse",
    "parse_each",
]

#: Deepest bracket nesting, and deepest tree of non-leaf nodes, accepted.
#: The evaluator may recurse over a tree; this keeps it far from Python's
#: recursion limit whatever the input.
MAX_DEPTH = 256
#: Longest text ``parse`` accepts, in characters.
MAX_INPUT = 10_000_000
#: Longest single statement, in characters: bounds the time one parse takes.
MAX_STATEMENT = 200_000


class ParseLimitError(ParseError, LimitError):
    """Input past a size limit (length, nesting). It is a parse error first
    (``kind`` "parse", exit status 2: the text was refused before any
    evaluation) and also a LimitError, for code that catches safety limits."""


class Statement(Record):
    """One parsed statement: its tree, its text, and where that text starts."""

    node: StatementNode
    source: str  # the statement exactly as typed, stripped, without a trailing comment
    line: int  # 1-based, within the text given to parse()
    column: int  # 1-based


class BadStatement(Record):
    """A statement that failed to parse (from ``parse_each``)."""

    error: GradcliError  # a ParseError, with line and column
    source: str
    line: int
    column: int


# --------------------------------------------------------------------------
# Splitting the text into statements


class _Chunk(Record):
    text: str  # stripped; starts at (line, column)
    line: int
    column: int
    error: GradcliError | None  # found by the scan (nesting), raised before Lark runs


def _split(text: str) -> list[_Chunk]:
    chunks: list[_Chunk] = []
    depth = 0
    line, line_start = 1, 0
    seg_start, seg_line, seg_line_start = 0, 1, 0
    too_deep: GradcliError | None = None

    def flush(end: int, closed: bool = True) -> None:
        segment = text[seg_start:end]
        if closed:
            # the comment that ends the statement (one inside brackets stays:
            # Lark ignores it)
            comment = segment.find("#", segment.rfind("\n") + 1)
            if comment >= 0:
                segment = segment[:comment]
        body = segment.lstrip()
        if body:
            # No newline can precede `body` within the segment: a newline
            # outside brackets would have ended the segment.
            column = seg_start + (len(segment) - len(body)) - seg_line_start + 1
            chunks.append(_Chunk(body.rstrip(), seg_line, column, too_deep))

    for at, char in marks(text):
        if char == "(" or char == "[":
            depth += 1
            if depth > MAX_DEPTH and too_deep is None:
                too_deep = ParseLimitError(
                    f"expression nested deeper than {MAX_DEPTH} levels",
                    line=line,
                    column=at - line_start + 1,
                )
        elif char == ")" or char == "]":
            # An unmatched closer is Lark's to report; never go negative, so
            # the statements after it still split normally.
            if depth:
                depth -= 1
        elif depth == 0 or char == "\n":
            if char == "\n":
                line += 1
                line_start = at + 1
            if depth == 0:
                flush(at)
                seg_start, seg_line, seg_line_start = at + 1, line, line_start
                too_deep = None
        # A ';' or '#' inside brackets stays in the statement: Lark ignores the
        # comment and reports the ';' with its position.
    flush(len(text), closed=depth == 0)
    return chunks


# --------------------------------------------------------------------------
# Building the tree during the parse


class _Origin(threading.local):
    """Where the statement being parsed starts, for the callbacks below
    (1, 1 for a direct ``get_parser().parse(text)``)."""

    line = 1
    column = 1


_origin = _Origin()


# A Lark token: a str with .type, .line, .column, .start_pos, .end_line and
# .end_column. Its class comes from the runtime, so it is only named here.
Token = Any


def _at(token: Token) -> tuple[int, int]:
    """Absolute (line, column) of a token of the statement being parsed."""
    if token.line == 1:
        return _origin.line, _origin.column + token.column - 1
    return _origin.line + token.line - 1, token.column


# The grammar's operator tokens, as plain interned strings for the tree.
_OPS = {op: op for op in ("+", "-", "*", "/", "@")}


class _Assignment:
    """``left = right`` before the parser module decides what it is."""

    __slots__ = ("left", "equals", "right")

    def __init__(self, left: Node, equals: Token, right: Node) -> None:
        self.left, self.equals, self.right = left, equals, right


class _Builder:
    """Lark's inline transformer: one method per rule or alias of the grammar,
    called at each LALR reduction with the rule's children (tokens whose
    names start with '_' are already dropped)."""

    def statement(self, c: list) -> Node | _Assignment:
        return c[0] if len(c) == 1 else _Assignment(c[0], c[1], c[2])

    def sum(self, c: list) -> Chain:
        first = c[0]
        rest = tuple(zip([_OPS[op] for op in c[1::2]], c[2::2]))
        return Chain(first, rest, first.line, first.column)

    product = sum

    def unary(self, c: list) -> Unary:
        sign, operand = c
        line, column = _at(sign)
        if type(operand) is Unary:
            # Collapse a run of signs as it is reduced (innermost first), so
            # 50,000 of them make one node, not a 50,000-deep tree.
            op = "+" if operand.op == sign else "-"
            return Unary(op, operand.operand, line, column)
        return Unary(_OPS[sign], operand, line, column)

    def implicit(self, c: list) -> Implicit:
        token, operand = c
        line, column = _at(token)
        return Implicit(Num(str(token), line, column), operand, line, column)

    def power(self, c: list) -> Power:
        first = c[0]
        return Power(tuple(c), first.line, first.column)

    def index(self, c: list) -> Index:
        target = c[0]  # c[1] is the '[' token, kept for positions
        return Index(target, tuple(c[2:]), _at(c[1]), target.line, target.column)

    def slice(self, c: list) -> Slice:
        start, colon, stop = c[0], c[1], c[2]
        step = c[4] if len(c) == 5 else None
        line, column = (start.line, start.column) if start is not None else _at(colon)
        return Slice(start, stop, step, line, column)

    def number(self, c: list) -> Num:
        token = c[0]
        return Num(str(token), *_at(token))

    def name(self, c: list) -> Name:
        token = c[0]
        return Name(str(token), *_at(token))

    def call(self, c: list) -> Call:
        token = c[0]
        return Call(str(token), tuple(c[1:]), *_at(token))

    def prime(self, c: list) -> Prime:
        token, primes = c[0], c[1]
        return Prime(str(token), len(primes), tuple(c[2:]), *_at(token))

    def array(self, c: list) -> Array:
        return Array(tuple(c[1:]), *_at(c[0]))

    def __default__(self, data: str, children: list, meta: object) -> Any:
        if data.startswith("_"):
            # Lark's own helper rules (for `*` and `?`): their children are
            # spliced into the parent rule's list, which needs a Tree here.
            assert _runtime is not None  # the parser calling this was built from it
            return _runtime.Tree(data, children)
        # Every rule of ours has a method above; a grammar change that adds
        # one without a method must fail loudly rather than leak a Lark Tree.
        raise AssertionError(f"gradcli grammar rule {data!r} has no tree builder")


# --------------------------------------------------------------------------
# The Lark parser, built once

_runtime: LarkRuntime | None = None
_parser: Any = None
_parser_lock = threading.Lock()


def get_parser() -> Any:
    """The process's one Lark LALR parser, built on first use (see
    gradcli.lang.grammar for where its code comes from)."""
    global _parser, _runtime
    if _parser is None:
        with _parser_lock:
            if _parser is None:
                _runtime = load_runtime()
                _parser = _runtime.new_parser(transformer=_Builder())
    return _parser


# --------------------------------------------------------------------------
# Errors

_DIGITS = frozenset("0123456789.")

LOOKALIKES = {
    "\u00d7": "'*'", "\u00b7": "'*'", "\u22c5": "'*'", "\u2217": "'*'", "\u2219": "'*'",
    "\u00f7": "'/'", "\u2215": "'/'",
    "\u2212": "'-'", "\u2013": "'-'", "\u2014": "'-'",
    "\u221a": "sqrt(...)",
}
"""Characters that typeset maths or word processors put for an operator (x × y,
a − b, √x), with gradcli's spelling of it, for hints."""


def _quote(text: str) -> str:
    if len(text) > 20:
        text = text[:17] + "..."
    return f"'{text}'"


def _absolute(chunk: _Chunk, line: int, column: int) -> tuple[int, int]:
    if line == 1:
        return chunk.line, chunk.column + column - 1
    return chunk.line + line - 1, column


def _end_of(chunk: _Chunk) -> tuple[int, int]:
    newline = chunk.text.rfind("\n")
    line = chunk.text.count("\n") + 1
    return _absolute(chunk, line, len(chunk.text) - newline)


def _expectation(expected: set[str], chunk: _Chunk, offset: int, found: str) -> str:
    # Lark's `expected` set is exact only about operands: LALR merges the
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
_LAST_NAME = re.compile(r"(?<![\w.])[^\W\d]\w*$")
_FUNCTION_POWER = re.compile(r"(?<![\w.])([^\W\d]\w*)\s*(?:\^|\*\*)\s*(\d+)$")


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


def _syntax_error(exc: Exception, rt: LarkRuntime, chunk: _Chunk) -> ParseError:
    """Lark's UnexpectedInput as a short ParseError at the offending position."""
    if isinstance(exc, rt.UnexpectedToken):
        token = exc.token
        expected = set(exc.expected or ())
        if token.type == "$END":
            unclosed = _never_closed(chunk)
            if unclosed is not None:
                return unclosed
            # Lark gives $END the position of the last token; the input ends
            # right after it.
            if token.end_line is not None and token.end_column is not None:
                line, column = _absolute(chunk, token.end_line, token.end_column)
            else:
                line, column = _end_of(chunk)
            message = "unexpected end of input"
            message += _expectation(expected, chunk, len(chunk.text), "")
        else:
            line, column = _absolute(chunk, token.line, token.column)
            message = f"unexpected {_quote(str(token))}"
            start = token.start_pos or 0
            before = chunk.text[:start].rstrip()
            powered = _FUNCTION_POWER.search(before) if token.type == "_LPAR" else None
            if _builtin_named(powered, 1):
                # sin^2(x), as typeset: the power of the call
                message += (f"; a power of a function's value follows the call: "
                            f"{powered[1]}(...)^{powered[2]}")
            elif token.type in ("NAME", "_LPAR") and start and chunk.text[start - 1] in _DIGITS:
                # A number against a name where implicit products are not
                # allowed: only an exponent (x**2x).
                message += ": an exponent cannot be an implicit product, use parentheses"
            elif token.type in _OPERAND_STARTS and len(before) < start \
                    and (name := _builtin_named(_LAST_NAME.search(before))):
                # sin x, as typeset: the argument goes in brackets
                message += f"; a function's argument goes in brackets: {name}({token})"
            elif token.type in _OPERAND_STARTS and len(before) < start and before \
                    and (before[-1].isalnum() or before[-1] in ")]_"):
                # two operands apart ("2 x", "x y"), as qalc would multiply
                message += "; a product needs '*' (2*x), or a number right against it (2x)"
            elif str(token) == ":" and not before:
                message += "; ':' commands (:help, :vars ...) are the REPL's: gradcli repl"
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
        return ParseError(message, line=line, column=column)
    if isinstance(exc, rt.UnexpectedCharacters):
        char = chunk.text[exc.pos_in_stream]
        shown = f"'{char}'" if char.isprintable() else f"U+{ord(char):04X}"
        line, column = _absolute(chunk, exc.line, exc.column)
        meant = LOOKALIKES.get(char) or (_absolute_value(chunk.text, exc.pos_in_stream)
                                         if char == "|" else None)
        hint = f"; did you mean {meant}?" if meant else ""
        return ParseError(f"unexpected character {shown}{hint}", line=line, column=column)
    if isinstance(exc, rt.UnexpectedEOF):
        unclosed = _never_closed(chunk)
        if unclosed is not None:
            return unclosed
        line, column = _end_of(chunk)
        return ParseError("unexpected end of input", line=line, column=column)
    line, column = _absolute(chunk, exc.line or 1, exc.column or 1)
    return ParseError("invalid syntax", line=line, column=column)


# --------------------------------------------------------------------------
# Statements


def _resolve(raw: _Assignment, chunk: _Chunk) -> Assign | Define:
    left, right = raw.left, raw.right
    if type(left) is Name:
        return Assign(left.id, right, left.line, left.column)
    target = chunk.text[: raw.equals.start_pos].rstrip()
    if type(left) is Call:
        seen: set[str] = set()
        for arg in left.args:
            if type(arg) is not Name:
                raise ParseError(
                    f"cannot assign to {_quote(target)}: parameters must be plain names",
                    line=arg.line,
                    column=arg.column,
                )
            if arg.id in seen:
                raise ParseError(
                    f"cannot assign to {_quote(target)}: parameter '{arg.id}' appears twice",
                    line=arg.line,
                    column=arg.column,
                )
            seen.add(arg.id)
        params = tuple(arg.id for arg in left.args)  # type: ignore[union-attr]
        return Define(left.func, params, right, left.line, left.column)
    raise ParseError(f"cannot assign to {_quote(target)}", line=left.line, column=left.column)


def _check_depth(node: StatementNode) -> None:
    # Iterative on purpose: this is the guard against trees too deep to recurse.
    # Leaves (names, numbers) do not count: [[...[1]...]] nested MAX_DEPTH
    # brackets deep is exactly MAX_DEPTH levels.
    stack: list[tuple[object, int]] = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ParseLimitError(
                f"expression nested deeper than {MAX_DEPTH} levels",
                line=current.line,  # type: ignore[attr-defined]
                column=current.column,  # type: ignore[attr-defined]
            )
        for child in children(current):  # type: ignore[arg-type]
            if type(child) is not Num and type(child) is not Name:
                stack.append((child, depth + 1))


def _parse_chunk(chunk: _Chunk) -> Statement:
    if chunk.error is not None:
        raise chunk.error
    if len(chunk.text) > MAX_STATEMENT:
        raise ParseLimitError(
            f"statement longer than {MAX_STATEMENT:,} characters",
            line=chunk.line,
            column=chunk.column,
        )
    parser = get_parser()
    rt = _runtime
    assert rt is not None
    _origin.line, _origin.column = chunk.line, chunk.column
    try:
        raw = parser.parse(chunk.text)
    except rt.UnexpectedInput as exc:
        raise _syntax_error(exc, rt, chunk) from None
    except rt.VisitError as exc:  # a callback failed; never show Lark's wrapper
        if isinstance(exc.orig_exc, GradcliError):
            raise exc.orig_exc from None
        raise ParseError("invalid syntax", line=chunk.line, column=chunk.column) from None
    except rt.LarkError:
        raise ParseError("invalid syntax", line=chunk.line, column=chunk.column) from None
    node = _resolve(raw, chunk) if type(raw) is _Assignment else raw
    # Every non-leaf node owns at least one character of its own (an
    # operator, a bracket, a sign, a number), so a short statement cannot be
    # deep and the walk is skipped.
    if len(chunk.text) > MAX_DEPTH:
        _check_depth(node)
    return Statement(node, chunk.text, chunk.line, chunk.column)


def _chunks(text: str) -> list[_Chunk]:
    if len(text) > MAX_INPUT:
        line = text.count("\n", 0, MAX_INPUT) + 1
        column = MAX_INPUT - text.rfind("\n", 0, MAX_INPUT)
        raise ParseLimitError(
            f"input longer than {MAX_INPUT:,} characters", line=line, column=column
        )
    # A byte-order mark (a file saved by some Windows editors, read as UTF-8)
    # is invisible to the user, so it takes no column either.
    return _split(text[1:] if text.startswith("\ufeff") else text)


def parse(text: str) -> list[Statement]:
    """Parse every statement in ``text``, in order.

    Statements are separated by ';' and by newlines outside brackets; '#'
    starts a comment that runs to the end of the line; blank statements are
    skipped. Raises ParseError (line and column 1-based, counted in ``text``)
    for the first statement that does not parse, and ParseLimitError (a
    ParseError and a LimitError) for input past MAX_INPUT or MAX_DEPTH.
    """
    return [_parse_chunk(chunk) for chunk in _chunks(text)]


def parse_each(text: str) -> list[Statement | BadStatement]:
    """Like ``parse``, but a statement that fails becomes a BadStatement in
    its place and the others still parse (the CLI runs every statement).
    Only a text longer than MAX_INPUT raises."""
    return _parse_each(text, [RECOVERY_BUDGET])


RECOVERY_BUDGET = 1_000_000
"""Characters that finding where unclosed brackets end may parse again, in all:
each stray bracket parses the text after it once more, and hostile input
(hundreds of long lines, each leaving one open) must not take minutes."""


def _parse_each(text: str, budget: list[int]) -> list[Statement | BadStatement]:
    results: list[Statement | BadStatement] = []
    for chunk in _chunks(text):
        try:
            results.append(_parse_chunk(chunk))
        except GradcliError as error:
            results.extend(_unclosed_and_the_rest(chunk, error, budget)
                           or _past_limit_and_the_rest(chunk, error, budget)
                           or [BadStatement(error, chunk.text, chunk.line, chunk.column)])
    return results


_NEVER_CLOSED = " was never closed"


def _unclosed_and_the_rest(chunk: _Chunk, error: GradcliError,
                           budget: list[int]) -> list[Statement | BadStatement]:
    """A bracket left open makes the lines after it part of its statement, so one
    stray '(' in a script took every later line into one failed statement. When
    the statement fails at the start of a later line, and the text from that
    line on parses by itself, the bracket is the error (as Python says) and the
    rest are statements of their own; else [] (the error stands as it is)."""
    if type(error) is not ParseError or error.line is None or (
            error.line <= chunk.line and not error.message.endswith(_NEVER_CLOSED)):
        return []
    lines = chunk.text.split("\n")
    never = first_unclosed(lines)
    if never is not None and never[0] < len(lines) - 1:
        # closed nowhere after it (the chunk ran to the end of the text): its
        # line is the statement that failed, whatever the parser tripped on later
        return _unclosed_head(chunk, lines, never, never[0] + 1, budget)
    k = error.line - chunk.line  # the failing line, within the chunk
    if k >= len(lines) or error.column != len(lines[k]) - len(lines[k].lstrip()) + 1:
        return []
    opener = first_unclosed(lines[:k])
    if opener is None:
        return []
    return _unclosed_head(chunk, lines, opener, k, budget, strict=True)


def _past_limit_and_the_rest(chunk: _Chunk, error: GradcliError,
                             budget: list[int]) -> list[Statement | BadStatement]:
    """A statement past a limit (nesting, length) inside a bracket that is never
    closed would take every later line into its one error: it ends instead with
    the line where it went past the limit, and the lines after it are statements
    of their own, as for an unclosed bracket; else [] (the error stands)."""
    if not isinstance(error, ParseLimitError) or error.line is None:
        return []
    lines = chunk.text.split("\n")
    if len(lines) < 2 or first_unclosed(lines) is None:
        return []  # closed within the statement: it took no one else's lines
    last = error.line - chunk.line  # the line of the bracket too deep
    if error.message.startswith("statement longer"):
        last, length = 0, len(lines[0])
        while length <= MAX_STATEMENT:  # to the line that goes past it
            last += 1
            length += 1 + len(lines[last])
    if last >= len(lines) - 1:
        return []
    rest_text = "\n" * (chunk.line + last) + "\n".join(lines[last + 1:])
    if len(rest_text) > budget[0]:
        return []
    budget[0] -= len(rest_text)
    head = "\n".join(lines[:last + 1]).rstrip()
    return [BadStatement(error, head, chunk.line, chunk.column), *_parse_each(rest_text, budget)]


def _unclosed_head(chunk: _Chunk, lines: list[str], opener: tuple[int, int, str], k: int,
                   budget: list[int], strict: bool = False) -> list[Statement | BadStatement]:
    """The chunk's lines before ``k`` as one statement that failed at the
    ``opener`` it leaves unclosed, then the lines from ``k`` on parsed as
    statements of their own; [] if that is over the budget or, ``strict``,
    if the first of them fails too (other than by an unclosed bracket)."""
    rest_text = "\n" * (chunk.line + k - 1) + "\n".join(lines[k:])
    if len(rest_text) > budget[0]:
        return []
    budget[0] -= len(rest_text)
    rest = _parse_each(rest_text, budget)
    if strict and (not rest or (isinstance(rest[0], BadStatement)
                                and not rest[0].error.message.endswith(_NEVER_CLOSED))):
        return []
    head = "\n".join(lines[:k]).rstrip()
    bad = _never_closed_at(chunk, opener)
    return [BadStatement(bad, head, chunk.line, chunk.column), *rest]


def _never_closed(chunk: _Chunk) -> ParseError | None:
    """At the end of a statement that leaves a bracket open, the bracket is the
    error, as Python says ("unexpected end of input" pointed past it)."""
    opener = first_unclosed(chunk.text.split("\n"))
    return None if opener is None else _never_closed_at(chunk, opener)


def _never_closed_at(chunk: _Chunk, opener: tuple[int, int, str]) -> ParseError:
    i, column, char = opener
    if i == 0:
        column += chunk.column - 1
    return ParseError(f"'{char}'{_NEVER_CLOSED}", line=chunk.line + i, column=column)


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
