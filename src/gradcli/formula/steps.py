"""Derivation steps: how a derivative's formula was obtained, rule by rule.

The steps are recorded by the one differentiator (diff.py) as it applies
each rule; nothing here differentiates. Each step names its rule
(RULES), the part it was applied to (``of``), the result, and the rule's
form: the result with each part's own derivative left as ``d/dx(part)``
(``cos(3*x)*d/dx(3*x)``), shown where that differs from the result. A part
met twice is differentiated once, so its step is shown once. A built-in's
rule is named from its registry entry (``sin' = cos``), so a new function
has steps with nothing more written. The last step of each order is
``simplify`` where tidying changed the formula: its result is what ``diff``
gives.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..core.functions import REGISTRY  # (the module that fills the registry)
from ..errors import GradcliError
from ..record import Record, factory
from .diff import SIZE_LIMIT, derivatives
from .expr import ADD, ZERO, Expr, Sym, add, as_expr, call
from .printing import LATEX, PLAIN, Style, write

RULES = ("constant", "variable", "sum", "constant multiple", "power", "product", "quotient",
         "chain", "elementary", "simplify")
"""The rules a step may name: a built-in applied to the variable itself is
``elementary``, to anything else ``chain``."""


class Step(Record):
    """One rule applied: d/d``var``(``of``) = ``result`` (``form`` before the
    parts' derivatives are put in; ``function``: the built-in of a chain or
    elementary rule)."""

    rule: str
    of: Expr
    result: Expr
    form: tuple[Expr, ...] | None = None
    function: str | None = None
    top: bool = False  # the whole formula of its order, not a part of it


class Derivation(Record):
    """The steps of one order: d/d``var``(``of``), ending at ``formula``."""

    order: int
    var: str
    of: Expr
    steps: list[Step] = factory(list)
    formula: Expr | None = None


class Recorder:
    """What ``diff._Differentiator`` reports to: each rule in the order the
    parts were first met (a rule before the parts it leaves to be done)."""

    def __init__(self, var: str) -> None:
        self.var = var
        self.placeholder = f"d/d{var}"  # the name of d/dx(u) in a rule's form
        self.orders: list[Derivation] = []
        self._slots: list[Step | None] = []
        self._depth = 0

    def open(self) -> int:
        self._slots.append(None)
        self._depth += 1
        return len(self._slots) - 1

    def close(self, slot: int, rule: str, of: Expr, result: Expr,
              form: tuple[Expr, ...] | None, function: str | None) -> None:
        self._depth -= 1
        top = self._depth == 0
        # d/dx(x) = 1 and d/dx(c) = 0 inside a rule are written in its form already
        if top or rule not in ("variable", "constant"):
            if form is not None:
                form = tuple(t for t in form if t != ZERO)
                if add(*form) == result:  # nothing left to put in
                    form = None
            self._slots[slot] = Step(rule, of, result, form, function, top)

    def finish(self, order: int, of: Expr, raw: Expr, tidied: Expr) -> None:
        steps = [s for s in self._slots if s is not None]
        if tidied != raw:
            steps.append(Step("simplify", raw, tidied))
        self.orders.append(Derivation(order, self.var, of, steps, tidied))
        self._slots = []
        self._depth = 0


def derivation(x: Expr, var: str, order: int = 1, limit: int = SIZE_LIMIT) -> list[Derivation]:
    """The steps of the derivatives of orders 1..order of ``x`` by ``var``,
    one Derivation an order; each ends at what ``derivatives`` gives."""
    recorder = Recorder(var)
    derivatives(x, var, order, limit, recorder)
    return recorder.orders


@functools.cache
def rule_text(name: str) -> str:
    """A built-in's derivative as its registry entry has it: ``sin' = cos``,
    ``sec' = sec*tan``; ``log'(x) = 1/x`` where x is more than an argument."""
    x = Sym("x")
    entry = REGISTRY.get(name)
    try:
        text = write(as_expr(entry.derivative(x, call(name, x))), PLAIN)[0]  # type: ignore[union-attr]
    except (AttributeError, TypeError, GradcliError):  # a rule formulas cannot write
        return f"{name}'"
    bare = re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*)\(x\)", r"\1", text)
    if re.search(r"\bx\b|[/^]", bare):
        return f"{name}'(x) = {text}"
    return f"{name}' = {bare}"


def note(step: Step) -> str:
    """The words beside a step: ``product rule``, ``chain rule, sin' = cos``."""
    if step.rule == "simplify":
        return "simplified"
    if step.rule == "elementary" and step.function:
        return rule_text(step.function)
    if step.rule == "chain" and step.function:
        return f"chain rule, {rule_text(step.function)}"
    if step.rule in ("sum", "power", "product", "quotient"):
        return f"{step.rule} rule"
    return step.rule


def _latex_call(name: str, arg: str) -> tuple[str, int]:
    text, rank = LATEX.call(name, arg)
    if name.startswith("d/d"):  # the placeholder d/dx(u) of a rule's form
        return rf"\frac{{d}}{{d{name[3:]}}}\left({arg}\right)", rank
    return text, rank


