"""The one registry of built-in functions.

An entry holds everything the rest of gradcli needs to know about a built-in:
the callable, its signature and one-line description (for ``:help`` and
completion), and for elementwise functions the derivative written in core
operations, the Taylor rule, a safe test domain and a SymPy reference used only
by the tests. ``elementwise`` turns one such entry into a DeZero ``Function``
subclass (named like DeZero's: ``Sin``, ``Asinh``) and its lower-case wrapper.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..errors import ArityError, UnknownNameError
from ..record import Record
from .backend import get_array_module
from .graph import UFUNC_OUT, Function, Variable, call_one, new_instance


class Builtin(Record):
    name: str
    signature: str  # as shown to users: "linspace(a, b, n)"
    doc: str  # one line
    call: Callable[..., Any]
    min_args: int
    max_args: int | None  # None: any number
    kind: str  # elementwise | several (elementwise of several arguments) | reduction
    # | shape | linalg | constructor
    function: type[Function] | None = None  # the generated class, elementwise only
    derivative: Callable[[Variable, Variable], Variable] | None = None
    taylor: Callable[..., Any] | None = None
    domain: tuple[float, float] | None = None  # a safe interval for tests
    reference: str | None = None  # SymPy text in x (x, y, z: several), for tests only
    aliases: tuple[str, ...] = ()  # what other tools call it (arcsin): for hints
    keywords: tuple[str, ...] = ()  # the keyword arguments it takes: max(A, axis=0)


    def check_arity(self, n: int) -> None:
        lo, hi = self.min_args, self.max_args
        if n < lo or (hi is not None and n > hi):
            if hi == lo:
                want = f"{lo} argument{'s' if lo != 1 else ''}"
            elif hi is None:
                want = f"at least {lo} argument{'s' if lo != 1 else ''}"
            else:
                want = f"{lo} to {hi} arguments"
            raise ArityError(f"{self.name} takes {want}: {self.signature}; got {n}")


class NamedConstant(float):
    """A float in a derivative rule that formulas write by name: ``log(2)``
    for ``math.log(2)``. Arrays see the float; ``formula`` is (function, argument),
    or ("", name) for a constant formulas know by name (``pi``)."""

    formula: tuple[str, float | str]

    def __new__(cls, value: float, function: str, argument: float | str) -> NamedConstant:
        self = super().__new__(cls, value)
        self.formula = (function, argument)
        return self


REGISTRY: dict[str, Builtin] = {}
POINTWISE: list[type[Function]] = []
"""Function classes besides the elementwise entries' whose output element i is
made from the inputs' elements i alone (functions.py's Several: atan2, max of
two ...), for mixing.py."""
ALIASES: dict[str, str] = {}
"""Another tool's name for a built-in -> the built-in's name (``ln`` -> ``log``)."""


def register(entry: Builtin) -> Builtin:
    if entry.name in REGISTRY:
        raise ValueError(f"built-in {entry.name!r} registered twice")
    REGISTRY[entry.name] = entry
    for alias in entry.aliases:
        ALIASES[alias] = entry.name
    return entry


def closest(name: str, candidates: Iterable[str],
            aliases: dict[str, str] | None = None) -> str | None:
    """The candidate most like ``name``, for "did you mean ...?" hints: the one
    ``name`` is another tool's word for (see ALIASES, and ``aliases`` beside
    them), else one that differs only in case, else the nearest in spelling."""
    candidates = [c for c in candidates if c != name]  # "unknown x; did you mean x?"
    meant = (aliases or {}).get(name) or ALIASES.get(name)
    if meant in candidates:
        return meant
    # spelling distance sees x and X as unlike as x and q
    folded = [c for c in candidates if c.casefold() == name.casefold()]
    if folded:
        return folded[0]
    match = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return match[0] if match else None


def lookup(name: str) -> Builtin:
    """The registry entry for ``name``; an UnknownNameError (a LookupError) if none."""
    try:
        return REGISTRY[name]
    except KeyError:
        hint = closest(name, REGISTRY)
        suffix = f"; did you mean {hint}?" if hint else ""
        raise UnknownNameError(f"unknown function '{name}'{suffix}") from None


def elementwise(
    name: str,
    *,
    forward: str | Callable[[Any, Any], Any],
    derivative: Callable[[Variable, Variable], Variable],
    doc: str,
    domain: tuple[float, float],
    reference: str,
    taylor: Callable[..., Any] | None = None,
    cls_name: str | None = None,
    aliases: tuple[str, ...] = (),
    call: Callable[[Callable[[Any], Variable]], Callable[..., Any]] | None = None,
    signature: str | None = None,
    max_args: int = 1,
    flat: bool = False,
) -> Callable[..., Any]:
    """Register an elementwise built-in; returns its wrapper (``sin(x)``).

    ``forward`` is an array-module function name ("sin") or ``f(xp, x)``;
    ``derivative(x, y)`` is dy/dx written in core operations (so it can be
    differentiated again), given the input and the output Variables.
    ``call``, given the one-argument wrapper, makes the entry's callable where
    it takes more arguments (``log(x, b)``, with ``signature`` and
    ``max_args``); the function it makes is still one of one input.
    ``flat``: the function is constant between its jumps (floor, sign), so what
    is computed from it alone is constant too: its gradient is 0 whatever the
    gradient above it (0*inf would be nan), and Taylor mode treats its output
    as a constant.
    """
    if isinstance(forward, str):
        np_func = getattr(np, forward)
        xp_name = forward
        ufunc = np_func if isinstance(np_func, np.ufunc) else None

        def _forward(self: Function, x: Any) -> Any:
            if type(x) is np.ndarray:
                return np_func(x, out=UFUNC_OUT) if ufunc is not None else np_func(x)
            return getattr(get_array_module(x), xp_name)(x)
    else:
        fwd = forward
        ufunc = None

        def _forward(self: Function, x: Any) -> Any:
            return fwd(get_array_module(x), x)

    def _backward(self: Function, gy: Variable) -> Variable:
        d = derivative(self.inputs[0], self.outputs[0]())
        return d if flat else gy * d

    def _backward_data(self: Function, gy: Any) -> Any:
        # the same derivative on arrays, for backward without create_graph;
        # d.data[()] is a NumPy scalar when 0-d (see ops.Mul._backward_data)
        d = derivative(self.inputs[0], self.outputs[0]())
        if flat:
            return d.data if isinstance(d, Variable) else d
        return gy * (d.data[()] if isinstance(d, Variable) else d)

    cls = type(
        cls_name or name.capitalize(),
        (Function,),
        {
            "__doc__": doc,
            "__module__": "gradcli.core.functions",
            "forward": _forward,
            "backward": _backward,
            "_backward_data": _backward_data,
            "op_name": name,
            "taylor_rule": staticmethod(taylor) if taylor else None,
            "ufunc": ufunc,
            "flat": flat,
        },
    )

    def wrapper(x: Any) -> Variable:
        if not isinstance(x, Variable) and hasattr(x, "__gradcli_call__"):
            return x.__gradcli_call__(name)  # a formula: the call, as a formula
        return call_one(new_instance(cls), x)  # cls()(x), one call shorter: cls has no __init__

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = doc
    wrapper.__module__ = "gradcli.core.functions"
    entry_call = call(wrapper) if call is not None else wrapper
    register(
        Builtin(
            name=name,
            signature=signature or f"{name}(x)",
            doc=doc,
            call=entry_call,
            min_args=1,
            max_args=max_args,
            kind="elementwise",
            function=cls,
            derivative=derivative,
            taylor=taylor,
            domain=domain,
            reference=reference,
            aliases=aliases,
        )
    )
    return entry_call
