"""How the REPL's commands read their arguments: an order, ``wrt X``, a
curve's interval, the expressions they take; and how :funcs shows a body.

Pure text work: nothing here evaluates anything.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from ..errors import GradcliError, LimitError, UsageError
from ..limits import CURVE_MAX_ORDER as MAX_CURVE_ORDER  # as gradcli curve --order

# the optional N of :d and :plot, and what was meant as one: -1, 1.5, 1e3
_NUMBER_TEXT = r"-?[\d.]+(?:[eE][+-]?\d+)?"
_ORDER = re.compile(rf"({_NUMBER_TEXT})\s+(?=\S)")
NUMBER = re.compile(_NUMBER_TEXT)
PRIME = re.compile(r"([^\W\d]\w*)('+)")  # f' alone: its formula
_WRT = re.compile(r"\s+wrt\s+(\S+)\s*$")  # `:d g(a, b) wrt b`


def split_wrt(args: str, first_line: int, offset: int) -> tuple[str, str | None]:
    """``"g(a, b) wrt b"`` -> ("g(a, b)", "b"); a variable that is not a name is an
    error under it."""
    from ..lang.names import is_name

    m = _WRT.search(args)
    if m is None:
        return args, None
    if not is_name(m.group(1)):
        raise UsageError(f"wrt takes a variable name, not '{m.group(1)}'").at(
            first_line, offset + 1 + m.start(1))
    return args[:m.start()], m.group(1)


def split_order(args: str, default: int, first_line: int = 1,
                 offset: int = 0) -> tuple[int, str, int]:
    """``"2 sin(x)"`` -> (2, "sin(x)", 2): the order, the rest, and where it starts.
    An order that is not one is an error under it (``offset``: where ``args``
    start in the line); ``1e3`` is the whole number 1000."""
    m = _ORDER.match(args)
    if m is None:
        return default, args, 0
    try:
        value = float(m.group(1))
    except ValueError:  # "1.2.3"
        value = math.nan
    if not (value >= 0 and value.is_integer()):
        raise UsageError(f"the order must be a whole number from 0, not {m.group(1)}").at(
            first_line, offset + 1)
    from ..session.variables import order_limit  # loaded with the session

    try:
        order_limit("order", int(value))
    except LimitError as err:
        raise err.at(first_line, offset + 1) from None
    return int(value), args[m.end():], m.end()


_ATOM = r"(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?:pi|π)?|pi|π|e|inf)"
_CURVE_NUMBER = re.compile(rf"[-+]?{_ATOM}(?:[*/]{_ATOM})*")  # 0, 2pi, pi/2, -3*pi/4, inf
_WHOLE = re.compile(r"\d+")


class CurveArguments(NamedTuple):
    """``:curve``'s arguments: the expression text, the interval's ends (as
    typed) with the 1-based column of each within the arguments, the order."""

    expr: str
    ends: list[str]
    columns: list[int]
    order: int


def split_curve(args: str, first_line: int, offset: int) -> CurveArguments:
    """``:curve``'s arguments: the expression, then up to three words (A B, N,
    or A B N) after a space. Those are the trailing words that look like
    numbers (0, 2pi, -pi/2, inf) and follow no operator (``x^2 + 1`` is all
    expression); where what is left does not parse (``g(x) 0 a``), the fewest
    trailing words that leave a statement list that does. N must be a whole
    number from 0: an error under it otherwise."""
    words = [(m.group(), m.start()) for m in re.finditer(r"\S+", args)]
    numbers = _number_tail(args, words)

    def head(n: int) -> str:
        return args[: words[len(words) - n][1]] if n else args

    if not _parses(head(numbers)):
        # the most trailing words that make a whole A B [N] (-1 a, -1 a 1), else
        # the fewest that leave a statement list (so that N's error is shown)
        fit = [n for n in range(min(3, len(words) - 1), 0, -1)
               if _parses(head(n)) and _fits(words[len(words) - n:])]
        numbers = fit[0] if fit else next(
            (n for n in range(min(3, len(words) - 1) + 1) if _parses(head(n))), numbers)
    tail = words[len(words) - numbers:] if numbers else []
    expr = args[: tail[0][1]].rstrip() if tail else args
    ends, columns, order = ["-5", "5"], [], 0
    if len(tail) in (2, 3):
        ends = [w for w, _ in tail[:2]]
        columns = [start + 1 for _, start in tail[:2]]
    if len(tail) in (1, 3):
        word, start = tail[-1]
        where = (first_line, offset + 1 + start)
        if not _WHOLE.fullmatch(word):
            raise UsageError(f"the order N must be a whole number from 0 to {MAX_CURVE_ORDER}, "
                             f"as in :curve sin(x) 0 2pi 1; got {word}").at(*where)
        order = int(word)
        if order > MAX_CURVE_ORDER:
            raise UsageError(f"a curve draws derivatives to order {MAX_CURVE_ORDER} at most; "
                             f"got {order}").at(*where)
    return CurveArguments(expr, ends, columns, order)


def interval_item(session: Any, parts: CurveArguments, example: str,
                  many: str) -> tuple[str, Any, float, float]:
    """What ``:curve`` and ``:extrema`` work on: the variable, the statement to
    draw (setup statements run in ``session``) and the interval's ends; an
    error in A or B points at it. ``example`` and ``many`` word the refusal of
    several expressions."""
    from ..lang.ranges import over_range
    from ..session.curves import drawn

    var, item = session.curve_variable(drawn(parts.expr, example, many))
    try:
        a, b = over_range(var, ":".join(parts.ends), _at_ends(session.number, parts.columns))
    except UsageError as err:  # over_range's own (empty, not finite): at A
        raise err.at(1, parts.columns[0] if parts.columns else None) from None
    return var, item, a, b


def _at_ends(number: Callable[[str], float], columns: list[int]) -> Callable[[str], float]:
    """``number`` with its errors placed at the end being read (``columns``:
    where A and B start in the arguments); the defaults have no place."""
    where = iter(columns)

    def at_end(end: str) -> float:
        column = next(where, None)
        try:
            return number(end)
        except GradcliError as err:
            if column is None:
                raise
            err = copy.copy(err)
            err.line, err.column = 1, column + (err.column or 1) - 1
            raise err from None

    return at_end


def _fits(tail: list[tuple[str, int]]) -> bool:
    """Whether ``tail`` reads as N, A B or A B N: ends that parse, a whole N."""
    ends = tail[:2] if len(tail) > 1 else []
    whole = len(tail) != 2
    return all(_parses(word) for word, _ in ends) and (
        not whole or _WHOLE.fullmatch(tail[-1][0]) is not None)


def _parses(text: str) -> bool:
    from ..lang.parser import parse

    try:
        parse(text)
    except GradcliError:
        return False
    return True


def _number_tail(args: str, words: list[tuple[str, int]]) -> int:
    """Trailing words that look like numbers and follow no operator."""
    numbers = 0
    while numbers < min(3, len(words) - 1) and _CURVE_NUMBER.fullmatch(words[-1 - numbers][0]):
        numbers += 1
    while numbers:
        head = args[: words[len(words) - numbers][1]].rstrip()
        if head and head[-1] not in "+-*/^@,([=;":
            break
        numbers -= 1
    return numbers


def expressions_only(text: str, command: str) -> None:
    """A UsageError when ``text`` assigns or defines: a command that shows an
    expression's derivatives must not rebind anything on the way."""
    from ..lang import ast
    from ..lang.parser import parse_each

    try:
        statements = parse_each(text)
    except GradcliError:
        return  # the run that follows reports it, at its place
    for st in statements:
        if isinstance(getattr(st, "node", None), (ast.Assign, ast.Define)):
            raise UsageError(f"{command} takes expressions; run '{st.source}' on its own first")


def one_line(text: str) -> str:
    """A definition written over several lines, on one: comments dropped, and
    each line break with the indentation around it a single space."""
    return " ".join(" ".join(line.split("#", 1)[0].split()) for line in text.split("\n")
                    ).replace("( ", "(").replace("[ ", "[").strip()


def body_of(source: str) -> str:
    """``"f(x) = x**2"`` -> ``"x**2"`` (the definition's right side)."""
    return source.split("=", 1)[1].strip() if "=" in source else source


def without_comments(text: str) -> str:
    """A command's arguments without their comments: a '#' outside quotes ends
    its line (``:d 2 x^3 wrt x  # its curvature``). A quote that follows a
    letter is a prime (``f'(x)``), not the start of a file name."""
    lines = []
    for line in text.split("\n"):
        quote = None
        for i, char in enumerate(line):
            if quote is not None:
                quote = None if char == quote else quote
            elif char == '"' or (char == "'" and not (i and (line[i - 1].isalnum()
                                                            or line[i - 1] in "_'"))):
                quote = char
            elif char == "#":
                line = line[:i]
                break
        lines.append(line.rstrip())
    return "\n".join(lines).rstrip()
