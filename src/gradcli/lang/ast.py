"""The syntax tree that gradcli.lang.parser builds and the evaluator consumes.

Every node is a frozen, slotted dataclass whose last two fields are the 1-based
``line`` and ``column`` of its first character in the text given to ``parse``.
A parenthesised expression has no node of its own: it is its inner node, whose
position is inside the parentheses. Positions take no part in ``==`` or
``hash`` (so ``Num("2")`` built by hand equals one parsed from "x = 2"), and
default to 0, meaning "no position", for nodes made by code rather than parsed.

Depth is bounded by the parser: no tree it returns is deeper than
``gradcli.lang.parser.MAX_DEPTH`` nodes, so a consumer may recurse. Long runs
stay flat: ``1+1+...+1`` is one ``Chain`` and ``2**2**...**2`` one ``Power``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


def _pos() -> int:
    # A field factory rather than a constant, so the two position fields are
    # declared the same way in every node and stay out of comparisons.
    return field(default=0, compare=False)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Num:
    """A number literal exactly as typed: "2", "2.5", ".5", "1e-3", "2."."""

    text: str
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Name:
    """A name: a variable, a constant such as pi, or ans."""

    id: str
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Chain:
    """``first op1 x1 op2 x2 ...``, evaluated left to right.

    One level of the grammar per chain: the sum level (ops '+', '-') or the
    product level ('*', '/', '@'). ``(a + b) + c`` keeps its inner Chain.
    """

    first: Node
    rest: tuple[tuple[str, Node], ...]
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Power:
    """``a ** b ** c`` (or ``^``) as (a, b, c): right-associative, so the
    consumer evaluates from the right: a ** (b ** c). At least two operands."""

    operands: tuple[Node, ...]
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Unary:
    """``-x`` or ``+x``. A run of signs is one Unary with the net sign:
    ``--x`` is Unary('+', x); an operand is never itself a Unary."""

    op: str
    operand: Node
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Implicit:
    """An implicit product: a number literal written against a name or '(':
    ``2x``, ``3(x + 1)``, ``2pi``, ``2sin(x)``. Binds tighter than '*' and
    '/', looser than '**': ``2x^2`` is Implicit(2, Power(x, 2))."""

    number: Num
    operand: Node
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Call:
    """``f(a, b)``: a built-in or a user-defined function; func is a plain name."""

    func: str
    args: tuple[Node, ...]
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Prime:
    """``f'(a)``, ``f''(a)``: the order-th derivative of a defined function."""

    func: str
    order: int
    args: tuple[Node, ...]
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Slice:
    """``start:stop:step`` inside an index; a missing part is None."""

    start: Node | None
    stop: Node | None
    step: Node | None
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Index:
    """``v[0]``, ``A[1, 0]``, ``v[1:3]``, ``A[:, 0]``; ``v[0][1]`` nests."""

    target: Node
    indices: tuple[Node | Slice, ...]
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Array:
    """``[a, b, c]``; ``[[1, 2], [3, 4]]`` is an Array of Arrays; ``[]`` is allowed."""

    items: tuple[Node, ...]
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Assign:
    """``x = 2``: bind a name."""

    name: str
    value: Node
    line: int = _pos()
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Define:
    """``f(x, y) = body``: define a function; params are distinct names
    (possibly none: ``f() = 1``)."""

    name: str
    params: tuple[str, ...]
    body: Node
    line: int = _pos()
    column: int = _pos()


# Any expression; Slice only ever appears among Index.indices.
Node = Num | Name | Chain | Power | Unary | Implicit | Call | Prime | Index | Array
Expr = Node
# What one statement holds.
StatementNode = Node | Assign | Define


def children(node: StatementNode | Slice) -> tuple[Node | Slice, ...]:
    """The direct sub-nodes of ``node``, left to right."""
    kind = type(node)
    if kind is Num or kind is Name:
        return ()
    if kind is Chain:
        return (node.first, *(operand for _, operand in node.rest))
    if kind is Power:
        return node.operands
    if kind is Unary or kind is Implicit:
        return (node.operand,) if kind is Unary else (node.number, node.operand)
    if kind is Call or kind is Prime:
        return node.args
    if kind is Index:
        return (node.target, *node.indices)
    if kind is Slice:
        return tuple(part for part in (node.start, node.stop, node.step) if part is not None)
    if kind is Array:
        return node.items
    if kind is Assign:
        return (node.value,)
    if kind is Define:
        return (node.body,)
    raise TypeError(f"not a gradcli syntax node: {node!r}")


def walk(node: StatementNode | Slice) -> Iterator[StatementNode | Slice]:
    """Every node under ``node`` (itself included), parents before children,
    left to right. Iterative, so it works on any tree whatever its depth."""
    stack: list[StatementNode | Slice] = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))
