"""The plan that carries x's series to y over numbered slots, and its replay
through the rules."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from ..backend import get_array_module
from ..fpe import op_label
from ..graph import Function, Variable
from ..ops import Div, MatMul, Mul, Pow
from ..running import operation, rename
from .rows import Arena, Redo, block_state, lift_to, zero_rows
from .structural import ELEMENTWISE_STRUCTURAL, STRUCTURAL_RULES

_NO_CONTEXT = contextlib.nullcontext()


def _path(y: Variable, x: Variable) -> list[Function]:
    """The Functions between x and y (those y depends on that depend on x), in order."""
    if y.creator is None or y is x:
        return []
    funcs: list[Function] = []
    stack = [y.creator]
    seen = {id(y.creator)}
    while stack:
        f = stack.pop()
        funcs.append(f)
        for v in f.inputs:
            c = v.creator
            if c is not None and v is not x and id(c) not in seen:
                seen.add(id(c))
                stack.append(c)
    funcs.sort(key=lambda f: f.generation)
    dep = {id(x)}
    path = []
    for f in funcs:
        for v in f.inputs:
            if id(v) in dep:
                path.append(f)
                for ref in f.outputs:
                    out = ref()
                    if out is not None:
                        dep.add(id(out))
                break
    return path


def multiplies_two_series(y: Variable, x: Variable) -> bool:
    """Whether y multiplies two expressions in x (``*``, ``/``, ``**`` or ``@``
    with x on both sides): the convolution of their series is where high orders
    lose digits to cancellation (sin(x)*exp(x) is 5% off at order 100). A
    built-in of x, of a built-in of x, a sum or a constant multiple keeps them:
    every built-in of a linear input, at orders 40 and 60 at four points of its
    domain, was within 2e-14 of mpmath, and exp(sin(x)) and 1/(1+x^2) at 0.7
    within 2e-15."""
    dep = {id(x)}
    for f in _path(y, x):
        if isinstance(f, (Mul, Div, Pow, MatMul)) and sum(id(v) in dep for v in f.inputs) > 1:
            return True
        for ref in f.outputs:
            out = ref()
            if out is not None:
                dep.add(id(out))
    return False


class Plan:
    """The steps that carry x's series to y, over numbered slots.

    ``variables[i]`` is the Variable in slot i (x is slot 0); a step is
    ``(label, f, rule, erule, lift, ins, at)``: the operation's name for fpe.py,
    the Function, its structural rule or its registry rule, whether its inputs'
    rows are lifted to the output's ndim (elementwise operations), its inputs'
    slots and its output's slot. Slots make a replay list lookups, which a
    blockwise replay repeats for every block.
    """

    __slots__ = ("variables", "steps", "y_at", "_at", "_dead")

    def __init__(self, x: Variable) -> None:
        self.variables: list[Variable] = [x]
        self.steps: list[tuple[str, Function, Any, Any, bool, tuple[int, ...], int]] = []
        self.y_at = 0
        self._at = {id(x): 0}
        self._dead: list[tuple[int, ...]] | None = None

    def dead(self) -> list[tuple[int, ...]]:
        """For each step, the slots whose series no later step reads (y's excepted)."""
        if self._dead is None:
            last = {}
            for j, step in enumerate(self.steps):
                for i in step[5]:
                    last[i] = j
            dead: list[list[int]] = [[] for _ in self.steps]
            for i, j in last.items():
                if i != self.y_at:
                    dead[j].append(i)
            self._dead = [tuple(d) for d in dead]
        return self._dead

    def at(self, v: Variable) -> int:
        i = self._at.get(id(v))
        if i is None:
            i = self._at[id(v)] = len(self.variables)
            self.variables.append(v)
        return i

    def data(self) -> list[Any]:
        return [v.data for v in self.variables]


def make_plan(y: Variable, x: Variable) -> Plan | None:
    """The replay's plan from x to y, or None when a step has no rule."""
    scalar_x = x.data.size == 1
    plan = Plan(x)
    for f in _path(y, x):
        cls = type(f)
        rule = STRUCTURAL_RULES.get(cls)
        erule = None
        if rule is None:
            erule = getattr(cls, "taylor_rule", None)
            if erule is None:
                return None
            lift = True
        else:
            lift = cls in ELEMENTWISE_STRUCTURAL
            if not lift and not scalar_x:
                return None  # mixes the elements of an array x: backprop's business
        if len(f.outputs) != 1:
            return None
        out = f.outputs[0]()
        if out is None:
            continue
        if out.data.dtype.kind != "f":
            return None
        ins = tuple(plan.at(v) for v in f.inputs)
        plan.steps.append((_LABELS.get(cls) or _label(f), f, rule, erule, lift, ins,
                           plan.at(out)))
    plan.y_at = plan.at(y)
    return plan


_LABELS: dict[type, str] = {}


def _label(f: Function) -> str:
    label = _LABELS[type(f)] = op_label(f)
    return label


@operation("derivative", True)  # fpe.py: a nan here is a derivative's
def replay_plan(plan: Plan, data: list[Any], seed: Any, n: int, target: Any = None) -> Any:
    """Run the rules on the values ``data`` (by slot: the recorded values, or one
    block of them); returns y's higher coefficients (None: y is constant).

    ``target``, when given, is offered to y's rule for its result rows (see
    rows_out): the returned array is then ``target`` itself."""
    vals: list[Any] = [None] * len(data)
    vals[0] = seed
    y_at = plan.y_at
    arena = getattr(block_state, "arena", None)
    if arena is not None:
        dead = plan.dead()
        owners: list[Any] = [None] * len(data)
        refs: dict[int, int] = {}
    changed: set[int] | None = None  # slots whose values a limit (singular.py) changed
    for j, (label, f, rule, erule, lift, ins_at, at) in enumerate(plan.steps):
        if changed is not None and not changed.isdisjoint(ins_at):
            rename(label)  # the value again: its warnings are a value's, not a derivative's
            data[at] = _forward_again(f, [data[i] for i in ins_at], data[at])
            changed.add(at)
        rename(label, True)
        y0 = data[at]
        ins = []
        live = False
        for i in ins_at:
            h = vals[i]
            if h is not None and h.shape[0]:
                live = True
                if lift and h.ndim - 1 < y0.ndim:
                    h = lift_to(h, y0.ndim)
                ins.append((data[i], h))
            else:
                ins.append((data[i], None))
        if not live:
            vals[at] = zero_rows(y0)
            continue
        if at == y_at and target is not None:
            block_state.target = target
        if arena is not None:
            mark = len(arena.taken)
        try:
            hi = erule(ins[0][0], ins[0][1], y0, n) if erule else rule(f, ins, y0, n)
        except Redo:  # a non-finite number in Python floats: NumPy reports it
            block_state.nopy = True
            try:
                hi = erule(ins[0][0], ins[0][1], y0, n) if erule else rule(f, ins, y0, n)
            finally:
                block_state.nopy = False
        finally:
            # never offered to a later rule, whatever happened: a stale block would
            # be overwritten
            block_state.target = block_state.given = None
            value0, block_state.value0 = getattr(block_state, "value0", None), None
        if value0 is not None:  # a quotient's 0/0 replaced by its limit
            data[at] = value0
            changed = changed or set()
            changed.add(at)
        vals[at] = hi
        if arena is not None:
            _release(arena, mark, hi, at, dead[j], owners, refs)
    if arena is not None and owners[y_at] is not None:
        arena.held.append(owners[y_at])  # the caller copies y's rows out first
    return vals[y_at]


def _forward_again(f: Function, args: list[Any], like: Any) -> Any:
    """f's value again, from inputs a limit changed (the caller names the
    operation for fpe.py's warnings)."""
    xp = get_array_module(like)
    ufunc = type(f).ufunc  # no state of f changes (a blockwise replay's threads share it)
    # a quotient's 0/0 here is its rule's to resolve, and warned of by the forward pass
    with np.errstate(invalid="ignore") if type(f) is Div else _NO_CONTEXT:
        y = ufunc(*args) if ufunc is not None and xp is np else f.forward(*args)
    if type(y) is tuple:
        y = y[0]
    return xp.asarray(y, dtype=like.dtype)


def _release(arena: Arena, mark: int, hi: Any, at: int, dead: tuple[int, ...],
             owners: list[Any], refs: dict[int, int]) -> None:
    """Give back to the arena the step's scratch (what it took but its rows
    ``hi`` are not), and the rows of the slots that are ``dead`` now. A buffer
    two slots share (a rule may hand on its input's rows) waits for both."""
    taken = arena.taken
    keep = arena.owner(hi)
    if len(taken) > mark:
        give = arena.give
        for buf in taken[mark:]:
            if buf is not keep:
                give(buf)
        del taken[mark:]
    if keep is not None:
        owners[at] = keep
        k = id(keep)
        refs[k] = refs.get(k, 0) + 1
    for i in dead:
        buf = owners[i]
        if buf is not None:
            owners[i] = None
            k = id(buf)
            left = refs[k] = refs[k] - 1
            if not left:
                arena.give(buf)


def is_elementwise(plan: Plan, constants_like_x: bool = True) -> bool:
    """Whether every step acts element by element, every node has x's shape and
    every constant is one number (or, with ``constants_like_x``, of x's shape)."""
    shape = plan.variables[0].data.shape
    made = {at for *_, at in plan.steps}
    for *_, lift, ins, at in plan.steps:
        if not lift or plan.variables[at].data.shape != shape:
            return False
        for i in ins:
            a = plan.variables[i].data
            if i and i not in made and a.size != 1 and (
                    not constants_like_x or a.shape != shape):
                return False
    return True
