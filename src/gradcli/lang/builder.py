"""The parse's inline transformer: gradcli.lang.ast nodes built at each LALR
reduction, with positions counted in the whole text (not the statement's)."""

from __future__ import annotations

import threading

from gradcli.errors import ParseError
from gradcli.lang.ast import (
    Array,
    Call,
    Chain,
    Implicit,
    Index,
    Name,
    Node,
    Num,
    Power,
    Prime,
    Slice,
    Unary,
)
from gradcli.lang.lalr import Token
from gradcli.lang.names import exponent_meant


class Origin(threading.local):
    """Where the statement being parsed starts, for the callbacks below
    (1, 1 for a direct ``get_parser().parse(text)``)."""

    line = 1
    column = 1


origin = Origin()



def at(token: Token) -> tuple[int, int]:
    """Absolute (line, column) of a token of the statement being parsed."""
    if token.line == 1:
        return origin.line, origin.column + token.column - 1
    return origin.line + token.line - 1, token.column


class _Keyword:
    """``name=value`` in a call's arguments, until the call is built."""

    __slots__ = ("name", "value", "line", "column")

    def __init__(self, name: str, value: Node, line: int, column: int) -> None:
        self.name, self.value, self.line, self.column = name, value, line, column


# The grammar's operator tokens, as plain interned strings for the tree.
_OPS = {op: op for op in ("+", "-", "*", "/", "@")}


class Assignment:
    """``left = right`` before the parser module decides what it is."""

    __slots__ = ("left", "equals", "right")

    def __init__(self, left: Node, equals: Token, right: Node) -> None:
        self.left, self.equals, self.right = left, equals, right


class Builder:
    """The parser's transformer: one method per rule or alias of the grammar,
    called at each LALR reduction with the rule's children (tokens whose
    names start with '_' are already dropped)."""

    def statement(self, c: list) -> Node | Assignment:
        return c[0] if len(c) == 1 else Assignment(c[0], c[1], c[2])

    def sum(self, c: list) -> Chain:
        first = c[0]
        rest = tuple(zip([_OPS[op] for op in c[1::2]], c[2::2]))
        return Chain(first, rest, first.line, first.column)

    product = sum

    def unary(self, c: list) -> Unary:
        sign, operand = c
        line, column = at(sign)
        if type(operand) is Unary:
            # Collapse a run of signs as it is reduced (innermost first), so
            # 50,000 of them make one node, not a 50,000-deep tree.
            op = "+" if operand.op == sign else "-"
            return Unary(op, operand.operand, line, column)
        return Unary(_OPS[sign], operand, line, column)

    def implicit(self, c: list) -> Implicit:
        token, operand = c
        line, column = at(token)
        return Implicit(Num(str(token), line, column), operand, line, column)

    def power(self, c: list) -> Power:
        first = c[0]
        return Power(tuple(c), first.line, first.column)

    def superscript(self, c: list) -> Power:
        """x² is x^2 and x⁻¹ is x^-1: a typeset exponent is a power."""
        base, token = c
        line, column = at(token)
        if getattr(token, "after_blank", False):  # (a lark Token, in the tests, has none)
            # x² ² reads like x²² (x^22) but would be (x²)²: neither is guessed
            raise ParseError("a typeset exponent follows what it raises with no space "
                             "between: x² is x^2, x²² is x^22, (x²)² is x^4",
                             line=line, column=column)
        digits = exponent_meant(str(token))
        exponent: Node = Num(digits.lstrip("-"), line, column)
        if digits.startswith("-"):
            exponent = Unary("-", exponent, line, column)
        return Power((base, exponent), base.line, base.column)

    def index(self, c: list) -> Index:
        target = c[0]  # c[1] is the '[' token, kept for positions
        return Index(target, tuple(c[2:]), at(c[1]), target.line, target.column)

    def slice(self, c: list) -> Slice:
        start, colon, stop = c[0], c[1], c[2]
        step = c[4] if len(c) == 5 else None
        line, column = (start.line, start.column) if start is not None else at(colon)
        return Slice(start, stop, step, line, column)

    def number(self, c: list) -> Num:
        token = c[0]
        return Num(str(token), *at(token))

    def name(self, c: list) -> Name:
        token = c[0]
        return Name(str(token), *at(token))

    def call(self, c: list) -> Call:
        token = c[0]
        args = c[1:]
        if not any(type(a) is _Keyword for a in args):
            return Call(str(token), tuple(args), *at(token))
        positional: list[Node] = []
        keywords: list[tuple[str, Node]] = []
        for a in args:
            if type(a) is _Keyword:
                if any(name == a.name for name, _ in keywords):
                    raise ParseError(f"the keyword argument '{a.name}' is given twice",
                                     line=a.line, column=a.column)
                keywords.append((a.name, a.value))
            elif keywords:
                raise ParseError("an argument without a name follows a keyword argument",
                                 line=a.line, column=a.column)
            else:
                positional.append(a)
        return Call(str(token), tuple(positional), *at(token), tuple(keywords))

    def keyword(self, c: list) -> _Keyword:
        token, _equals, value = c
        return _Keyword(str(token), value, *at(token))

    def prime(self, c: list) -> Prime:
        token, primes = c[0], c[1]
        return Prime(str(token), len(primes), tuple(c[2:]), *at(token))

    def array(self, c: list) -> Array:
        return Array(tuple(c[1:]), *at(c[0]))