_LATEX_STEPS = Style(
    number=LATEX.number, number_rank=LATEX.number_rank, name=LATEX.name, call=_latex_call,
    paren=LATEX.paren, sqrt=LATEX.sqrt, power=LATEX.power, times=LATEX.times,
    quotient=LATEX.quotient)


def _text(x: Expr, latex: bool) -> str:
    return write(x, _LATEX_STEPS if latex else PLAIN)[0]


def _form(terms: tuple[Expr, ...], latex: bool) -> str:
    """A rule's form: its terms in the rule's order."""
    out = ""
    for t in terms:
        text = _text(t, latex)
        if t.kind == ADD and len(terms) > 1:
            text = f"({text})" if not latex else rf"\left({text}\right)"
        if not out:
            out = text
        else:
            out += f" - {text[1:]}" if text.startswith("-") else f" + {text}"
    return out


def _right(step: Step, latex: bool) -> str:
    return _text(step.result, latex) if step.form is None else _form(step.form, latex)


def _of(var: str, x: Expr, latex: bool, space: str = "") -> str:
    if latex:
        return _text(call(f"d/d{var}", x), True)
    return f"d/d{var}{space}({_text(x, False)})"


def lines(orders: list[Derivation]) -> list[tuple[str, str]]:
    """The derivation as (mathematics, note) lines, as the plain format
    prints them (orders one after another):

        d/dx (x^2*sin(3*x))
        = d/dx(x^2)*sin(3*x) + x^2*d/dx(sin(3*x))   product rule
          d/dx(x^2) = 2*x                            power rule
        = 2*x*sin(3*x) + 3*x^2*cos(3*x)
    """
    out: list[tuple[str, str]] = []
    for d in orders:
        out.append((_of(d.var, d.of, False, " "), ""))
        result = None
        for s in d.steps:
            if s.rule == "simplify":
                if result is not None:
                    out.append((f"= {_text(s.of, False)}", ""))
                out.append((f"= {_text(s.result, False)}", note(s)))
                result = None
                continue
            right = _right(s, False)
            if s.top:
                out.append((f"= {right}", note(s)))
                result = s.result if s.form is not None else None
            else:
                out.append((f"  {_of(d.var, s.of, False)} = {right}", note(s)))
        if result is not None:
            out.append((f"= {_text(result, False)}", ""))
    return out


def plain_lines(orders: list[Derivation], width: int = 48) -> list[str]:
    """The plain format's lines: notes in a column after the mathematics
    (``width`` at most: a longer line has its note two spaces after it)."""
    rows = lines(orders)
    column = min(max((len(m) for m, n in rows if n), default=0), width)
    return [f"{m:<{column}}  {n}".rstrip() if n else m for m, n in rows]


def latex_lines(orders: list[Derivation]) -> list[str]:
    r"""The derivation as an ``align*`` block, each step a row:
    ``\frac{d}{dx}\left(x^{2}\right) &= 2 x && \text{power rule} \\``."""
    rows: list[str] = []
    for d in orders:
        left = _of(d.var, d.of, True)
        pending = None
        for s in d.steps:
            right = _right(s, True)
            if s.rule == "simplify":
                if pending is not None:
                    rows.append(f"&= {_text(s.of, True)}")
                rows.append(f"&= {_text(s.result, True)} && \\text{{{_latex_note(s)}}}")
                pending = None
            elif s.top:
                rows.append(f"{left} &= {right} && \\text{{{_latex_note(s)}}}")
                pending = s.result if s.form is not None else None
            else:
                rows.append(f"{_of(d.var, s.of, True)} &= {right} && \\text{{{_latex_note(s)}}}")
        if pending is not None:
            rows.append(f"&= {_text(pending, True)}")
    return ["\\begin{align*}", *(r + " \\\\" for r in rows[:-1]), *rows[-1:], "\\end{align*}"]


def _latex_note(step: Step) -> str:
    return note(step).replace("^", r"\^{}").replace("_", r"\_")


def records(orders: list[Derivation]) -> list[dict[str, Any]]:
    """The steps as JSON objects: ``{"rule": "product", "of": "x^2*sin(3*x)",
    "result": "..."}``, with ``function`` for a chain or elementary rule,
    ``form`` where the rule's form differs from its result, and ``order``."""
    out = []
    for d in orders:
        for s in d.steps:
            item: dict[str, Any] = {"order": d.order, "rule": s.rule,
                                    "of": _text(s.of, False), "result": _text(s.result, False)}
            if s.form is not None:
                item["form"] = _form(s.form, False)
            if s.function is not None:
                item["function"] = s.function
            out.append(item)
    return out


def table_rows(orders: list[Derivation]) -> list[list[str]]:
    """The steps as table rows: order, rule, d/dx(of), result."""
    return [[str(d.order), note(s),
             _text(s.of, False) if s.rule == "simplify" else _of(d.var, s.of, False),
             _text(s.result, False)] for d in orders for s in d.steps]


__all__ = ["RULES", "Derivation", "Recorder", "Step", "derivation", "latex_lines", "lines",
           "note", "plain_lines", "records", "rule_text", "table_rows"]
