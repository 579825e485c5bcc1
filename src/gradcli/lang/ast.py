"""The syntax tree that gradcli.lang.parser builds and the evaluator consumes.

Every node is a frozen, slotted Record whose last two fields are the 1-based
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

from collections.abc import Iterator, Mapping
from typing import Any

from gradcli.record import Record


class _Node(Record):
    _uncompared = ("line", "column")


class Num(_Node):
    """A number literal exactly as typed: "2", "2.5", ".5", "1e-3", "2."."""

    text: str
    line: int = 0
    column: int = 0


class Name(_Node):
    """A name: a variable, a constant such as pi, or ans."""

    id: str
    line: int = 0
    column: int = 0


class Chain(_Node):
    """``first op1 x1 op2 x2 ...``, evaluated left to right.

    One level of the grammar per chain: the sum level (ops '+', '-') or the
    product level ('*', '/', '@'). ``(a + b) + c`` keeps its inner Chain.
    """

    first: Node
    rest: tuple[tuple[str, Node], ...]
    line: int = 0
    column: int = 0


class Power(_Node):
    """``a ** b ** c`` (or ``^``) as (a, b, c): right-associative, so the
    consumer evaluates from the right: a ** (b ** c). At least two operands."""

    operands: tuple[Node, ...]
    line: int = 0
    column: int = 0


class Unary(_Node):
    """``-x`` or ``+x``. A run of signs is one Unary with the net sign:
    ``--x`` is Unary('+', x); an operand is never itself a Unary."""

    op: str
    operand: Node
    line: int = 0
    column: int = 0


class Implicit(_Node):
    """An implicit product: a number literal written against a name or '(':
    ``2x``, ``3(x + 1)``, ``2pi``, ``2sin(x)``. Binds tighter than '*' and
    '/', looser than '**': ``2x^2`` is Implicit(2, Power(x, 2))."""

    number: Num
    operand: Node
    line: int = 0
    column: int = 0


class Call(_Node):
    """``f(a, b)``: a built-in or a user-defined function; func is a plain name.
    ``keywords`` are the (name, value) arguments written ``name=value`` after
    the others (``max(A, axis=0)``)."""

    func: str
    args: tuple[Node, ...]
    line: int = 0
    column: int = 0
    keywords: tuple[tuple[str, Node], ...] = ()


class Prime(_Node):
    """``f'(a)``, ``f''(a)``: the order-th derivative of a defined function."""

    func: str
    order: int
    args: tuple[Node, ...]
    line: int = 0
    column: int = 0


class Slice(_Node):
    """``start:stop:step`` inside an index; a missing part is None."""

    start: Node | None
    stop: Node | None
    step: Node | None
    line: int = 0
    column: int = 0


class Index(_Node):
    """``v[0]``, ``A[1, 0]``, ``v[1:3]``, ``A[:, 0]``; ``v[0][1]`` nests.

    ``bracket`` is the (line, column) of its '[', where an indexing error
    points: the target's own place is inside the parentheses of ``(a+b)[0]``.
    """

    _uncompared = ("bracket", "line", "column")
    target: Node
    indices: tuple[Node | Slice, ...]
    bracket: tuple[int, int] = (0, 0)
    line: int = 0
    column: int = 0


class Array(_Node):
    """``[a, b, c]``; ``[[1, 2], [3, 4]]`` is an Array of Arrays; ``[]`` is allowed."""

    items: tuple[Node, ...]
    line: int = 0
    column: int = 0


class Assign(_Node):
    """``x = 2``: bind a name."""

    name: str
    value: Node
    line: int = 0
    column: int = 0


class Define(_Node):
    """``f(x, y) = body``: define a function; params are distinct names
    (possibly none: ``f() = 1``)."""

    name: str
    params: tuple[str, ...]
    body: Node
    line: int = 0
    column: int = 0


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
    if kind is Call:
        return (*node.args, *(value for _, value in node.keywords))
    if kind is Prime:
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


def free_names(node: Any, functions: Mapping[str, Any] | None = None) -> list[str]:
    """Variable names used in ``node``, in order of first use (no function names).

    With ``functions``, the names that the user functions ``node`` calls use
    (their bodies, parameters aside; and the functions those call) count too,
    after the names written in ``node`` itself: ``g(a) = a*x`` makes ``g(2)``
    depend on x, and with ``f(t) = a*t``, ``f(x)*b`` gives x, b, a.
    """
    written: dict[str, None] = {}
    through: dict[str, None] = {}
    visited: set[tuple[str, tuple[str, ...]]] = set()

    def visit(tree: Any, params: tuple[str, ...], diffs: tuple[str, ...],
              seen: dict[str, None]) -> None:
        # params: the parameters of the function whose body this is; diffs: the
        # names bound by diff(expr, x, n, a) around it, which a called function's
        # body sees too (a caller's parameters it does not)
        stack = [(tree, diffs)]
        while stack:
            n, around = stack.pop()
            if isinstance(n, Name):
                if n.id not in params and n.id not in around:
                    seen.setdefault(n.id)
                continue
            if functions and isinstance(n, (Call, Prime)) and n.func in functions \
                    and (n.func, around) not in visited:
                visited.add((n.func, around))
                definition = functions[n.func]
                visit(definition.body, definition.params, around, through)
            parts = [(child, around) for child in children(n)]
            if isinstance(n, Call) and n.func == "diff" and len(n.args) == 4 \
                    and isinstance(n.args[1], Name):
                # diff(expr, x, n, a) binds x to a inside expr: x is not free there
                x = n.args[1].id
                parts = [(n.args[0], (*around, x)), (n.args[2], around), (n.args[3], around)]
            if isinstance(n, Call) and n.func == "roots" and len(n.args) == 4 \
                    and isinstance(n.args[1], Name):
                # roots(expr, x, a, b) binds x inside expr, as diff does
                x = n.args[1].id
                parts = [(n.args[0], (*around, x)), (n.args[2], around), (n.args[3], around)]
            stack.extend(reversed(parts))

    visit(node, (), (), written)
    return [*written, *(name for name in through if name not in written)]
