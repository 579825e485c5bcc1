"""Text to syntax trees: split into statements, parse each with the LALR parser.

Timings, measured with time.perf_counter on the shared development box
(Python 3.11, NumPy already imported; a plain Python loop runs about 5x
slower there than on a current laptop):
    import this module and what it needs:                    4-6 ms
    build the parser (its tables imported):                  0.4 ms
    first parse() in a process (the lexer's regex compiled): 0.6 ms
    one parse() of "x**4 - 2*x**2", parser already built:    0.04 ms
    one parse() of 100,000 characters "x+x+...+x":           0.4 s
Parse time is linear in the number of tokens (~8 us each there), so a text
at MAX_INPUT made of one-character tokens would take about 8 s there, so
one statement is limited to MAX_STATEMENT characters; a whole text (a
script on standard input) may hold many statements, up to MAX_INPUT
characters.

How a text becomes statements, and why:
- The bracket scanner (gradcli.lang.brackets, which skips comments) splits
  the text at ';' and at newlines outside brackets, drops
  the comment that ends a statement and measures bracket nesting. The parser
  never sees a statement nested past MAX_DEPTH, and one bad statement cannot hide
  the others (``parse_each``). Newlines inside brackets do not split, so
  ``[[1, 2],\\n [3, 4]]`` is one statement, as the REPL's multi-line input needs.
- Each statement is then parsed by ONE LALR parser (gradcli.lang.lalr),
  built once per process, whose transformer builds gradcli.lang.ast nodes
  during the parse: no parse tree, and no recursion anywhere (the LALR loop
  keeps its own stack), so 50,000 signs or 20,000 powers in a row cannot
  overflow.
- The parser numbers lines within the statement it was given; the callbacks
  (gradcli.lang.builder) add the statement's own line and column, kept in a
  thread-local because the one transformer serves every parse in the process.
- A statement that fails is worded by gradcli.lang.syntax_errors.

Where the parser's code comes from, and why: see gradcli.lang.grammar.
"""

from __future__ import annotations

import threading

from gradcli.errors import GradcliError, LimitError, ParseError
from gradcli.lang.ast import (
    Assign,
    Call,
    Define,
    Name,
    Num,
    StatementNode,
    children,
)
from gradcli.lang.brackets import marks
from gradcli.lang.builder import Assignment, Builder, origin
from gradcli.lang.lalr import Parser, SyntaxFailure
from gradcli.lang.syntax_errors import (
    LOOKALIKES,
    NEVER_CLOSED,
    Chunk,
    first_unclosed,
    never_closed_at,
    quote,
    syntax_error,
)
from gradcli.record import Record

__all__ = [
    "MAX_DEPTH",
    "MAX_INPUT",
    "MAX_STATEMENT",
    "LOOKALIKES",
    "BadStatement",
    "ParseLimitError",
    "Statement",
    "first_unclosed",
    "get_parser",
    "parse",
    "parse_each",
]

from ..limits import MAX_DEPTH, MAX_INPUT, MAX_STATEMENT


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


def _split(text: str) -> list[Chunk]:
    chunks: list[Chunk] = []
    depth = 0
    line, line_start = 1, 0
    seg_start, seg_line, seg_line_start = 0, 1, 0
    too_deep: GradcliError | None = None

    def flush(end: int, closed: bool = True) -> None:
        segment = text[seg_start:end]
        if closed:
            # the comment that ends the statement (one inside brackets stays:
            # the parser ignores it)
            comment = segment.find("#", segment.rfind("\n") + 1)
            if comment >= 0:
                segment = segment[:comment]
        body = segment.lstrip()
        if body:
            # No newline can precede `body` within the segment: a newline
            # outside brackets would have ended the segment.
            column = seg_start + (len(segment) - len(body)) - seg_line_start + 1
            chunks.append(Chunk(body.rstrip(), seg_line, column, too_deep))

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
            # An unmatched closer is the parser's to report; never go negative, so
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
        # A ';' or '#' inside brackets stays in the statement: the parser ignores the
        # comment and reports the ';' with its position.
    flush(len(text), closed=depth == 0)
    return chunks


# --------------------------------------------------------------------------
# The parser, built once

_parser: Parser | None = None
_parser_lock = threading.Lock()


def get_parser() -> Parser:
    """The process's one LALR parser, built on first use (see
    gradcli.lang.grammar for where its tables come from)."""
    global _parser
    if _parser is None:
        with _parser_lock:
            if _parser is None:
                from gradcli.lang import _tables

                _parser = Parser(_tables, Builder())
    return _parser


# --------------------------------------------------------------------------
# Statements


def _resolve(raw: Assignment, chunk: Chunk) -> Assign | Define:
    left, right = raw.left, raw.right
    if type(left) is Name:
        return Assign(left.id, right, left.line, left.column)
    target = chunk.text[: raw.equals.start_pos].rstrip()
    if type(left) is Call:
        seen: set[str] = set()
        for arg in left.args:
            if type(arg) is not Name:
                raise ParseError(
                    f"cannot assign to {quote(target)}: parameters must be plain names",
                    line=arg.line,
                    column=arg.column,
                )
            if arg.id in seen:
                raise ParseError(
                    f"cannot assign to {quote(target)}: parameter '{arg.id}' appears twice",
                    line=arg.line,
                    column=arg.column,
                )
            seen.add(arg.id)
        params = tuple(arg.id for arg in left.args)  # type: ignore[union-attr]
        return Define(left.func, params, right, left.line, left.column)
    raise ParseError(f"cannot assign to {quote(target)}", line=left.line, column=left.column)


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


def _parse_chunk(chunk: Chunk) -> Statement:
    if chunk.error is not None:
        raise chunk.error
    if len(chunk.text) > MAX_STATEMENT:
        raise ParseLimitError(
            f"statement longer than {MAX_STATEMENT:,} characters",
            line=chunk.line,
            column=chunk.column,
        )
    parser = get_parser()
    origin.line, origin.column = chunk.line, chunk.column
    try:
        raw = parser.parse(chunk.text)
    except SyntaxFailure as exc:
        raise syntax_error(exc, chunk) from None
    node = _resolve(raw, chunk) if type(raw) is Assignment else raw
    # Every non-leaf node owns at least one character of its own (an
    # operator, a bracket, a sign, a number), so a short statement cannot be
    # deep and the walk is skipped.
    if len(chunk.text) > MAX_DEPTH:
        _check_depth(node)
    return Statement(node, chunk.text, chunk.line, chunk.column)


def _chunks(text: str) -> list[Chunk]:
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


def _unclosed_and_the_rest(chunk: Chunk, error: GradcliError,
                           budget: list[int]) -> list[Statement | BadStatement]:
    """A bracket left open makes the lines after it part of its statement, so one
    stray '(' in a script took every later line into one failed statement. When
    the statement fails at the start of a later line, and the text from that
    line on parses by itself, the bracket is the error (as Python says) and the
    rest are statements of their own; else [] (the error stands as it is)."""
    if type(error) is not ParseError or error.line is None or (
            error.line <= chunk.line and not error.message.endswith(NEVER_CLOSED)):
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


def _past_limit_and_the_rest(chunk: Chunk, error: GradcliError,
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


def _unclosed_head(chunk: Chunk, lines: list[str], opener: tuple[int, int, str], k: int,
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
                                and not rest[0].error.message.endswith(NEVER_CLOSED))):
        return []
    head = "\n".join(lines[:k]).rstrip()
    bad = never_closed_at(chunk, opener)
    return [BadStatement(bad, head, chunk.line, chunk.column), *rest]
